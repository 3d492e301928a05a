// The model's derivatives (model/derivatives.hpp) in the file's dof order on every published URDF
// of ../shared/robots that loads as a tree (the 8 benchmark robots, floating bases included, and
// example-robot-data), at random states: against central differences with Richardson
// extrapolation of the model's own forward_dynamics and inverse_dynamics along the model's
// integrate, and the identities M M^-1 M = M (M^-1 zero on massless subtrees) and
// integrate(q0, difference(q0, q1), 1) = q1. Skipped without ../shared.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "skograph/graph/error.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "support/richardson.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;

using skograph::testing_support::kSharedRobots;

std::vector<fs::path> published_urdfs() {
  std::vector<fs::path> files;
  if (!fs::exists(kSharedRobots)) return files;
  for (const char* folder : {"benchmark", "example-robot-data"}) {
    const fs::path root = kSharedRobots / folder;
    if (!fs::exists(root)) continue;
    // The benchmark folder's own files only (its subfolders are variants of them).
    if (std::string(folder) == "benchmark") {
      for (const auto& entry : fs::directory_iterator(root))
        if (entry.path().extension() == ".urdf") files.push_back(entry.path());
    } else {
      for (const auto& entry : fs::recursive_directory_iterator(root))
        if (entry.path().extension() == ".urdf") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Normwise relative within max(1e-7, 10 x Richardson's own error estimate): the reference's
// error grows with M's condition (icub's is 1.7e7).
void expect_near(const Eigen::MatrixXd& computed,
                 const std::function<Eigen::VectorXd(int, double)>& at, const std::string& what) {
  const testing_support::RichardsonColumns columns =
      testing_support::richardson_columns(static_cast<int>(computed.cols()), at, 1e-3);
  const Eigen::MatrixXd& reference = columns.fine;
  const double estimate = (columns.fine - columns.coarse).norm();
  const double scale = std::max(reference.norm(), 1.0);
  const double tolerance = std::max(1e-7, 10.0 * estimate / scale);
  EXPECT_LE((computed - reference).norm() / scale, tolerance) << what;
}

TEST(ModelDerivatives, PublishedTreesAgreeWithRichardsonAlongTheTangent) {
  const std::vector<fs::path> files = published_urdfs();
  if (files.empty()) GTEST_SKIP() << "no ../shared/robots";
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  int checked = 0;
  for (const fs::path& file : files) {
    std::optional<Model> loaded;
    try {
      loaded.emplace(load_model(file.string(), ReadOptions{}));
    } catch (const Error&) {
      continue;  // a file this reader refuses is the readers' tests' business
    }
    const Model& model = *loaded;
    if (model.is_closed_chain()) continue;
    const int n = model.dof_count();
    if (n == 0) continue;
    const auto random = [&](double size) {
      Eigen::VectorXd v(n);
      for (int i = 0; i < n; ++i) v[i] = size * uniform(rng);
      return v;
    };
    const Eigen::VectorXd q = random(0.8), qd = random(1.0), tau = random(2.0), qdd = random(1.0);
    const Eigen::Vector3d gravity(0.3, -0.2, -9.81);
    ModelData data(model);
    const std::string name = file.filename().string();
    ForwardDerivatives fd;
    InverseDerivatives id;
    try {
      forward_dynamics_derivatives(model, data, q, qd, tau, gravity, fd);
    } catch (const SingularMassMatrixError&) {
      continue;
    }
    inverse_dynamics_derivatives(model, data, q, qd, qdd, gravity, id);
    // The articulated-body recursion's qdd, to what M's conditioning lets two solvers agree
    // (published hands put cond(M) near 1e7).
    const Eigen::VectorXd eigenvalues =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(id.mass, Eigen::EigenvaluesOnly)
            .eigenvalues();
    const double condition = eigenvalues.maxCoeff() / eigenvalues.minCoeff();
    EXPECT_LE((fd.qdd - forward_dynamics(model, data, q, qd, tau, gravity)).norm(),
              1e-12 * std::max(1.0, 1e-2 * condition) * (1.0 + fd.qdd.norm()))
        << name << " cond(M) " << condition;

    const Eigen::MatrixXd unit = Eigen::MatrixXd::Identity(n, n);
    const auto moved = [&](int j, double e) { return integrate(model, q, unit.col(j), e); };
    expect_near(
        fd.dqdd_dq,
        [&](int j, double e) {
          return forward_dynamics(model, data, moved(j, e), qd, tau, gravity);
        },
        name + " dqdd/dq");
    expect_near(
        fd.dqdd_dqd,
        [&](int j, double e) {
          return forward_dynamics(model, data, q, qd + e * unit.col(j), tau, gravity);
        },
        name + " dqdd/dqd");
    expect_near(
        id.dtau_dq,
        [&](int j, double e) {
          return inverse_dynamics(model, data, moved(j, e), qd, qdd, gravity);
        },
        name + " dtau/dq");
    expect_near(
        id.dtau_dqd,
        [&](int j, double e) {
          return inverse_dynamics(model, data, q, qd + e * unit.col(j), qdd, gravity);
        },
        name + " dtau/dqd");
    // dtau/dqdd = M and dqdd/dtau its inverse where the dofs move mass.
    const Eigen::MatrixXd mass = mass_matrix(model, data, q);
    EXPECT_LE((id.mass - mass).norm(), 1e-12 * mass.norm()) << name;
    EXPECT_LE((mass * fd.dqdd_dtau * mass - mass).norm(), 1e-8 * mass.norm()) << name;
    // The tangent's round trip.
    const Eigen::VectorXd q1 = random(0.8);
    const Eigen::VectorXd back = integrate(model, q, difference(model, q, q1), 1.0);
    EXPECT_LE(difference(model, q1, back).norm(), 1e-12) << name;
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

TEST(ModelDerivatives, RefuseWrongSizesAndNonFiniteEntries) {
  const std::vector<fs::path> files = published_urdfs();
  if (files.empty()) GTEST_SKIP() << "no ../shared/robots";
  const Model model =
      load_model((kSharedRobots / "benchmark" / "ur5.urdf").string(), ReadOptions{});
  ModelData data(model);
  const int n = model.dof_count();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(n);
  ForwardDerivatives fd;
  EXPECT_THROW(forward_dynamics_derivatives(model, data, Eigen::VectorXd::Zero(n + 1), q, q,
                                            kStandardGravity, fd),
               std::invalid_argument);
  Eigen::VectorXd bad = q;
  bad[2] = std::nan("");
  try {
    forward_dynamics_derivatives(model, data, q, bad, q, kStandardGravity, fd);
    ADD_FAILURE() << "a NaN in qd was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a finite number at dof"), std::string::npos);
  }
  EXPECT_THROW(integrate(model, q, bad, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace skograph

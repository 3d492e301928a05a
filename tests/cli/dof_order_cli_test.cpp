// The command line lists a model's joints depth first internally (rigid/tree_order.hpp)
// and maps every dof-ordered output back to the file's order. Reference: the library on the file's
// mechanism as read (no reordering). Also the mass matrix on request: sparse above 2000 dofs or
// with --mass sparse, and the dense-only bench algorithms refused for huge models.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "skograph/io/mechanism_file.hpp"
#include "skograph/io/state_reader.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/fixed_body_fusion.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/rigid/tree_order.hpp"
#include "skograph/sparse/matrix_market.hpp"
#include "support/cli_support.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using cli_test::CliRun;
using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::matrix_of;
using cli_test::run_cli;
using cli_test::vector_of;
using io_test::write_file;
using Json = nlohmann::json;

// A random tree of `links` links whose joints are listed in a shuffled order (parents after their
// children), with a spherical joint and a fixed sensor among them.
std::string shuffled_tree(int links, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::ostringstream text;
  text << "<robot name=\"shuffled\">\n  <link name=\"base\"/>\n";
  std::vector<std::string> joints;
  for (int k = 1; k <= links; ++k) {
    const double m = 1.0 + 0.1 * k;
    text << "  <link name=\"b" << k << "\"><inertial><origin xyz=\"" << u(rng) << " " << u(rng)
         << " 0.1\"/><mass value=\"" << m << "\"/><inertia ixx=\"" << 0.1 * m
         << "\" ixy=\"0\" ixz=\"0\" iyy=\"" << 0.12 * m << "\" iyz=\"0\" izz=\"" << 0.08 * m
         << "\"/></inertial></link>\n";
    const int parent = k == 1 ? 0 : static_cast<int>(rng() % static_cast<unsigned>(k - 1)) + 1;
    std::ostringstream joint;
    joint << "  <joint name=\"j" << k << "\" type=\"" << (k == 5 ? "fixed" : "continuous")
          << "\"><parent link=\""
          << (parent == 0 ? std::string("base") : "b" + std::to_string(parent))
          << "\"/><child link=\"b" << k << "\"/><origin xyz=\"" << u(rng) << " " << u(rng) << " "
          << u(rng) << "\" rpy=\"" << u(rng) << " " << u(rng) << " " << u(rng) << "\"/><axis xyz=\""
          << u(rng) << " " << u(rng) << " 1\"/></joint>\n";
    joints.push_back(joint.str());
  }
  std::reverse(joints.begin(), joints.end());
  for (const std::string& joint : joints) text << joint;
  text << "</robot>\n";
  return text.str();
}

double scaled_difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

TEST(DofOrderCli, OutputsKeepTheFilesDofOrder) {
  const std::string file = write_file("shuffled.urdf", shuffled_tree(12, 5));
  const Mechanism as_read = fuse_fixed_bodies(read_mechanism_file(file));
  ASSERT_FALSE(parents_listed_first(as_read));
  // The library on the file's order: dofs joint by joint as the file lists them.
  const RigidBodyModel model(as_read);
  RigidBodyData data(model);
  const int n = model.dof_count();
  Json state = {{"q", Json::object()}, {"qd", Json::object()}, {"tau", Json::object()}};
  Eigen::VectorXd q(n), qd(n), tau(n);
  for (int i = 0; i < n; ++i) {
    q(i) = 0.3 * std::sin(1.0 + i);
    qd(i) = 0.7 * std::cos(2.0 + i);
    tau(i) = std::cos(3.0 + i);
    state["q"][model.dof_names()[static_cast<std::size_t>(i)]] = q(i);
    state["qd"][model.dof_names()[static_cast<std::size_t>(i)]] = qd(i);
    state["tau"][model.dof_names()[static_cast<std::size_t>(i)]] = tau(i);
  }
  const std::string state_file = write_file("shuffled_state.json", state.dump());
  const Eigen::Vector3d g(0, 0, -9.81);
  const Eigen::MatrixXd mass = mass_matrix(model, data, q);
  const Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, tau, g);

  const CliRun run = run_cli("dynamics " + file + " --state " + state_file + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const Json report = Json::parse(run.out);
  EXPECT_EQ(report["dofs"].get<std::vector<std::string>>(), model.dof_names());
  EXPECT_LT(scaled_difference(vector_of(report["q"]), q), 1e-15);
  EXPECT_LT(scaled_difference(matrix_of(report["M"]), mass), 1e-13);
  EXPECT_LT(scaled_difference(vector_of(report["qdd"]), qdd), 1e-12);
  // The same M sparse: its lower triangle in 1-based coordinates.
  const Json sparse = Json::parse(
      run_cli("dynamics " + file + " --state " + state_file + " --json --mass sparse").out)["M"];
  EXPECT_EQ(sparse["format"], "coordinate");
  EXPECT_EQ(sparse["size"], n);
  Eigen::MatrixXd rebuilt = Eigen::MatrixXd::Zero(n, n);
  for (std::size_t e = 0; e < sparse["values"].size(); ++e) {
    const int r = sparse["rows"][e].get<int>() - 1, c = sparse["columns"][e].get<int>() - 1;
    EXPECT_GE(r, c);
    rebuilt(r, c) = rebuilt(c, r) = sparse["values"][e].get<double>();
  }
  EXPECT_LT(scaled_difference(rebuilt, mass), 1e-13);
  EXPECT_FALSE(Json::parse(run_cli("dynamics " + file + " --json --mass none").out).contains("M"));
  // export writes M in the file's order too.
  const std::string mtx = (io_test::scratch_dir() / "shuffled_M.mtx").string();
  ASSERT_EQ(run_cli("export " + file + " --state " + state_file + " --mass " + mtx).status, 0);
  const Eigen::SparseMatrix<double> exported = read_matrix_market(mtx);
  EXPECT_LT(scaled_difference(Eigen::MatrixXd(exported), mass), 1e-13);
}

// The derivatives in the file's order: the rigid layer's on the tree built in the file's order
// (rigid/derivatives.hpp), rows and columns as the file lists the dofs.
TEST(DofOrderCli, DerivativesKeepTheFilesDofOrder) {
  const std::string file = write_file("shuffled_derivatives.urdf", shuffled_tree(12, 9));
  const Mechanism as_read = fuse_fixed_bodies(read_mechanism_file(file));
  ASSERT_FALSE(parents_listed_first(as_read));
  const RigidBodyModel model(as_read);
  RigidBodyData data(model);
  const int n = model.dof_count();
  Json state = {{"q", Json::object()}, {"qd", Json::object()}, {"tau", Json::object()}};
  Eigen::VectorXd q(n), qd(n), tau(n);
  for (int i = 0; i < n; ++i) {
    q(i) = 0.3 * std::sin(1.0 + i);
    qd(i) = 0.7 * std::cos(2.0 + i);
    tau(i) = std::cos(3.0 + i);
    state["q"][model.dof_names()[static_cast<std::size_t>(i)]] = q(i);
    state["qd"][model.dof_names()[static_cast<std::size_t>(i)]] = qd(i);
    state["tau"][model.dof_names()[static_cast<std::size_t>(i)]] = tau(i);
  }
  const std::string state_file = write_file("shuffled_derivatives_state.json", state.dump());
  ForwardDynamicsDerivatives forward;
  forward_dynamics_derivatives(model, data, q, qd, tau, Eigen::Vector3d(0, 0, -9.81), forward);
  InverseDynamicsDerivatives inverse;
  inverse_dynamics_derivatives(model, data, q, qd, Eigen::VectorXd::Zero(n),
                               Eigen::Vector3d(0, 0, -9.81), inverse);
  const CliRun run = run_cli("derivatives " + file + " --state " + state_file + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const Json report = Json::parse(run.out);
  EXPECT_EQ(report["dofs"].get<std::vector<std::string>>(), model.dof_names());
  EXPECT_LT(scaled_difference(matrix_of(report["dqdd_dq"]), forward.dqdd_dq), 1e-12);
  EXPECT_LT(scaled_difference(matrix_of(report["dqdd_dqd"]), forward.dqdd_dqd), 1e-12);
  EXPECT_LT(scaled_difference(matrix_of(report["dqdd_dtau"]), forward.dqdd_dtau), 1e-12);
  EXPECT_LT(scaled_difference(matrix_of(report["dtau_dq"]), inverse.dtau_dq), 1e-12);
  EXPECT_LT(scaled_difference(matrix_of(report["dtau_dqd"]), inverse.dtau_dqd), 1e-12);
  EXPECT_LT(scaled_difference(matrix_of(report["M"]), inverse.mass), 1e-13);
}

// A closed chain whose joints are listed children first: the same accelerations as the library
// on the file's order, the independent coordinates listed as the file orders them.
TEST(DofOrderCli, ClosedChainsKeepTheFilesDofOrder) {
  std::ifstream in(example_model("fourbar_internal_cut.yaml"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  // Move the first joint (the carriage's slide) to the end of the joints list.
  const auto slide = text.find("  - name: slide");
  const auto crank = text.find("  - name: crank_joint");
  const std::string slide_block = text.substr(slide, crank - slide);
  text.erase(slide, crank - slide);
  text.insert(text.find("loops:"), slide_block);
  const std::string file = write_file("fourbar_reordered.yaml", text);
  const std::string state = example_model("fourbar_internal_cut_state.json");
  const Mechanism as_read = fuse_fixed_bodies(read_mechanism_file(file));
  ASSERT_FALSE(parents_listed_first(as_read));
  const ClosedChainModel model(as_read);
  ClosedChainData data(model);
  const MechanismState s = read_state_file(state, model.mechanism());
  Eigen::VectorXd q = s.q, qd = s.qd;
  close_positions(model, data, q);
  close_velocities(model, data, q, qd);
  const Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, s.tau, s.gravity);

  const CliRun run = run_cli("dynamics " + file + " --state " + state + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const Json report = Json::parse(run.out);
  EXPECT_EQ(report["dofs"].get<std::vector<std::string>>(), model.tree().dof_names());
  EXPECT_LT(scaled_difference(vector_of(report["qdd"]), qdd), 1e-10);
  // The independent coordinates in the file's dof order, X's columns with them.
  std::vector<int> positions;
  for (const auto& name : report["independent"])
    positions.push_back(static_cast<int>(
        std::find(report["dofs"].begin(), report["dofs"].end(), name) - report["dofs"].begin()));
  EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end()));
  const Eigen::MatrixXd X = matrix_of(report["X"]);
  for (std::size_t c = 0; c < positions.size(); ++c)
    EXPECT_NEAR(X(positions[c], static_cast<Eigen::Index>(c)), 1.0, 1e-12);
  // simulate's trajectory columns too.
  const std::string csv = (io_test::scratch_dir() / "reordered.csv").string();
  ASSERT_EQ(run_cli("simulate " + file + " --state " + state + " --t 0.01 --dt 0.005 --out " + csv)
                .status,
            0);
  std::ifstream trajectory(csv);
  std::string header;
  std::getline(trajectory, header);
  std::string expected = "t";
  for (const std::string& dof : model.tree().dof_names()) expected += "," + dof;
  EXPECT_EQ(header.substr(0, expected.size()), expected);
}

TEST(DofOrderCli, DenseMassAlgorithmsAreRefusedForHugeModels) {
  std::ostringstream text;
  text << "<robot name=\"chain\"><link name=\"l0\"/>\n";
  for (int k = 1; k <= 20001; ++k)
    text << "<link name=\"l" << k
         << "\"><inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" "
         << "ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link><joint name=\"j" << k
         << "\" type=\"continuous\"><parent link=\"l" << (k - 1) / 2 << "\"/><child link=\"l" << k
         << "\"/><origin xyz=\"0.1 0 0\"/></joint>\n";
  text << "</robot>\n";
  const std::string file = write_file("big.urdf", text.str());
  expect_one_line_error(run_cli("bench " + file + " --algo mass --reps 1"),
                        "--algo mass builds a dense mass matrix, and 20001 dofs are too many");
  expect_one_line_error(run_cli("dynamics " + file + " --mass dense"),
                        "a dense mass matrix of 20001 dofs is too large");
  const CliRun fd = run_cli("bench " + file + " --algo fd --reps 1 --json");
  EXPECT_EQ(fd.status, 0) << fd.err;
}

}  // namespace
}  // namespace skograph

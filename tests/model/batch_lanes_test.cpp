// Batches in SIMD lanes (model/batch.hpp, rigid/lanes.hpp): a tree's inverse dynamics W states per
// instruction on AVX2 and AVX-512 agrees with the single-state call to 1e-13 relative (norm-wise:
// the sum of |tau|, |C| and |M| |qdd| sets the scale, as rounding in either sum does), its mass
// matrix to 1e-13 |M| (max norm), and exactly symmetric; a row's result is the same bits whatever
// the threads and its place in the batch; the instruction set is
// chosen by the option, then SKOGRAPH_SIMD, then the CPU, and an unknown or unavailable one is a
// UsageError; models the lanes do not take run state by state, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "skograph/model/batch.hpp"
#include "skograph/model/dynamics.hpp"
#include "support/rigid_support.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

using testing_support::kExamples;
using testing_support::kSharedRobots;

// The lanes this CPU runs.
std::vector<Simd> lanes_available() {
  std::vector<Simd> simds;
  if (best_simd() == Simd::kAvx2 || best_simd() == Simd::kAvx512) simds.push_back(Simd::kAvx2);
  if (best_simd() == Simd::kAvx512) simds.push_back(Simd::kAvx512);
  return simds;
}

struct LaneStates {
  StateRows q, qd, qdd;
};

LaneStates lanes_random_states(const Model& model, long rows, unsigned seed) {
  const int n = model.dof_count();
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  LaneStates states{StateRows(rows, n), StateRows(rows, n), StateRows(rows, n)};
  for (long i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) {
      states.q(i, j) = 1.5 * unit(random);
      states.qd(i, j) = 2.0 * unit(random);
      states.qdd(i, j) = 3.0 * unit(random);
    }
  return states;
}

// Every row of `tau` against the single-state call: |tau - tau_ref| <= 1e-13 (|tau_ref| + |C| +
// |M| |qdd|) in the max norm.
void expect_lanes_agree(const Model& model, const LaneStates& states, const StateRows& tau,
                        const Eigen::Vector3d& gravity) {
  ModelData data(model);
  for (long i = 0; i < states.q.rows(); ++i) {
    const Eigen::VectorXd q = states.q.row(i).transpose(), qd = states.qd.row(i).transpose(),
                          qdd = states.qdd.row(i).transpose();
    const Eigen::VectorXd reference = inverse_dynamics(model, data, q, qd, qdd, gravity);
    const Eigen::VectorXd bias = bias_forces(model, data, q, qd, gravity);
    const Eigen::MatrixXd mass = mass_matrix(model, data, q);
    const double scale = reference.lpNorm<Eigen::Infinity>() + bias.lpNorm<Eigen::Infinity>() +
                         mass.cwiseAbs().maxCoeff() * qdd.lpNorm<Eigen::Infinity>();
    const double error = (tau.row(i).transpose() - reference).lpNorm<Eigen::Infinity>();
    EXPECT_LE(error, 1e-13 * scale)
        << "row " << i + 1 << ": " << tau.row(i) << "\n vs " << reference.transpose();
  }
}

// Every row's M against the single call: |M - M_ref| <= 1e-13 |M_ref| (max norm), M symmetric.
void expect_lane_mass_agrees(const Model& model, const StateRows& q, const StateRows& mass) {
  ModelData data(model);
  const int n = model.dof_count();
  for (long i = 0; i < q.rows(); ++i) {
    const Eigen::MatrixXd reference = mass_matrix(model, data, q.row(i).transpose());
    const Eigen::MatrixXd lanes =
        Eigen::Map<const StateRows>(mass.row(i).data(), n, n);  // row-major rows of M
    EXPECT_LE((lanes - reference).cwiseAbs().maxCoeff(), 1e-13 * reference.cwiseAbs().maxCoeff())
        << "row " << i + 1;
    EXPECT_TRUE((lanes.array() == lanes.transpose().array()).all()) << "row " << i + 1;
  }
}

// Inverse dynamics and the mass matrix of a batch on `simd`'s lanes against the single calls, and
// the same bits on 1, 2 and 3 threads and with the rows shifted by one place.
void check_lanes(const Model& model, Simd simd) {
  SCOPED_TRACE(std::string("simd ") + simd_name(simd));
  const long rows = 3 * simd_width(simd) + 1;
  const LaneStates states = lanes_random_states(model, rows, 11);
  const Eigen::Vector3d gravity(0.4, -0.3, -9.81);
  WorkspacePool workspaces(model);
  StateRows tau;
  inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, tau,
                         {.threads = 1, .gravity = gravity, .simd = simd});
  expect_lanes_agree(model, states, tau, gravity);
  for (const int threads : {2, 3}) {
    StateRows again;
    inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, again,
                           {.threads = threads, .gravity = gravity, .simd = simd});
    EXPECT_TRUE((again.array() == tau.array()).all()) << threads << " threads";
  }
  StateRows shifted;
  const auto tail = [&](const StateRows& m) -> StateRows { return m.bottomRows(rows - 1); };
  inverse_dynamics_batch(model, workspaces, tail(states.q), tail(states.qd), tail(states.qdd),
                         shifted, {.threads = 1, .gravity = gravity, .simd = simd});
  EXPECT_TRUE((shifted.array() == tail(tau).array()).all()) << "rows one place earlier";

  StateRows mass, mass_again, mass_shifted;
  mass_matrix_batch(model, workspaces, states.q, mass, {.threads = 1, .simd = simd});
  expect_lane_mass_agrees(model, states.q, mass);
  mass_matrix_batch(model, workspaces, states.q, mass_again, {.threads = 3, .simd = simd});
  EXPECT_TRUE((mass_again.array() == mass.array()).all()) << "3 threads";
  mass_matrix_batch(model, workspaces, tail(states.q), mass_shifted, {.threads = 2, .simd = simd});
  EXPECT_TRUE((mass_shifted.array() == tail(mass).array()).all()) << "rows one place earlier";
}

class LanesOfExample : public ::testing::TestWithParam<const char*> {};

TEST_P(LanesOfExample, InverseDynamicsAndMassMatrixAgreeWithTheSingleCall) {
  const Model model = load_model((kExamples / GetParam()).string());
  ASSERT_TRUE(supports_lanes(model.tree()));
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  for (const Simd simd : lanes_available()) check_lanes(model, simd);
}

// A floating base with spherical joints, a fixed-base arm, a cart with a prismatic joint, a free
// flyer's arm.
INSTANTIATE_TEST_SUITE_P(Examples, LanesOfExample,
                         ::testing::Values("humanoid.yaml", "arm7.urdf", "cartpole.yaml",
                                           "space_arm.urdf"));

// Random trees: every joint type the lanes take (fixed, revolute, continuous, prismatic, spherical,
// floating), rotated origins, axes of every direction and about coordinate axes, the joints listed
// out of depth-first order (so the file's dof order is not the model's), several bases.
TEST(Lanes, RandomTreesOfEveryJointTypeAgreeWithTheSingleCall) {
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::mt19937 random(5);
  for (int trial = 0; trial < 6; ++trial) {
    testing_support::RandomMechanismOptions options;
    options.links = 12 + 5 * trial;
    options.planar = false;
    options.floating_base = trial % 2 == 0;
    options.extra_bases = trial % 3;
    options.coordinate_axes = trial >= 3;
    const Model model =
        build_model(testing_support::random_mechanism(options, random), "random tree");
    ASSERT_TRUE(supports_lanes(model.tree()));
    SCOPED_TRACE("trial " + std::to_string(trial));
    for (const Simd simd : lanes_available()) check_lanes(model, simd);
  }
}

// The eight benchmark robots of ../shared (skipped without it).
TEST(Lanes, BenchmarkRobotsAgreeWithTheSingleCall) {
  const auto folder = kSharedRobots / "benchmark";
  if (!std::filesystem::exists(folder)) GTEST_SKIP() << "../shared is absent";
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  for (const char* robot : {"panda", "ur5", "z1", "pr2", "tiago_pro", "solo12_float",
                            "anymal_c_float", "talos_float"}) {
    SCOPED_TRACE(robot);
    const Model model = load_model((folder / (std::string(robot) + ".urdf")).string());
    for (const Simd simd : lanes_available()) check_lanes(model, simd);
  }
}

// Models the lanes do not take (planar joints, flexible links, closed chains) run state by state
// whatever is asked: bit for bit the single calls.
TEST(Lanes, ModelsTheLanesDoNotTakeRunStateByState) {
  std::mt19937 random(9);
  testing_support::RandomMechanismOptions options;
  options.planar = true;
  Mechanism mechanism;
  do mechanism = testing_support::random_mechanism(options, random);
  while (std::none_of(mechanism.joints.begin(), mechanism.joints.end(),
                      [](const Joint& j) { return j.type == JointType::kPlanar; }));
  const Model planar = build_model(mechanism, "planar tree");
  EXPECT_FALSE(supports_lanes(planar.tree()));
  const Model flexible = load_model((kExamples / "satellite.yaml").string());
  EXPECT_FALSE(supports_lanes(flexible.tree()));
  const Simd simd = lanes_available().empty() ? Simd::kAuto : lanes_available().back();
  for (const Model* model : {&planar, &flexible}) {
    const LaneStates states = lanes_random_states(*model, 9, 3);
    WorkspacePool workspaces(*model);
    StateRows tau;
    inverse_dynamics_batch(*model, workspaces, states.q, states.qd, states.qdd, tau,
                           {.threads = 2, .simd = simd});
    ModelData data(*model);
    for (long i = 0; i < 9; ++i) {
      const Eigen::VectorXd single =
          inverse_dynamics(*model, data, states.q.row(i).transpose(), states.qd.row(i).transpose(),
                           states.qdd.row(i).transpose(), kStandardGravity);
      EXPECT_TRUE((tau.row(i).transpose().array() == single.array()).all()) << "row " << i + 1;
    }
    StateRows mass;
    mass_matrix_batch(*model, workspaces, states.q, mass, {.threads = 2, .simd = simd});
    const int n = model->dof_count();
    for (long i = 0; i < 9; ++i) {
      const Eigen::MatrixXd single = mass_matrix(*model, data, states.q.row(i).transpose());
      const StateRows rows_of_single = single;
      EXPECT_TRUE((Eigen::Map<const Eigen::RowVectorXd>(rows_of_single.data(), n * n).array() ==
                   mass.row(i).array())
                      .all())
          << "row " << i + 1;
    }
  }
}

// The option, then SKOGRAPH_SIMD, then the CPU's best; unknown or unavailable names refused.
// SKOGRAPH_SIMD for the scope of a test, restored as it was however the test ends.
class SimdEnvironment {
 public:
  SimdEnvironment() {
    if (const char* value = std::getenv("SKOGRAPH_SIMD")) saved_ = value;
  }
  ~SimdEnvironment() {
    if (saved_)
      setenv("SKOGRAPH_SIMD", saved_->c_str(), 1);
    else
      unsetenv("SKOGRAPH_SIMD");
  }
  SimdEnvironment(const SimdEnvironment&) = delete;
  SimdEnvironment& operator=(const SimdEnvironment&) = delete;
  void set(const char* value) { setenv("SKOGRAPH_SIMD", value, 1); }
  void unset() { unsetenv("SKOGRAPH_SIMD"); }

 private:
  std::optional<std::string> saved_;
};

TEST(Lanes, TheInstructionSetIsTheOptionThenTheEnvironmentThenTheCpu) {
  SimdEnvironment environment;
  environment.unset();
  EXPECT_EQ(batch_simd(Simd::kAuto), best_simd());
  EXPECT_EQ(batch_simd(Simd::kScalar), Simd::kScalar);
  environment.set("scalar");
  EXPECT_EQ(batch_simd(Simd::kAuto), Simd::kScalar);
  environment.set("auto");
  EXPECT_EQ(batch_simd(Simd::kAuto), best_simd());
  environment.set("avx9");
  try {
    batch_simd(Simd::kAuto);
    FAIL() << "an unknown SKOGRAPH_SIMD was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "SKOGRAPH_SIMD must be auto, scalar, avx2 or avx512, not 'avx9'");
  }
  EXPECT_EQ(batch_simd(Simd::kScalar), Simd::kScalar);  // the option wins
  for (const Simd simd : lanes_available()) {
    environment.set(simd_name(simd));
    EXPECT_EQ(batch_simd(Simd::kAuto), simd);
  }
  if (best_simd() != Simd::kAvx512) {
    environment.set("avx512");
    try {
      batch_simd(Simd::kAuto);
      FAIL() << "SKOGRAPH_SIMD=avx512 was accepted on a CPU without it";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("SKOGRAPH_SIMD=avx512 is not available", 0), 0u)
          << e.what();
    }
    EXPECT_THROW(batch_simd(Simd::kAvx512), UsageError);
  }
  if (best_simd() == Simd::kScalar) {
    EXPECT_THROW(batch_simd(Simd::kAvx2), UsageError);
  }
}

// AVX2 and AVX-512 run the same operations in the same order, each rounded alone (no fused
// multiply-add): a row's bits are the same on both.
TEST(Lanes, Avx2AndAvx512GiveTheSameBits) {
  if (best_simd() != Simd::kAvx512) GTEST_SKIP() << "this CPU has no AVX-512";
  std::mt19937 random(21);
  testing_support::RandomMechanismOptions options;
  options.links = 25;
  options.planar = false;
  options.coordinate_axes = true;
  const Model model = build_model(testing_support::random_mechanism(options, random), "random");
  const LaneStates states = lanes_random_states(model, 19, 4);
  WorkspacePool workspaces(model);
  StateRows tau2, tau8, mass2, mass8;
  inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, tau2,
                         {.simd = Simd::kAvx2});
  inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, tau8,
                         {.simd = Simd::kAvx512});
  mass_matrix_batch(model, workspaces, states.q, mass2, {.simd = Simd::kAvx2});
  mass_matrix_batch(model, workspaces, states.q, mass8, {.simd = Simd::kAvx512});
  EXPECT_TRUE((tau2.array() == tau8.array()).all());
  EXPECT_TRUE((mass2.array() == mass8.array()).all());
}

}  // namespace
}  // namespace skograph

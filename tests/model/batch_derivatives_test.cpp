// Batches of inverse dynamics' derivatives (model/batch.hpp: inverse_dynamics_derivatives_batch):
// in SIMD lanes on AVX2 and AVX-512, every row's dtau/dq, dtau/dqd and M agree with the single
// call (model/derivatives.hpp) to 1e-13 relative (of each matrix's largest entry), M exactly
// symmetric; a row's result is the same bits on any threads and at any place in the batch; models
// the lanes do not take (planar joints, flexible links) run state by state bit for bit; a closed
// chain, a bad row and a wrong output shape are UsageErrors that name them.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "skograph/model/batch.hpp"
#include "skograph/model/derivatives.hpp"
#include "support/rigid_support.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

using testing_support::kExamples;
using testing_support::kSharedRobots;

std::vector<Simd> derivative_lanes_available() {
  std::vector<Simd> simds;
  if (best_simd() == Simd::kAvx2 || best_simd() == Simd::kAvx512) simds.push_back(Simd::kAvx2);
  if (best_simd() == Simd::kAvx512) simds.push_back(Simd::kAvx512);
  return simds;
}

struct States {
  StateRows q, qd, qdd;
};

States random_states(const Model& model, long rows, unsigned seed) {
  const int n = model.dof_count();
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  States states{StateRows(rows, n), StateRows(rows, n), StateRows(rows, n)};
  for (long i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) {
      states.q(i, j) = 1.5 * unit(random);
      states.qd(i, j) = 2.0 * unit(random);
      states.qdd(i, j) = 3.0 * unit(random);
    }
  return states;
}

// Row `row` of a batch's output as its three matrices (row-major in the row).
Eigen::MatrixXd part_of(const StateRows& out, long row, int part, int n) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(out.row(row).data() + static_cast<long>(part) * n * n, n, n);
}

// Every row against the single call: each matrix within 1e-13 of the single call's largest entry
// (max norm; 4e-15 seen on these models), M symmetric bit for bit.
void expect_rows_agree(const Model& model, const States& states, const StateRows& out,
                       const Eigen::Vector3d& gravity) {
  const int n = model.dof_count();
  ModelData data(model);
  for (long i = 0; i < states.q.rows(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i + 1));
    const InverseDerivatives single = inverse_dynamics_derivatives(
        model, data, states.q.row(i).transpose(), states.qd.row(i).transpose(),
        states.qdd.row(i).transpose(), gravity);
    const Eigen::MatrixXd* expected[3] = {&single.dtau_dq, &single.dtau_dqd, &single.mass};
    for (int part = 0; part < 3; ++part) {
      const Eigen::MatrixXd got = part_of(out, i, part, n);
      const double scale = expected[part]->cwiseAbs().maxCoeff();
      EXPECT_LE((got - *expected[part]).cwiseAbs().maxCoeff(), 1e-13 * scale) << "part " << part;
    }
    const Eigen::MatrixXd mass = part_of(out, i, 2, n);
    EXPECT_TRUE((mass.array() == mass.transpose().array()).all()) << "M symmetric";
  }
}

// A batch on `simd`'s lanes against the single calls, and the same bits on 2 and 3 threads and
// with the rows shifted by one place.
void check_derivative_lanes(const Model& model, Simd simd, const States* given = nullptr) {
  SCOPED_TRACE(std::string("simd ") + simd_name(simd));
  const long rows = 3 * simd_width(simd) + 1;
  const States states = given ? *given : random_states(model, rows, 21);
  const Eigen::Vector3d gravity(0.4, -0.3, -9.81);
  WorkspacePool workspaces(model);
  StateRows out;
  inverse_dynamics_derivatives_batch(model, workspaces, states.q, states.qd, states.qdd, out,
                                     {.threads = 1, .gravity = gravity, .simd = simd});
  ASSERT_EQ(out.rows(), rows);
  ASSERT_EQ(out.cols(), 3L * model.dof_count() * model.dof_count());
  expect_rows_agree(model, states, out, gravity);
  for (const int threads : {2, 3}) {
    StateRows again;
    inverse_dynamics_derivatives_batch(model, workspaces, states.q, states.qd, states.qdd, again,
                                       {.threads = threads, .gravity = gravity, .simd = simd});
    EXPECT_TRUE((again.array() == out.array()).all()) << threads << " threads";
  }
  const auto tail = [&](const StateRows& m) -> StateRows { return m.bottomRows(rows - 1); };
  StateRows shifted;
  inverse_dynamics_derivatives_batch(model, workspaces, tail(states.q), tail(states.qd),
                                     tail(states.qdd), shifted,
                                     {.threads = 1, .gravity = gravity, .simd = simd});
  EXPECT_TRUE((shifted.array() == tail(out).array()).all()) << "rows one place earlier";
}

TEST(DerivativeLanes, ExamplesAgreeWithTheSingleCall) {
  if (derivative_lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  for (const char* file : {"humanoid.yaml", "arm7.urdf", "cartpole.yaml", "space_arm.urdf"}) {
    SCOPED_TRACE(file);
    const Model model = load_model((kExamples / file).string());
    ASSERT_TRUE(supports_lanes(model.tree()));
    for (const Simd simd : derivative_lanes_available()) check_derivative_lanes(model, simd);
  }
}

// Random trees of every joint type the lanes take (fixed, revolute, continuous, prismatic,
// spherical, floating), turns about any axis and about coordinate axes, the file's dof order not
// the model's, several bases.
TEST(DerivativeLanes, RandomTreesOfEveryJointTypeAgreeWithTheSingleCall) {
  if (derivative_lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::mt19937 random(7);
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
    for (const Simd simd : derivative_lanes_available()) check_derivative_lanes(model, simd);
  }
}

// The eight benchmark robots of ../shared (skipped without it).
TEST(DerivativeLanes, BenchmarkRobotsAgreeWithTheSingleCall) {
  const auto folder = kSharedRobots / "benchmark";
  if (!std::filesystem::exists(folder)) GTEST_SKIP() << "../shared is absent";
  if (derivative_lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  for (const char* robot : {"panda", "ur5", "z1", "pr2", "tiago_pro", "solo12_float",
                            "anymal_c_float", "talos_float"}) {
    SCOPED_TRACE(robot);
    const Model model = load_model((folder / (std::string(robot) + ".urdf")).string());
    for (const Simd simd : derivative_lanes_available()) check_derivative_lanes(model, simd);
  }
}

// Models the lanes do not take (a planar joint, a flexible link), and any model with the scalar
// path asked for, run state by state: bit for bit the single call's matrices.
TEST(DerivativeLanes, ModelsTheLanesDoNotTakeRunStateByState) {
  std::mt19937 random(9);
  testing_support::RandomMechanismOptions options;
  options.planar = true;
  Mechanism mechanism;
  do mechanism = testing_support::random_mechanism(options, random);
  while (std::none_of(mechanism.joints.begin(), mechanism.joints.end(),
                      [](const Joint& j) { return j.type == JointType::kPlanar; }));
  const Model planar = build_model(mechanism, "planar tree");
  const Model flexible = load_model((kExamples / "satellite.yaml").string());
  const Model humanoid = load_model((kExamples / "humanoid.yaml").string());
  const std::pair<const Model*, Simd> cases[] = {
      {&planar, Simd::kAuto}, {&flexible, Simd::kAuto}, {&humanoid, Simd::kScalar}};
  for (const auto& [model, simd] : cases) {
    SCOPED_TRACE(model->file());
    const int n = model->dof_count();
    const States states = random_states(*model, 9, 3);
    WorkspacePool workspaces(*model);
    StateRows out;
    inverse_dynamics_derivatives_batch(*model, workspaces, states.q, states.qd, states.qdd, out,
                                       {.threads = 2, .simd = simd});
    ModelData data(*model);
    for (long i = 0; i < 9; ++i) {
      const InverseDerivatives single = inverse_dynamics_derivatives(
          *model, data, states.q.row(i).transpose(), states.qd.row(i).transpose(),
          states.qdd.row(i).transpose(), kStandardGravity);
      EXPECT_TRUE((part_of(out, i, 0, n).array() == single.dtau_dq.array()).all()) << i + 1;
      EXPECT_TRUE((part_of(out, i, 1, n).array() == single.dtau_dqd.array()).all()) << i + 1;
      EXPECT_TRUE((part_of(out, i, 2, n).array() == single.mass.array()).all()) << i + 1;
    }
  }
}

// A closed chain, a NaN in a row and a wrong output shape fail the call before anything is
// computed, in words that name them.
TEST(DerivativeLanes, BadCallsAreUsageErrorsThatNameTheProblem) {
  const Model closed = load_model((kExamples / "fourbar.yaml").string());
  WorkspacePool closed_workspaces(closed);
  const States closed_states = random_states(closed, 2, 1);
  StateRows out;
  try {
    inverse_dynamics_derivatives_batch(closed, closed_workspaces, closed_states.q, closed_states.qd,
                                       closed_states.qdd, out);
    ADD_FAILURE() << "a closed chain's batch did not fail";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("call the states one at a time"), std::string::npos)
        << e.what();
  }
  const Model model = load_model((kExamples / "arm7.urdf").string());
  WorkspacePool workspaces(model);
  States states = random_states(model, 12, 2);
  states.qd(6, 3) = std::nan("");
  try {
    inverse_dynamics_derivatives_batch(model, workspaces, states.q, states.qd, states.qdd, out);
    ADD_FAILURE() << "a NaN did not fail the batch";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("qd, row 7, is not a finite number"), std::string::npos)
        << e.what();
  }
  states.qd(6, 3) = 0.0;
  StateRows wrong(12, 3 * 7 * 7 - 1);
  try {
    inverse_dynamics_derivatives_batch(model, workspaces, states.q, states.qd, states.qdd,
                                       Eigen::Ref<StateRows>(wrong));
    ADD_FAILURE() << "a wrong output shape did not fail";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("derivatives is 12 x 146, not 12 x 147"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace skograph

// Batches of the dynamics' derivatives (model/batch.hpp: inverse_dynamics_derivatives_batch,
// forward_dynamics_derivatives_batch): in SIMD lanes on AVX2 and AVX-512, every row's dtau/dq,
// dtau/dqd and M agree with the single call (model/derivatives.hpp) to 1e-13 relative (of each
// matrix's largest entry), dqdd/dq, dqdd/dqd and M^-1 to 1e-13 cond(M) relative, M and M^-1
// exactly symmetric; the kernels alone agree with no lane falling back; a row's result is the
// same bits on any threads and at any place in the batch; a row that overflows is the single
// call's error; models the lanes do not take run state by state bit for bit; a closed chain, a bad
// row and a wrong output shape are UsageErrors that name them.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <array>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "skograph/model/batch.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/lanes.hpp"
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

// The single call's three matrices at row i: inverse dynamics' dtau/dq, dtau/dqd, M at (q, qd,
// third = qdd), or forward dynamics' dqdd/dq, dqdd/dqd, dqdd/dtau at (q, qd, third = tau).
std::array<Eigen::MatrixXd, 3> single_call(const Model& model, ModelData& data, bool forward,
                                           const States& states, long i,
                                           const Eigen::Vector3d& gravity) {
  const Eigen::VectorXd q = states.q.row(i).transpose(), qd = states.qd.row(i).transpose(),
                        third = states.qdd.row(i).transpose();
  if (forward) {
    const ForwardDerivatives d = forward_dynamics_derivatives(model, data, q, qd, third, gravity);
    return {d.dqdd_dq, d.dqdd_dqd, d.dqdd_dtau};
  }
  const InverseDerivatives d = inverse_dynamics_derivatives(model, data, q, qd, third, gravity);
  return {d.dtau_dq, d.dtau_dqd, d.mass};
}

// Every row against the single call: each matrix within 1e-13 of the single call's largest entry
// (max norm; inverse dynamics' 4e-15 seen on these models), and for forward dynamics times
// cond(M) (its matrices are M^-1 and products with it); M exactly symmetric (lane rows).
void expect_rows_agree(const Model& model, bool forward, const States& states, const StateRows& out,
                       const Eigen::Vector3d& gravity) {
  const int n = model.dof_count();
  ModelData data(model);
  for (long i = 0; i < states.q.rows(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i + 1));
    const std::array<Eigen::MatrixXd, 3> expected =
        single_call(model, data, forward, states, i, gravity);
    double condition = 1.0;
    if (forward) {
      const Eigen::VectorXd eigenvalues =
          Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(expected[2]).eigenvalues();
      condition = eigenvalues.maxCoeff() / eigenvalues.minCoeff();
    }
    for (int part = 0; part < 3; ++part) {
      const Eigen::MatrixXd got = part_of(out, i, part, n);
      const double scale = expected[static_cast<std::size_t>(part)].cwiseAbs().maxCoeff();
      EXPECT_LE((got - expected[static_cast<std::size_t>(part)]).cwiseAbs().maxCoeff(),
                1e-13 * condition * scale)
          << "part " << part;
    }
    const Eigen::MatrixXd symmetric = part_of(out, i, 2, n);
    EXPECT_TRUE((symmetric.array() == symmetric.transpose().array()).all()) << "symmetric";
  }
}

void run_batch(const Model& model, WorkspacePool& workspaces, bool forward, const StateRows& q,
               const StateRows& qd, const StateRows& third, StateRows& out,
               const BatchOptions& options) {
  if (forward)
    forward_dynamics_derivatives_batch(model, workspaces, q, qd, third, out, options);
  else
    inverse_dynamics_derivatives_batch(model, workspaces, q, qd, third, out, options);
}

// Both batches on `simd`'s lanes against the single calls, and the same bits on 2 and 3 threads
// and with the rows shifted by one place; 3 W + 1 rows and 2 W + 4 (a last block of four lanes
// on AVX-512). states.qdd serves as qdd and as tau.
void check_derivative_lanes(const Model& model, Simd simd, const States* given = nullptr) {
  for (const bool forward : {false, true})
    for (const long rows : {3L * simd_width(simd) + 1, 2L * simd_width(simd) + 4}) {
      SCOPED_TRACE(std::string("simd ") + simd_name(simd) + (forward ? " forward" : " inverse") +
                   ", " + std::to_string(rows) + " rows");
      const States states = given ? *given : random_states(model, rows, 21);
      const long count = states.q.rows();
      const Eigen::Vector3d gravity(0.4, -0.3, -9.81);
      WorkspacePool workspaces(model);
      StateRows out;
      run_batch(model, workspaces, forward, states.q, states.qd, states.qdd, out,
                {.threads = 1, .gravity = gravity, .simd = simd});
      ASSERT_EQ(out.rows(), count);
      ASSERT_EQ(out.cols(), 3L * model.dof_count() * model.dof_count());
      expect_rows_agree(model, forward, states, out, gravity);
      for (const int threads : {2, 3}) {
        StateRows again;
        run_batch(model, workspaces, forward, states.q, states.qd, states.qdd, again,
                  {.threads = threads, .gravity = gravity, .simd = simd});
        EXPECT_TRUE((again.array() == out.array()).all()) << threads << " threads";
      }
      const auto tail = [&](const StateRows& m) -> StateRows { return m.bottomRows(count - 1); };
      StateRows shifted;
      run_batch(model, workspaces, forward, tail(states.q), tail(states.qd), tail(states.qdd),
                shifted, {.threads = 1, .gravity = gravity, .simd = simd});
      EXPECT_TRUE((shifted.array() == tail(out).array()).all()) << "rows one place earlier";
      if (given) break;
    }
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
    ASSERT_TRUE(supports_forward_derivative_lanes(model.tree()));
    for (const Simd simd : derivative_lanes_available()) check_derivative_lanes(model, simd);
  }
}

// The lane kernels called directly on `tree`, W random states per instruction set: no lane marked
// for the single call, every entry of the three matrices, tau and qdd the single call's to 1e-13
// of each one's largest entry (forward dynamics' times cond(M)); forward dynamics' derivatives
// where the tree takes them in lanes. Returns whether it did.
bool check_kernels_directly(const RigidBodyModel& tree, std::mt19937& random) {
  EXPECT_TRUE(supports_lanes(tree));
  const int n = tree.dof_count();
  const LaneTree lanes(tree);
  RigidBodyData data(tree);
  const Eigen::Vector3d gravity(0.2, 0.5, -9.81);
  for (const Simd simd : derivative_lanes_available()) {
    SCOPED_TRACE(simd_name(simd));
    LaneWork work(tree, simd);
    const int width = work.width;
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::vector<Eigen::VectorXd> q(width), qd(width), third(width);
    for (int lane = 0; lane < width; ++lane) {
      q[lane] = Eigen::VectorXd::NullaryExpr(n, [&] { return 1.5 * unit(random); });
      qd[lane] = Eigen::VectorXd::NullaryExpr(n, [&] { return 2.0 * unit(random); });
      third[lane] = Eigen::VectorXd::NullaryExpr(n, [&] { return 3.0 * unit(random); });
      set_lane_configuration(tree, q[lane].data(), lane, work);
      for (int i = 0; i < n; ++i) {
        work.qd[i * width + lane] = qd[lane][i];
        work.qdd[i * width + lane] = third[lane][i];
        work.tau[i * width + lane] = third[lane][i];
      }
    }
    const auto lane_matrix = [&](int part, int lane) {
      Eigen::MatrixXd m(n, n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          m(i, j) = work.derivatives[((static_cast<long>(part) * n + i) * n + j) * width + lane];
      return m;
    };
    const auto expect_near = [](const Eigen::MatrixXd& got, const Eigen::MatrixXd& expected,
                                double factor, const char* what) {
      EXPECT_LE((got - expected).cwiseAbs().maxCoeff(),
                1e-13 * factor * expected.cwiseAbs().maxCoeff())
          << what;
    };
    inverse_dynamics_derivatives_lanes(lanes, simd, gravity, work);
    for (int lane = 0; lane < width; ++lane) {
      EXPECT_EQ(work.singular[lane], 0.0) << "lane " << lane;
      InverseDynamicsDerivatives single;
      inverse_dynamics_derivatives(tree, data, q[lane], qd[lane], third[lane], gravity, single);
      expect_near(lane_matrix(0, lane), single.dtau_dq, 1.0, "dtau/dq");
      expect_near(lane_matrix(1, lane), single.dtau_dqd, 1.0, "dtau/dqd");
      expect_near(lane_matrix(2, lane), single.mass, 1.0, "M");
      Eigen::VectorXd tau(n);
      for (int i = 0; i < n; ++i) tau[i] = work.tau[i * width + lane];
      expect_near(tau, single.tau, 1.0, "tau");
    }
    if (!lanes.forward_derivatives_supported()) continue;
    for (int lane = 0; lane < width; ++lane)  // the inverse pass overwrote tau
      for (int i = 0; i < n; ++i) work.tau[i * width + lane] = third[lane][i];
    forward_dynamics_derivatives_lanes(lanes, simd, gravity, work);
    for (int lane = 0; lane < width; ++lane) {
      EXPECT_EQ(work.singular[lane], 0.0) << "lane " << lane;
      ForwardDynamicsDerivatives single;
      forward_dynamics_derivatives(tree, data, q[lane], qd[lane], third[lane], gravity, single);
      const Eigen::VectorXd eigenvalues =
          Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(single.inverse.mass).eigenvalues();
      const double condition = eigenvalues.maxCoeff() / eigenvalues.minCoeff();
      expect_near(lane_matrix(3, lane).transpose(), single.dqdd_dq, condition, "dqdd/dq");
      expect_near(lane_matrix(4, lane).transpose(), single.dqdd_dqd, condition, "dqdd/dqd");
      expect_near(lane_matrix(5, lane), single.dqdd_dtau, condition, "dqdd/dtau");
      Eigen::VectorXd qdd(n);
      for (int i = 0; i < n; ++i) qdd[i] = work.qdd[i * width + lane];
      expect_near(qdd, single.qdd, condition, "qdd");
    }
  }
  return LaneTree(tree).forward_derivatives_supported();
}

// The kernels on rigid models whose joints are listed out of depth-first order (the dofs' preorder
// is not their numbering) and depth first (where forward dynamics' derivatives take the lanes
// too), on the examples and on the benchmark robots (with ../shared): the batches' tests would
// not see a wrong kernel whose lanes all fell back to the single call.
TEST(DerivativeLanes, KernelsAgreeWithTheSingleCallWithNoLaneFallingBack) {
  if (derivative_lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::mt19937 random(31);
  int out_of_order = 0, forward_checked = 0;
  for (int trial = 0; trial < 8; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    testing_support::RandomMechanismOptions options;
    options.links = 10 + 3 * trial;
    options.planar = false;
    options.floating_base = trial % 2 == 1;
    options.extra_bases = trial % 3;
    const Mechanism mechanism = testing_support::random_mechanism(options, random);
    const RigidBodyModel shuffled(mechanism);            // the file's joint order
    const Model model = build_model(mechanism, "tree");  // depth first, as every Model
    for (const RigidBodyModel* tree : {&shuffled, &model.tree()}) {
      bool identity = true;
      for (int a = 0; a < tree->dof_count(); ++a)
        identity = identity && tree->dof_in_preorder()[static_cast<std::size_t>(a)] == a;
      out_of_order += identity ? 0 : 1;
      forward_checked += check_kernels_directly(*tree, random) ? 1 : 0;
    }
  }
  EXPECT_GT(out_of_order, 0) << "no tree had its dofs out of preorder";
  EXPECT_GT(forward_checked, 0) << "no tree took forward dynamics' derivatives in lanes";
  for (const char* file : {"humanoid.yaml", "arm7.urdf", "cartpole.yaml", "space_arm.urdf"}) {
    SCOPED_TRACE(file);
    EXPECT_TRUE(check_kernels_directly(load_model((kExamples / file).string()).tree(), random));
  }
  const auto folder = kSharedRobots / "benchmark";
  if (!std::filesystem::exists(folder)) return;
  for (const char* robot : {"panda", "ur5", "z1", "pr2", "tiago_pro", "solo12_float",
                            "anymal_c_float", "talos_float"}) {
    SCOPED_TRACE(robot);
    const Model model = load_model((folder / (std::string(robot) + ".urdf")).string());
    EXPECT_TRUE(check_kernels_directly(model.tree(), random));
  }
}

// A tree with a massless moving link takes inverse dynamics' derivatives in lanes but not forward
// dynamics' (the single call factors M densely on the dofs that move mass): that batch runs state
// by state, bit for bit, and the kernel refuses the tree.
TEST(DerivativeLanes, ATreeWithAMasslessLinkTakesForwardDerivativesStateByState) {
  std::mt19937 random(12);
  testing_support::RandomMechanismOptions options;
  options.links = 9;
  options.planar = false;
  Mechanism mechanism = testing_support::random_mechanism(options, random);
  for (const Joint& joint : mechanism.joints)  // a leaf's link moved by a joint: massless
    if (joint.type != JointType::kFixed &&
        std::none_of(mechanism.joints.begin(), mechanism.joints.end(),
                     [&](const Joint& j) { return j.parent == joint.child; })) {
      Link& link = mechanism.links[static_cast<std::size_t>(joint.child)];
      link.mass = 0.0;
      link.inertia.setZero();
      break;
    }
  const Model model = build_model(mechanism, "massless leaf");
  ASSERT_TRUE(supports_lanes(model.tree()));
  ASSERT_FALSE(supports_forward_derivative_lanes(model.tree()));
  const int n = model.dof_count();
  const States states = random_states(model, 11, 6);
  WorkspacePool workspaces(model);
  ModelData data(model);
  for (const Simd simd : derivative_lanes_available()) {
    StateRows out;
    forward_dynamics_derivatives_batch(model, workspaces, states.q, states.qd, states.qdd, out,
                                       {.threads = 2, .simd = simd});
    for (long i = 0; i < states.q.rows(); ++i) {
      const std::array<Eigen::MatrixXd, 3> single =
          single_call(model, data, true, states, i, kStandardGravity);
      for (int part = 0; part < 3; ++part)
        EXPECT_TRUE(
            (part_of(out, i, part, n).array() == single[static_cast<std::size_t>(part)].array())
                .all())
            << "row " << i + 1 << ", part " << part;
    }
    LaneWork work(model.tree(), simd);
    EXPECT_THROW(
        forward_dynamics_derivatives_lanes(LaneTree(model.tree()), simd, kStandardGravity, work),
        std::invalid_argument);
  }
}

// A row whose derivatives overflow (a rate of 1e160: its squares are past the largest double) is
// the single call's: the batch fails naming that row with the single call's words, in lanes as
// state by state.
TEST(DerivativeLanes, ARowThatOverflowsIsTheSingleCallsErrorNamedWithItsRow) {
  const Model model = load_model((kExamples / "arm7.urdf").string());
  WorkspacePool workspaces(model);
  States states = random_states(model, 13, 4);
  states.qd(9, 2) = 1e160;
  std::vector<Simd> simds = derivative_lanes_available();
  simds.push_back(Simd::kScalar);
  for (const Simd simd : simds)
    for (const bool forward : {false, true}) {
      SCOPED_TRACE(std::string(simd_name(simd)) + (forward ? " forward" : " inverse"));
      StateRows out;
      try {
        run_batch(model, workspaces, forward, states.q, states.qd, states.qdd, out,
                  {.threads = 2, .simd = simd});
        ADD_FAILURE() << "the overflowing row did not fail the batch";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("row 10: "), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos) << e.what();
      }
    }
}

// Models the lanes do not take (a planar joint, a flexible link), and any model with the scalar
// path asked for, run state by state: bit for bit the single calls' matrices, both batches.
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
  EXPECT_FALSE(supports_lanes(planar.tree()));
  EXPECT_FALSE(supports_lanes(flexible.tree()));
  for (const auto& [model, simd] : cases) {
    SCOPED_TRACE(model->file());
    const int n = model->dof_count();
    const States states = random_states(*model, 9, 3);
    WorkspacePool workspaces(*model);
    ModelData data(*model);
    for (const bool forward : {false, true}) {
      StateRows out;
      run_batch(*model, workspaces, forward, states.q, states.qd, states.qdd, out,
                {.threads = 2, .simd = simd});
      for (long i = 0; i < 9; ++i) {
        const std::array<Eigen::MatrixXd, 3> single =
            single_call(*model, data, forward, states, i, kStandardGravity);
        for (int part = 0; part < 3; ++part)
          EXPECT_TRUE((part_of(out, i, part, n).array() == single[part].array()).all())
              << "row " << i + 1 << ", part " << part << (forward ? ", forward" : ", inverse");
      }
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

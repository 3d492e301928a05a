// Batches in SIMD lanes (model/batch.hpp, rigid/lanes.hpp): a tree's inverse dynamics W states per
// instruction on AVX2 and AVX-512 agrees with the single-state call to 1e-13 relative (norm-wise:
// the sum of |tau|, |C| and |M| |qdd| sets the scale, as rounding in either sum does), its mass
// matrix to 1e-13 |M| (max norm), and exactly symmetric, its forward dynamics to 1e-13 cond(M)
// (relative to |qdd| + (|tau| + |C|) / |M|: a perturbation of the right-hand side's size); a
// row's result is the same bits whatever the threads and its place in the batch; massless
// subtrees keep qdd = 0, and a row whose D the lanes find singular is the single call's (its error,
// or its result by LU for an indefinite D); the instruction set is
// chosen by the option, then SKOGRAPH_SIMD, then the CPU, and an unknown or unavailable one is a
// UsageError; models the lanes do not take run state by state, bit for bit.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
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

// Every row of `qdd` (forward dynamics at q, qd and tau = states.qdd) against the single call:
// |qdd - qdd_ref| <= 1e-13 cond(M) (|qdd_ref| + (|tau| + |C|) / |M|) in the max norm, cond(M) and
// |M| from the eigenvalues of M over the dofs that move mass.
void expect_lane_accelerations_agree(const Model& model, const LaneStates& states,
                                     const StateRows& qdd, const Eigen::Vector3d& gravity) {
  ModelData data(model);
  for (long i = 0; i < states.q.rows(); ++i) {
    const Eigen::VectorXd q = states.q.row(i).transpose(), qd = states.qd.row(i).transpose(),
                          tau = states.qdd.row(i).transpose();
    const Eigen::VectorXd reference = forward_dynamics(model, data, q, qd, tau, gravity);
    const Eigen::VectorXd bias = bias_forces(model, data, q, qd, gravity);
    // M over the dofs that move mass (a massless subtree's rows and columns are zero).
    const Eigen::MatrixXd mass = mass_matrix(model, data, q);
    std::vector<int> moving;
    for (int j = 0; j < model.dof_count(); ++j)
      if (mass(j, j) != 0.0) moving.push_back(j);
    ASSERT_FALSE(moving.empty()) << "no dof moves mass";
    const Eigen::VectorXd eigenvalues =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(mass(moving, moving)).eigenvalues();
    const double largest = eigenvalues.maxCoeff(), condition = largest / eigenvalues.minCoeff();
    const double scale = reference.lpNorm<Eigen::Infinity>() +
                         (tau.lpNorm<Eigen::Infinity>() + bias.lpNorm<Eigen::Infinity>()) / largest;
    const double error = (qdd.row(i).transpose() - reference).lpNorm<Eigen::Infinity>();
    EXPECT_LE(error, 1e-13 * condition * scale)
        << "row " << i + 1 << " (cond(M) " << condition << "): " << qdd.row(i) << "\n vs "
        << reference.transpose();
  }
}

// Forward dynamics of a batch on `simd`'s lanes against the single call, and the same bits on 2
// threads and with the rows shifted by one place (tau: states.qdd).
void check_forward_lanes(const Model& model, Simd simd, const LaneStates& states,
                         const Eigen::Vector3d& gravity) {
  WorkspacePool workspaces(model);
  StateRows qdd, again, shifted;
  forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd,
                         {.threads = 1, .gravity = gravity, .simd = simd});
  expect_lane_accelerations_agree(model, states, qdd, gravity);
  forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, again,
                         {.threads = 2, .gravity = gravity, .simd = simd});
  EXPECT_TRUE((again.array() == qdd.array()).all()) << "2 threads";
  const long rows = states.q.rows();
  const auto tail = [&](const StateRows& m) -> StateRows { return m.bottomRows(rows - 1); };
  forward_dynamics_batch(model, workspaces, tail(states.q), tail(states.qd), tail(states.qdd),
                         shifted, {.threads = 3, .gravity = gravity, .simd = simd});
  EXPECT_TRUE((shifted.array() == tail(qdd).array()).all()) << "rows one place earlier";
}

// Inverse and forward dynamics and the mass matrix of a batch on `simd`'s lanes against the single
// calls, and the same bits on 1, 2 and 3 threads and with the rows shifted by one place.
// The states are random unless given (3 width + 1 rows).
void check_lanes(const Model& model, Simd simd, const LaneStates* given = nullptr) {
  SCOPED_TRACE(std::string("simd ") + simd_name(simd));
  const long rows = 3 * simd_width(simd) + 1;
  const LaneStates states = given ? *given : lanes_random_states(model, rows, 11);
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

  check_forward_lanes(model, simd, states, gravity);
}

class LanesOfExample : public ::testing::TestWithParam<const char*> {};

TEST_P(LanesOfExample, DynamicsAndMassMatrixAgreeWithTheSingleCall) {
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

// The joint transforms made in the lanes where their formulas have edges: every angle and rotation
// vector entry zero (no turn: the identity), tiny (1e-200, a subnormal 1e-310), near pi, past
// 2 pi, and large (1e3, -1e8 rad: the reduction of sincos), a row per value, on a floating base
// with spherical joints and on random trees with turns about any axis.
TEST(Lanes, JointTransformsAtZeroTinyAndLargeAnglesAgreeWithTheSingleCall) {
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::vector<Model> models;
  models.push_back(load_model((kExamples / "humanoid.yaml").string()));
  std::mt19937 random(13);
  for (const bool coordinate_axes : {false, true}) {
    testing_support::RandomMechanismOptions options;
    options.links = 14;
    options.planar = false;
    options.floating_base = true;
    options.coordinate_axes = coordinate_axes;
    models.push_back(build_model(testing_support::random_mechanism(options, random), "tree"));
  }
  const double values[] = {0.0, 1e-200, 1e-310, 3.141592653589793, -7.0, 1e3, -1e8};
  for (const Model& model : models) {
    // The angles and rotation vectors (file dof order); slides and translations keep their
    // random values (a slide of 1e8 m is no state).
    std::vector<int> angles;
    const RigidBodyModel& tree = model.tree();
    for (int k = 0; k < tree.node_count(); ++k) {
      const JointType type = tree.joint_geometry(k).type;
      const int count = type == JointType::kRevolute || type == JointType::kContinuous  ? 1
                        : type == JointType::kSpherical || type == JointType::kFloating ? 3
                                                                                        : 0;
      for (int c = 0; c < count; ++c)
        angles.push_back(model.dof_order().file_dof(tree.joint_dof_offset(k) + c));
    }
    ASSERT_FALSE(angles.empty());
    for (const Simd simd : lanes_available()) {
      const long rows = 3 * simd_width(simd) + 1;
      LaneStates states = lanes_random_states(model, rows, 17);
      for (long i = 0; i < rows; ++i)
        for (const int dof : angles)
          states.q(i, dof) = values[static_cast<std::size_t>(i) % std::size(values)];
      check_lanes(model, simd, &states);
    }
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
    StateRows qdd;
    forward_dynamics_batch(*model, workspaces, states.q, states.qd, states.qdd, qdd,
                           {.threads = 2, .simd = simd});
    for (long i = 0; i < 9; ++i) {
      const Eigen::VectorXd single =
          forward_dynamics(*model, data, states.q.row(i).transpose(), states.qd.row(i).transpose(),
                           states.qdd.row(i).transpose(), kStandardGravity);
      EXPECT_TRUE((qdd.row(i).transpose().array() == single.array()).all()) << "row " << i + 1;
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

// A random tree with a spherical joint whose child link is a leaf, and that link.
struct SphericalLeaf {
  Mechanism mechanism;
  int link = -1;
};
SphericalLeaf random_tree_with_a_spherical_leaf(unsigned seed) {
  std::mt19937 random(seed);
  testing_support::RandomMechanismOptions options;
  options.links = 14;
  options.planar = false;
  for (;;) {
    SphericalLeaf tree{testing_support::random_mechanism(options, random)};
    for (const Joint& joint : tree.mechanism.joints) {
      const bool leaf = std::none_of(tree.mechanism.joints.begin(), tree.mechanism.joints.end(),
                                     [&](const Joint& j) { return j.parent == joint.child; });
      if (joint.type == JointType::kSpherical && leaf) {
        tree.link = joint.child;
        return tree;
      }
    }
  }
}

// Leaves without mass and an inner subtree without mass (a spherical joint in it): their joints'
// qdd = 0 in the lanes as in the single call, the other joints' agree.
TEST(Lanes, MasslessSubtreesKeepZeroAccelerations) {
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::mt19937 random(17);
  testing_support::RandomMechanismOptions options;
  options.links = 16;
  options.planar = false;
  Mechanism mechanism = testing_support::random_mechanism(options, random);
  // The joints below `link` (its subtree's), depth first.
  const auto joints_below = [&](int link) {
    std::vector<int> found, links{link};
    for (std::size_t i = 0; i < links.size(); ++i)
      for (int j = 0; j < static_cast<int>(mechanism.joints.size()); ++j)
        if (mechanism.joints[static_cast<std::size_t>(j)].parent == links[i]) {
          found.push_back(j);
          links.push_back(mechanism.joints[static_cast<std::size_t>(j)].child);
        }
    return found;
  };
  // Massless: every leaf, and a whole inner subtree of several joints, one of them spherical.
  std::vector<int> massless;
  for (int j = 0; j < static_cast<int>(mechanism.joints.size()); ++j)
    if (joints_below(mechanism.joints[static_cast<std::size_t>(j)].child).empty())
      massless.push_back(j);
  bool inner = false;
  for (int j = 0; j < static_cast<int>(mechanism.joints.size()) && !inner; ++j) {
    const Joint& top = mechanism.joints[static_cast<std::size_t>(j)];
    std::vector<int> subtree = joints_below(top.child);
    subtree.push_back(j);
    inner = top.parent >= 0 && subtree.size() >= 3 &&
            std::any_of(subtree.begin(), subtree.end(), [&](int i) {
              return mechanism.joints[static_cast<std::size_t>(i)].type == JointType::kSpherical;
            });
    if (inner) massless.insert(massless.end(), subtree.begin(), subtree.end());
  }
  ASSERT_TRUE(inner) << "no inner subtree with a spherical joint";
  std::vector<std::string> massless_joints;
  for (const int j : massless) {
    const Joint& joint = mechanism.joints[static_cast<std::size_t>(j)];
    Link& link = mechanism.links[static_cast<std::size_t>(joint.child)];
    link.mass = 0.0;
    link.inertia.setZero();
    if (joint.type != JointType::kFixed) massless_joints.push_back(joint.name);
  }
  const Model model = build_model(mechanism, "massless leaves");
  const LaneStates states = lanes_random_states(model, 13, 8);
  for (const Simd simd : lanes_available()) {
    SCOPED_TRACE(simd_name(simd));
    check_forward_lanes(model, simd, states, kStandardGravity);
    WorkspacePool workspaces(model);
    StateRows qdd;
    forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd, {.simd = simd});
    const std::vector<std::string>& names = model.dof_names();
    for (int j = 0; j < model.dof_count(); ++j) {
      const std::string& name = names[static_cast<std::size_t>(j)];
      for (const std::string& joint : massless_joints) {
        if (name == joint || name.rfind(joint + ":", 0) == 0) {
          EXPECT_TRUE((qdd.col(j).array() == 0.0).all()) << name;
        }
      }
    }
  }
}

// A spherical joint that turns a point mass about itself moves no inertia: D = 0 at every state.
// The lanes find it singular and the row's error is the single call's, named with its row.
TEST(Lanes, ASingularRowGivesTheSingleCallsError) {
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  SphericalLeaf tree = random_tree_with_a_spherical_leaf(23);
  Link& point = tree.mechanism.links[static_cast<std::size_t>(tree.link)];
  point.inertia.setZero();
  point.center_of_mass.setZero();
  const Model model = build_model(tree.mechanism, "point mass");
  const LaneStates states = lanes_random_states(model, 6, 2);
  WorkspacePool workspaces(model);
  StateRows qdd;
  std::string scalar_error;
  try {
    forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd,
                           {.simd = Simd::kScalar});
  } catch (const Error& e) {
    scalar_error = e.what();
  }
  ASSERT_NE(scalar_error.find("row 1: joint '"), std::string::npos) << scalar_error;
  for (const Simd simd : lanes_available()) {
    try {
      forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd,
                             {.threads = 2, .simd = simd});
      ADD_FAILURE() << simd_name(simd) << ": a singular D was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), scalar_error) << simd_name(simd);
    }
  }
}

// A planar arm of two hinges whose first link is massless and whose second is a point mass at its
// tip: M is singular where the arm is straight (q2 = 0, det M = m^2 a^2 b^2 sin^2 q2). Only rows 7
// and 9 are straight: the batch's error is row 7's, the single call's, on any threads.
TEST(Lanes, TheFirstSingularRowIsNamed) {
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  Mechanism arm;
  arm.links.resize(2);
  arm.links[0].name = "upper";
  arm.links[1].name = "lower";
  arm.links[1].mass = 2.0;
  arm.links[1].center_of_mass = Eigen::Vector3d(0.4, 0.0, 0.0);
  arm.joints.resize(2);
  arm.joints[0] = {.name = "shoulder", .type = JointType::kRevolute, .parent = -1, .child = 0};
  arm.joints[1] = {.name = "elbow", .type = JointType::kRevolute, .parent = 0, .child = 1};
  arm.joints[0].axis = arm.joints[1].axis = Eigen::Vector3d::UnitZ();
  arm.joints[1].origin.translation() = Eigen::Vector3d(0.6, 0.0, 0.0);
  const Model model = build_model(arm, "straight arm");
  LaneStates states = lanes_random_states(model, 11, 6);
  states.q(6, 1) = states.q(8, 1) = 0.0;
  WorkspacePool workspaces(model);
  StateRows qdd;
  std::string scalar_error;
  try {
    forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd,
                           {.simd = Simd::kScalar});
  } catch (const Error& e) {
    scalar_error = e.what();
  }
  ASSERT_EQ(scalar_error.rfind("row 7: joint '", 0), 0u) << scalar_error;
  for (const Simd simd : lanes_available())
    for (const int threads : {1, 3}) {
      try {
        forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd,
                               {.threads = threads, .simd = simd});
        ADD_FAILURE() << simd_name(simd) << ": a singular D was accepted";
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), scalar_error) << simd_name(simd) << ", " << threads;
      }
    }
  states.q(6, 1) = states.q(8, 1) = 0.5;  // bent again: every row agrees
  for (const Simd simd : lanes_available())
    check_forward_lanes(model, simd, states, kStandardGravity);
}

// A joint axis a file gives within rounding of a coordinate axis, (-4.37e-8, 0, 1) as single
// precision writes z, is that axis in the walk, in H* and in every recursion: the lanes agree
// with the single calls.
TEST(Lanes, AnAxisWithinRoundingOfACoordinateAxisIsThatAxis) {
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  std::mt19937 random(31);
  testing_support::RandomMechanismOptions options;
  options.links = 10;
  options.planar = false;
  Mechanism mechanism = testing_support::random_mechanism(options, random);
  int rounded = 0;
  for (Joint& joint : mechanism.joints)
    if (joint.type == JointType::kRevolute || joint.type == JointType::kContinuous) {
      joint.axis = Eigen::Vector3d(-4.37e-8, 0.0, 1.0);
      ++rounded;
    }
  ASSERT_GT(rounded, 0);
  const Model model = build_model(mechanism, "rounded axes");
  for (const Simd simd : lanes_available()) check_lanes(model, simd);
}

// An indefinite rotational inertia (accepted from files with a warning) makes a spherical joint's
// D indefinite: the lanes' Cholesky factorization refuses it, and the row is the single call's,
// which takes D by LU: bit for bit.
TEST(Lanes, AnIndefiniteRowIsTheSingleCalls) {
  if (lanes_available().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  SphericalLeaf tree = random_tree_with_a_spherical_leaf(29);
  Link& link = tree.mechanism.links[static_cast<std::size_t>(tree.link)];
  link.center_of_mass.setZero();
  link.inertia = Eigen::Vector3d(0.3, 0.2, -0.4).asDiagonal();
  const Model model = build_model(tree.mechanism, "indefinite");
  const LaneStates states = lanes_random_states(model, 7, 5);
  WorkspacePool workspaces(model);
  StateRows scalar;
  forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, scalar,
                         {.simd = Simd::kScalar});
  for (const Simd simd : lanes_available()) {
    StateRows qdd;
    forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd, {.simd = simd});
    EXPECT_TRUE((qdd.array() == scalar.array()).all()) << simd_name(simd);
  }
}

// The batches write into given storage (a map of another library's array, as the Python module
// maps NumPy's) the bits they give into a StateRows, on every path; a wrong shape is a UsageError.
TEST(Lanes, BatchesWriteIntoGivenStorage) {
  const Model model = load_model((kExamples / "humanoid.yaml").string());
  const int n = model.dof_count();
  const long rows = 13;
  const LaneStates states = lanes_random_states(model, rows, 12);
  WorkspacePool workspaces(model);
  std::vector<Simd> simds = lanes_available();
  simds.push_back(Simd::kScalar);
  for (const Simd simd : simds) {
    SCOPED_TRACE(simd_name(simd));
    const BatchOptions options{.threads = 2, .simd = simd};
    StateRows qdd, tau, mass;
    forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd, options);
    inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, tau, options);
    mass_matrix_batch(model, workspaces, states.q, mass, options);
    std::vector<double> storage(static_cast<std::size_t>(rows * n * n), -1.0);
    Eigen::Map<StateRows> given(storage.data(), rows, n);
    forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, given, options);
    EXPECT_TRUE((given.array() == qdd.array()).all());
    inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, given, options);
    EXPECT_TRUE((given.array() == tau.array()).all());
    Eigen::Map<StateRows> given_mass(storage.data(), rows, n * n);
    mass_matrix_batch(model, workspaces, states.q, given_mass, options);
    EXPECT_TRUE((given_mass.array() == mass.array()).all());
    Eigen::Map<StateRows> short_of_a_row(storage.data(), rows - 1, n);
    try {
      forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, short_of_a_row,
                             options);
      ADD_FAILURE() << "a short output was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()),
                "qdd is 12 x " + std::to_string(n) + ", not 13 x " + std::to_string(n));
    }
    EXPECT_THROW(mass_matrix_batch(model, workspaces, states.q, given, options), UsageError);
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
  StateRows tau2, tau8, mass2, mass8, qdd2, qdd8;
  inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, tau2,
                         {.simd = Simd::kAvx2});
  inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, tau8,
                         {.simd = Simd::kAvx512});
  mass_matrix_batch(model, workspaces, states.q, mass2, {.simd = Simd::kAvx2});
  mass_matrix_batch(model, workspaces, states.q, mass8, {.simd = Simd::kAvx512});
  forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd2,
                         {.simd = Simd::kAvx2});
  forward_dynamics_batch(model, workspaces, states.q, states.qd, states.qdd, qdd8,
                         {.simd = Simd::kAvx512});
  EXPECT_TRUE((tau2.array() == tau8.array()).all());
  EXPECT_TRUE((mass2.array() == mass8.array()).all());
  EXPECT_TRUE((qdd2.array() == qdd8.array()).all());
}

}  // namespace
}  // namespace skograph

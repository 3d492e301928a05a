// The 17 robots of the example-parallel-robots collection (../shared/robots/
// example-parallel-robots), loaded with their robot.yaml as published: 15 assemble from
// the zero state, the closure checked by forward kinematics written here over the file's
// mechanism (not the closure code); the two kangaroos are refused in one line, since their 6d
// pairs close loops whose joints cannot turn their frames into coincidence (a loop of three
// revolutes, two of them parallel, welded by a 6d pair: six equations in three unknowns, whose
// least-squares minimum the search reaches and reports). At each assembled state the forward
// dynamics satisfy the closed-chain DAE, the actuator forces give the motion back and the
// derivatives in the independent coordinates agree with Richardson of the dynamics. Skipped when
// ../shared is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "skograph/model/constraints.hpp"
#include "skograph/model/dynamics.hpp"
#include "support/closed_chain_derivatives_check.hpp"
#include "support/closed_chain_support.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;
using namespace testing_support;

using skograph::testing_support::kParallelRobots;

// World poses of every link of `m` (the file's mechanism: every link, fixed joints included) at
// the joint values `values` (joint name -> its dofs), by composing X = origin * motion(q) from the
// root; independent of the library's recursions and closure code.
std::vector<Eigen::Isometry3d> link_poses(const Mechanism& m,
                                          const std::map<std::string, Eigen::VectorXd>& values) {
  std::vector<Eigen::Isometry3d> pose(m.links.size(), Eigen::Isometry3d::Identity());
  std::vector<char> done(m.links.size(), 0);
  for (std::size_t pass = 0; pass < m.joints.size(); ++pass)
    for (const Joint& joint : m.joints) {
      const auto child = static_cast<std::size_t>(joint.child);
      if (done[child] || (joint.parent >= 0 && !done[static_cast<std::size_t>(joint.parent)]))
        continue;
      Eigen::Isometry3d motion = Eigen::Isometry3d::Identity();
      const auto value = values.find(joint.name);
      if (value != values.end()) {
        const Eigen::VectorXd& v = value->second;
        if (joint.type == JointType::kRevolute || joint.type == JointType::kContinuous)
          motion.linear() = Eigen::AngleAxisd(v[0], joint.axis.normalized()).toRotationMatrix();
        else if (joint.type == JointType::kPrismatic)
          motion.translation() = v[0] * joint.axis.normalized();
        else if (joint.type == JointType::kSpherical && v.norm() > 0)
          motion.linear() = Eigen::AngleAxisd(v.norm(), v.normalized()).toRotationMatrix();
      }
      const Eigen::Isometry3d parent = joint.parent < 0
                                           ? Eigen::Isometry3d::Identity()
                                           : pose[static_cast<std::size_t>(joint.parent)];
      pose[child] = parent * joint.origin * motion;
      done[child] = 1;
    }
  return pose;
}

// The largest position gap (m) and orientation gap (rad, 6d pairs) of the file's loops at the
// closed configuration q (file order).
double loop_gap(const Mechanism& file, const Model& model, const Eigen::VectorXd& q) {
  std::map<std::string, Eigen::VectorXd> values;
  const std::vector<std::string>& dofs = model.dof_names();
  for (std::size_t i = 0; i < dofs.size(); ++i) {
    const auto colon = dofs[i].rfind(':');
    const std::string joint = colon == std::string::npos ? dofs[i] : dofs[i].substr(0, colon);
    Eigen::VectorXd& v = values[joint];
    v.conservativeResize(v.size() + 1);
    v[v.size() - 1] = q[static_cast<Eigen::Index>(i)];
  }
  const std::vector<Eigen::Isometry3d> pose = link_poses(file, values);
  auto world = [&](int link, const Eigen::Isometry3d& origin) {
    return link < 0 ? origin : pose[static_cast<std::size_t>(link)] * origin;
  };
  double gap = 0.0;
  for (const LoopClosure& loop : file.loops) {
    const Eigen::Isometry3d a = world(loop.parent, loop.parent_origin);
    const Eigen::Isometry3d b = world(loop.child, loop.child_origin);
    gap = std::max(gap, (a.translation() - b.translation()).norm());
    if (loop.type == LoopType::kWeld)
      gap = std::max(gap, Eigen::AngleAxisd(a.linear().transpose() * b.linear()).angle());
  }
  return gap;
}

struct Robot {
  const char* folder;
  const char* urdf;
  bool closes;  // from the zero state
};

class ParallelRobots : public testing::TestWithParam<Robot> {};

TEST_P(ParallelRobots, LoadAssembleFromZeroAndSatisfyTheirDynamics) {
  const Robot robot = GetParam();
  const fs::path folder = kParallelRobots / robot.folder;
  if (!fs::exists(folder / "robot.yaml")) GTEST_SKIP() << "no ../shared robots";
  ReadOptions options;
  options.loops_file = (folder / "robot.yaml").string();
  const std::string urdf = (folder / robot.urdf).string();
  const Mechanism file = load_mechanism(urdf, options);
  const Model model = build_model(file, urdf);
  ASSERT_TRUE(model.is_closed_chain());
  ModelData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  if (!robot.closes) {
    try {
      assemble_positions(model, data, zero);
      FAIL() << "assembled";
    } catch (const ClosureError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot be closed from the given state: residual"),
                std::string::npos)
          << e.what();
    }
    return;
  }
  const Eigen::VectorXd q = assemble_positions(model, data, zero);
  EXPECT_LT(loop_gap(file, model, q), kClosureTolerance);
  // The dynamics at the assembled state with random rates and motor forces (file order).
  std::mt19937 generator(17);
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  Eigen::VectorXd qd(n), tau = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; ++i) qd[i] = 0.3 * draw(generator);
  for (const std::string& motor : file.preferred_independent) {
    const auto at = std::find(model.dof_names().begin(), model.dof_names().end(), motor);
    if (at != model.dof_names().end()) tau[at - model.dof_names().begin()] = draw(generator);
  }
  const Eigen::Vector3d gravity(0, 0, -9.81);
  ClosedState state;
  try {
    state = close_state(model, data, q, qd);
  } catch (const SingularConfigurationError& e) {
    GTEST_SKIP() << "assembled at a singular configuration: " << e.what();
  }
  const Eigen::VectorXd qdd = forward_dynamics(model, data, state.q, state.qd, tau, gravity);
  // The DAE from its terms: Q qdd + Qdot qd = 0 and M qdd + C - tau in the range of Q*.
  const DofOrder& order = model.dof_order();
  const ClosedChainModel& closed = *model.closed_chain();
  ClosedChainData check(closed);
  const Eigen::VectorXd qm = order.model_vector(state.q), qdm = order.model_vector(state.qd);
  update_closed_chain(closed, check, qm, qdm);
  const Eigen::MatrixXd rows = full_constraint_matrix(closed, check);
  const Eigen::VectorXd product = full_velocity_product(closed, check);
  const TreeTerms terms = tree_terms(closed, qm, qdm, gravity);
  const Eigen::VectorXd a = order.model_vector(qdd);
  const double scale = std::max(1.0, a.cwiseAbs().maxCoeff());
  EXPECT_LT((rows * a + product).cwiseAbs().maxCoeff(), 1e-9 * scale);
  const Eigen::VectorXd force = terms.mass * a + terms.bias - order.model_vector(tau);
  const Eigen::VectorXd lambda = rows.transpose().completeOrthogonalDecomposition().solve(force);
  EXPECT_LT((force - rows.transpose() * lambda).cwiseAbs().maxCoeff(),
            1e-9 * std::max(1.0, force.cwiseAbs().maxCoeff()));
  // The multiplier method gives the same motion; robots with a moving joint that
  // moves no mass have no positive definite tree M and are refused by it.
  try {
    const ClosedDynamics by_multipliers = forward_dynamics(
        model, data, state.q, state.qd, tau, gravity, ClosedChainSolver::kMultipliers);
    // Where the Schur complement G M^-1 G* is ill-conditioned (robot_delta: 3e10, its links of
    // 1.6e-11 kg m^2), the multiplier method loses digits that embedding, on the well-conditioned
    // M_R, keeps: there it must satisfy the same DAE to roundoff instead.
    const Eigen::MatrixXd g = constraint_system(model, data, state.q, state.qd).jacobian;
    const Eigen::MatrixXd file_mass = order.symmetric(terms.mass);
    const Eigen::VectorXd sigma =
        Eigen::JacobiSVD<Eigen::MatrixXd>(g * file_mass.ldlt().solve(g.transpose()))
            .singularValues();
    const double condition = sigma(0) / sigma(sigma.size() - 1);
    const Eigen::VectorXd b = order.model_vector(by_multipliers.acceleration);
    if (condition < 1e10) {
      EXPECT_LT((by_multipliers.acceleration - qdd).cwiseAbs().maxCoeff(), 1e-10 * scale)
          << "cond(G M^-1 G*) " << condition;
    } else {
      EXPECT_LT((rows * b + product).cwiseAbs().maxCoeff(), 1e-9 * scale);
      const Eigen::VectorXd imbalance = terms.mass * b + terms.bias - order.model_vector(tau);
      const Eigen::VectorXd multipliers =
          rows.transpose().completeOrthogonalDecomposition().solve(imbalance);
      EXPECT_LT((imbalance - rows.transpose() * multipliers).cwiseAbs().maxCoeff(),
                1e-9 * std::max(1.0, imbalance.cwiseAbs().maxCoeff()));
    }
    EXPECT_EQ(by_multipliers.multipliers.size(),
              static_cast<Eigen::Index>(by_multipliers.labels.size()));
  } catch (const SingularMassMatrixError& e) {
    EXPECT_FALSE(model.massless_joints().empty()) << e.what();
  }
  // X* tau = T_R: the actuator forces for this motion drive it again.
  const Eigen::VectorXd actuators = inverse_dynamics(model, data, state.q, state.qd, qdd, gravity);
  EXPECT_LT((forward_dynamics(model, data, state.q, state.qd, actuators, gravity) - qdd)
                .cwiseAbs()
                .maxCoeff(),
            1e-8 * scale);
  // The derivatives in the independent coordinates against Richardson of these calls: in the
  // actuated coordinates (the file's motors, preferred) and in the automatic choice (none
  // preferred).
  Mechanism automatic = file;
  automatic.preferred_independent.clear();
  const Model unactuated = build_model(automatic, urdf);
  for (const Model* chosen : {&model, &unactuated}) {
    const std::string name =
        std::string(robot.folder) + (chosen == &model ? " (actuated)" : " (automatic)");
    try {
      expect_closed_chain_derivatives(chosen == &model ? file : automatic, urdf, *chosen, state.q,
                                      state.qd, tau, qdd, gravity, name);
    } catch (const SingularMassMatrixError& e) {
      EXPECT_FALSE(chosen->massless_joints().empty()) << name << ": " << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Published, ParallelRobots,
    testing::Values(
        Robot{"5bar_linkage", "robot.urdf", true}, Robot{"5bar_linkage_iso3d", "robot.urdf", true},
        Robot{"5bar_linkage_iso6d", "robot.urdf", true}, Robot{"battobot_6d", "robot.urdf", true},
        Robot{"cassie_like", "robot.urdf", true}, Robot{"digit_like", "robot.urdf", true},
        Robot{"digit_like_2legs", "robot.urdf", true},
        Robot{"digit_like_2legs_6D", "robot.urdf", true},
        Robot{"digit_like_2legs_old", "robot.urdf", true}, Robot{"disney_like", "robot.urdf", true},
        Robot{"disney_robot", "robot.urdf", true}, Robot{"kangaroo_like", "robot.urdf", false},
        Robot{"kangaroo_like_2legs", "robot.urdf", false}, Robot{"robot_delta", "robot.urdf", true},
        Robot{"talos_like", "robot.urdf", true},
        Robot{"true_talos_2_legs", "talos_full_v2.urdf", true},
        Robot{"wl16_like", "robot.urdf", true}),
    [](const testing::TestParamInfo<Robot>& robot) { return std::string(robot.param.folder); });

}  // namespace
}  // namespace skograph

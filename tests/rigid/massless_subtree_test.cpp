// Massless links on moving joints: a massless subtree moves no mass, so M is singular
// in its coordinates only; the dynamics of the rest is that of the tree without the subtree, and
// its own accelerations are left at zero. Any other singular mass matrix is one error naming the
// joint. References: the tree with the massless subtree cut off, the generic operators path, the
// dense Lagrange-multiplier solve of the closed chains.
#include <gtest/gtest.h>

#include <cmath>

#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "support/closed_chain_support.hpp"

namespace skograph {
namespace {

using testing_support::add_link;
using testing_support::make_joint;
using testing_support::revolute_joint;
using testing_support::rod_link;

Link massless(const std::string& name) {
  Link link;
  link.name = name;
  return link;
}

// A three-link arm (shoulder, elbow about y, wrist about x) with, when `fingers`, a massless
// gripper on the wrist: a base hinge and two finger hinges below it, all massless.
Mechanism arm(bool fingers) {
  Mechanism m;
  const int upper = add_link(m, rod_link("upper", 0.5, 2.0));
  const int lower = add_link(m, rod_link("lower", 0.4, 1.5));
  const int hand = add_link(m, rod_link("hand", 0.1, 0.5));
  m.joints.push_back(revolute_joint("shoulder", -1, upper, {0, 0, 0.2}, Eigen::Vector3d::UnitY()));
  m.joints.push_back(revolute_joint("elbow", upper, lower, {0.5, 0, 0}, Eigen::Vector3d::UnitY()));
  m.joints.push_back(revolute_joint("wrist", lower, hand, {0.4, 0, 0}, Eigen::Vector3d::UnitX()));
  if (fingers) {
    const int palm = add_link(m, massless("palm"));
    const int left = add_link(m, massless("left"));
    const int right = add_link(m, massless("right"));
    m.joints.push_back(revolute_joint("grip", hand, palm, {0.1, 0, 0}, Eigen::Vector3d::UnitX()));
    m.joints.push_back(
        revolute_joint("left", palm, left, {0.02, 0.02, 0}, Eigen::Vector3d::UnitZ()));
    m.joints.push_back(
        revolute_joint("right", palm, right, {0.02, -0.02, 0}, Eigen::Vector3d::UnitZ()));
  }
  return m;
}

TEST(MasslessSubtree, TheRestMovesAsWithoutItAndItsAccelerationsStayZero) {
  const RigidBodyModel with(arm(true)), without(arm(false));
  EXPECT_EQ(with.massless_moving_joints(), std::vector<int>{3});  // grip
  EXPECT_TRUE(with.moves_no_mass(4));
  EXPECT_FALSE(with.moves_no_mass(2));
  RigidBodyData a(with), b(without);
  Eigen::VectorXd q(6), qd(6), tau(6), qdd(6);
  q << 0.3, -0.6, 0.9, 0.4, -0.2, 0.2;
  qd << 1.0, -0.5, 2.0, 3.0, -1.0, 1.0;
  tau << 5.0, -2.0, 0.3, 0.0, 0.0, 0.0;  // no force on the massless joints
  qdd << 0.5, 1.5, -1.0, 2.0, 2.0, -2.0;
  const Eigen::Vector3d g(0, 0, -9.81);
  const Eigen::VectorXd reference =
      forward_dynamics(without, b, q.head(3), qd.head(3), tau.head(3), g);
  const Eigen::VectorXd fast = forward_dynamics(with, a, q, qd, tau, g);
  EXPECT_TRUE(fast.head(3).isApprox(reference, 1e-13)) << fast.transpose();
  EXPECT_TRUE(fast.tail(3).isZero(0.0));
  // The generic operators path (massless nodes of operators/articulated_body.hpp) agrees.
  const Eigen::VectorXd generic = forward_dynamics_through_operators(with, a, q, qd, tau, g);
  EXPECT_TRUE(generic.isApprox(fast, 1e-13)) << generic.transpose();
  // M and the inverse dynamics: zero rows and columns for the massless joints.
  const Eigen::MatrixXd mass = mass_matrix(with, a, q);
  EXPECT_TRUE(mass.bottomRows(3).isZero(0.0));
  EXPECT_TRUE(mass.topLeftCorner(3, 3).isApprox(mass_matrix(without, b, q.head(3)), 1e-14));
  const Eigen::VectorXd id = inverse_dynamics(with, a, q, qd, qdd, g);
  EXPECT_TRUE(id.tail(3).isZero(0.0));
  EXPECT_TRUE(id.head(3).isApprox(
      inverse_dynamics(without, b, q.head(3), qd.head(3), qdd.head(3), g), 1e-13));
}

// Two massless links on coaxial hinges carrying a mass: the first hinge moves nothing the second
// does not (D = H P H* = 0 with P != 0), so M is singular: one error naming the joint.
TEST(MasslessSubtree, ASingularMassMatrixOtherwiseIsAnErrorNamingTheJoint) {
  Mechanism m;
  const int first = add_link(m, massless("first"));
  const int second = add_link(m, massless("second"));
  const int mass = add_link(m, rod_link("mass", 0.3, 1.0));
  m.joints.push_back(revolute_joint("outer", -1, first, {0, 0, 0}, Eigen::Vector3d::UnitZ()));
  m.joints.push_back(revolute_joint("inner", first, second, {0, 0, 0}, Eigen::Vector3d::UnitZ()));
  m.joints.push_back(
      make_joint("weld", JointType::kFixed, second, mass, Eigen::Isometry3d::Identity()));
  const RigidBodyModel model(m);
  EXPECT_TRUE(model.massless_moving_joints().empty());
  RigidBodyData data(model);
  const Eigen::Vector2d zero = Eigen::Vector2d::Zero();
  try {
    forward_dynamics(model, data, zero, zero, zero, Eigen::Vector3d(0, 0, -9.81));
    ADD_FAILURE() << "no error for a singular mass matrix";
  } catch (const SingularMassMatrixError& e) {
    EXPECT_EQ(e.node(), 0);
    EXPECT_NE(std::string(e.what()).find("joint 'outer'"), std::string::npos) << e.what();
  }
  // A point mass on a hinge's axis: no inertia about it.
  Mechanism point;
  Link bead{"bead", 0.5, Eigen::Vector3d(0, 0, 0.2), Eigen::Matrix3d::Zero()};
  const int b = add_link(point, bead);
  point.joints.push_back(revolute_joint("spin", -1, b, {0, 0, 0}, Eigen::Vector3d::UnitZ()));
  const RigidBodyModel spinning(point);
  RigidBodyData spinning_data(spinning);
  const Eigen::VectorXd one = Eigen::VectorXd::Zero(1);
  EXPECT_THROW(forward_dynamics(spinning, spinning_data, one, one, one, Eigen::Vector3d::Zero()),
               SingularMassMatrixError);
}

// Closed chains: a massless gripper whose fingers mimic each other is a massless aggregate (its
// accelerations stay zero); a massless coupler inside a four-bar moves with its massive aggregate
// and the accelerations equal the dense Lagrange-multiplier solve.
TEST(MasslessSubtree, ClosedChainsEmbedMasslessAggregatesAndMasslessLinksInsideLoops) {
  Mechanism m = arm(true);
  Coupling mimic;
  mimic.name = "right";
  mimic.joint_a = m.find_joint("right");
  mimic.joint_b = m.find_joint("left");
  mimic.ratio = -1.0;
  m.couplings.push_back(mimic);
  const ClosedChainModel gripper(m);
  EXPECT_EQ(gripper.massless_moving_joints(), std::vector<int>{3});
  ClosedChainData data(gripper);
  Eigen::VectorXd q(6), qd(6), tau(6);
  q << 0.3, -0.6, 0.9, 0.4, -0.2, 0.2;
  qd << 1.0, -0.5, 2.0, 3.0, -1.0, 1.0;
  tau << 5.0, -2.0, 0.3, 0.0, 0.0, 0.0;
  close_positions(gripper, data, q);
  close_velocities(gripper, data, q, qd);
  const Eigen::Vector3d g(0, 0, -9.81);
  const Eigen::VectorXd qdd = forward_dynamics(gripper, data, q, qd, tau, g);
  const RigidBodyModel plain(arm(false));
  RigidBodyData plain_data(plain);
  EXPECT_TRUE(qdd.head(3).isApprox(
      forward_dynamics(plain, plain_data, q.head(3), qd.head(3), tau.head(3), g), 1e-12));
  // grip: prescribed zero; the fingers follow the coupling (their rates are constant).
  EXPECT_NEAR(qdd(3), 0.0, 1e-12);
  EXPECT_NEAR(qdd(4) + qdd(5), 0.0, 1e-12);

  // The four-bar with a massless coupler: the tree's coupler is a massless leaf, but the loop
  // makes it part of a massive aggregate.
  Mechanism four = testing_support::four_bar(true);
  const int coupler = four.find_link("coupler");
  ASSERT_GE(coupler, 0);
  four.links[coupler].mass = 0.0;
  four.links[coupler].inertia.setZero();
  const ClosedChainModel model(four);
  EXPECT_TRUE(model.massless_moving_joints().empty());
  ClosedChainData four_data(model);
  Eigen::VectorXd fq = testing_support::four_bar_configuration(true, 0.7);
  Eigen::VectorXd fqd = Eigen::VectorXd::Zero(fq.size()), ftau = Eigen::VectorXd::Zero(fq.size());
  fqd(0) = 1.5;
  ftau(0) = 0.2;
  close_positions(model, four_data, fq);
  close_velocities(model, four_data, fq, fqd);
  const Eigen::VectorXd embedded = forward_dynamics(model, four_data, fq, fqd, ftau, g);
  const RigidBodyModel& tree = model.tree();
  RigidBodyData tree_data(tree);
  const Eigen::MatrixXd mass = mass_matrix(tree, tree_data, fq);
  const Eigen::VectorXd bias = bias_forces(tree, tree_data, fq, fqd, g);
  update_closed_chain(model, four_data, fq, fqd);
  const Eigen::VectorXd dense = testing_support::dae_accelerations(
      mass, bias, ftau, testing_support::full_constraint_matrix(model, four_data),
      testing_support::full_velocity_product(model, four_data));
  EXPECT_TRUE(embedded.isApprox(dense, 1e-10)) << embedded.transpose() << "\n" << dense.transpose();
}

}  // namespace
}  // namespace skograph

// Textbook closed forms: single pendulum (point mass and rod), double pendulum, a free body
// (Newton-Euler about the center of mass).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "skograph/rigid/rigid_body_model.hpp"
#include "support/gravity.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using skograph::testing_support::kGravityDownZ;
constexpr double kG = 9.81;

// A link hanging from a revolute joint about y at `origin`; its center of mass a distance `c`
// below the joint (along -z of the link frame).
Link hanging_link(const std::string& name, double mass, double c, double inertia_yy) {
  Link link;
  link.name = name;
  link.mass = mass;
  link.center_of_mass = Eigen::Vector3d(0, 0, -c);
  link.inertia = Eigen::Vector3d(inertia_yy, inertia_yy, 1e-9).asDiagonal();
  return link;
}

Joint revolute_y(const std::string& name, int parent, int child, const Eigen::Vector3d& at) {
  Joint joint;
  joint.name = name;
  joint.type = JointType::kRevolute;
  joint.parent = parent;
  joint.child = child;
  joint.origin.translation() = at;
  joint.axis = Eigen::Vector3d::UnitY();
  return joint;
}

// (I_c + m l^2) thetaddot = tau - m g l sin(theta).
void check_single_pendulum(double mass, double length, double inertia_yy) {
  Mechanism mechanism;
  mechanism.links.push_back(hanging_link("bob", mass, length, inertia_yy));
  mechanism.joints.push_back(revolute_y("pivot", -1, 0, Eigen::Vector3d(0.1, -0.2, 0.3)));
  const RigidBodyModel model(mechanism);
  RigidBodyData data(model);
  const double inertia = inertia_yy + mass * length * length;
  for (const double theta : {-2.0, -0.4, 0.0, 0.7, 2.5}) {
    Eigen::VectorXd q(1), qd(1), tau(1), qdd(1);
    q << theta;
    qd << 1.3;
    tau << 0.8;
    qdd << -0.6;
    const double expected_qdd = (0.8 - mass * kG * length * std::sin(theta)) / inertia;
    EXPECT_NEAR(forward_dynamics(model, data, q, qd, tau, kGravityDownZ)(0), expected_qdd, 1e-9);
    EXPECT_NEAR(inverse_dynamics(model, data, q, qd, qdd, kGravityDownZ)(0),
                inertia * -0.6 + mass * kG * length * std::sin(theta), 1e-9);
    EXPECT_NEAR(mass_matrix(model, data, q)(0, 0), inertia, 1e-12);
  }
}

TEST(ClosedForm, SinglePendulumPointMass) {
  check_single_pendulum(2.0, 0.75, 1e-9);
}

TEST(ClosedForm, SinglePendulumRod) {
  const double mass = 1.5, length = 1.2;  // uniform rod pivoted at one end
  check_single_pendulum(mass, length / 2, mass * length * length / 12);
}

// Double pendulum with relative angles (Spong, Hutchinson, Vidyasagar, section 7.3):
//   M11 = I1 + I2 + m1 c1^2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos t2), M12 = I2 + m2 (c2^2 + l1 c2 cos
//   t2), M22 = I2 + m2 c2^2, h = m2 l1 c2 sin t2, C1 = -h (2 t1' t2' + t2'^2), C2 = h t1'^2, G1 =
//   (m1 c1 + m2 l1) g sin t1 + m2 c2 g sin(t1 + t2), G2 = m2 c2 g sin(t1 + t2).
TEST(ClosedForm, DoublePendulum) {
  const double m1 = 1.3, m2 = 0.7, l1 = 0.9, c1 = 0.4, c2 = 0.35, i1 = 0.05, i2 = 0.02;
  Mechanism mechanism;
  mechanism.links.push_back(hanging_link("upper", m1, c1, i1));
  mechanism.links.push_back(hanging_link("lower", m2, c2, i2));
  mechanism.joints.push_back(revolute_y("shoulder", -1, 0, Eigen::Vector3d::Zero()));
  mechanism.joints.push_back(revolute_y("elbow", 0, 1, Eigen::Vector3d(0, 0, -l1)));
  const RigidBodyModel model(mechanism);
  RigidBodyData data(model);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::VectorXd q = testing_support::rigid_random_state(2, rng, 3.0);
    const Eigen::VectorXd qd = testing_support::rigid_random_state(2, rng, 2.0);
    const double t1 = q(0), t2 = q(1), d1 = qd(0), d2 = qd(1);
    Eigen::Matrix2d expected_mass;
    expected_mass(0, 0) =
        i1 + i2 + m1 * c1 * c1 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * std::cos(t2));
    expected_mass(0, 1) = expected_mass(1, 0) = i2 + m2 * (c2 * c2 + l1 * c2 * std::cos(t2));
    expected_mass(1, 1) = i2 + m2 * c2 * c2;
    const double h = m2 * l1 * c2 * std::sin(t2);
    Eigen::Vector2d expected_bias(-h * (2 * d1 * d2 + d2 * d2) +
                                      (m1 * c1 + m2 * l1) * kG * std::sin(t1) +
                                      m2 * c2 * kG * std::sin(t1 + t2),
                                  h * d1 * d1 + m2 * c2 * kG * std::sin(t1 + t2));
    const Eigen::MatrixXd mass = mass_matrix(model, data, q);
    EXPECT_LT((mass - expected_mass).cwiseAbs().maxCoeff(), 1e-8);
    const Eigen::VectorXd bias = bias_forces(model, data, q, qd, kGravityDownZ);
    EXPECT_LT((bias - expected_bias).cwiseAbs().maxCoeff(), 1e-8);
    const Eigen::Vector2d tau(0.3, -0.2);
    const Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, tau, kGravityDownZ);
    EXPECT_LT((qdd - expected_mass.inverse() * (tau - expected_bias)).cwiseAbs().maxCoeff(), 1e-8);
  }
}

// A free body on a floating joint: F = m (a_c - g), N_c = J_c omegadot + omega x J_c omega, and
// the generalized force is the wrench about the body origin [N_c + c x F; F] in body axes. With
// V = [omega; v] of the origin in body axes and qdd = dV/dt of those coordinates, the center of
// mass accelerates by a_c = vdot + omega x v + omegadot x c + omega x (omega x c).
TEST(ClosedForm, FreeBodyNewtonEuler) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 5; ++trial) {
    Mechanism mechanism;
    mechanism.links.push_back(testing_support::random_link("body", rng));
    Joint joint;
    joint.name = "free";
    joint.type = JointType::kFloating;
    joint.child = 0;
    joint.origin.linear() = testing_support::rigid_random_rotation(rng);
    joint.origin.translation() = testing_support::rigid_random_vector(rng, 1.0);
    mechanism.joints.push_back(joint);
    const RigidBodyModel model(mechanism);
    RigidBodyData data(model);
    const Link& body = mechanism.links[0];
    const Eigen::VectorXd q = testing_support::rigid_random_state(6, rng, 2.0);
    const Eigen::VectorXd qd = testing_support::rigid_random_state(6, rng, 2.0);
    const Eigen::VectorXd qdd = testing_support::rigid_random_state(6, rng, 2.0);
    const Eigen::Vector3d omega = qd.head<3>(), v = qd.tail<3>();
    const Eigen::Vector3d omegadot = qdd.head<3>(), vdot = qdd.tail<3>();
    const Eigen::Vector3d c = body.center_of_mass;
    const Eigen::Matrix3d rotation =
        joint.origin.linear() * rotation_from_vector(Eigen::Vector3d(q(0), q(1), q(2)));
    const Eigen::Vector3d gravity_body = rotation.transpose() * kGravityDownZ;
    const Eigen::Vector3d a_c =
        vdot + omega.cross(v) + omegadot.cross(c) + omega.cross(omega.cross(c));
    const Eigen::Vector3d force = body.mass * (a_c - gravity_body);
    const Eigen::Vector3d moment = body.inertia * omegadot + omega.cross(body.inertia * omega);
    Vector6d expected;
    expected << moment + c.cross(force), force;
    const Eigen::VectorXd tau = inverse_dynamics(model, data, q, qd, qdd, kGravityDownZ);
    EXPECT_LT((tau - expected).cwiseAbs().maxCoeff(), 1e-10 * (1 + expected.norm()));
    EXPECT_LT(
        (forward_dynamics(model, data, q, qd, expected, kGravityDownZ) - qdd).cwiseAbs().maxCoeff(),
        1e-9);
  }
}

}  // namespace
}  // namespace skograph

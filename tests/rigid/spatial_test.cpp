// Spatial algebra against first principles: point velocities of a rigid body, kinetic energy about
// the center of mass, finite differences of joint motions.
#include "skograph/rigid/spatial.hpp"

#include <gtest/gtest.h>

#include <random>

#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using testing_support::rigid_random_rotation;
using testing_support::rigid_random_unit;
using testing_support::rigid_random_vector;

Eigen::Isometry3d random_transform(std::mt19937& rng) {
  Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
  x.linear() = rigid_random_rotation(rng);
  x.translation() = rigid_random_vector(rng, 2.0);
  return x;
}

Vector6d random_vector6(std::mt19937& rng) {
  Vector6d v;
  v << rigid_random_vector(rng, 1.0), rigid_random_vector(rng, 1.0);
  return v;
}

TEST(Spatial, CrossMatrixIsTheCrossProduct) {
  std::mt19937 rng(1);
  const Eigen::Vector3d l = rigid_random_vector(rng, 1.0), x = rigid_random_vector(rng, 1.0);
  EXPECT_LT((cross_matrix(l) * x - l.cross(x)).norm(), 1e-15);
}

// phi*(p, k) maps the velocity [omega; v(O_p)] of a rigid body in frame p to [omega; v(O_k)] in
// frame k: v(O_k) = v(O_p) + omega x l.
TEST(Spatial, PhiTransposeMovesRigidBodyVelocities) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::Isometry3d x = random_transform(rng);
    const Vector6d v_p = random_vector6(rng);
    const Eigen::Vector3d omega = v_p.head<3>(), l = x.translation();
    const Eigen::Matrix3d r = x.linear();
    Vector6d expected;
    expected << r.transpose() * omega, r.transpose() * (v_p.tail<3>() + omega.cross(l));
    EXPECT_LT((rigid_body_transform(x).transpose() * v_p - expected).norm(), 1e-13);
    // Composition of frames: phi(a, c) = phi(a, b) phi(b, c).
    const Eigen::Isometry3d y = random_transform(rng);
    EXPECT_LT(
        (rigid_body_transform(x * y) - rigid_body_transform(x) * rigid_body_transform(y)).norm(),
        1e-12);
  }
}

// 1/2 V* M V = 1/2 m |v_c|^2 + 1/2 omega* J_c omega with v_c = v + omega x c (Koenig).
TEST(Spatial, SpatialInertiaGivesKineticEnergyAboutTheCenterOfMass) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    const Link link = testing_support::random_link("l", rng);
    const Vector6d v = random_vector6(rng);
    const Eigen::Vector3d omega = v.head<3>();
    const Eigen::Vector3d v_c = v.tail<3>() + omega.cross(link.center_of_mass);
    const double expected =
        0.5 * link.mass * v_c.squaredNorm() + 0.5 * omega.dot(link.inertia * omega);
    const Matrix6d m = spatial_inertia(link.mass, link.center_of_mass, link.inertia);
    EXPECT_NEAR(0.5 * v.dot(m * v), expected, 1e-12);
    EXPECT_LT((m - m.transpose()).norm(), 1e-14);
  }
}

// The motion cross product is the derivative of a body-fixed motion vector seen from a frame
// moving with V: d/dt (phi*(t) m) at t = 0 for the frame motion exp(t V); and x* = -(x)*.
TEST(Spatial, CrossProductsAreDerivativesOfFrameMotion) {
  std::mt19937 rng(4);
  const Vector6d v = random_vector6(rng), m = random_vector6(rng), f = random_vector6(rng);
  // Frame k moving with velocity V relative to p (in p = k at t = 0): m fixed in p, seen in k.
  auto frame = [&](double t) {
    Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
    x.linear() = rotation_from_vector(t * v.head<3>());
    x.translation() = t * v.tail<3>();  // first order suffices at t = 0
    return x;
  };
  const double h = 1e-6;
  const Vector6d derivative = (rigid_body_transform(frame(h)).transpose() * m -
                               rigid_body_transform(frame(-h)).transpose() * m) /
                              (2 * h);
  EXPECT_LT((derivative + motion_cross(v, m)).norm(), 1e-8);
  EXPECT_NEAR(f.dot(motion_cross(v, m)), -force_cross(v, f).dot(m), 1e-14);
}

// H*(q) qd is the body-frame relative velocity X^-1 dX/dt, dX/dt by central differences along
// dq/dt = configuration rate; (d/dt H*) qd likewise.
TEST(Spatial, HingeMapsAreJointVelocitiesForEveryJointType) {
  std::mt19937 rng(5);
  const JointType types[] = {JointType::kFixed,     JointType::kRevolute, JointType::kContinuous,
                             JointType::kPrismatic, JointType::kPlanar,   JointType::kSpherical,
                             JointType::kFloating};
  for (const JointType type : types) {
    for (int trial = 0; trial < 5; ++trial) {
      const JointGeometry joint = make_joint_geometry(type, 3.0 * rigid_random_unit(rng));
      EXPECT_NEAR(joint.axis.norm(), 1.0, 1e-15);
      const int n = joint.dofs();
      const Eigen::VectorXd q = testing_support::rigid_random_state(n, rng, 2.0);
      const Eigen::VectorXd qd = testing_support::rigid_random_state(n, rng, 1.0);
      Eigen::VectorXd rate(n);
      joint_configuration_rate(joint, q.data(), qd.data(), rate.data());
      const double h = 1e-6;
      const Eigen::VectorXd q_plus = q + h * rate, q_minus = q - h * rate;
      const Eigen::Matrix4d derivative = joint_motion(joint, q.data()).matrix().inverse() *
                                         (joint_motion(joint, q_plus.data()).matrix() -
                                          joint_motion(joint, q_minus.data()).matrix()) /
                                         (2 * h);
      Vector6d relative;
      relative << derivative(2, 1), derivative(0, 2), derivative(1, 0),
          derivative.block<3, 1>(0, 3);
      const Vector6d hinge_velocity =
          n > 0 ? Vector6d(joint_hinge_transpose(joint, q.data()) * qd) : Vector6d::Zero();
      EXPECT_LT((hinge_velocity - relative).norm(), 1e-8) << joint_type_name(type);
      EXPECT_LT(
          (derivative.topLeftCorner<3, 3>() + derivative.topLeftCorner<3, 3>().transpose()).norm(),
          1e-8);
      if (n == 0) continue;
      const Vector6d rate_product = (joint_hinge_transpose(joint, q_plus.data()) * qd -
                                     joint_hinge_transpose(joint, q_minus.data()) * qd) /
                                    (2 * h);
      EXPECT_LT((joint_velocity_product(joint, q.data(), qd.data()) - rate_product).norm(), 1e-8)
          << joint_type_name(type);
    }
  }
}

}  // namespace
}  // namespace skograph

// The fixed-size kernels of the rigid recursions (rigid_kernels.hpp, rigid/axis_turn.hpp) against
// the dense 6 x 6 definitions: phi(p, k) = rigid_body_transform(R, l), V(k) = phi* V(p),
// f(p) = phi f(k), P(p) = phi P phi*, on random transforms and on turns about each coordinate
// axis.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <random>

#include "rigid/axis_turn.hpp"
#include "skograph/rigid/rigid_kernels.hpp"
#include "skograph/rigid/spatial.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using testing_support::rigid_random_rotation;
using testing_support::rigid_random_vector;
using testing_support::rigid_uniform;

Eigen::Matrix3d random_symmetric(std::mt19937& rng) {
  Eigen::Matrix3d m;
  for (int i = 0; i < 9; ++i) m(i) = rigid_uniform(rng, -2, 2);
  return m + m.transpose();
}

Matrix6d random_symmetric6(std::mt19937& rng) {
  Matrix6d m;
  for (int i = 0; i < 36; ++i) m(i) = rigid_uniform(rng, -2, 2);
  return m + m.transpose();
}

kernels::RigidInertia random_inertia(std::mt19937& rng) {
  kernels::RigidInertia inertia;
  inertia.mass = rigid_uniform(rng, 0.5, 3.0);
  inertia.first_moment = rigid_random_vector(rng, 1.0);
  inertia.rotational = random_symmetric(rng);
  return inertia;
}

Vector6d random_vector6(std::mt19937& rng) {
  Vector6d v;
  v << rigid_random_vector(rng, 1.0), rigid_random_vector(rng, 1.0);
  return v;
}

TEST(RigidKernels, RotateSymmetricIsTheSandwich) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 50; ++trial) {
    const Eigen::Matrix3d R = rigid_random_rotation(rng), S = random_symmetric(rng);
    Eigen::Matrix3d out;
    kernels::rotate_symmetric(R, S, out);
    EXPECT_LT((out - R * S * R.transpose()).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_EQ(out, out.transpose());
  }
}

TEST(RigidKernels, InertiaToParentIsPhiMPhiTransposed) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 50; ++trial) {
    const Eigen::Matrix3d R = rigid_random_rotation(rng);
    const Eigen::Vector3d l = rigid_random_vector(rng, 1.0);
    const kernels::RigidInertia child = random_inertia(rng);
    kernels::RigidInertia parent = random_inertia(rng);
    const Matrix6d before = parent.matrix();
    child.add_to_parent(R, l, parent);
    const Matrix6d phi = rigid_body_transform(R, l);
    EXPECT_LT(
        (parent.matrix() - before - phi * child.matrix() * phi.transpose()).cwiseAbs().maxCoeff(),
        1e-13);
  }
}

TEST(RigidKernels, ArticulatedInertiaToParentIsPhiPPhiTransposed) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    const Eigen::Matrix3d R = rigid_random_rotation(rng);
    const Eigen::Vector3d l = rigid_random_vector(rng, 1.0);
    const Matrix6d child = random_symmetric6(rng);
    Matrix6d parent = random_symmetric6(rng);
    const Matrix6d before = parent;
    kernels::add_articulated_inertia_to_parent(R, l, child, parent);
    const Matrix6d phi = rigid_body_transform(R, l);
    EXPECT_LT((parent - before - phi * child * phi.transpose()).cwiseAbs().maxCoeff(), 1e-13);
  }
}

// Every kernel of axis_turn.hpp against the general one and the dense definition, about axis I.
template <int I>
void check_turn_kernels(std::mt19937& rng) {
  for (int trial = 0; trial < 30; ++trial) {
    const double angle = rigid_uniform(rng, -4.0, 4.0);
    const Eigen::Matrix3d R = Eigen::AngleAxisd(angle, Eigen::Vector3d::Unit(I)).toRotationMatrix();
    const kernels::AxisTurn<I> turn(R);
    const Eigen::Vector3d l = rigid_random_vector(rng, 1.0), v = rigid_random_vector(rng, 1.0);
    const Matrix6d phi = rigid_body_transform(R, l);
    constexpr double tolerance = 1e-14;
    EXPECT_LT((turn.apply(v) - R * v).cwiseAbs().maxCoeff(), tolerance);
    EXPECT_LT((turn.apply_transpose(v) - R.transpose() * v).cwiseAbs().maxCoeff(), tolerance);
    Eigen::Matrix3d out;
    const Eigen::Matrix3d S = random_symmetric(rng);
    turn.sandwich_symmetric(S, out);
    EXPECT_LT((out - R * S * R.transpose()).cwiseAbs().maxCoeff(), tolerance);
    EXPECT_EQ(out, out.transpose());

    const Vector6d motion = random_vector6(rng), force = random_vector6(rng);
    EXPECT_LT((kernels::turned_motion_to_child(turn, l, motion) - phi.transpose() * motion)
                  .cwiseAbs()
                  .maxCoeff(),
              tolerance);
    Vector6d parent_force = random_vector6(rng);
    const Vector6d before_force = parent_force;
    kernels::add_turned_force_to_parent(turn, l, force, parent_force);
    EXPECT_LT((parent_force - before_force - phi * force).cwiseAbs().maxCoeff(), tolerance);

    const kernels::RigidInertia child = random_inertia(rng);
    kernels::RigidInertia parent_inertia = random_inertia(rng);
    const Matrix6d before_inertia = parent_inertia.matrix();
    kernels::add_turned_inertia_to_parent(turn, l, child, parent_inertia);
    EXPECT_LT((parent_inertia.matrix() - before_inertia - phi * child.matrix() * phi.transpose())
                  .cwiseAbs()
                  .maxCoeff(),
              1e-13);
  }
}

TEST(RigidKernels, TurnsAboutEachAxisEqualTheDenseTransforms) {
  std::mt19937 rng(4);
  check_turn_kernels<0>(rng);
  check_turn_kernels<1>(rng);
  check_turn_kernels<2>(rng);
}

}  // namespace
}  // namespace skograph

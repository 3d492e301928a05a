// The dense reference for flexible trees (tests/support/flexible_reference.hpp) checked before
// anything is checked against it: without modes it equals the rigid model's mass matrix and bias
// forces; with beam modes its bias forces follow from Lagrange's equations (differences of its
// mass matrix and potential energy), power equals the rate of energy, and a clamped body's
// linearized frequencies are its modal frequencies.
#include "support/flexible_reference.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "skograph/rigid/beam_modes.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "support/flexible_mechanism.hpp"
#include "support/richardson.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using flexible_reference::Body;
using flexible_reference::Tree;
using namespace testing_support;

// A random tree of `count` bodies (joint types mixed, a floating first body when asked), rigid.
std::vector<Body> random_rigid_bodies(int count, bool floating, std::mt19937& rng) {
  std::vector<Body> bodies;
  for (int k = 0; k < count; ++k) {
    bodies.push_back(random_rigid_body(k, floating, rng));
  }
  return bodies;
}

using flexible_reference::max_relative_error;

TEST(FlexibleReference, WithoutModesEqualsTheRigidModel) {
  std::mt19937 rng(20261205);
  const Eigen::Vector3d gravity(0.3, -0.4, -9.81);
  for (int trial = 0; trial < 12; ++trial) {
    const std::vector<Body> bodies = random_rigid_bodies(2 + trial % 7, trial % 2 == 0, rng);
    const Tree tree(bodies);
    const RigidBodyModel model(mechanism_of(bodies));
    RigidBodyData data(model);
    ASSERT_EQ(model.dof_count(), tree.dofs());
    const Eigen::VectorXd q = rigid_random_state(tree.dofs(), rng),
                          qd = rigid_random_state(tree.dofs(), rng);
    EXPECT_LT(max_relative_error(tree.mass_matrix(q), mass_matrix(model, data, q)), 1e-13)
        << "trial " << trial;
    EXPECT_LT(max_relative_error(tree.bias_forces(q, qd, gravity),
                                 bias_forces(model, data, q, qd, gravity)),
              1e-13)
        << "trial " << trial;
  }
}

// Beam bodies: each a clamped-free beam along x with `modes` per plane, hanging from a random
// earlier body (at the parent's tip node when the parent is a beam).
std::vector<Body> beam_bodies(int count, int modes, bool floating, double damping,
                              std::mt19937& rng) {
  std::vector<Body> bodies;
  std::vector<BeamModes> data;
  for (int k = 0; k < count; ++k) {
    BeamSpec spec;
    spec.length = rigid_uniform(rng, 0.5, 1.5);
    spec.stiffness_y = rigid_uniform(rng, 20, 60);
    spec.stiffness_z = rigid_uniform(rng, 20, 60);
    spec.mass_per_length = rigid_uniform(rng, 0.5, 2.0);
    spec.modes = modes;
    spec.radius = spec.length / 50;
    const std::vector<double> stations = {spec.length * rigid_uniform(rng, 0.3, 1.0)};
    data.push_back(clamped_free_beam(spec, stations));
    const BeamModes& beam = data.back();
    Body body;
    body.parent = k == 0 ? -1 : static_cast<int>(rng() % k);
    body.joint = k == 0 && floating ? Body::Joint::kFloating
                 : rng() % 3 == 0   ? Body::Joint::kPrismatic
                                    : Body::Joint::kRevolute;
    body.origin = random_origin(rng);
    if (body.parent >= 0) body.attachment = data[body.parent].influence[0];
    body.axis = rigid_random_unit(rng);
    body.mass = beam.mass;
    body.center_of_mass = beam.center_of_mass;
    body.inertia = beam.inertia_about_center;
    body.coupling = beam.coupling;
    body.modal_mass = beam.modal_mass;
    body.stiffness = beam.modal_stiffness;
    body.damping = damping * beam.modal_mass;
    bodies.push_back(body);
  }
  return bodies;
}

// Lagrange's equations for coordinates that are all plain (no floating joint):
// C = dM/dt qd - 1/2 d(qd* M qd)/dq + dU/dq + D qd, the derivatives by Richardson extrapolation.
TEST(FlexibleReference, BiasForcesFollowFromLagrangesEquations) {
  std::mt19937 rng(7);
  const Eigen::Vector3d gravity(0.0, 1.5, -9.81);
  for (int trial = 0; trial < 4; ++trial) {
    const Tree tree(beam_bodies(3, 2, false, 0.05, rng));
    const int n = tree.dofs();
    const Eigen::VectorXd q = rigid_random_state(n, rng, 0.3), qd = rigid_random_state(n, rng);
    const auto mass_along = [&](int, double e) -> Eigen::VectorXd {
      return tree.mass_matrix(q + e * qd).reshaped();
    };
    const Eigen::MatrixXd mass_rate = richardson_columns(1, mass_along, 1e-3).fine.reshaped(n, n);
    const auto lagrangian_gradient = [&](int j, double e) -> Eigen::VectorXd {
      const Eigen::VectorXd moved = q + e * Eigen::VectorXd::Unit(n, j);
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
      const double kinetic = 0.5 * qd.dot(tree.mass_matrix(moved) * qd);
      return Eigen::VectorXd::Constant(1, kinetic - tree.energy(moved, zero, gravity));
    };
    const Eigen::VectorXd gradient =
        richardson_columns(n, lagrangian_gradient, 1e-3).fine.transpose();
    Eigen::VectorXd damping = Eigen::VectorXd::Zero(n);
    for (int k = 0; k < 3; ++k) {
      const Body& body = tree.bodies()[k];
      const int first = tree.offset(k) + body.joint_dofs();
      damping.segment(first, body.modes()) = body.damping * qd.segment(first, body.modes());
    }
    const Eigen::VectorXd expected = mass_rate * qd - gradient + damping;
    EXPECT_LT(max_relative_error(tree.bias_forces(q, qd, gravity), expected), 1e-8)
        << "trial " << trial;
  }
}

// Power: d(T + U)/dt = qd* tau - etadot* D etadot along qdd = M^-1 (tau - C), with and without a
// floating base (its rotation vector starts at zero, where the vector's rate is omega).
TEST(FlexibleReference, PowerIsTheRateOfEnergy) {
  std::mt19937 rng(11);
  const Eigen::Vector3d gravity(0.4, 0.0, -9.81);
  for (int trial = 0; trial < 4; ++trial) {
    const Tree tree(beam_bodies(4, 2, trial % 2 == 0, 0.1, rng));
    const int n = tree.dofs();
    Eigen::VectorXd q = rigid_random_state(n, rng, 0.3);
    if (tree.bodies()[0].joint == Body::Joint::kFloating) q.head<3>().setZero();
    for (int k = 0; k < 4; ++k) {  // small deformations: the modes are stiff
      const Body& body = tree.bodies()[k];
      q.segment(tree.offset(k) + body.joint_dofs(), body.modes()) *= 0.03;
    }
    const Eigen::VectorXd qd = rigid_random_state(n, rng), tau = rigid_random_state(n, rng);
    const Eigen::VectorXd qdd =
        tree.mass_matrix(q).ldlt().solve(tau - tree.bias_forces(q, qd, gravity));
    const auto energy_along = [&](int, double e) -> Eigen::VectorXd {
      return Eigen::VectorXd::Constant(1, tree.energy(q + e * qd, qd + e * qdd, gravity));
    };
    const double rate = richardson_columns(1, energy_along, 3e-5).fine(0, 0);
    double dissipated = 0.0;
    for (int k = 0; k < 4; ++k) {
      const Body& body = tree.bodies()[k];
      const Eigen::VectorXd etadot = qd.segment(tree.offset(k) + body.joint_dofs(), body.modes());
      dissipated += etadot.dot(body.damping * etadot);
    }
    const double power = qd.dot(tau) - dissipated;
    // The differences' rounding grows with the energy's size: 1e-16 |E| / h.
    const double energy = std::abs(tree.energy(q, qd, gravity));
    EXPECT_NEAR(rate, power, 1e-9 * (1.0 + energy + std::abs(power))) << "trial " << trial;
  }
}

// A beam on a fixed joint: the modal rows decouple, and M^-1 K's eigenvalues are omega^2.
TEST(FlexibleReference, AClampedBeamVibratesAtItsModalFrequencies) {
  BeamSpec spec;
  spec.length = 2.0;
  spec.stiffness_y = 30.0;
  spec.stiffness_z = 55.0;
  spec.mass_per_length = 1.2;
  spec.modes = 3;
  spec.radius = spec.length / 50;
  const BeamModes beam = clamped_free_beam(spec, {});
  Body body;
  body.joint = Body::Joint::kFixed;
  body.mass = beam.mass;
  body.center_of_mass = beam.center_of_mass;
  body.inertia = beam.inertia_about_center;
  body.coupling = beam.coupling;
  body.modal_mass = beam.modal_mass;
  body.stiffness = beam.modal_stiffness;
  body.damping = Eigen::MatrixXd::Zero(6, 6);
  const Tree tree({body});
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(6);
  // K from differences of the elastic force, M from the reference.
  const auto force = [&](int j, double e) -> Eigen::VectorXd {
    return tree.bias_forces(q + e * Eigen::VectorXd::Unit(6, j), Eigen::VectorXd::Zero(6),
                            Eigen::Vector3d::Zero());
  };
  const Eigen::MatrixXd stiffness = richardson_columns(6, force, 1e-3).fine;
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(stiffness, tree.mass_matrix(q));
  Eigen::VectorXd expected(6);
  for (int plane = 0; plane < 2; ++plane) {
    const double stiffness_of_plane = plane == 0 ? spec.stiffness_y : spec.stiffness_z;
    const std::vector<double> roots = clamped_free_roots(3);
    for (int m = 0; m < 3; ++m)
      expected[3 * plane + m] =
          std::pow(roots[m], 4) * stiffness_of_plane / (spec.mass_per_length * std::pow(2.0, 4));
  }
  std::sort(expected.begin(), expected.end());
  for (int m = 0; m < 6; ++m)
    EXPECT_NEAR(solver.eigenvalues()[m], expected[m], 1e-8 * expected[m]) << "mode " << m;
}

}  // namespace
}  // namespace skograph

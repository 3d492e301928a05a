// Loop and coupling reaction forces (rigid/closed_chain_forces.hpp) against the Lagrange
// multipliers of the dense DAE [M Q*; Q 0] and against statics by hand: a four-bar holding its
// coupler's weight (both cuts) and geared links held by their motor.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/closed_chain_forces.hpp"
#include "support/closed_chain_support.hpp"
#include "support/gravity.hpp"

namespace skograph {
namespace {

using namespace testing_support;

using skograph::testing_support::kGravityDownY;

double cross_z(const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
  return a.x() * b.y() - a.y() * b.x();
}

// The multipliers are the dense DAE's (with the opposite sign: there M qdd + Q* lambda = tau - C)
// and balance the tree's equations of motion with the dense M and C.
TEST(ClosedChainForces, AreTheLagrangeMultipliersOfTheDenseDae) {
  std::mt19937 rng(11);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    const auto [mass, bias] = tree_terms(model, c.q, c.qd, kGravityDownY);
    const Eigen::VectorXd tau = rigid_random_state(model.dof_count(), rng, 2.0);
    const Eigen::VectorXd qdd = forward_dynamics(model, data, c.q, c.qd, tau, kGravityDownY);
    ConstraintForces forces;
    constraint_forces(model, data, c.q, c.qd, qdd, tau, kGravityDownY, forces);

    const Eigen::MatrixXd q_matrix = full_constraint_matrix(model, data);
    Eigen::VectorXd lambda(q_matrix.rows());
    Eigen::Index row = 0;
    for (const Eigen::VectorXd& part : forces.multipliers) {
      lambda.segment(row, part.size()) = part;
      row += part.size();
    }
    ASSERT_EQ(row, q_matrix.rows()) << c.name;
    const Eigen::VectorXd imbalance = mass * qdd + bias - tau;
    const double scale = 1 + imbalance.cwiseAbs().maxCoeff() + tau.cwiseAbs().maxCoeff();
    EXPECT_LT((q_matrix.transpose() * lambda - imbalance).cwiseAbs().maxCoeff(), 1e-9 * scale)
        << c.name;
    EXPECT_LT(forces.residual, 1e-9) << c.name;
    const Eigen::VectorXd reference =
        dae_solution(mass, bias, tau, q_matrix, full_velocity_product(model, data))
            .tail(q_matrix.rows());
    EXPECT_LT((lambda + reference).cwiseAbs().maxCoeff(),
              1e-7 * (1 + reference.cwiseAbs().maxCoeff()))
        << c.name;
  }
}

// A motion that breaks the loops has no multipliers: the residual says so.
TEST(ClosedChainForces, ResidualFlagsAMotionThatBreaksTheLoops) {
  const ClosedChainModel model(four_bar(false));
  ClosedChainData data(model);
  const Eigen::VectorXd q = four_bar_configuration(false, 0.7);
  const Eigen::VectorXd qd = Eigen::VectorXd::Zero(3), tau = Eigen::VectorXd::Zero(3);
  Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, tau, kGravityDownY);
  ConstraintForces forces;
  constraint_forces(model, data, q, qd, qdd, tau, kGravityDownY, forces);
  EXPECT_LT(forces.residual, 1e-10);
  qdd[0] += 1.0;  // the crank alone accelerates: Q qdd != 0
  constraint_forces(model, data, q, qd, qdd, tau, kGravityDownY, forces);
  EXPECT_GT(forces.residual, 1e-2);
}

// The four-bar of closed_chain_support with massless crank and rocker holds its coupler's weight W
// (at the coupler's middle G), the crank driven. The rocker is a two-force member: it pushes the
// coupler at C with F u along u = (C - D)/|C - D|, F from the coupler's moments about B; the
// crank's pin carries R_B = W y - F u to the coupler; the crank's torque is B x R_B. Terminal cut:
// the loop holds the rocker at D, the force on it from the world is F u; internal cut: the loop
// joins coupler (parent) and rocker (child) at C, the force on the rocker is -F u. F_p is turned
// by `yaw` about z (free for a revolute about z) to check the frame of the result.
TEST(ClosedChainForces, FourBarHoldingAWeightMatchesStaticsByHand) {
  const FourBarLengths lengths;
  const double crank_angle = 0.7, yaw = 0.4;
  for (const bool internal : {false, true}) {
    Mechanism m = four_bar(internal, lengths);
    for (const int massless : {0, 2}) {
      m.links[massless].mass = 0.0;
      m.links[massless].inertia.setZero();
      m.links[massless].center_of_mass.setZero();
    }
    m.loops[0].parent_origin.rotate(Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()));
    m.independent = {"j_crank"};
    const ClosedChainModel model(m);
    ClosedChainData data(model);
    const Eigen::VectorXd q = four_bar_configuration(internal, crank_angle, lengths);
    const Eigen::VectorXd qd = Eigen::VectorXd::Zero(3);
    ASSERT_LT(position_residual(model, data, q), 1e-12);

    const Eigen::Vector2d b =
        lengths.crank * Eigen::Vector2d(std::cos(crank_angle), std::sin(crank_angle));
    const Eigen::Vector2d c = four_bar_coupler_tip(lengths, crank_angle, true);
    const Eigen::Vector2d d(lengths.ground, 0);
    const Eigen::Vector2d g = 0.5 * (b + c);
    const double weight = m.links[1].mass * 9.81;
    const Eigen::Vector2d u = (c - d).normalized();
    const double push = -cross_z(g - b, Eigen::Vector2d(0, -weight)) / cross_z(c - b, u);
    const Eigen::Vector2d pin_b = Eigen::Vector2d(0, weight) - push * u;
    const double crank_torque = cross_z(b, pin_b);

    // The actuator holds it: the crank's torque, and that torque keeps it at rest.
    const Eigen::VectorXd tau =
        actuator_forces(model, data, q, qd, Eigen::VectorXd::Zero(3), kGravityDownY);
    EXPECT_NEAR(tau[0], crank_torque, 1e-10 * weight) << internal;
    const Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, tau, kGravityDownY);
    EXPECT_LT(qdd.cwiseAbs().maxCoeff(), 1e-10) << internal;

    ConstraintForces forces;
    constraint_forces(model, data, q, qd, qdd, tau, kGravityDownY, forces);
    const Eigen::Vector2d on_child =
        internal ? Eigen::Vector2d(-push * u) : Eigen::Vector2d(push * u);
    const double frame_angle =
        yaw + (internal ? std::atan2(c.y() - b.y(), c.x() - b.x()) : 0.0);  // F_p in the world
    const Eigen::Vector2d expected = Eigen::Rotation2Dd(-frame_angle) * on_child;
    Eigen::Matrix<double, 6, 1> reference;
    reference << 0, 0, 0, expected.x(), expected.y(), 0;
    EXPECT_LT((forces.loop[0] - reference).cwiseAbs().maxCoeff(), 1e-10 * weight)
        << internal << "\n"
        << forces.loop[0].transpose() << "\n"
        << reference.transpose();
  }
}

// Geared links at rest with the arms along x (gravity -y; motor and link turn about z), held by
// the actuators: the gear carries the arm's gravity torque divided by the ratio. The arm (rod of
// mass 1 and length 1.5 on joint "link") feels the gravity torque r x F = -m g l/2 about z
// (r = (l/2, 0, 0), F = (0, -m g, 0)), so C = +m g l/2 at the link; the gear exerts lambda on the
// motor and -ratio lambda on the passive link: lambda = -m g l / (2 ratio). The motor's rotor (a
// rod of mass 0.5 and length 0.1) adds its own C = m_r g l_r/2, so the motor exerts that minus
// lambda.
TEST(ClosedChainForces, GearHoldingAnArmMatchesStaticsByHand) {
  const double ratio = 5.0;
  Mechanism m = geared_links(ratio);
  m.independent = {"motor"};
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(3), qd = Eigen::VectorXd::Zero(3);
  const Eigen::VectorXd tau =
      actuator_forces(model, data, q, qd, Eigen::VectorXd::Zero(3), kGravityDownY);
  const Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, tau, kGravityDownY);
  EXPECT_LT(qdd.cwiseAbs().maxCoeff(), 1e-12);
  ConstraintForces forces;
  constraint_forces(model, data, q, qd, qdd, tau, kGravityDownY, forces);
  const double lambda = -1.0 * 9.81 * 1.5 / 2 / ratio;
  ASSERT_EQ(forces.coupling.size(), 1u);
  ASSERT_EQ(forces.coupling[0].size(), 1);
  EXPECT_NEAR(forces.coupling[0][0], lambda, 1e-12);
  const std::vector<std::string>& dofs = model.tree().dof_names();
  const auto motor = std::find(dofs.begin(), dofs.end(), "motor") - dofs.begin();
  EXPECT_NEAR(tau[motor], 0.5 * 9.81 * 0.05 - lambda, 1e-12);
}

// Rank, dependent joints and condition number of each aggregate: the four-bar's 5 rows have rank 2
// (a planar loop closed by a 3-D revolute), the crank chosen leaves coupler and rocker dependent,
// and the condition number is that of their two columns, by the SVD of the dense Q.
TEST(ClosedChainForces, AggregateStatusNamesRankDependentJointsAndConditioning) {
  Mechanism m = four_bar(false);
  m.independent = {"j_crank"};
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  const Eigen::VectorXd q = four_bar_configuration(false, 0.7);
  update_closed_chain(model, data, q, Eigen::VectorXd::Zero(3));
  const AggregateConstraintStatus status = aggregate_constraint_status(model, data, 0);
  EXPECT_EQ(status.rows, 5);
  EXPECT_EQ(status.rank, 2);
  EXPECT_EQ(status.independent, std::vector<int>({0}));
  EXPECT_EQ(status.dependent, std::vector<int>({1, 2}));
  const Eigen::MatrixXd q_matrix = full_constraint_matrix(model, data);
  const Eigen::VectorXd sigma =
      Eigen::JacobiSVD<Eigen::MatrixXd>(q_matrix.rightCols(2)).singularValues();
  EXPECT_NEAR(status.condition_number, sigma(0) / sigma(1), 1e-9 * sigma(0) / sigma(1));
}

// qdd over every dof of the tree, read at the independent dofs: a shorter one is refused with its
// sizes, for actuator_forces and for the inverse derivatives that take it, never read past its end.
TEST(ClosedChainForces, ActuatorForcesRefuseAShortAcceleration) {
  Mechanism m = geared_links(5.0);
  m.independent = {"motor"};
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(3), qd = Eigen::VectorXd::Zero(3);
  const Eigen::VectorXd short_qdd = Eigen::VectorXd::Zero(1);
  try {
    actuator_forces(model, data, q, qd, short_qdd, kGravityDownY);
    ADD_FAILURE() << "a qdd of 1 entry was taken for 3 dofs";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "closed-chain model: qdd has 1 entries, expected 3");
  }
  ClosedChainInverseDerivatives derivatives;
  EXPECT_THROW(
      inverse_dynamics_derivatives(model, data, q, qd, short_qdd, kGravityDownY, derivatives),
      std::invalid_argument);
}

}  // namespace
}  // namespace skograph

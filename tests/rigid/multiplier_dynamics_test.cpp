// The constraint Jacobian G of closed chains and the multiplier method beside constraint
// embedding (rigid/constraint_jacobian.hpp, rigid/multiplier_dynamics.hpp): G against
// central differences of the closure residual, Gdot qd against differences of G qd, the multiplier
// dynamics against embedding and against the dense DAE, one workspace along a motion.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/multiplier_dynamics.hpp"
#include "support/closed_chain_support.hpp"
#include "support/gravity.hpp"

namespace skograph {
namespace {

using namespace testing_support;

using skograph::testing_support::kGravityDownZ;

double max_abs(const Eigen::MatrixXd& m) {
  return m.size() ? m.cwiseAbs().maxCoeff() : 0.0;
}

// Every stacked row of G is the derivative of the closure residual along the motion: central
// differences of e(q(t)) along qd at the closed q; the independent rows span the stacked ones.
TEST(ConstraintJacobian, IsTheDerivativeOfTheClosureResidual) {
  std::mt19937 rng(5);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    const Eigen::VectorXd qd = rigid_random_state(model.dof_count(), rng, 1.0);
    ConstraintJacobian all;
    constraint_jacobian(model, data, c.q, qd, all, false);
    ASSERT_EQ(all.jacobian.rows(), all.stacked_rows) << c.name;
    const double h = 1e-6;
    const Eigen::VectorXd ahead =
        constraint_position_error(model, data, advance_configuration(model.tree(), c.q, qd, h));
    const Eigen::VectorXd behind =
        constraint_position_error(model, data, advance_configuration(model.tree(), c.q, qd, -h));
    const Eigen::VectorXd rate = (ahead - behind) / (2 * h);
    const Eigen::VectorXd g_qd = all.jacobian * qd;
    EXPECT_LT(max_abs(rate - g_qd), 1e-7 * (1 + max_abs(g_qd))) << c.name;

    ConstraintJacobian kept;
    constraint_jacobian(model, data, c.q, qd, kept);
    const Eigen::MatrixXd g = kept.jacobian, stacked = all.jacobian;
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(stacked);
    EXPECT_EQ(g.rows(), lu.rank()) << c.name;
    EXPECT_EQ(Eigen::FullPivLU<Eigen::MatrixXd>(g).rank(), g.rows()) << c.name;
    // The kept rows are rows of the stacked G, labelled by their position there.
    for (Eigen::Index i = 0; i < g.rows(); ++i) {
      const ConstraintRow& row = kept.rows[static_cast<std::size_t>(i)];
      EXPECT_LT(max_abs(g.row(i) - stacked.row(row.stacked)), 1e-15) << c.name;
      EXPECT_EQ(row.label, all.rows[static_cast<std::size_t>(row.stacked)].label);
      EXPECT_DOUBLE_EQ(kept.bias(i), all.bias(row.stacked));
    }
  }
}

// Gdot qd: the rate of G(q(t)) qd along the motion at constant qd (qdd = 0).
TEST(ConstraintJacobian, BiasIsTheRateOfGTimesQd) {
  std::mt19937 rng(9);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    const Eigen::VectorXd qd = rigid_random_state(model.dof_count(), rng, 1.0);
    ConstraintJacobian at, ahead, behind;
    const double h = 1e-6;
    constraint_jacobian(model, data, c.q, qd, at, false);
    constraint_jacobian(model, data, advance_configuration(model.tree(), c.q, qd, h), qd, ahead,
                        false);
    constraint_jacobian(model, data, advance_configuration(model.tree(), c.q, qd, -h), qd, behind,
                        false);
    const Eigen::VectorXd rate = (ahead.jacobian * qd - behind.jacobian * qd) / (2 * h);
    EXPECT_LT(max_abs(rate - at.bias), 1e-6 * (1 + max_abs(at.bias))) << c.name;
  }
}

// Labels name the loop or coupling and the direction, one per stacked row.
TEST(ConstraintJacobian, LabelsNameLoopAndDirection) {
  const ClosedChainModel model(four_bar(false));
  ClosedChainData data(model);
  const Eigen::VectorXd q = four_bar_configuration(false, 0.7);
  ConstraintJacobian all;
  constraint_jacobian(model, data, q, Eigen::VectorXd::Zero(3), all, false);
  ASSERT_EQ(all.rows.size(), 5u);
  const std::string loop = "loop '" + model.mechanism().loops[0].name + "'";
  EXPECT_EQ(all.rows[0].label, loop + " angular n1");
  EXPECT_EQ(all.rows[1].label, loop + " angular n2");
  EXPECT_EQ(all.rows[4].label, loop + " linear z");
  // A planar four-bar closed by a revolute: 5 rows of rank 2.
  ConstraintJacobian kept;
  constraint_jacobian(model, data, q, Eigen::VectorXd::Zero(3), kept);
  EXPECT_EQ(kept.jacobian.rows(), 2);
  EXPECT_EQ(kept.stacked_rows, 5);
}

// The multiplier method gives embedding's accelerations, the dense DAE's, and the generalized
// constraint force of the loop forces (G* lambda = Q* lambda_least-norm).
TEST(MultiplierDynamics, AgreesWithEmbeddingAndTheDenseDae) {
  std::mt19937 rng(13);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model), reference_data(model);
    Eigen::VectorXd qd = rigid_random_state(model.dof_count(), rng, 1.0);
    close_velocities(model, reference_data, c.q, qd);
    const Eigen::VectorXd tau = rigid_random_state(model.dof_count(), rng, 2.0);
    const Eigen::VectorXd embedded =
        forward_dynamics(model, reference_data, c.q, qd, tau, kGravityDownZ);
    MultiplierWorkspace work(model);
    const Eigen::VectorXd qdd =
        forward_dynamics_by_multipliers(model, data, work, c.q, qd, tau, kGravityDownZ);
    const double scale = 1 + max_abs(embedded);
    EXPECT_LT(max_abs(qdd - embedded), 1e-10 * scale) << c.name;

    const TreeTerms terms = tree_terms(model, c.q, qd, kGravityDownZ);
    const Eigen::MatrixXd g = work.constraints.jacobian;
    const Eigen::VectorXd dae = dae_solution(terms.mass, terms.bias, tau, g, work.constraints.bias);
    EXPECT_LT(max_abs(qdd - dae.head(qdd.size())), 1e-10 * scale) << c.name;
    // The dense DAE writes M qdd + G* mu = tau - C: mu = -lambda (G has full row rank).
    EXPECT_LT(max_abs(work.multipliers + dae.tail(g.rows())),
              1e-8 * (1 + max_abs(work.multipliers)))
        << c.name;

    ConstraintForces forces;
    constraint_forces(model, reference_data, c.q, qd, embedded, tau, kGravityDownZ, forces);
    Eigen::VectorXd least_norm(work.constraints.stacked_rows);
    Eigen::Index row = 0;
    for (const Eigen::VectorXd& part : forces.multipliers) {
      least_norm.segment(row, part.size()) = part;
      row += part.size();
    }
    const Eigen::MatrixXd stacked = full_constraint_matrix(model, reference_data);
    const Eigen::VectorXd from_forces = stacked.transpose() * least_norm;
    EXPECT_LT(max_abs(g.transpose() * work.multipliers - from_forces),
              1e-8 * (1 + max_abs(from_forces)))
        << c.name;
  }
}

// Where G keeps every stacked row (the Stewart platform's spherical closures), the multipliers
// are the least-norm ones the loop forces report.
TEST(MultiplierDynamics, MultipliersAreTheLoopForcesWhereNoRowIsRedundant) {
  const ClosedChainModel model(stewart_platform());
  ClosedChainData data(model);
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(21), qd = Eigen::VectorXd::Zero(21);
  std::mt19937 rng(2);
  const Eigen::VectorXd tau = rigid_random_state(21, rng, 3.0);
  MultiplierWorkspace work(model);
  forward_dynamics_by_multipliers(model, data, work, q, qd, tau, kGravityDownZ);
  ASSERT_EQ(work.constraints.jacobian.rows(), work.constraints.stacked_rows);
  ClosedChainData reference(model);
  const Eigen::VectorXd qdd = forward_dynamics(model, reference, q, qd, tau, kGravityDownZ);
  ConstraintForces forces;
  constraint_forces(model, reference, q, qd, qdd, tau, kGravityDownZ, forces);
  Eigen::Index row = 0;
  for (const Eigen::VectorXd& part : forces.multipliers) {
    EXPECT_LT(max_abs(work.multipliers.segment(row, part.size()) - part),
              1e-9 * (1 + max_abs(part)));
    row += part.size();
  }
}

// One workspace reused over many states (the pattern analysed once, again when G's rows change)
// gives what a fresh workspace gives, and embedding's motion.
TEST(MultiplierDynamics, OneWorkspaceAlongAMotionIsAFreshOne) {
  std::mt19937 rng(17);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model), fresh_data(model), reference(model);
    MultiplierWorkspace kept(model);
    Eigen::VectorXd q = c.q;
    for (int step = 0; step < 6; ++step) {
      // Move along the closed motion and close again (a new configuration each time).
      Eigen::VectorXd qd = rigid_random_state(model.dof_count(), rng, 1.0);
      close_velocities(model, reference, q, qd);
      q = advance_configuration(model.tree(), q, qd, 0.05);
      close_positions(model, reference, q);
      close_velocities(model, reference, q, qd);
      const Eigen::VectorXd tau = rigid_random_state(model.dof_count(), rng, 2.0);
      const Eigen::VectorXd along =
          forward_dynamics_by_multipliers(model, data, kept, q, qd, tau, kGravityDownZ);
      MultiplierWorkspace fresh(model);
      const Eigen::VectorXd once =
          forward_dynamics_by_multipliers(model, fresh_data, fresh, q, qd, tau, kGravityDownZ);
      const Eigen::VectorXd embedded =
          forward_dynamics(model, reference, q, qd, tau, kGravityDownZ);
      const double scale = 1 + max_abs(embedded);
      EXPECT_LT(max_abs(along - once), 1e-12 * scale) << c.name << " step " << step;
      EXPECT_LT(max_abs(along - embedded), 1e-10 * scale) << c.name << " step " << step;
    }
  }
}

// A tree's joint that moves no mass leaves M singular: one SingularMassMatrixError naming it.
TEST(MultiplierDynamics, RefusesAMasslessMovingJoint) {
  Mechanism m = four_bar(false);
  Link& rocker = m.links[static_cast<std::size_t>(m.joints[2].child)];  // the leaf
  rocker.mass = 0.0;
  rocker.inertia.setZero();
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  MultiplierWorkspace work(model);
  const Eigen::VectorXd q = four_bar_configuration(false, 0.7), zero = Eigen::VectorXd::Zero(3);
  EXPECT_THROW(forward_dynamics_by_multipliers(model, data, work, q, zero, zero, kGravityDownZ),
               SingularMassMatrixError);
}

}  // namespace
}  // namespace skograph

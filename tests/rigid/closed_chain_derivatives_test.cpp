// The derivatives of a closed chain's constraint rows (rigid/closed_chain_derivatives.hpp) on the
// closed-chain cases (four-bars, a chain of four-bars, the Stewart platform, geared links, a
// floating body and a chain closed to the world by every loop type, random trees with random
// loops), at states off the closure (the rows are defined everywhere): against central
// differences with Richardson extrapolation along the tangent of constraint_jacobian's G qd,
// G qdd + Gdot qd and G* lambda; and the identities d(a_c)/dqd = d(G qd)/dq + Gdot and
// d(G qd)/dq qd = Gdot qd. The forward and inverse dynamics' derivatives in the independent
// coordinates against Richardson on the constraint manifold.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <functional>
#include <random>

#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/constraint_jacobian.hpp"
#include "skograph/rigid/tangent.hpp"
#include "support/closed_chain_support.hpp"
#include "support/gravity.hpp"
#include "support/richardson.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using testing_support::closed_cases;
using testing_support::ClosedCase;
using testing_support::richardson_columns;
using testing_support::RichardsonColumns;
using testing_support::rigid_random_state;

using skograph::testing_support::kGravityDownZ;

// The largest entry's error relative to 1 + the largest entry of the reference, within
// max(1e-7, 10 x Richardson's own estimate).
// `largest` keeps the largest reference entry seen (the test is not vacuous: loops move).
void expect_near(const Eigen::MatrixXd& computed, const RichardsonColumns& reference,
                 const std::string& what, double& largest) {
  largest = std::max(largest, reference.fine.cwiseAbs().maxCoeff());
  const double scale = 1.0 + reference.fine.cwiseAbs().maxCoeff();
  const double estimate = (reference.fine - reference.coarse).cwiseAbs().maxCoeff() / scale;
  const double error = (computed - reference.fine).cwiseAbs().maxCoeff() / scale;
  EXPECT_LE(error, std::max(1e-7, 10.0 * estimate)) << what;
}

// The products by nonzeros (SparseColumns) against Eigen's dense products, on block-sparse
// matrices (the sparse path) and on dense ones (four rows at a time for one to four columns, A's
// 11 rows leaving three to the row-by-row tail; Eigen's product from five), with and without
// accumulation.
TEST(ClosedChainDerivatives, SparseColumnProductsEqualDenseProducts) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  for (const int width : {1, 2, 3, 4, 5})
    for (const double fill : {0.1, 0.3, 0.9}) {
      Eigen::MatrixXd B(17, width), A(11, 17), C(17, 4), D(width, 6);
      for (Eigen::Index i = 0; i < B.size(); ++i)
        B(i) =
            std::uniform_real_distribution<double>(0.0, 1.0)(random) < fill ? entry(random) : 0.0;
      for (Eigen::MatrixXd* m : {&A, &C, &D})
        for (Eigen::Index i = 0; i < m->size(); ++i) (*m)(i) = entry(random);
      SparseColumns pattern;
      pattern.scan(B);
      EXPECT_EQ(pattern.worth_it(), 2 * (B.array() != 0.0).count() <= B.size())
          << width << ' ' << fill;
      Eigen::MatrixXd out;
      multiply(A, B, pattern, -2.0, false, out);
      EXPECT_LE((out - (-2.0 * A * B)).norm(), 1e-14 * (A * B).norm()) << width << ' ' << fill;
      const Eigen::MatrixXd before = out;
      multiply(A, B, pattern, 0.5, true, out);
      EXPECT_LT((out - (before + 0.5 * A * B)).norm(), 1e-14 * (1.0 + out.norm()))
          << width << ' ' << fill;
      multiply_transposed(B, pattern, C, out);
      EXPECT_LT((out - B.transpose() * C).norm(), 1e-14 * (1.0 + out.norm()))
          << width << ' ' << fill;
      Eigen::MatrixXd sum = Eigen::MatrixXd::Ones(17, 6);
      add_product(B, pattern, D, sum);
      EXPECT_LT((sum - (Eigen::MatrixXd::Ones(17, 6) + B * D)).norm(), 1e-14 * (1.0 + sum.norm()))
          << width << ' ' << fill;
    }
}

TEST(ClosedChainDerivatives, ConstraintRowsAgainstRichardsonAlongTheTangent) {
  std::mt19937 rng(11);
  double largest[4] = {0.0, 0.0, 0.0, 0.0};
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model), reference(model);
    const int n = model.dof_count();
    // Off the closure, moving: every term of the rows' derivatives is exercised.
    const Eigen::VectorXd q = c.q + rigid_random_state(n, rng, 0.05);
    const Eigen::VectorXd qd = rigid_random_state(n, rng, 1.0);
    const Eigen::VectorXd qdd = rigid_random_state(n, rng, 1.0);
    ConstraintJacobian at_q;
    constraint_jacobian(model, reference, q, qd, at_q, false);
    const Eigen::VectorXd lambda = rigid_random_state(at_q.stacked_rows, rng, 3.0);
    ConstraintDerivatives d;
    constraint_derivatives(model, data, q, qd, qdd, lambda, kGravityDownZ, d);
    ASSERT_EQ(d.velocity_by_q.rows(), at_q.stacked_rows) << c.name;

    const auto moved = [&](int j, double e) {
      Eigen::VectorXd step = Eigen::VectorXd::Zero(n);
      step[j] = e;
      return integrate(model.tree(), q, step, 1.0);
    };
    const auto rows_at = [&](const Eigen::VectorXd& at, const Eigen::VectorXd& rates) {
      ConstraintJacobian g;
      constraint_jacobian(model, reference, at, rates, g, false);
      return g;
    };
    expect_near(d.velocity_by_q,
                richardson_columns(
                    n,
                    [&](int j, double e) -> Eigen::VectorXd {
                      return rows_at(moved(j, e), qd).jacobian * qd;
                    },
                    1e-3),
                c.name + ": d(G qd)/dq", largest[0]);
    expect_near(d.acceleration_by_q,
                richardson_columns(
                    n,
                    [&](int j, double e) -> Eigen::VectorXd {
                      const ConstraintJacobian g = rows_at(moved(j, e), qd);
                      return g.jacobian * qdd + g.bias;
                    },
                    1e-3),
                c.name + ": d(G qdd + Gdot qd)/dq", largest[1]);
    expect_near(d.acceleration_by_qd,
                richardson_columns(
                    n,
                    [&](int j, double e) -> Eigen::VectorXd {
                      Eigen::VectorXd rates = qd;
                      rates[j] += e;
                      const ConstraintJacobian g = rows_at(q, rates);
                      return g.jacobian * qdd + g.bias;
                    },
                    1e-3),
                c.name + ": d(G qdd + Gdot qd)/dqd", largest[2]);
    expect_near(d.force_by_q,
                richardson_columns(
                    n,
                    [&](int j, double e) -> Eigen::VectorXd {
                      return rows_at(moved(j, e), qd).jacobian.transpose() * lambda;
                    },
                    1e-3),
                c.name + ": d(G* lambda)/dq", largest[3]);

    // Identities: the qdd terms of d(a_c)/dqd are G's, the rest is d(G qd)/dq + Gdot (both halves
    // of Gdot qd's dependence on qd), so d(a_c)/dqd qd = 2 Gdot qd and d(G qd)/dq qd = Gdot qd.
    const double scale = 1.0 + at_q.bias.cwiseAbs().maxCoeff();
    EXPECT_LT((d.velocity_by_q * qd - at_q.bias).cwiseAbs().maxCoeff() / scale, 1e-10) << c.name;
    EXPECT_LT((d.acceleration_by_qd * qd - 2.0 * at_q.bias).cwiseAbs().maxCoeff() / scale, 1e-10)
        << c.name;
  }
  for (const double entry : largest) EXPECT_GT(entry, 0.1);
}

// The loop forces then the coupling forces, one vector (ConstraintForces' order).
Eigen::VectorXd stacked_forces(const ConstraintForces& forces) {
  Eigen::Index size = 6 * static_cast<Eigen::Index>(forces.loop.size());
  for (const Eigen::VectorXd& coupling : forces.coupling) size += coupling.size();
  Eigen::VectorXd out(size);
  Eigen::Index at = 0;
  for (const auto& loop : forces.loop) {
    out.segment<6>(at) = loop;
    at += 6;
  }
  for (const Eigen::VectorXd& coupling : forces.coupling) {
    out.segment(at, coupling.size()) = coupling;
    at += coupling.size();
  }
  return out;
}

// The same stacking of their derivatives (each loop's 6 rows, each coupling's).
Eigen::MatrixXd stacked_force_derivatives(const std::vector<Eigen::MatrixXd>& loops,
                                          const std::vector<Eigen::MatrixXd>& couplings,
                                          Eigen::Index columns) {
  Eigen::Index size = 0;
  for (const Eigen::MatrixXd& m : loops) size += m.rows();
  for (const Eigen::MatrixXd& m : couplings) size += m.rows();
  Eigen::MatrixXd out(size, columns);
  Eigen::Index at = 0;
  for (const Eigen::MatrixXd& m : loops) {
    out.middleRows(at, m.rows()) = m;
    at += m.rows();
  }
  for (const Eigen::MatrixXd& m : couplings) {
    out.middleRows(at, m.rows()) = m;
    at += m.rows();
  }
  return out;
}

// Without the loop forces' derivatives the call gives the same dqdd derivatives (the same bits:
// the same arithmetic up to the forces' solves), and no force lists.
TEST(ClosedChainDerivatives, WithoutLoopForcesTheSameAccelerationDerivatives) {
  std::mt19937 rng(5);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model), other(model);
    const Eigen::VectorXd tau = rigid_random_state(model.dof_count(), rng, 2.0);
    ClosedChainForwardDerivatives with, without;
    forward_dynamics_derivatives(model, data, c.q, c.qd, tau, kGravityDownZ, with);
    forward_dynamics_derivatives(model, other, c.q, c.qd, tau, kGravityDownZ, without,
                                 LoopForceDerivatives::kWithout);
    EXPECT_EQ(without.independent, with.independent) << c.name;
    EXPECT_EQ(without.dqdd_dq, with.dqdd_dq) << c.name;
    EXPECT_EQ(without.dqdd_dqd, with.dqdd_dqd) << c.name;
    EXPECT_EQ(without.dqdd_dtau, with.dqdd_dtau) << c.name;
    EXPECT_FALSE(with.loop_by_q.empty() && with.coupling_by_q.empty()) << c.name;
    EXPECT_TRUE(without.loop_by_q.empty() && without.loop_by_qd.empty() &&
                without.loop_by_tau.empty() && without.coupling_by_q.empty() &&
                without.coupling_by_qd.empty() && without.coupling_by_tau.empty())
        << c.name;
  }
}

// Forward dynamics' derivatives in the independent coordinates, at the cases' closed states with
// qd != 0 (the dependent rates move with q_R) and gravity (the loop forces are not zero): against
// Richardson of forward_dynamics at states moved along q_R (integrate along X e_m, then the loops
// closed again with q_R kept, qd_R held), along qd_R and along tau; dqdd_dtau = X M_R^-1 X*.
TEST(ClosedChainDerivatives, ForwardDynamicsAgainstRichardsonOnTheManifold) {
  std::mt19937 rng(12);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model), reference(model);
    const int n = model.dof_count();
    const Eigen::VectorXd tau = rigid_random_state(n, rng, 2.0);
    ClosedChainForwardDerivatives d;
    forward_dynamics_derivatives(model, data, c.q, c.qd, tau, kGravityDownZ, d);
    const std::vector<int> independent = d.independent;
    const int n_r = static_cast<int>(independent.size());
    forward_dynamics(model, reference, c.q, c.qd, tau, kGravityDownZ);  // the same selection
    const Eigen::MatrixXd X = reference.X;
    // qdd and the loop and coupling forces, stacked, at a state closed again with q_R, qd_R kept.
    const auto motion_at = [&](Eigen::VectorXd at, Eigen::VectorXd rates,
                               const Eigen::VectorXd& force) -> Eigen::VectorXd {
      close_positions(model, reference, at);
      close_velocities(model, reference, at, rates);
      const Eigen::VectorXd qdd =
          forward_dynamics(model, reference, at, rates, force, kGravityDownZ);
      EXPECT_EQ(reference.independent, independent) << c.name;
      ConstraintForces forces;
      constraint_forces(model, reference, at, rates, qdd, force, kGravityDownZ, forces);
      const Eigen::VectorXd loads = stacked_forces(forces);
      Eigen::VectorXd out(n + loads.size());
      out << qdd, loads;
      return out;
    };
    const auto qdd_at = [&](const Eigen::VectorXd& at, const Eigen::VectorXd& rates) {
      return motion_at(at, rates, tau);
    };
    double largest = 0.0;
    const auto with_forces = [&](const Eigen::MatrixXd& dqdd,
                                 const std::vector<Eigen::MatrixXd>& loops,
                                 const std::vector<Eigen::MatrixXd>& couplings) {
      const Eigen::MatrixXd loads = stacked_force_derivatives(loops, couplings, dqdd.cols());
      Eigen::MatrixXd out(dqdd.rows() + loads.rows(), dqdd.cols());
      out << dqdd, loads;
      return out;
    };
    expect_near(with_forces(d.dqdd_dq, d.loop_by_q, d.coupling_by_q),
                richardson_columns(
                    n_r,
                    [&](int m, double e) -> Eigen::VectorXd {
                      // Along the manifold's tangent X e_m (a spherical joint's entries may
                      // be split between q_R and the dependent ones), closed again to O(e^2).
                      return qdd_at(integrate(model.tree(), c.q, X.col(m) * e, 1.0), c.qd);
                    },
                    1e-3),
                c.name + ": dqdd/dq_R and the forces'", largest);
    expect_near(with_forces(d.dqdd_dqd, d.loop_by_qd, d.coupling_by_qd),
                richardson_columns(
                    n_r,
                    [&](int m, double e) -> Eigen::VectorXd {
                      Eigen::VectorXd rates = c.qd;
                      rates[independent[static_cast<std::size_t>(m)]] += e;
                      return qdd_at(c.q, rates);
                    },
                    1e-3),
                c.name + ": dqdd/dqd_R and the forces'", largest);
    expect_near(with_forces(d.dqdd_dtau, d.loop_by_tau, d.coupling_by_tau),
                richardson_columns(
                    n,
                    [&](int j, double e) -> Eigen::VectorXd {
                      Eigen::VectorXd force = tau;
                      force[j] += e;
                      return motion_at(c.q, c.qd, force);
                    },
                    1e-3),
                c.name + ": dqdd/dtau and the forces'", largest);
    const Eigen::MatrixXd reduced = reduced_mass_matrix(model, reference, c.q);
    const Eigen::MatrixXd expected = X * reduced.llt().solve(X.transpose());
    EXPECT_LT(
        (d.dqdd_dtau - expected).cwiseAbs().maxCoeff() / (1.0 + expected.cwiseAbs().maxCoeff()),
        1e-10)
        << c.name;
    EXPECT_GT(largest, 0.1) << c.name;
  }
}

// Where a selection is ill-conditioned the derivatives take qdd from forward dynamics' recursion
// (which refines such a solution) instead of solving M_R: with every selection taken as
// ill-conditioned (a conditioning limit of 1), that path's qdd and derivatives against the M_R
// path's on the same independent coordinates (the M_R path is checked against Richardson above),
// to 1e-12 max(1, cond(M_R) / 100) relative. The two paths round differently: a case whose qdd
// agrees bit for bit took one path twice, and fails.
TEST(ClosedChainDerivatives, ThroughTheRecursionWhereASelectionIsIllConditioned) {
  std::mt19937 rng(14);
  int compared = 0;
  for (const ClosedCase& c : closed_cases()) {
    ClosedChainOptions options;
    options.reselect_conditioning = 1.0;  // every selection below the bar
    const ClosedChainModel model(c.mechanism), strict(c.mechanism, options);
    ClosedChainData data(model), strict_data(strict);
    const Eigen::VectorXd tau = rigid_random_state(model.dof_count(), rng, 2.0);
    ClosedChainForwardDerivatives usual, recursion;
    forward_dynamics_derivatives(model, data, c.q, c.qd, tau, kGravityDownZ, usual);
    forward_dynamics_derivatives(strict, strict_data, c.q, c.qd, tau, kGravityDownZ, recursion);
    // A selection of condition 1 (a coupling's single row) is below no bar: nothing to compare.
    if (recursion.independent != usual.independent || usual.independent.empty() ||
        std::ranges::none_of(strict_data.ill_conditioned, [](char i) { return i != 0; }))
      continue;
    EXPECT_TRUE(std::ranges::none_of(data.ill_conditioned, [](char i) { return i != 0; }))
        << c.name;
    ++compared;
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(usual.reduced_mass);
    const double condition = svd.singularValues()(0) / svd.singularValues().tail(1)(0);
    const double tolerance = 1e-12 * std::max(1.0, condition / 100.0);
    const auto expect_same = [&](const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                                 const char* what) {
      ASSERT_EQ(a.rows(), b.rows()) << c.name << ": " << what;
      ASSERT_EQ(a.cols(), b.cols()) << c.name << ": " << what;
      EXPECT_LE((a - b).cwiseAbs().maxCoeff() / (1.0 + b.cwiseAbs().maxCoeff()), tolerance)
          << c.name << ": " << what;
    };
    EXPECT_NE(recursion.qdd, usual.qdd) << c.name << ": the same path twice";
    expect_same(recursion.qdd, usual.qdd, "qdd");
    expect_same(recursion.dqdd_dq, usual.dqdd_dq, "dqdd/dq_R");
    expect_same(recursion.dqdd_dqd, usual.dqdd_dqd, "dqdd/dqd_R");
    expect_same(recursion.dqdd_dtau, usual.dqdd_dtau, "dqdd/dtau");
    const auto expect_all_same = [&](const std::vector<Eigen::MatrixXd>& a,
                                     const std::vector<Eigen::MatrixXd>& b, const char* what) {
      ASSERT_EQ(a.size(), b.size()) << c.name << ": " << what;
      for (std::size_t l = 0; l < a.size(); ++l) expect_same(a[l], b[l], what);
    };
    expect_all_same(recursion.loop_by_q, usual.loop_by_q, "a loop force's d/dq_R");
    expect_all_same(recursion.loop_by_qd, usual.loop_by_qd, "a loop force's d/dqd_R");
    expect_all_same(recursion.loop_by_tau, usual.loop_by_tau, "a loop force's d/dtau");
    expect_all_same(recursion.coupling_by_q, usual.coupling_by_q, "a coupling force's d/dq_R");
    expect_all_same(recursion.coupling_by_qd, usual.coupling_by_qd, "a coupling force's d/dqd_R");
    expect_all_same(recursion.coupling_by_tau, usual.coupling_by_tau, "a coupling force's d/dtau");
  }
  // The cases whose strict model keeps the same independent coordinates with a selection below
  // the bar: 12 of the closed cases.
  EXPECT_GE(compared, 12) << "cases through the recursion";
}

// Inverse dynamics' derivatives in the independent coordinates, at the cases' closed moving states
// under gravity with a random qdd_R: against Richardson of inverse_dynamics (tau_R) at states moved
// along q_R (integrate along X e_m, closed again with q_R kept, qd_R held), along qd_R and along
// qdd_R; the last is M_R, also against reduced_mass_matrix.
TEST(ClosedChainDerivatives, InverseDynamicsAgainstRichardsonOnTheManifold) {
  std::mt19937 rng(13);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model), reference(model);
    forward_dynamics(model, reference, c.q, c.qd, Eigen::VectorXd::Zero(model.dof_count()),
                     kGravityDownZ);  // the independent dofs and X at this state
    const std::vector<int> independent = reference.independent;
    const int n_r = static_cast<int>(independent.size());
    const Eigen::MatrixXd X = reference.X;
    const Eigen::VectorXd qdd_independent = rigid_random_state(n_r, rng, 2.0);
    // Every dof's qdd, its independent entries qdd_R (the dependent ones are not read).
    Eigen::VectorXd qdd = rigid_random_state(model.dof_count(), rng, 2.0);
    for (int j = 0; j < n_r; ++j)
      qdd[independent[static_cast<std::size_t>(j)]] = qdd_independent[j];
    ClosedChainInverseDerivatives d;
    inverse_dynamics_derivatives(model, data, c.q, c.qd, qdd, kGravityDownZ, d);
    ASSERT_EQ(d.independent, independent) << c.name;
    const auto tau_at = [&](Eigen::VectorXd at, Eigen::VectorXd rates,
                            const Eigen::VectorXd& acceleration) -> Eigen::VectorXd {
      close_positions(model, reference, at);
      close_velocities(model, reference, at, rates);
      const Eigen::VectorXd tau =
          inverse_dynamics(model, reference, at, rates, acceleration, kGravityDownZ);
      EXPECT_EQ(reference.independent, independent) << c.name;
      return tau;
    };
    const Eigen::VectorXd tau = tau_at(c.q, c.qd, qdd_independent);
    EXPECT_LT((d.tau - tau).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + tau.cwiseAbs().maxCoeff()))
        << c.name;
    double largest = 0.0;
    expect_near(d.dtau_dq,
                richardson_columns(
                    n_r,
                    [&](int m, double e) -> Eigen::VectorXd {
                      return tau_at(integrate(model.tree(), c.q, X.col(m) * e, 1.0), c.qd,
                                    qdd_independent);
                    },
                    1e-3),
                c.name + ": dtau_R/dq_R", largest);
    expect_near(d.dtau_dqd,
                richardson_columns(
                    n_r,
                    [&](int m, double e) -> Eigen::VectorXd {
                      Eigen::VectorXd rates = c.qd;
                      rates[independent[static_cast<std::size_t>(m)]] += e;
                      return tau_at(c.q, rates, qdd_independent);
                    },
                    1e-3),
                c.name + ": dtau_R/dqd_R", largest);
    expect_near(d.reduced_mass,
                richardson_columns(
                    n_r,
                    [&](int m, double e) -> Eigen::VectorXd {
                      Eigen::VectorXd acceleration = qdd_independent;
                      acceleration[m] += e;
                      return tau_at(c.q, c.qd, acceleration);
                    },
                    1e-3),
                c.name + ": dtau_R/dqdd_R", largest);
    const Eigen::MatrixXd reduced = reduced_mass_matrix(model, reference, c.q);
    EXPECT_LT(
        (d.reduced_mass - reduced).cwiseAbs().maxCoeff() / (1.0 + reduced.cwiseAbs().maxCoeff()),
        1e-12)
        << c.name;
    EXPECT_GT(largest, 0.1) << c.name;
  }
}

}  // namespace
}  // namespace skograph

// A closed chain's derivatives through the model's calls (model/derivatives.hpp) against central
// differences with Richardson extrapolation of the model's own forward_dynamics, inverse_dynamics
// and constraint_forces, each of which closes the state it is given (the independent q and qd
// kept): along q_R the state is moved by integrate along X e_m and closed again, along qd_R one
// independent rate changes, along tau (qdd_R for inverse dynamics) one entry. The reference holds
// the base state's independent set (a model of the same file with those coordinates chosen): the
// automatic choice may pick another set a step away, and the derivatives are those of one chart.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <string>
#include <vector>

#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/model.hpp"
#include "skograph/model/state.hpp"
#include "support/richardson.hpp"

namespace skograph::testing_support {

// Each loop's 6 rows, then each coupling's, one vector (or the columns of their derivatives).
inline Eigen::VectorXd stacked_loads(const ConstraintForces& forces) {
  Eigen::Index size = 6 * static_cast<Eigen::Index>(forces.loop.size());
  for (const Eigen::VectorXd& f : forces.coupling) size += f.size();
  Eigen::VectorXd out(size);
  Eigen::Index at = 0;
  for (const auto& f : forces.loop) {
    out.segment<6>(at) = f;
    at += 6;
  }
  for (const Eigen::VectorXd& f : forces.coupling) {
    out.segment(at, f.size()) = f;
    at += f.size();
  }
  return out;
}
inline Eigen::MatrixXd stacked_loads(const std::vector<Eigen::MatrixXd>& loops,
                                     const std::vector<Eigen::MatrixXd>& couplings,
                                     Eigen::Index columns) {
  Eigen::Index size = 0;
  for (const auto* list : {&loops, &couplings})
    for (const Eigen::MatrixXd& m : *list) size += m.rows();
  Eigen::MatrixXd out(size, columns);
  Eigen::Index at = 0;
  for (const auto* list : {&loops, &couplings})
    for (const Eigen::MatrixXd& m : *list) {
      out.middleRows(at, m.rows()) = m;
      at += m.rows();
    }
  return out;
}

// The error of `computed` against the extrapolated reference relative to 1 + its largest entry,
// within max(tolerance, 10 x Richardson's own estimate); returns the reference's largest entry.
// With `weight` (M_R for forward dynamics' rows) in backward form: the largest entry of
// weight (computed - reference) relative to |weight| (1 + |reference|), largest entries, as the
// solution of an ill-conditioned M_R (a delta robot's light links: condition 1e6) is judged.
inline double expect_richardson(const Eigen::MatrixXd& computed, const RichardsonColumns& reference,
                                const std::string& what, double tolerance = 1e-7,
                                const Eigen::MatrixXd* weight = nullptr) {
  const double largest = reference.fine.cwiseAbs().maxCoeff();
  EXPECT_EQ(computed.rows(), reference.fine.rows()) << what;
  EXPECT_EQ(computed.cols(), reference.fine.cols()) << what;
  if (computed.rows() != reference.fine.rows() || computed.cols() != reference.fine.cols())
    return largest;
  const auto size = [&](const Eigen::MatrixXd& m) -> double {
    return weight ? (*weight * m).cwiseAbs().maxCoeff() : m.cwiseAbs().maxCoeff();
  };
  const double scale = (weight ? weight->cwiseAbs().maxCoeff() : 1.0) * (1.0 + largest);
  const double estimate = size(reference.fine - reference.coarse) / scale;
  const double error = size(computed - reference.fine) / scale;
  EXPECT_LE(error, std::max(tolerance, 10.0 * estimate)) << what;
  return largest;
}

// `model` is built from `file` (read from `path`).
inline double expect_closed_chain_derivatives(const Mechanism& file, const std::string& path,
                                              const Model& model, const Eigen::VectorXd& q,
                                              const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                              const Eigen::VectorXd& qdd,
                                              const Eigen::Vector3d& gravity,
                                              const std::string& name) {
  ModelData data(model);
  const ClosedState state = close_state(model, data, q, qd);
  ForwardDerivatives forward;
  InverseDerivatives inverse;
  forward_dynamics_derivatives(model, data, state.q, state.qd, tau, gravity, forward);
  inverse_dynamics_derivatives(model, data, state.q, state.qd, qdd, gravity, inverse);
  EXPECT_EQ(inverse.independent, forward.independent) << name;
  Mechanism held = file;
  held.independent = forward.independent;
  held.preferred_independent.clear();
  const Model chart = build_model(held, path);
  ModelData reference(chart);
  std::vector<int> at;  // the independent dofs' file positions
  for (const std::string& dof : forward.independent)
    at.push_back(
        static_cast<int>(std::find(model.dof_names().begin(), model.dof_names().end(), dof) -
                         model.dof_names().begin()));
  const int r = static_cast<int>(at.size()), n = model.dof_count();
  const Eigen::MatrixXd X = embedding_matrix(chart, reference, state.q);
  EXPECT_EQ(X.cols(), r) << name;
  const auto independent_rows = [&](const Eigen::VectorXd& full) {
    Eigen::VectorXd out(r);
    for (int a = 0; a < r; ++a) out[a] = full[at[static_cast<std::size_t>(a)]];
    return out;
  };
  // qdd_R and the loads, and tau_R, at a state the calls close (the selection checked kept).
  const auto motion = [&](const Eigen::VectorXd& at_q, const Eigen::VectorXd& rates,
                          const Eigen::VectorXd& force) -> Eigen::VectorXd {
    const Eigen::VectorXd qdd_out = forward_dynamics(chart, reference, at_q, rates, force, gravity);
    EXPECT_EQ(reference.independent, forward.independent) << name;
    const Eigen::VectorXd loads =
        stacked_loads(constraint_forces(chart, reference, at_q, rates, force, gravity));
    Eigen::VectorXd out(r + loads.size());
    out << independent_rows(qdd_out), loads;
    return out;
  };
  const auto reduced_tau = [&](const Eigen::VectorXd& at_q, const Eigen::VectorXd& rates,
                               const Eigen::VectorXd& acceleration) -> Eigen::VectorXd {
    const Eigen::VectorXd actuators =
        inverse_dynamics(chart, reference, at_q, rates, acceleration, gravity);
    EXPECT_EQ(reference.independent, forward.independent) << name;
    return independent_rows(actuators);
  };
  const auto moved = [&](int m, double e) { return integrate(chart, state.q, X.col(m) * e, 1.0); };
  const auto rate_moved = [&](int m, double e) {
    Eigen::VectorXd rates = state.qd;
    rates[at[static_cast<std::size_t>(m)]] += e;
    return rates;
  };
  const auto with_loads = [&](const Eigen::MatrixXd& top, const std::vector<Eigen::MatrixXd>& loops,
                              const std::vector<Eigen::MatrixXd>& couplings) {
    const Eigen::MatrixXd loads = stacked_loads(loops, couplings, top.cols());
    Eigen::MatrixXd out(top.rows() + loads.rows(), top.cols());
    out << top, loads;
    return out;
  };
  constexpr double h = 1e-3;
  double largest = 0.0;
  const Eigen::MatrixXd reduced = reduced_mass_matrix(chart, reference, state.q);
  // qdd_R's rows and the loads' rows judged apart; qdd_R's in backward form through M_R only
  // where M_R is ill-conditioned (a delta robot's light links), plainly elsewhere.
  const Eigen::VectorXd singular = Eigen::JacobiSVD<Eigen::MatrixXd>(reduced).singularValues();
  const bool ill_conditioned =
      singular.size() > 0 && singular(singular.size() - 1) < 1e-4 * singular(0);
  // The derivatives' qdd (from M_R between the tree passes' two halves) is forward dynamics' (the
  // articulated-body recursion's) to what M_R's conditioning lets two solvers agree.
  {
    ModelData fresh(model);
    const Eigen::VectorXd recursion =
        forward_dynamics(model, fresh, state.q, state.qd, tau, gravity);
    const double condition =
        singular.size() > 0 ? singular(0) / singular(singular.size() - 1) : 1.0;
    EXPECT_LE((forward.qdd - recursion).norm(),
              1e-12 * std::max(1.0, 1e-2 * condition) * (1.0 + recursion.norm()))
        << name << ": qdd against forward dynamics";
  }
  const auto check = [&](const Eigen::MatrixXd& computed, const RichardsonColumns& columns,
                         const std::string& what) {
    const Eigen::Index top =
        computed.rows() == columns.fine.rows() && computed.rows() > r && what.ends_with("loads'")
            ? r
            : computed.rows();
    const auto part = [&](Eigen::Index from, Eigen::Index rows) {
      return RichardsonColumns{columns.fine.middleRows(from, rows),
                               columns.coarse.middleRows(from, rows)};
    };
    const bool accelerations = what.starts_with("dqdd");
    largest =
        std::max(largest, expect_richardson(computed.topRows(top), part(0, top),
                                            name + ": " + what + " (qdd_R)", 1e-7,
                                            accelerations && ill_conditioned ? &reduced : nullptr));
    if (top < computed.rows())
      expect_richardson(computed.bottomRows(computed.rows() - top),
                        part(top, computed.rows() - top), name + ": " + what + " (loads)");
  };
  check(with_loads(forward.dqdd_dq, forward.loop_by_q, forward.coupling_by_q),
        richardson_columns(
            r, [&](int m, double e) { return motion(moved(m, e), state.qd, tau); }, h),
        "dqdd_R/dq_R and the loads'");
  check(with_loads(forward.dqdd_dqd, forward.loop_by_qd, forward.coupling_by_qd),
        richardson_columns(
            r, [&](int m, double e) { return motion(state.q, rate_moved(m, e), tau); }, h),
        "dqdd_R/dqd_R and the loads'");
  check(with_loads(forward.dqdd_dtau, forward.loop_by_tau, forward.coupling_by_tau),
        richardson_columns(
            n,
            [&](int j, double e) {
              Eigen::VectorXd force = tau;
              force[j] += e;
              return motion(state.q, state.qd, force);
            },
            h),
        "dqdd_R/dtau and the loads'");
  check(inverse.dtau_dq,
        richardson_columns(
            r, [&](int m, double e) { return reduced_tau(moved(m, e), state.qd, qdd); }, h),
        "dtau_R/dq_R");
  check(inverse.dtau_dqd,
        richardson_columns(
            r, [&](int m, double e) { return reduced_tau(state.q, rate_moved(m, e), qdd); }, h),
        "dtau_R/dqd_R");
  check(inverse.mass,
        richardson_columns(
            r,
            [&](int m, double e) {
              Eigen::VectorXd acceleration = qdd;
              acceleration[at[static_cast<std::size_t>(m)]] += e;
              return reduced_tau(state.q, state.qd, acceleration);
            },
            h),
        "M_R");
  EXPECT_LT((inverse.mass - reduced).cwiseAbs().maxCoeff() / (1.0 + reduced.cwiseAbs().maxCoeff()),
            1e-10)
      << name;
  return largest;
}

}  // namespace skograph::testing_support

// Derivatives of closed chains with flexible links in a loop (docs/flexible-bodies.md, "In a
// loop"). The constraint derivatives of closed_chain/derivatives.cpp walk rigid nodes; here the
// total derivatives on the constraint manifold are central differences of the dynamics at closed,
// consistent neighbouring states, extrapolated by Richardson's rule as the flexible tree's are
// (rigid/flexible_derivatives.cpp): an independent coordinate moved along its tangent, the
// dependent ones closed by Newton with the same selection, the independent rates held and the
// dependent ones closed (qd = X qd_R); tau enters linearly, so its columns are exact.
#include <Eigen/Dense>

#include "closed_chain/internal.hpp"
#include "skograph/operators/articulated_body.hpp"
#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/tangent.hpp"

namespace skograph::closed_chain_detail {

namespace {

// The step of the coarser difference: the finer takes half of it. The extrapolation errs by
// O(h^4); rounding and the closure's tolerance by about their size over h.
constexpr double kStep = 1e-4;

// The selection state a neighbour's updates may change (a re-selection, the bar a kept selection
// is held to): restored before each neighbour and after the last, so that every difference is
// taken in the state's own chart and the call leaves data as the state's own update does.
struct SelectionState {
  std::vector<CoordinateSelection> selection;
  std::vector<int> nominal_rank;
  std::vector<char> ill_conditioned;
  std::vector<KeptSelectionBar> kept_bar;
  std::vector<int> independent;
  explicit SelectionState(const ClosedChainData& data)
      : selection(data.selection),
        nominal_rank(data.nominal_rank),
        ill_conditioned(data.ill_conditioned),
        kept_bar(data.work->selection.kept_bar),
        independent(data.independent) {}
  void restore(ClosedChainData& data) const {
    data.selection = selection;
    data.nominal_rank = nominal_rank;
    data.ill_conditioned = ill_conditioned;
    data.work->selection.kept_bar = kept_bar;
  }
};

// A closed, consistent neighbour of (q, qd): independent dof `dof` moved by `step` along its
// tangent (along_q) or its rate by `step` (else), the dependent coordinates and rates closed with
// the state's selection. ClosureError when Newton does not close it, SingularConfigurationError
// when the neighbour's update would choose other independent coordinates.
void neighbour(const ClosedChainModel& model, ClosedChainData& data, const SelectionState& state,
               const Eigen::Ref<const Eigen::VectorXd>& q,
               const Eigen::Ref<const Eigen::VectorXd>& qd, int dof, double step, bool along_q,
               Eigen::VectorXd& moved_q, Eigen::VectorXd& moved_qd) {
  state.restore(data);
  moved_q = q;
  moved_qd = qd;
  if (along_q) {
    Eigen::VectorXd direction = Eigen::VectorXd::Zero(model.dof_count());
    direction[dof] = 1.0;
    integrate(model.tree(), q, direction, step, moved_q);
    const NewtonOutcome outcome = newton_closure(model, data, moved_q, -1, -1, false);
    if (!outcome.closed) throw outcome.error();
  } else {
    moved_qd[dof] += step;
  }
  close_velocities(model, data, moved_q, moved_qd);
  if (data.independent != state.independent)
    throw SingularConfigurationError(
        "the independent coordinates change within the derivatives' differences at this state "
        "(a selection near its conditioning limit): give them (--independent)",
        aggregate_loop(model, 0));
}

// The loop and coupling forces stacked: 6 per loop, then each coupling's entries.
Eigen::VectorXd stacked_forces(const ConstraintForces& forces) {
  Eigen::Index size = 6 * static_cast<Eigen::Index>(forces.loop.size());
  for (const Eigen::VectorXd& coupling : forces.coupling) size += coupling.size();
  Eigen::VectorXd stacked(size);
  Eigen::Index at = 0;
  for (const auto& loop : forces.loop) {
    stacked.segment<6>(at) = loop;
    at += 6;
  }
  for (const Eigen::VectorXd& coupling : forces.coupling) {
    stacked.segment(at, coupling.size()) = coupling;
    at += coupling.size();
  }
  return stacked;
}

// The stacked forces' derivative matrix (rows x columns) split back per loop and per coupling.
void split_forces(const ConstraintForces& shape, const Eigen::MatrixXd& stacked,
                  std::vector<Eigen::MatrixXd>& loops, std::vector<Eigen::MatrixXd>& couplings) {
  loops.resize(shape.loop.size());
  couplings.resize(shape.coupling.size());
  Eigen::Index at = 0;
  for (Eigen::MatrixXd& loop : loops) {
    loop = stacked.middleRows(at, 6);
    at += 6;
  }
  for (std::size_t c = 0; c < couplings.size(); ++c) {
    const Eigen::Index rows = shape.coupling[c].size();
    couplings[c] = stacked.middleRows(at, rows);
    at += rows;
  }
}

// Column by column over the independent dofs: (4 D(h/2) - D(h)) / 3 with
// D(h) = (f(x + h e_j) - f(x - h e_j)) / 2h, f evaluated at the closed neighbour.
template <class Evaluate>
Eigen::MatrixXd manifold_columns(const ClosedChainModel& model, ClosedChainData& data,
                                 const SelectionState& state,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 const Eigen::Ref<const Eigen::VectorXd>& qd, bool along_q,
                                 Evaluate evaluate) {
  Eigen::MatrixXd columns;
  Eigen::VectorXd moved_q, moved_qd;
  const std::vector<int>& independent = state.independent;
  for (std::size_t j = 0; j < independent.size(); ++j) {
    const auto at = [&](double step) -> Eigen::VectorXd {
      neighbour(model, data, state, q, qd, independent[j], step, along_q, moved_q, moved_qd);
      return evaluate(moved_q, moved_qd);
    };
    const auto central = [&](double step) -> Eigen::VectorXd {
      const Eigen::VectorXd forward = at(step);
      return (forward - at(-step)) / (2.0 * step);
    };
    const Eigen::VectorXd coarse = central(kStep), fine = central(kStep / 2.0);
    if (j == 0) columns.resize(coarse.size(), static_cast<Eigen::Index>(independent.size()));
    columns.col(static_cast<Eigen::Index>(j)) = (4.0 * fine - coarse) / 3.0;
  }
  state.restore(data);
  return columns;
}

// M_R = X* M X at data's last update of q, and its factor.
void reduced_mass_at(const ClosedChainModel& model, ClosedChainData& data,
                     const Eigen::Ref<const Eigen::VectorXd>& q, Eigen::MatrixXd& reduced_mass) {
  const Eigen::MatrixXd& mass = mass_matrix(model.tree(), data.tree, q);
  reduced_mass.noalias() = data.X.transpose() * (mass * data.X);
}

}  // namespace

// Forward dynamics' derivatives (closed_chain_derivatives.hpp) of a closed chain with flexible
// links: dqdd/dq_R, dqd/dq_R and dqdd/dqd_R by the differences above (every dof's row), dqdd/dtau
// = X M_R^-1 X* exactly, the forces' derivatives by the same differences and, along tau, by the
// difference of the linear map at unit steps.
void flexible_forward_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q,
                                           const Eigen::Ref<const Eigen::VectorXd>& qd,
                                           const Eigen::Ref<const Eigen::VectorXd>& tau,
                                           const Eigen::Vector3d& gravity,
                                           ClosedChainForwardDerivatives& result,
                                           LoopForceDerivatives forces) {
  const int n = model.dof_count();
  const bool with_forces = forces == LoopForceDerivatives::kWith;
  // qdd, qd and (with the forces) the stacked forces at a closed, consistent state.
  const auto evaluate = [&](const Eigen::VectorXd& at_q, const Eigen::VectorXd& at_qd) {
    const Eigen::VectorXd qdd = forward_dynamics(model, data, at_q, at_qd, tau, gravity);
    Eigen::VectorXd stacked(2 * n);
    stacked << qdd, at_qd;
    if (!with_forces) return stacked;
    ConstraintForces at_forces;
    constraint_forces_at_update(model, data, at_q, at_qd, qdd, tau, gravity, at_forces);
    const Eigen::VectorXd loads = stacked_forces(at_forces);
    Eigen::VectorXd all(stacked.size() + loads.size());
    all << stacked, loads;
    return all;
  };
  forward_dynamics(model, data, q, qd, tau, gravity);  // the state's chart
  const SelectionState state(data);
  result.independent = state.independent;
  const Eigen::MatrixXd by_q = manifold_columns(model, data, state, q, qd, true, evaluate);
  const Eigen::MatrixXd by_qd = manifold_columns(model, data, state, q, qd, false, evaluate);
  // Back at the state: X, M_R, the forces there and their linear change along tau.
  result.qdd = forward_dynamics(model, data, q, qd, tau, gravity);
  result.dqdd_dq = by_q.topRows(n);
  result.dqd_dq = by_q.middleRows(n, n);
  result.dqdd_dqd = by_qd.topRows(n);
  reduced_mass_at(model, data, q, result.reduced_mass);
  result.reduced_factor.compute(result.reduced_mass);
  if (result.reduced_factor.info() != Eigen::Success)
    throw SingularMassMatrixError(
        -1, "the reduced mass matrix is singular at this state (a dof that moves no mass)");
  result.dqdd_dtau = data.X * result.reduced_factor.solve(data.X.transpose());
  constraint_forces_at_update(model, data, q, qd, result.qdd, tau, gravity, result.forces);
  if (!with_forces) {
    for (auto* list : {&result.loop_by_q, &result.loop_by_qd, &result.loop_by_tau,
                       &result.coupling_by_q, &result.coupling_by_qd, &result.coupling_by_tau})
      list->clear();
    return;
  }
  split_forces(result.forces, by_q.bottomRows(by_q.rows() - 2 * n), result.loop_by_q,
               result.coupling_by_q);
  split_forces(result.forces, by_qd.bottomRows(by_qd.rows() - 2 * n), result.loop_by_qd,
               result.coupling_by_qd);
  const Eigen::VectorXd center = stacked_forces(result.forces);
  Eigen::MatrixXd by_tau(center.size(), n);
  ConstraintForces moved;
  for (int k = 0; k < n; ++k) {
    Eigen::VectorXd unit_tau = tau;
    unit_tau[k] += 1.0;
    const Eigen::VectorXd qdd = result.qdd + result.dqdd_dtau.col(k);
    constraint_forces_at_update(model, data, q, qd, qdd, unit_tau, gravity, moved);
    by_tau.col(k) = stacked_forces(moved) - center;
  }
  split_forces(result.forces, by_tau, result.loop_by_tau, result.coupling_by_tau);
}

// Inverse dynamics' derivatives (closed_chain_derivatives.hpp) of a closed chain with flexible
// links: tau_R = X* (M qdd + C) with qdd_R held, differenced along q_R and qd_R on the manifold;
// dtau_R/dqdd_R = M_R exactly.
void flexible_inverse_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q,
                                           const Eigen::Ref<const Eigen::VectorXd>& qd,
                                           const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                           const Eigen::Vector3d& gravity,
                                           ClosedChainInverseDerivatives& result) {
  actuator_forces(model, data, q, qd, qdd, gravity);  // the state's chart
  const SelectionState state(data);
  result.independent = state.independent;
  const auto r = static_cast<Eigen::Index>(result.independent.size());
  Eigen::VectorXd held(r);  // qdd_R
  for (Eigen::Index j = 0; j < r; ++j)
    held[j] = qdd[result.independent[static_cast<std::size_t>(j)]];
  const auto evaluate = [&](const Eigen::VectorXd& at_q, const Eigen::VectorXd& at_qd) {
    return Eigen::VectorXd(inverse_dynamics(model, data, at_q, at_qd, held, gravity));
  };
  result.dtau_dq = manifold_columns(model, data, state, q, qd, true, evaluate);
  result.dtau_dqd = manifold_columns(model, data, state, q, qd, false, evaluate);
  // Back at the state.
  result.actuator_forces = actuator_forces(model, data, q, qd, qdd, gravity);
  result.qdd = data.work->dynamics.tree_acceleration;  // X qdd_R + Xdot qd_R
  result.tau.resize(r);
  for (Eigen::Index j = 0; j < r; ++j)
    result.tau[j] = result.actuator_forces(result.independent[static_cast<std::size_t>(j)]);
  constraint_forces_at_update(model, data, q, qd, result.qdd, result.actuator_forces, gravity,
                              result.forces);
  reduced_mass_at(model, data, q, result.reduced_mass);
}

}  // namespace skograph::closed_chain_detail

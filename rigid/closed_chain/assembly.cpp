// Assembly of closed chains from any start (rigid/closed_chain_model.hpp: assemble,
// close_positions): Newton first, then the globalized search behind it (Levenberg-Marquardt,
// deterministic restarts, every coordinate free where the held ones leave no closure), the rounds
// that settle the independent coordinates at the closed configuration, and the coordinates given
// back where they did not have to move.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <string>

#include "closed_chain/internal.hpp"

namespace skograph {

using namespace closed_chain_detail;
using Impl = ClosedChainModel::Impl;

namespace {

// The closure of aggregate s at q (its dofs only matter): error e and its Jacobian with respect
// to the coordinates, into work.constraints.position_error[s] and
// work.constraints.position_jacobian[s]; returns the residual (max |e|, or a flipped revolute
// axis).
double closure_at(const ClosedChainModel& model, ClosedChainData& data, int s,
                  const Eigen::Ref<const Eigen::VectorXd>& q) {
  update_positions(model.tree(), q, data.tree);
  aggregate_constraints(model, data, s, q, Level::kVelocity);
  coordinate_jacobian(model, s, q, data.work->constraints.position_jacobian[s]);
  return aggregate_position_residual(data, s);
}

// Levenberg-Marquardt on 0.5 |e|^2 over the positions of aggregate s's dofs marked in `free`,
// from q (Nielsen's trust-region update of the damping mu: the step solves
// (J* J + mu (I + diag J* J)) delta = -J* e, accepted when |e| falls, mu shrinks with the ratio of
// actual to predicted reduction and doubles its growth after each rejection). Leaves q at the
// best point; returns its residual. A revolute axis flipped by pi zeroes its rows too: such a
// point is a residual of its own (aggregate_position_residual), for a restart to leave.
double levenberg_marquardt(const ClosedChainModel& model, ClosedChainData& data, int s,
                           const std::vector<char>& free, Eigen::Ref<Eigen::VectorXd> q,
                           int iterations = 200) {
  const std::vector<int>& dofs = closed_chain_impl(model).dofs[s];
  const double target = model.options().position_tolerance;
  std::vector<int> columns;
  for (std::size_t i = 0; i < dofs.size(); ++i)
    if (free[i]) columns.push_back(static_cast<int>(i));
  const auto n = static_cast<Eigen::Index>(columns.size());
  double residual = closure_at(model, data, s, q);
  if (n == 0 || residual <= target) return residual;
  Eigen::MatrixXd jacobian(data.work->constraints.position_error[s].size(), n), normal(n, n);
  Eigen::VectorXd error = data.work->constraints.position_error[s], gradient(n), step(n);
  auto gather = [&] {
    for (Eigen::Index j = 0; j < n; ++j)
      jacobian.col(j) =
          data.work->constraints.position_jacobian[s].col(columns[static_cast<std::size_t>(j)]);
    error = data.work->constraints.position_error[s];
    normal.noalias() = jacobian.transpose() * jacobian;
    gradient.noalias() = jacobian.transpose() * error;
  };
  gather();
  double cost = error.squaredNorm();
  double damping = 1e-3 * std::max(1e-12, normal.diagonal().maxCoeff()), growth = 2.0;
  int slow = 0;  // accepted steps in a row that barely lower the cost
  Eigen::VectorXd saved(static_cast<Eigen::Index>(dofs.size()));
  for (int iteration = 0; iteration < iterations && residual > target; ++iteration) {
    Eigen::MatrixXd damped = normal;
    damped.diagonal().array() += damping * (1.0 + normal.diagonal().array());
    step = damped.ldlt().solve(-gradient);
    if (!step.allFinite()) break;
    for (std::size_t i = 0; i < dofs.size(); ++i) saved[static_cast<Eigen::Index>(i)] = q[dofs[i]];
    for (Eigen::Index j = 0; j < n; ++j) q[dofs[static_cast<std::size_t>(columns[j])]] += step[j];
    const double trial_residual = closure_at(model, data, s, q);
    const double trial_cost = data.work->constraints.position_error[s].squaredNorm();
    const double predicted = step.dot(
        damping * ((1.0 + normal.diagonal().array()).matrix().asDiagonal() * step) - gradient);
    if (std::isfinite(trial_cost) && trial_cost < cost) {
      const double ratio = predicted > 0 ? (cost - trial_cost) / predicted : 1.0;
      damping *= std::max(1.0 / 3.0, 1.0 - std::pow(2.0 * ratio - 1.0, 3));
      growth = 2.0;
      // At a positive minimum (no closure from here) the cost stops falling: leave it.
      slow = cost - trial_cost < 1e-9 * cost ? slow + 1 : 0;
      cost = trial_cost;
      residual = trial_residual;
      if (slow == 3) break;
      gather();
      continue;
    }
    for (std::size_t i = 0; i < dofs.size(); ++i) q[dofs[i]] = saved[static_cast<Eigen::Index>(i)];
    damping *= growth;
    growth *= 2.0;
    if (damping > 1e20 || step.norm() < 1e-16 * (1.0 + q.norm())) break;
  }
  return closure_at(model, data, s, q);
}

// Newton steps tried before the search (which converges from farther away).
constexpr int kNewtonFirst = 10;

// The restarts of the search: offsets of these sizes (times restart_scale), a few draws each.
constexpr double kRestartSizes[] = {0.1, 0.3, 0.6, 1.0, 1.5, 2.0, 3.0};
constexpr int kRestartsPerSize = 3;
constexpr int kStarts = 1 + kRestartsPerSize * static_cast<int>(std::size(kRestartSizes));
// Restarts in a row that end at the best minimum so far: the search stops there.
constexpr int kSameMinimum = 3;

// The scale of a dof's restart offsets: 1 rad for rotations, 0.1 m for translations.
double restart_scale(const ClosedChainModel& model, int dof) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  const int k = impl.dof_node[dof];
  const JointType type = tree.joint_geometry(k).type;
  const int in_joint = impl.dof_in_joint[dof];
  const bool translation = type == JointType::kPrismatic ||
                           (type == JointType::kPlanar && in_joint < 2) ||
                           (type == JointType::kFloating && in_joint >= 3);
  return translation ? 0.1 : 1.0;
}

// Closes aggregate s from q over the positions marked free: Levenberg-Marquardt from q, then
// from deterministic restarts (the free coordinates offset from q0 by fixed-seed draws of growing
// size). Leaves q at the closure found, or at the best point when none; returns its residual.
double search_closure(const ClosedChainModel& model, ClosedChainData& data, int s,
                      const std::vector<char>& free, Eigen::Ref<Eigen::VectorXd> q,
                      const Eigen::VectorXd& q0) {
  const std::vector<int>& dofs = closed_chain_impl(model).dofs[s];
  double best = levenberg_marquardt(model, data, s, free, q);
  if (best <= kClosureTolerance) return best;
  Eigen::VectorXd best_q = q;
  // Starts that all end at the same positive minimum: the held coordinates leave no closure.
  int same_minimum = 0;
  std::mt19937 generator(20261125u + static_cast<unsigned>(s));
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  for (const double size : kRestartSizes) {
    if (same_minimum == kSameMinimum) break;
    for (int attempt = 0; attempt < kRestartsPerSize; ++attempt) {
      for (std::size_t i = 0; i < dofs.size(); ++i)  // this aggregate's dofs only
        q[dofs[i]] =
            q0[dofs[i]] + (free[i] ? size * restart_scale(model, dofs[i]) * draw(generator) : 0.0);
      const double residual = levenberg_marquardt(model, data, s, free, q);
      if (residual <= kClosureTolerance) return residual;
      // (A flipped revolute axis zeroes the errors themselves: other starts leave it.)
      const Eigen::VectorXd& error = data.work->constraints.position_error[s];
      const bool flipped = error.size() == 0 || error.cwiseAbs().maxCoeff() < kClosureTolerance;
      same_minimum = !flipped && std::abs(residual - best) <= 1e-6 * best ? same_minimum + 1 : 0;
      if (residual < best) {
        best = residual;
        best_q = q;
      }
      if (same_minimum == kSameMinimum) break;
    }
  }
  for (const int d : dofs) q[d] = best_q[d];
  return best;
}

// The positions of aggregate s's dofs held during the search: the chosen independent
// coordinates, or the rank-revealing selection at q with exactly nominal-rank dependent
// coordinates (the first pivots of Q's column-pivoted QR, even where q makes them degenerate).
std::vector<char> held_coordinates(const ClosedChainModel& model, ClosedChainData& data, int s,
                                   const Eigen::Ref<const Eigen::VectorXd>& q) {
  const Impl& impl = closed_chain_impl(model);
  std::vector<char> held(impl.dofs[s].size(), 0);
  if (CoordinateSelection chosen; chosen_selection(model, s, chosen)) {
    for (const int i : chosen.independent) held[static_cast<std::size_t>(i)] = 1;
    return held;
  }
  const std::vector<int>& kept = impl.preferred_kept[static_cast<std::size_t>(s)];
  if (!kept.empty()) {  // the preferred (actuated) coordinates; the others adapt
    for (const int i : kept) held[static_cast<std::size_t>(i)] = 1;
    return held;
  }
  update_positions(model.tree(), q, data.tree);
  aggregate_constraints(model, data, s, q, Level::kVelocity);
  const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
  std::fill(held.begin(), held.end(), 1);
  if (constraint.rows() == 0 || constraint.cols() == 0) return held;
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(constraint);
  const int rank = std::min(data.nominal_rank[s],
                            static_cast<int>(std::min(constraint.rows(), constraint.cols())));
  for (int i = 0; i < rank; ++i)
    held[static_cast<std::size_t>(qr.colsPermutation().indices()(i))] = 0;
  return held;
}

// The open aggregate with the largest residual at q, named for the message.
[[noreturn]] void cannot_close(const ClosedChainModel& model, ClosedChainData& data, int s,
                               const Eigen::Ref<const Eigen::VectorXd>& q, double residual,
                               const std::string& how, int starts) {
  closure_at(model, data, s, q);
  const Eigen::VectorXd& error = data.work->constraints.position_error[s];
  Eigen::Index row = 0;
  if (error.size()) error.cwiseAbs().maxCoeff(&row);
  const int flipped = data.work->constraints.flipped_loop[s];
  const bool flip = flipped >= 0 && data.work->constraints.orientation_flip[s] >= residual;
  const std::string owner =
      flip ? loop_label(model.mechanism(), flipped) : row_owner(model, s, static_cast<int>(row));
  throw ClosureError(owner + " cannot be closed from the given state" + how + ": residual " +
                         format_residual(residual) + ", the least the search reaches from up to " +
                         std::to_string(starts) + " starts",
                     flip ? flipped : row_loop(model, s, static_cast<int>(row)));
}

// Revolute and continuous coordinates of aggregate s back to within pi of their given values
// (the configuration is the same; the closure found stays the one nearest the start).
void nearest_turn(const ClosedChainModel& model, int s, Eigen::Ref<Eigen::VectorXd> q,
                  const Eigen::VectorXd& q0) {
  const Impl& impl = closed_chain_impl(model);
  for (const int d : impl.dofs[s]) {
    const JointType type = model.tree().joint_geometry(impl.dof_node[d]).type;
    if (type == JointType::kRevolute || type == JointType::kContinuous)
      q[d] = q0[d] + std::remainder(q[d] - q0[d], 2.0 * M_PI);
  }
}

// From a closed configuration q of aggregate s to the closed configuration nearest q0 (least
// squares over its dofs): steps along the closure's tangent toward q0 (the projection I - J^+ J of
// q0 - q, J the closure's Jacobian), each closed again by Levenberg-Marquardt and kept when it is
// closer, halved otherwise; stops when the tangent part of q0 - q vanishes (q - q0 is then normal
// to the closure: a nearest point) or after a bounded number of steps.
void toward_start(const ClosedChainModel& model, ClosedChainData& data, int s,
                  Eigen::Ref<Eigen::VectorXd> q, const Eigen::VectorXd& q0) {
  constexpr int kSteps = 12, kReclosing = 12;  // a step's re-closure is near: a few iterations
  const std::vector<int>& dofs = closed_chain_impl(model).dofs[s];
  const auto n = static_cast<Eigen::Index>(dofs.size());
  const std::vector<char> free(dofs.size(), 1);
  auto distance = [&](const Eigen::Ref<const Eigen::VectorXd>& at) {
    double sum = 0.0;
    for (const int d : dofs) sum += (at[d] - q0[d]) * (at[d] - q0[d]);
    return std::sqrt(sum);
  };
  Eigen::VectorXd trial = q, toward(n);
  double scale = 1.0;
  for (int step = 0; step < kSteps && scale > 1e-6; ++step) {
    closure_at(model, data, s, q);
    const Eigen::MatrixXd& jacobian = data.work->constraints.position_jacobian[s];
    for (Eigen::Index i = 0; i < n; ++i)
      toward[i] = q0[dofs[static_cast<std::size_t>(i)]] - q[dofs[static_cast<std::size_t>(i)]];
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> solver(jacobian);
    solver.setThreshold(1e-9);
    const Eigen::VectorXd tangent = toward - solver.solve(jacobian * toward);
    if (tangent.norm() < 1e-9 * (1.0 + toward.norm())) break;
    const double before = distance(q);
    trial = q;
    for (Eigen::Index i = 0; i < n; ++i)
      trial[dofs[static_cast<std::size_t>(i)]] += scale * tangent[i];
    if (levenberg_marquardt(model, data, s, free, trial, kReclosing) <= kClosureTolerance &&
        distance(trial) < before) {
      for (const int d : dofs) q[d] = trial[d];
      scale = std::min(1.0, 2.0 * scale);
    } else {
      scale *= 0.5;
    }
  }
}

// Closes aggregate s of q, open after Newton, by search_closure: over its dependent coordinates
// with the held ones back at their given values, and when `may_move` and that fails, over every
// coordinate from the given values, adding the held coordinates that moved to `moved`. Returns
// the residual reached.
double close_aggregate(const ClosedChainModel& model, ClosedChainData& data, int s,
                       Eigen::Ref<Eigen::VectorXd> q, const Eigen::VectorXd& q0, bool may_move,
                       const CoordinateSelection* holding, std::vector<int>& moved) {
  const std::vector<int>& dofs = closed_chain_impl(model).dofs[s];
  std::vector<char> held;
  if (holding) {
    held.assign(dofs.size(), 0);
    for (const int i : holding->independent) held[static_cast<std::size_t>(i)] = 1;
  } else {
    held = held_coordinates(model, data, s, q0);
  }
  std::vector<char> free(held.size());
  for (std::size_t i = 0; i < held.size(); ++i) {
    free[i] = static_cast<char>(!held[i]);
    if (held[i]) q[dofs[i]] = q0[dofs[i]];  // Newton's own selection may have moved them
  }
  double residual = search_closure(model, data, s, free, q, q0);
  if (residual <= kClosureTolerance) nearest_turn(model, s, q, q0);
  if (residual <= kClosureTolerance || !may_move) return residual;
  for (std::size_t i = 0; i < dofs.size(); ++i) q[dofs[i]] = q0[dofs[i]];
  std::fill(free.begin(), free.end(), 1);
  residual = search_closure(model, data, s, free, q, q0);
  if (residual > kClosureTolerance) return residual;
  nearest_turn(model, s, q, q0);
  toward_start(model, data, s, q, q0);
  residual = closure_at(model, data, s, q);
  for (std::size_t i = 0; i < dofs.size(); ++i)
    if (held[i] && std::abs(q[dofs[i]] - q0[dofs[i]]) > kClosureTolerance) moved.push_back(dofs[i]);
  return residual;
}

// Newton, then close_aggregate for each aggregate Newton leaves open; ClosureError naming the
// loop with the largest residual when one stays open. With `holding` (assemble), each
// aggregate's held coordinates are the independent ones of its selection there, which Newton's
// dependent ones complement; without, the selection data carries (close_positions).
void close_all(const ClosedChainModel& model, ClosedChainData& data, Eigen::Ref<Eigen::VectorXd> q,
               bool may_move, const std::vector<CoordinateSelection>* holding,
               std::vector<int>& moved) {
  check_vector(q, model.dof_count(), "q");
  if (!q.allFinite()) throw ClosureError("the configuration q has non-finite entries");
  Eigen::VectorXd& q0 = data.work->assembly.closure_start;  // kept storage: no allocation per call
  q0 = q;
  if (holding)
    for (int s = 0; s < model.aggregate_count(); ++s)
      data.selection[static_cast<std::size_t>(s)] = (*holding)[static_cast<std::size_t>(s)];
  // Near a closure Newton converges in a few steps; farther, the search takes over.
  if (newton_closure(model, data, q, -1, kNewtonFirst, holding == nullptr).closed) return;
  int worst = -1;
  double worst_residual = 0.0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    if (closure_at(model, data, s, q) <= kClosureTolerance) continue;
    const double residual =
        close_aggregate(model, data, s, q, q0, may_move,
                        holding ? &(*holding)[static_cast<std::size_t>(s)] : nullptr, moved);
    if (residual > kClosureTolerance && residual > worst_residual) {
      worst = s;
      worst_residual = residual;
    }
  }
  if (worst >= 0)
    cannot_close(model, data, worst, q, worst_residual,
                 may_move ? "" : " with its independent coordinates kept",
                 may_move ? 2 * kStarts : kStarts);
}

}  // namespace

void close_positions(const ClosedChainModel& model, ClosedChainData& data,
                     Eigen::Ref<Eigen::VectorXd> q) {
  std::vector<int> moved;
  close_all(model, data, q, false, nullptr, moved);
}

namespace {

// How many times assemble closes again from the given q, holding the independent coordinates of
// the closed configuration it found, when those moved.
constexpr int kAssemblyRounds = 3;

// The independent coordinates of the selection data holds (every aggregate's) that differ from
// q0 by more than the closure tolerance, into `moved` (tree dofs, increasing).
void moved_independent(const ClosedChainModel& model, const ClosedChainData& data,
                       const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::VectorXd& q0,
                       std::vector<int>& moved) {
  const Impl& impl = closed_chain_impl(model);
  moved.clear();
  for (int s = 0; s < model.aggregate_count(); ++s)
    for (const int i : data.selection[static_cast<std::size_t>(s)].independent) {
      const int dof = impl.dofs[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)];
      if (std::abs(q[dof] - q0[dof]) > kClosureTolerance) moved.push_back(dof);
    }
  std::sort(moved.begin(), moved.end());
}

// The selection of every aggregate at the closed configuration q, before the update that keeps
// it: the held one where it serves there; else the one made afresh (remade_selection) where that
// serves; where both are ill-conditioned, the held one while its condition number is within a
// factor 1 / kKeptFraction of the fresh one's (so that the coordinates kept stay the independent
// ones), else the preferred coordinates' (improved_preferred_selection) within that factor, else
// the fresh one.
void settle_selections(const ClosedChainModel& model, ClosedChainData& data,
                       const Eigen::Ref<const Eigen::VectorXd>& q) {
  ClosedChainData::Workspaces& work = *data.work;
  const double threshold = model.options().reselect_conditioning;
  update_positions(model.tree(), q, data.tree);
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const CoordinateSelection& held = work.assembly.held_selection[static_cast<std::size_t>(s)];
    if (CoordinateSelection chosen; chosen_selection(model, s, chosen)) continue;
    aggregate_constraints(model, data, s, q, Level::kVelocity);
    const Eigen::MatrixXd& constraint = data.constraint_matrix[static_cast<std::size_t>(s)];
    DependentFactorization& y1 =
        work.selection.dependent_factorization[static_cast<std::size_t>(s)];
    const bool full_rank = held.rank >= data.nominal_rank[static_cast<std::size_t>(s)];
    if (full_rank) {
      factorize_dependent(constraint, held, y1);
      if (selection_conditioning_at_least(constraint, held, threshold, y1)) {
        data.selection[static_cast<std::size_t>(s)] = held;
        continue;
      }
    }
    const CoordinateSelection fresh = remade_selection(model, data, s, q, work.zero_dofs);
    factorize_dependent(constraint, fresh, y1);
    if (selection_conditioning_at_least(constraint, fresh, threshold, y1)) {
      data.selection[static_cast<std::size_t>(s)] = fresh;
      continue;
    }
    const double fresh_condition = selection_condition_number(model, data, s, fresh);
    const double held_condition = full_rank ? selection_condition_number(model, data, s, held)
                                            : std::numeric_limits<double>::infinity();
    if (held_condition * kKeptFraction <= fresh_condition) {
      hold_selection(model, data, s, held, held_condition);
      continue;
    }
    if (CoordinateSelection preferred; improved_preferred_selection(model, data, s, preferred)) {
      const double preferred_condition = selection_condition_number(model, data, s, preferred);
      if (preferred_condition * kKeptFraction <= fresh_condition) {
        hold_selection(model, data, s, preferred, preferred_condition);
        continue;
      }
    }
    hold_selection(model, data, s, fresh, fresh_condition);
  }
}

// The selection at the closed configuration q made afresh (settle_selections) and the
// constraints updated with it; where q is singular the held selections are restored instead and
// the result is false.
bool settle_or_hold(const ClosedChainModel& model, ClosedChainData& data,
                    Eigen::Ref<Eigen::VectorXd> q) {
  ClosedChainData::Workspaces& work = *data.work;
  forget_selections(model, data);
  try {
    settle_selections(model, data, q);
    update_constraints(model, data, q, work.zero_dofs);
    return true;
  } catch (const SingularConfigurationError&) {
    for (int s = 0; s < model.aggregate_count(); ++s)
      data.selection[static_cast<std::size_t>(s)] =
          work.assembly.held_selection[static_cast<std::size_t>(s)];
    return false;
  }
}

// Where independent coordinates had to move (the search freed them all), some may not have had
// to: each is tried at its given value again, the others where the closure left them and the
// selection held, by Newton; kept there where the loops still close. Then the selection is
// settled again and `moved` re-made. A rare path (it may allocate).
void give_back(const ClosedChainModel& model, ClosedChainData& data, Eigen::Ref<Eigen::VectorXd> q,
               const Eigen::VectorXd& q0, std::vector<int>& moved) {
  ClosedChainData::Workspaces& work = *data.work;
  const int aggregates = model.aggregate_count();
  for (int s = 0; s < aggregates; ++s)
    work.assembly.held_selection[static_cast<std::size_t>(s)] =
        data.selection[static_cast<std::size_t>(s)];
  // The smallest displacements first: the likeliest to be given back.
  std::vector<int> order = moved;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return std::abs(q[a] - q0[a]) < std::abs(q[b] - q0[b]); });
  for (const int dof : order) {
    Eigen::VectorXd trial(q);
    trial[dof] = q0[dof];
    for (int s = 0; s < aggregates; ++s)
      data.selection[static_cast<std::size_t>(s)] =
          work.assembly.held_selection[static_cast<std::size_t>(s)];
    if (!newton_closure(model, data, trial, -1, kNewtonFirst, false).closed ||
        position_residual(model, data, trial) > kClosureTolerance)
      continue;
    q = trial;
  }
  settle_or_hold(model, data, q);
  moved_independent(model, data, q, q0, moved);
}

}  // namespace

// Assembly as a function of q alone: the selections data carries are forgotten; the closure holds
// the start selection at q0 (start_selection); at the closed configuration the independent
// coordinates are selected afresh (the selection every later call at that configuration makes);
// where some of those moved and differ from the held ones, the closure starts again from q0
// holding them (a few rounds), so that the coordinates reported independent are the ones kept.
AssemblyReport assemble(const ClosedChainModel& model, ClosedChainData& data,
                        Eigen::Ref<Eigen::VectorXd> q) {
  ClosedChainData::Workspaces& work = *data.work;
  Eigen::VectorXd& q0 = work.assembly.assembly_start;  // kept storage: no allocation per call
  q0 = q;
  forget_selections(model, data);
  check_vector(q, model.dof_count(), "q");
  if (!q.allFinite()) throw ClosureError("the configuration q has non-finite entries");
  const int aggregates = model.aggregate_count();
  work.assembly.held_selection.resize(static_cast<std::size_t>(aggregates));
  update_positions(model.tree(), q0, data.tree);
  for (int s = 0; s < aggregates; ++s) {
    aggregate_constraints(model, data, s, q0, Level::kVelocity);
    start_selection(model, data, s, work.assembly.held_selection[static_cast<std::size_t>(s)]);
  }
  AssemblyReport report;
  std::vector<int>& moved = work.assembly.assembly_moved;
  bool singular = false;
  for (int round = 0; round < kAssemblyRounds; ++round) {
    if (round > 0) q = q0;
    report.moved.clear();
    close_all(model, data, q, true, &work.assembly.held_selection, report.moved);
    // The selection at the closed configuration. Where it is singular, the held coordinates are
    // the independent ones reported (assemble_positions gives such configurations; the dynamics
    // refuse them).
    if (!settle_or_hold(model, data, q)) {
      moved_independent(model, data, q, q0, moved);
      singular = true;
      break;
    }
    moved_independent(model, data, q, q0, moved);
    bool same = true;
    for (int s = 0; s < aggregates; ++s)
      same = same && data.selection[static_cast<std::size_t>(s)].independent ==
                         work.assembly.held_selection[static_cast<std::size_t>(s)].independent;
    if (moved.empty() || same) break;
    if (round + 1 == kAssemblyRounds) break;
    for (int s = 0; s < aggregates; ++s)
      work.assembly.held_selection[static_cast<std::size_t>(s)] =
          data.selection[static_cast<std::size_t>(s)];
  }
  if (!moved.empty() && !singular) give_back(model, data, q, q0, moved);
  report.moved = moved;
  for (const int dof : report.moved) report.displacement.push_back(q[dof] - q0[dof]);
  report.residual = position_residual(model, data, q);
  return report;
}

}  // namespace skograph

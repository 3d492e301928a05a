// The Newton closure of closed chains (closed_chain/internal.hpp: newton_closure), the consistent
// velocities and the residuals (rigid/closed_chain_model.hpp: close_velocities,
// position_residual, velocity_residual).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "closed_chain/internal.hpp"

namespace skograph {

using namespace closed_chain_detail;
using Impl = ClosedChainModel::Impl;

namespace closed_chain_detail {

// The Newton Jacobian with respect to the coordinates q themselves (columns of aggregate s): the
// velocity-space Jacobian times dqd/dq, which differs from the identity for rotation vectors
// (omega = J_r(r) dr/dt, J_r the right Jacobian of the exponential map) and floating positions
// (v = R^T dp/dt). Steps are then added to q, so the independent entries of q stay as given.
void coordinate_jacobian(const ClosedChainModel& model, int s,
                         const Eigen::Ref<const Eigen::VectorXd>& q, Eigen::MatrixXd& jacobian) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  const std::vector<int>& dofs = impl.dofs[s];
  std::size_t i = 0;
  while (i < dofs.size()) {
    const int k = impl.dof_node[dofs[i]];
    const JointType type = tree.joint_geometry(k).type;
    const auto column = static_cast<Eigen::Index>(i);
    if (uses_rotation_vector(type)) {
      const int offset = tree.joint_dof_offset(k);
      const Eigen::Vector3d rotation_vector = q.segment<3>(offset);
      const Eigen::Matrix3d right_jacobian = rotation_vector_rate_matrix(rotation_vector).inverse();
      jacobian.middleCols<3>(column) = (jacobian.middleCols<3>(column) * right_jacobian).eval();
      if (type == JointType::kFloating)
        jacobian.middleCols<3>(column + 3) =
            (jacobian.middleCols<3>(column + 3) * rotation_from_vector(rotation_vector).transpose())
                .eval();
      i += static_cast<std::size_t>(tree.joint_dofs(k));
    } else {
      ++i;
    }
  }
}

}  // namespace closed_chain_detail

namespace {

// The dependent coordinates of aggregate s for Newton: the stored selection while it stays well
// conditioned at the current Q; a selection of lower rank than nominal (a singular point on the
// way) is not taken, the update after closing reports a closed configuration that is singular.
void newton_selection(const ClosedChainModel& model, ClosedChainData& data, int s) {
  const ClosedChainOptions& options = model.options();
  // The user's independent coordinates stay fixed during Newton (least squares over the others);
  // whether they are a valid choice at the closed state is update_selection's question.
  if (chosen_selection(model, s, data.selection[s])) return;  // in place: storage kept
  const std::vector<int>& kept =
      closed_chain_impl(model).preferred_kept[static_cast<std::size_t>(s)];
  // The conditioning checks factorize into the update's Y1 workspace (no allocation; the update
  // factorizes its own selection again).
  DependentFactorization& y1 =
      data.work->selection.dependent_factorization[static_cast<std::size_t>(s)];
  const auto well_conditioned = [&] {
    factorize_dependent(data.constraint_matrix[s], data.selection[s], y1);
    return selection_conditioning_at_least(data.constraint_matrix[s], data.selection[s],
                                           options.reselect_conditioning, y1);
  };
  if (!kept.empty()) {
    if (has_selection(data, s) && keeps(data.selection[s], kept) && well_conditioned()) return;
    data.selection[s] =
        preferred_selection(data.constraint_matrix[s], kept, options.rank_tolerance);
    return;
  }
  if (has_selection(data, s) && well_conditioned()) return;
  CoordinateSelection selection =
      select_coordinates(data.constraint_matrix[s], options.rank_tolerance, false);
  if (!has_selection(data, s) || selection.rank >= data.nominal_rank[s])
    data.selection[s] = std::move(selection);
}

// Eigen's CompleteOrthogonalDecomposition::solve for one right-hand side, step for step, in kept
// storage: Eigen's own makes temporaries at every call. x = P y with
// y = Z* [T^-1 (Q* b)(1:rank); 0].
void least_norm_solve(const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>& cod,
                      const Eigen::Ref<const Eigen::VectorXd>& b, Eigen::VectorXd& rotated,
                      Eigen::VectorXd& y, Eigen::VectorXd& essential,
                      Eigen::Ref<Eigen::VectorXd> x) {
  const Eigen::Index rank = cod.rank(), cols = cod.cols();
  if (rank == 0) {
    x.setZero();
    return;
  }
  rotated = b;
  double workspace = 0.0;
  const Eigen::Index rows = cod.rows();
  for (Eigen::Index k = 0; k < rank; ++k)  // Q* b: the reflectors H_0, H_1, ... in turn
    rotated.tail(rows - k).applyHouseholderOnTheLeft(cod.matrixQTZ().col(k).tail(rows - k - 1),
                                                     cod.hCoeffs()(k), &workspace);
  y.resize(cols);
  y.head(rank) = rotated.head(rank);
  cod.matrixT().topLeftCorner(rank, rank).triangularView<Eigen::Upper>().solveInPlace(y.head(rank));
  if (rank < cols) {
    y.tail(cols - rank).setZero();
    for (Eigen::Index k = 0; k < rank; ++k) {
      if (k != rank - 1) std::swap(y(k), y(rank - 1));
      // The reflector's essential part is a row of QTZ: copied to contiguous storage, as Eigen's
      // product would into a temporary.
      essential = cod.matrixQTZ().row(k).tail(cols - rank).transpose();
      y.segment(rank - 1, cols - rank + 1)
          .applyHouseholderOnTheLeft(essential, cod.zCoeffs()(k), &workspace);
      if (k != rank - 1) std::swap(y(k), y(rank - 1));
    }
  }
  for (Eigen::Index i = 0; i < cols; ++i) x(cod.colsPermutation().indices()(i)) = y(i);
}

// The Newton step of aggregate s at the q of its last aggregate_constraints: delta_u = -J_u^+ e
// (least squares; rows may be redundant), zero on the independent coordinates; into
// work.assembly.newton_step[s], with |e| into work.assembly.error_norm[s].
void newton_step(const ClosedChainModel& model, ClosedChainData& data, int s,
                 const Eigen::Ref<const Eigen::VectorXd>& q) {
  ClosedChainData::Workspaces& work = *data.work;
  const std::vector<int>& dependent = data.selection[s].dependent;
  const Eigen::VectorXd& error = work.constraints.position_error[s];
  Eigen::MatrixXd& jacobian = work.constraints.position_jacobian[s];
  coordinate_jacobian(model, s, q, jacobian);
  Eigen::MatrixXd& dependent_jacobian = work.assembly.dependent_jacobian[s];
  dependent_jacobian.resize(error.size(), static_cast<Eigen::Index>(dependent.size()));
  for (std::size_t j = 0; j < dependent.size(); ++j)
    dependent_jacobian.col(static_cast<Eigen::Index>(j)) = jacobian.col(dependent[j]);
  Eigen::VectorXd& dependent_step = work.assembly.dependent_step[s];
  dependent_step.resize(static_cast<Eigen::Index>(dependent.size()));
  // No dependent coordinate (rank 0 at q: the loop's joints cannot move its frames toward each
  // other), no step: the aggregate stalls and is reported. Eigen's QR reads the largest column
  // norm of a matrix without columns.
  if (!dependent.empty()) {
    work.assembly.least_squares[s].compute(dependent_jacobian);
    least_norm_solve(work.assembly.least_squares[s], error, work.assembly.least_squares_rotated[s],
                     work.assembly.least_squares_unpermuted[s],
                     work.assembly.least_squares_essential[s], dependent_step);
  }
  Eigen::VectorXd& step = work.assembly.newton_step[s];
  step.setZero();
  for (std::size_t j = 0; j < dependent.size(); ++j)
    step[dependent[j]] = -dependent_step[static_cast<Eigen::Index>(j)];
  work.assembly.error_norm[s] = error.norm();
  work.assembly.step_scale[s] = 1.0;
}

}  // namespace

namespace closed_chain_detail {

// Newton on the position-level closure equations over the dependent coordinates of every
// aggregate at once (constraint-embedding §7: the dependent coordinates follow from the
// independent ones): delta_u = -J_u^+ e per aggregate with J the exact Jacobian of its e with
// respect to q (coordinate_jacobian), q_u <- q_u + delta_u, each aggregate halving its own step
// while its own residual grows. An aggregate's closure depends only on its own dofs (the relative
// pose of its closure frames), so one tree pass (update_positions) per trial serves all
// aggregates: an iteration costs O(N), not O(N k). The dependent entries of q are those of the
// selection's dependent velocity columns.
// Newton closure of every aggregate (only_aggregate < 0) or of one (close_positions).
NewtonOutcome newton_closure(const ClosedChainModel& model, ClosedChainData& data,
                             Eigen::Ref<Eigen::VectorXd> q, int only_aggregate, int max_iterations,
                             bool select) {
  using Newton = AssemblyWorkspace::Newton;
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  const ClosedChainOptions& options = model.options();
  ClosedChainData::Workspaces& work = *data.work;
  check_vector(q, model.dof_count(), "q");
  if (!q.allFinite()) return {false, -1, 0.0, "the configuration q has non-finite entries", -1};
  const int aggregates = model.aggregate_count();
  update_positions(tree, q, data.tree);
  int active = 0;
  for (int s = 0; s < aggregates; ++s) {
    aggregate_constraints(model, data, s, q, Level::kVelocity);
    work.assembly.newton_steps[s] = 0;
    work.assembly.newton_state[s] = Newton::kClosed;
    if ((only_aggregate >= 0 && s != only_aggregate) ||
        aggregate_position_residual(data, s) <= options.position_tolerance)
      continue;
    work.assembly.newton_state[s] = Newton::kActive;
    ++active;
    if (select) newton_selection(model, data, s);
  }
  constexpr int kHalvings = 30;
  if (max_iterations < 0) max_iterations = options.max_newton_iterations;
  for (int iteration = 0; active > 0 && iteration < max_iterations; ++iteration) {
    work.assembly.saved_configuration = q;
    int pending = 0;
    for (int s = 0; s < aggregates; ++s) {
      work.assembly.step_accepted[s] = work.assembly.newton_state[s] != Newton::kActive;
      if (work.assembly.step_accepted[s]) continue;
      newton_step(model, data, s, q);
      ++pending;
    }
    // Trial steps of all pending aggregates, one tree pass per trial.
    for (int halving = 0; halving < kHalvings && pending > 0; ++halving) {
      for (int s = 0; s < aggregates; ++s) {
        if (work.assembly.step_accepted[s]) continue;
        const std::vector<int>& dofs = impl.dofs[s];
        for (std::size_t i = 0; i < dofs.size(); ++i)
          q[dofs[i]] = work.assembly.saved_configuration[dofs[i]] +
                       work.assembly.step_scale[s] *
                           work.assembly.newton_step[s][static_cast<Eigen::Index>(i)];
      }
      update_positions(tree, q, data.tree);
      for (int s = 0; s < aggregates; ++s) {
        if (work.assembly.step_accepted[s]) continue;
        aggregate_constraints(model, data, s, q, Level::kVelocity);
        const Eigen::VectorXd& error = work.constraints.position_error[s];
        if (error.allFinite() && error.norm() < work.assembly.error_norm[s]) {
          work.assembly.step_accepted[s] = 1;
          --pending;
        } else {
          work.assembly.step_scale[s] *= 0.5;
        }
      }
    }
    for (int s = 0; s < aggregates; ++s) {
      if (work.assembly.newton_state[s] != Newton::kActive) continue;
      if (!work.assembly
               .step_accepted[s]) {  // no descent left: roundoff floor or a closure out of reach
        for (const int d : impl.dofs[s]) q[d] = work.assembly.saved_configuration[d];
        work.assembly.newton_state[s] = Newton::kStalled;
        --active;
        continue;
      }
      ++work.assembly.newton_steps[s];
      if (aggregate_position_residual(data, s) <= options.position_tolerance) {
        work.assembly.newton_state[s] = Newton::kClosed;
        --active;
      }
    }
  }
  if (std::ranges::all_of(work.assembly.newton_state,
                          [](Newton n) { return n == Newton::kClosed; }))
    return {};
  // The residuals at the final q (stalled aggregates were put back); at the roundoff floor a
  // residual a little above a tight tolerance is closed. Report the worst aggregate.
  update_positions(tree, q, data.tree);
  int worst_aggregate = -1;
  double worst = std::max(options.position_tolerance, kClosureTolerance);
  for (int s = 0; s < aggregates; ++s) {
    if (work.assembly.newton_state[s] == Newton::kClosed) continue;
    aggregate_constraints(model, data, s, q, Level::kVelocity);
    const double residual = aggregate_position_residual(data, s);
    if (residual > worst) {
      worst = residual;
      worst_aggregate = s;
    }
  }
  if (worst_aggregate < 0) return {};
  const int s = worst_aggregate;
  const Eigen::VectorXd& error = work.constraints.position_error[s];
  Eigen::Index row = 0;
  if (error.size()) error.cwiseAbs().maxCoeff(&row);
  const int flipped = work.constraints.flipped_loop[s];
  const bool flip = flipped >= 0 && work.constraints.orientation_flip[s] >= worst;
  const std::string owner =
      flip ? loop_label(model.mechanism(), flipped) : row_owner(model, s, static_cast<int>(row));
  const int steps = work.assembly.newton_steps[s];
  std::string what;
  if (work.assembly.newton_state[s] == Newton::kActive)
    what = " after " + std::to_string(steps) + " Newton steps";
  else if (steps == 0)
    what = ", and no Newton step from the given values reduces it";
  else
    what =
        ", the least Newton reaches (" + std::to_string(steps) + " steps, then no step reduces it)";
  return {
      false, s, worst,
      owner + " cannot be closed from the given state: residual " + format_residual(worst) + what,
      flip ? flipped : row_loop(model, s, static_cast<int>(row))};
}

}  // namespace closed_chain_detail

// qd = X qd_R at the closed q, keeping the independent entries (constraint-embedding Lemma 5,
// Eq. 60).
void close_velocities(const ClosedChainModel& model, ClosedChainData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q, Eigen::Ref<Eigen::VectorXd> qd) {
  update_constraints(model, data, q, qd);
  Eigen::VectorXd& independent = data.work->dynamics.independent_forces;  // scratch
  independent.resize(static_cast<Eigen::Index>(data.independent.size()));
  for (std::size_t c = 0; c < data.independent.size(); ++c)
    independent[static_cast<Eigen::Index>(c)] = qd[data.independent[c]];
  apply_embedding(model, data, independent, data.work->zero_dofs, qd);
}

double position_residual(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q) {
  check_vector(q, model.dof_count(), "q");
  update_positions(model.tree(), q, data.tree);
  double residual = 0.0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    aggregate_constraints(model, data, s, q, Level::kPosition);
    residual = std::max(residual, aggregate_position_residual(data, s));
  }
  return residual;
}

double velocity_residual(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd) {
  const Impl& impl = closed_chain_impl(model);
  check_vector(q, model.dof_count(), "q");
  check_vector(qd, model.dof_count(), "qd");
  update_positions(model.tree(), q, data.tree);
  double residual = 0.0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    aggregate_constraints(model, data, s, q, Level::kVelocity);
    // max |Q_S qd_S| row by row, qd_S gathered from the tree dofs of aggregate s.
    const std::vector<int>& dofs = impl.dofs[s];
    const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
    for (Eigen::Index row = 0; row < constraint.rows(); ++row) {
      double rate = 0.0;
      for (std::size_t i = 0; i < dofs.size(); ++i)
        rate += constraint(row, static_cast<Eigen::Index>(i)) * qd[dofs[i]];
      // and the modal coordinates' share, Q_eta etadot (flexible links)
      const std::vector<int>& modal = impl.modal_dofs[static_cast<std::size_t>(s)];
      for (std::size_t j = 0; j < modal.size(); ++j)
        rate += data.work->constraints.modal_constraint[static_cast<std::size_t>(s)](
                    row, static_cast<Eigen::Index>(j)) *
                qd[modal[j]];
      residual = std::max(residual, std::abs(rate));
    }
  }
  return residual;
}

}  // namespace skograph

// Loop and coupling reaction forces of closed chains and the state of each aggregate's
// constraints (rigid/closed_chain_forces.hpp).
#include "skograph/rigid/closed_chain_forces.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "closed_chain/internal.hpp"

namespace skograph {

using closed_chain_detail::check_vector;
using closed_chain_detail::constraint_forces_at_update;
using closed_chain_detail::update_constraints;

// Q_S* lambda_S = (M qdd + C - tau)_S per aggregate (constraint-embedding Eq. 1 with the loop rows
// of Eq. 58 as forces), the right side by the tree's Newton-Euler recursion (part II Algorithm
// 3.1), lambda_S the least-norm solution; each loop's rows then carry its spatial force through
// their row selections (lambda = A f for the rows A of the relative twist, so f = A* lambda).
// Y1 = Q_S(:, dependent) has Q_S's rank, so the dependent equations Y1* lambda = right(dependent)
// imply the others when the motion closes the loops: lambda is their least-norm solution, by the
// factorization of Y1 the update left; where that leaves a misfit in the others, the complete
// orthogonal decomposition of Q_S* gives the least-squares one. Without allocation after the
// first call on a closed motion.
void constraint_forces(const ClosedChainModel& model, ClosedChainData& data,
                       const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& qd,
                       const Eigen::Ref<const Eigen::VectorXd>& qdd,
                       const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity,
                       ConstraintForces& forces) {
  const int n = model.dof_count();
  check_vector(qdd, n, "qdd");
  check_vector(tau, n, "tau");
  update_constraints(model, data, q, qd);  // Q at (q, qd), Y1 factorized; no embedded model
  constraint_forces_at_update(model, data, q, qd, qdd, tau, gravity, forces);
}

void closed_chain_detail::constraint_forces_at_update(
    const ClosedChainModel& model, ClosedChainData& data,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& qdd, const Eigen::Ref<const Eigen::VectorXd>& tau,
    const Eigen::Vector3d& gravity, ConstraintForces& forces) {
  constraint_forces_from_tree_force(
      model, data, inverse_dynamics(model.tree(), data.tree, q, qd, qdd, gravity), tau, forces);
}

void closed_chain_detail::constraint_forces_from_tree_force(
    const ClosedChainModel& model, ClosedChainData& data, const Eigen::VectorXd& tree_force,
    const Eigen::Ref<const Eigen::VectorXd>& tau, ConstraintForces& forces) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  const Mechanism& m = model.mechanism();

  forces.loop.assign(m.loops.size(), Eigen::Matrix<double, 6, 1>::Zero());
  forces.coupling.resize(m.couplings.size());
  forces.multipliers.resize(static_cast<std::size_t>(model.aggregate_count()));
  forces.residual = 0.0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[static_cast<std::size_t>(s)];
    const Eigen::MatrixXd& constraint = data.constraint_matrix[static_cast<std::size_t>(s)];
    const CoordinateSelection& selection = data.selection[static_cast<std::size_t>(s)];
    ForceWorkspace::ForceSolve& solve = data.work->forces.force_solve[static_cast<std::size_t>(s)];
    Eigen::VectorXd& right = solve.right;
    right.resize(static_cast<Eigen::Index>(dofs.size()));
    for (std::size_t i = 0; i < dofs.size(); ++i)
      right(static_cast<Eigen::Index>(i)) = tree_force(dofs[i]) - tau(dofs[i]);
    Eigen::VectorXd& lambda = forces.multipliers[static_cast<std::size_t>(s)];
    lambda.resize(constraint.rows());
    solve.dependent_right.resize(static_cast<Eigen::Index>(selection.dependent.size()));
    for (std::size_t i = 0; i < selection.dependent.size(); ++i)
      solve.dependent_right(static_cast<Eigen::Index>(i)) = right(selection.dependent[i]);
    DependentFactorization& y1 =
        data.work->selection.dependent_factorization[static_cast<std::size_t>(s)];
    const bool solved =
        constraint.rows() == 0 || (y1.columns() == static_cast<int>(selection.dependent.size()) &&
                                   y1.solve_transposed(solve.dependent_right, lambda));
    const double scale = 1.0 + (right.size() > 0 ? right.cwiseAbs().maxCoeff() : 0.0);
    auto misfit = [&](const Eigen::VectorXd& multipliers) {  // max |Q* lambda - right|, relative
      if (right.size() == 0) return 0.0;
      solve.check.noalias() = constraint.transpose() * multipliers;
      solve.check -= right;
      return solve.check.cwiseAbs().maxCoeff() / scale;
    };
    double residual = solved ? misfit(lambda) : 0.0;
    solve.all_equations = false;
    if (!solved || residual > 1e-9) {
      // The dependent equations do not carry the others (Y1 nearly rank deficient, a chosen or
      // preferred selection below Q's rank, or a motion that breaks the loops): the least-squares,
      // least-norm lambda of all of them, as before (allocates).
      Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> solver(constraint.transpose());
      solver.setThreshold(model.options().rank_tolerance);
      const Eigen::VectorXd fitted = solver.solve(right);
      const double fitted_residual = misfit(fitted);
      if (!solved || fitted_residual < residual) {
        lambda = fitted;
        residual = fitted_residual;
        solve.all_equations = true;
      }
    }
    forces.residual = std::max(forces.residual, residual);

    Eigen::Index row = 0;
    for (const int l : impl.loops[static_cast<std::size_t>(s)]) {
      const LoopRows& rows = impl.loop_rows[static_cast<std::size_t>(l)];
      const Eigen::Index angular = rows.angular.rows(), linear = rows.linear.rows();
      Eigen::Matrix<double, 6, 1>& force = forces.loop[static_cast<std::size_t>(l)];
      force.head<3>() = rows.angular.transpose() * lambda.segment(row, angular);
      force.tail<3>() = rows.linear.transpose() * lambda.segment(row + angular, linear);
      row += angular + linear;
    }
    for (const int c : impl.couplings[static_cast<std::size_t>(s)]) {
      const int count = model.tree().joint_dofs(m.couplings[static_cast<std::size_t>(c)].joint_a);
      forces.coupling[static_cast<std::size_t>(c)] = lambda.segment(row, count);
      row += count;
    }
  }
}

AggregateConstraintStatus aggregate_constraint_status(const ClosedChainModel& model,
                                                      const ClosedChainData& data, int s) {
  const std::vector<int>& dofs = closed_chain_impl(model).dofs[static_cast<std::size_t>(s)];
  const CoordinateSelection& selection = data.selection[static_cast<std::size_t>(s)];
  const Eigen::MatrixXd& constraint = data.constraint_matrix[static_cast<std::size_t>(s)];
  AggregateConstraintStatus status;
  status.rows = static_cast<int>(constraint.rows());
  status.rank = selection.rank;
  for (const int i : selection.dependent) status.dependent.push_back(dofs[static_cast<size_t>(i)]);
  for (const int i : selection.independent)
    status.independent.push_back(dofs[static_cast<size_t>(i)]);
  std::sort(status.dependent.begin(), status.dependent.end());
  std::sort(status.independent.begin(), status.independent.end());
  if (selection.dependent.empty()) return status;
  Eigen::MatrixXd dependent_columns(constraint.rows(),
                                    static_cast<Eigen::Index>(selection.dependent.size()));
  for (std::size_t j = 0; j < selection.dependent.size(); ++j)
    dependent_columns.col(static_cast<Eigen::Index>(j)) = constraint.col(selection.dependent[j]);
  const Eigen::VectorXd sigma =
      Eigen::JacobiSVD<Eigen::MatrixXd>(dependent_columns).singularValues();
  const double smallest = sigma(sigma.size() - 1);
  status.smallest_singular_value = smallest;
  status.condition_number =
      smallest > 0.0 ? sigma(0) / smallest : std::numeric_limits<double>::infinity();
  return status;
}

}  // namespace skograph

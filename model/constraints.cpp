// G, Gdot qd and the multiplier method in the file's dof order (model/constraints.hpp).
#include "skograph/model/constraints.hpp"

#include "state_internal.hpp"

namespace skograph {

namespace {

// G's columns from the model's dof order to the file's.
Eigen::SparseMatrix<double> sparse_file_columns(const DofOrder& order,
                                                const Eigen::SparseMatrix<double>& jacobian) {
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(jacobian.nonZeros()));
  for (int column = 0; column < jacobian.outerSize(); ++column)
    for (Eigen::SparseMatrix<double>::InnerIterator it(jacobian, column); it; ++it)
      entries.emplace_back(it.row(), order.file_dof(column), it.value());
  Eigen::SparseMatrix<double> result(jacobian.rows(), jacobian.cols());
  result.setFromTriplets(entries.begin(), entries.end());
  return result;
}

std::vector<std::string> labels_of(const std::vector<ConstraintRow>& rows) {
  std::vector<std::string> labels;
  labels.reserve(rows.size());
  for (const ConstraintRow& row : rows) labels.push_back(row.label);
  return labels;
}

}  // namespace

ConstraintSystem constraint_system(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, bool independent_rows_only) {
  const ModelData::State& state = model_detail::prepare_state(model, data, q, qd);
  ConstraintSystem system;
  system.jacobian.resize(0, model.dof_count());
  if (!model.is_closed_chain()) return system;
  ConstraintJacobian constraints;
  constraint_jacobian(*model.closed_chain(), *data.closed_chain(), state.q, state.qd, constraints,
                      independent_rows_only);
  system.jacobian = sparse_file_columns(model.dof_order(), constraints.jacobian);
  system.bias = constraints.bias;
  system.labels = labels_of(constraints.rows);
  system.stacked_rows = constraints.stacked_rows;
  return system;
}

const char* solver_name(ClosedChainSolver solver) {
  return solver == ClosedChainSolver::kEmbedding ? "embedding" : "multipliers";
}

std::optional<ClosedChainSolver> parse_solver(std::string_view name) {
  if (name == "embedding") return ClosedChainSolver::kEmbedding;
  if (name == "multipliers") return ClosedChainSolver::kMultipliers;
  return std::nullopt;
}

ClosedDynamics forward_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                const Eigen::Vector3d& gravity, ClosedChainSolver solver) {
  ClosedDynamics result;
  if (!model.is_closed_chain() || solver == ClosedChainSolver::kEmbedding) {
    result.acceleration = forward_dynamics(model, data, q, qd, tau, gravity);
    return result;
  }
  model_detail::check_input(model, tau, "tau");
  const ModelData::State& state = model_detail::prepare_state(model, data, q, qd);
  MultiplierWorkspace& work = data.multiplier_workspace(model);
  result.acceleration = model.dof_order().vector(
      forward_dynamics_by_multipliers(*model.closed_chain(), *data.closed_chain(), work, state.q,
                                      state.qd, model.dof_order().model_vector(tau), gravity));
  result.multipliers = work.multipliers;
  result.labels = labels_of(work.constraints.rows);
  return result;
}

}  // namespace skograph

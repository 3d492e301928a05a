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

// Dof names of model-order dofs, in the file's order.
std::vector<std::string> file_names(const DofOrder& order, const std::vector<int>& dofs) {
  std::vector<std::string> names;
  for (const int a : order.file_sorted(dofs))
    names.push_back(
        order.names()[static_cast<std::size_t>(order.file_dof(dofs[static_cast<std::size_t>(a)]))]);
  return names;
}

}  // namespace

ConstraintSystem constraint_system(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, bool independent_rows_only) {
  const ModelData::State& state = model_detail::prepare_state(model, data, q, qd);
  ConstraintSystem system;
  system.jacobian.resize(0, model.dof_count());
  if (!model.is_closed_chain()) return system;
  model_detail::require_rigid_loops(model, "constraint Jacobians");
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
  model_detail::require_rigid_loops(model, "the dynamics by multipliers");
  const ModelData::State& state = model_detail::prepare_state(model, data, q, qd);
  MultiplierWorkspace& work = data.multiplier_workspace(model);
  result.acceleration = model.dof_order().vector(
      forward_dynamics_by_multipliers(*model.closed_chain(), *data.closed_chain(), work, state.q,
                                      state.qd, model.dof_order().model_vector(tau), gravity));
  result.multipliers = work.multipliers;
  result.labels = labels_of(work.constraints.rows);
  return result;
}

std::vector<AggregateStatus> aggregate_status(const Model& model, ModelData& data,
                                              const Eigen::VectorXd& q) {
  model_detail::prepare_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
  std::vector<AggregateStatus> result;
  if (!model.is_closed_chain()) return result;
  const ClosedChainModel& closed = *model.closed_chain();
  const Mechanism& mechanism = closed.mechanism();
  for (int s = 0; s < closed.aggregate_count(); ++s) {
    const AggregateConstraintStatus status =
        aggregate_constraint_status(closed, *data.closed_chain(), s);
    AggregateStatus entry;
    for (const int l : closed.aggregate_loops(s))
      entry.loops.push_back(mechanism.loops[static_cast<std::size_t>(l)].name);
    for (const int c : closed.aggregate_couplings(s))
      entry.couplings.push_back(mechanism.couplings[static_cast<std::size_t>(c)].name);
    entry.rows = status.rows;
    entry.rank = status.rank;
    entry.dependent = file_names(model.dof_order(), status.dependent);
    entry.independent = file_names(model.dof_order(), status.independent);
    entry.condition_number = status.condition_number;
    result.push_back(std::move(entry));
  }
  return result;
}

Eigen::VectorXd consistent_accelerations(const Model& model, ModelData& data,
                                         const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                         const Eigen::VectorXd& qdd) {
  model_detail::check_input(model, qdd, "qdd");
  model_detail::prepare_state(model, data, q, qd);
  if (!model.is_closed_chain()) return qdd;
  const DofOrder& order = model.dof_order();
  return order.vector(consistent_accelerations(*model.closed_chain(), *data.closed_chain(),
                                               order.model_vector(qdd)));
}

}  // namespace skograph

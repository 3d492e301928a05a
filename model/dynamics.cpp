// The dynamics of a model in the file's dof order (model/dynamics.hpp): each call prepares its
// state (state_internal.hpp), calls the tree's or the closed chain's recursion and returns the
// result in the file's order.
#include "skograph/model/dynamics.hpp"

#include <string>
#include <vector>

#include "state_internal.hpp"

namespace skograph {

using model_detail::check_input;
using model_detail::check_size;
using model_detail::prepare_input;
using model_detail::prepare_state;

void forward_dynamics(const Model& model, ModelData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd,
                      const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity,
                      Eigen::Ref<Eigen::VectorXd> qdd) {
  check_size(model, qdd, "qdd");
  prepare_input(model, data, tau, "tau");
  prepare_state(model, data, q, qd);
  const ModelData::State& state = data.state;
  model.dof_order().to_file(
      model.is_closed_chain()
          ? forward_dynamics(*model.closed_chain(), *data.closed_chain(), state.q, state.qd,
                             state.input, gravity)
          : forward_dynamics(model.tree(), data.tree(), state.q, state.qd, state.input, gravity),
      qdd);
}

void inverse_dynamics(const Model& model, ModelData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd,
                      const Eigen::Ref<const Eigen::VectorXd>& qdd, const Eigen::Vector3d& gravity,
                      Eigen::Ref<Eigen::VectorXd> tau) {
  check_size(model, tau, "tau");
  prepare_input(model, data, qdd, "qdd");
  prepare_state(model, data, q, qd);
  const ModelData::State& state = data.state;
  model.dof_order().to_file(
      model.is_closed_chain()
          ? actuator_forces(*model.closed_chain(), *data.closed_chain(), state.q, state.qd,
                            state.input, gravity)
          : inverse_dynamics(model.tree(), data.tree(), state.q, state.qd, state.input, gravity),
      tau);
}

// The value-returning calls: the ones above into a new vector or matrix.
Eigen::VectorXd forward_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                 const Eigen::Vector3d& gravity) {
  Eigen::VectorXd qdd(model.dof_count());
  forward_dynamics(model, data, q, qd, tau, gravity, qdd);
  return qdd;
}

Eigen::VectorXd inverse_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                                 const Eigen::Vector3d& gravity) {
  Eigen::VectorXd tau(model.dof_count());
  inverse_dynamics(model, data, q, qd, qdd, gravity, tau);
  return tau;
}

void mass_matrix(const Model& model, ModelData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
                 Eigen::Ref<Eigen::MatrixXd> mass) {
  check_input(model, q, "q");
  if (mass.rows() != model.dof_count() || mass.cols() != model.dof_count())
    throw std::invalid_argument("mass has the wrong size: the model has " +
                                std::to_string(model.dof_count()) + " dofs");
  ModelData::State& state = data.state;
  state.zero_rates.setZero(q.size());
  prepare_state(model, data, q, state.zero_rates);
  model.dof_order().symmetric_to_file(mass_matrix(model.tree(), data.tree(), state.q), mass);
}

Eigen::MatrixXd mass_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  Eigen::MatrixXd mass(model.dof_count(), model.dof_count());
  mass_matrix(model, data, q, mass);
  return mass;
}

Eigen::VectorXd bias_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& qd, const Eigen::Vector3d& gravity) {
  const ModelData::State& state = prepare_state(model, data, q, qd);
  return model.dof_order().vector(
      bias_forces(model.tree(), data.tree(), state.q, state.qd, gravity));
}

Eigen::MatrixXd embedding_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  prepare_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
  if (!model.is_closed_chain()) return Eigen::MatrixXd::Identity(q.size(), q.size());
  const ClosedChainData& closed = *data.closed_chain();
  const DofOrder& order = model.dof_order();
  const std::vector<int> columns = order.file_sorted(closed.independent);
  Eigen::MatrixXd X(closed.X.rows(), closed.X.cols());
  for (size_t a = 0; a < columns.size(); ++a)
    X.col(static_cast<Eigen::Index>(a)) = closed.X.col(columns[a]);
  return order.rows(X);
}

Eigen::MatrixXd reduced_mass_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  const ModelData::State& state = prepare_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
  if (!model.is_closed_chain())
    return model.dof_order().symmetric(mass_matrix(model.tree(), data.tree(), state.q));
  const Eigen::MatrixXd& reduced =
      reduced_mass_matrix(*model.closed_chain(), *data.closed_chain(), state.q);
  const std::vector<int> order = model.dof_order().file_sorted(data.closed_chain()->independent);
  Eigen::MatrixXd shown(reduced.rows(), reduced.cols());
  for (size_t a = 0; a < order.size(); ++a)
    for (size_t b = 0; b < order.size(); ++b)
      shown(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) =
          reduced(order[a], order[b]);
  return shown;
}

ModelSko model_sko(const Model& model, ModelData& data, const Eigen::VectorXd& q, bool embedded) {
  const ModelData::State& state = prepare_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
  const DofOrder& order = model.dof_order();
  ModelSko result;
  if (embedded && model.is_closed_chain()) {
    model_detail::require_rigid_loops(model, "embedded SKO models");
    ClosedChainData& closed = *data.closed_chain();
    update_closed_chain(*model.closed_chain(), closed, state.q, state.qd);
    result.sko = closed.embedded.get();
    // Rows in the order of the independent dofs as the file lists them.
    const std::vector<int> shown = order.file_sorted(closed.independent);
    std::vector<int> rank(shown.size());
    for (std::size_t a = 0; a < shown.size(); ++a)
      rank[static_cast<std::size_t>(shown[a])] = static_cast<int>(a);
    for (const int e : closed.embedded_to_independent)
      result.hinge_rows.push_back(rank[static_cast<std::size_t>(e)]);
    result.row_names = data.independent;
    return result;
  }
  RigidBodyData& tree_data = data.tree();
  update_positions(model.tree(), state.q, tree_data);
  synchronize_sko_model(model.tree(), tree_data);
  result.sko = &tree_data.sko;
  result.row_names = model.dof_names();
  if (!order.identity()) {
    for (int i = 0; i < model.dof_count(); ++i) result.hinge_rows.push_back(order.file_dof(i));
    // Node k's scalar rows (6, or 6 + modes for a flexible link) go to its joint's place in the
    // file, after the rows of the nodes of the file's earlier joints.
    const BlockLayout& nodes = tree_data.sko.structure().node;
    const int count = model.tree().node_count();
    std::vector<int> first_row(static_cast<std::size_t>(count) + 1, 0);
    for (int k = 0; k < count; ++k)
      first_row[static_cast<std::size_t>(order.file_joint(k)) + 1] = nodes.dim(k);
    for (int f = 0; f < count; ++f)
      first_row[static_cast<std::size_t>(f) + 1] += first_row[static_cast<std::size_t>(f)];
    for (int k = 0; k < count; ++k)
      for (int r = 0; r < nodes.dim(k); ++r)
        result.node_rows.push_back(first_row[static_cast<std::size_t>(order.file_joint(k))] + r);
  }
  return result;
}

ConstraintForces constraint_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                   const Eigen::Vector3d& gravity) {
  check_input(model, tau, "tau");
  const ModelData::State& state = prepare_state(model, data, q, qd);
  ConstraintForces forces;
  if (!model.is_closed_chain()) return forces;
  const Eigen::VectorXd force = model.dof_order().model_vector(tau);
  ClosedChainData& closed = *data.closed_chain();
  const Eigen::VectorXd qdd =
      forward_dynamics(*model.closed_chain(), closed, state.q, state.qd, force, gravity);
  constraint_forces(*model.closed_chain(), closed, state.q, state.qd, qdd, force, gravity, forces);
  return forces;
}

}  // namespace skograph

// Derivatives of a model's dynamics in the file's dof order (model/derivatives.hpp): the state
// prepared as every call prepares it (state_internal.hpp), the tree's derivatives
// (rigid/derivatives.hpp) taken in the model's order and their rows and columns put in the file's.
#include "skograph/model/derivatives.hpp"

#include <cmath>
#include <string>

#include "skograph/graph/error.hpp"
#include "skograph/rigid/tangent.hpp"
#include "state_internal.hpp"

namespace skograph {

using model_detail::check_input;
using model_detail::prepare_input;
using model_detail::prepare_state;

namespace {

// A dofs x dofs matrix of the model's order into `file` (sized here on first use) in the file's.
void square_to_file(const Model& model, const Eigen::MatrixXd& model_order, Eigen::MatrixXd& file) {
  file.resize(model_order.rows(), model_order.cols());
  model.dof_order().symmetric_to_file(model_order, file);  // rows and columns alike
}

// UsageError "FILE: the derivatives are not finite at this state" (an overflowing state): every
// caller, the CLI and Python alike, refuses it the same way.
template <typename... Results>
void require_finite(const Model& model, const Results&... results) {
  if (!(results.allFinite() && ...))
    throw UsageError(model.file() + ": the derivatives are not finite at this state");
}

// The independent dofs of a closed chain's last update in the file's order: `shown[a]` is the
// position in `independent` (model dofs) of the a-th, its name into `names`.
const std::vector<int>& independent_in_file_order(const Model& model,
                                                  const std::vector<int>& independent,
                                                  std::vector<std::string>& names,
                                                  std::vector<int>& shown) {
  const DofOrder& order = model.dof_order();
  order.file_sorted(independent, shown);  // into `shown`: no allocation after the first call
  names.resize(shown.size());
  for (std::size_t a = 0; a < shown.size(); ++a)
    names[a] = order.names()[static_cast<std::size_t>(
        order.file_dof(independent[static_cast<std::size_t>(shown[a])]))];
  return shown;
}

// X in the file's rows, its columns the independent dofs in the file's order (`shown`).
void embedding_to_file(const DofOrder& order, const Eigen::MatrixXd& X,
                       const std::vector<int>& shown, Eigen::MatrixXd& out) {
  out.resize(X.rows(), static_cast<Eigen::Index>(shown.size()));
  for (std::size_t b = 0; b < shown.size(); ++b)
    for (Eigen::Index k = 0; k < X.rows(); ++k)
      out(order.file_dof(static_cast<int>(k)), static_cast<Eigen::Index>(b)) = X(k, shown[b]);
}

// out(a, b) = in(row(a), column(b)): the independent coordinates' rows and columns.
template <typename Row, typename Column>
void gather(const Eigen::MatrixXd& in, Eigen::Index rows, Eigen::Index columns, Row row,
            Column column, Eigen::MatrixXd& out) {
  out.resize(rows, columns);
  for (Eigen::Index b = 0; b < columns; ++b)
    for (Eigen::Index a = 0; a < rows; ++a) out(a, b) = in(row(a), column(b));
}

// out(a, file_dof(k)) = in(row(a), k): rows chosen, the model's dof columns in the file's order.
template <typename Row>
void gather_file_columns(const DofOrder& order, const Eigen::MatrixXd& in, Eigen::Index rows,
                         Row row, Eigen::MatrixXd& out) {
  out.resize(rows, in.cols());
  for (Eigen::Index k = 0; k < in.cols(); ++k)
    for (Eigen::Index a = 0; a < rows; ++a)
      out(a, order.file_dof(static_cast<int>(k))) = in(row(a), k);
}

// Closed chains: the rigid layer's results in the independent coordinates (file-sorted) and the
// file's columns, at the state prepare_state left (model order, closed).
void closed_forward_derivatives(const Model& model, ModelData& data, const Eigen::Vector3d& gravity,
                                LoopForceDerivatives with_forces, ForwardDerivatives& result) {
  ModelData::State& state = data.state;
  ClosedChainForwardDerivatives& closed = state.closed_forward_derivatives;
  forward_dynamics_derivatives(*model.closed_chain(), *data.closed_chain(), state.q, state.qd,
                               state.input, gravity, closed, with_forces);
  const DofOrder& order = model.dof_order();
  const std::vector<int>& shown = independent_in_file_order(
      model, closed.independent, result.independent, state.independent_shown);
  const auto r = static_cast<Eigen::Index>(shown.size());
  const Eigen::Index n = model.dof_count();
  const auto independent_row = [&](Eigen::Index a) {
    return closed.independent[static_cast<std::size_t>(shown[static_cast<std::size_t>(a)])];
  };
  const auto independent_column = [&](Eigen::Index b) {
    return shown[static_cast<std::size_t>(b)];
  };
  result.qdd.resize(n);
  order.to_file(closed.qdd, result.qdd);
  gather(closed.dqdd_dq, r, r, independent_row, independent_column, result.dqdd_dq);
  gather(closed.dqdd_dqd, r, r, independent_row, independent_column, result.dqdd_dqd);
  gather_file_columns(order, closed.dqdd_dtau, r, independent_row, result.dqdd_dtau);
  embedding_to_file(order, data.closed_chain()->X, shown, result.embedding);
  const auto same_row = [](Eigen::Index i) { return i; };
  const auto forces = [&](const std::vector<Eigen::MatrixXd>& in, std::vector<Eigen::MatrixXd>& out,
                          bool by_tau) {
    out.resize(in.size());
    for (std::size_t k = 0; k < in.size(); ++k) {
      if (by_tau)
        gather_file_columns(order, in[k], in[k].rows(), same_row, out[k]);
      else
        gather(in[k], in[k].rows(), r, same_row, independent_column, out[k]);
    }
  };
  forces(closed.loop_by_q, result.loop_by_q, false);
  forces(closed.loop_by_qd, result.loop_by_qd, false);
  forces(closed.loop_by_tau, result.loop_by_tau, true);
  forces(closed.coupling_by_q, result.coupling_by_q, false);
  forces(closed.coupling_by_qd, result.coupling_by_qd, false);
  forces(closed.coupling_by_tau, result.coupling_by_tau, true);
  bool finite = result.qdd.allFinite() && result.dqdd_dq.allFinite() &&
                result.dqdd_dqd.allFinite() && result.dqdd_dtau.allFinite();
  for (const auto* list : {&result.loop_by_q, &result.loop_by_qd, &result.loop_by_tau,
                           &result.coupling_by_q, &result.coupling_by_qd, &result.coupling_by_tau})
    for (const Eigen::MatrixXd& m : *list) finite = finite && m.allFinite();
  if (!finite) throw UsageError(model.file() + ": the derivatives are not finite at this state");
}

void closed_inverse_derivatives(const Model& model, ModelData& data, const Eigen::Vector3d& gravity,
                                InverseDerivatives& result) {
  ModelData::State& state = data.state;
  // qdd_R: the independent entries of the given qdd at the rigid layer's own update.
  ClosedChainInverseDerivatives& closed = state.closed_inverse_derivatives;
  inverse_dynamics_derivatives(*model.closed_chain(), *data.closed_chain(), state.q, state.qd,
                               state.input, gravity, closed);
  const std::vector<int>& shown = independent_in_file_order(
      model, closed.independent, result.independent, state.independent_shown);
  const auto r = static_cast<Eigen::Index>(shown.size());
  const auto independent = [&](Eigen::Index a) { return shown[static_cast<std::size_t>(a)]; };
  result.tau.resize(model.dof_count());
  model.dof_order().to_file(closed.actuator_forces, result.tau);
  gather(closed.dtau_dq, r, r, independent, independent, result.dtau_dq);
  gather(closed.dtau_dqd, r, r, independent, independent, result.dtau_dqd);
  gather(closed.reduced_mass, r, r, independent, independent, result.mass);
  embedding_to_file(model.dof_order(), data.closed_chain()->X, shown, result.embedding);
  require_finite(model, result.tau, result.dtau_dq, result.dtau_dqd, result.mass);
}

}  // namespace

void forward_dynamics_derivatives(const Model& model, ModelData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity, ForwardDerivatives& result,
                                  LoopForceDerivatives forces) {
  prepare_input(model, data, tau, "tau");
  const ModelData::State& state = prepare_state(model, data, q, qd);
  if (model.is_closed_chain())
    return closed_forward_derivatives(model, data, gravity, forces, result);
  result.independent = data.independent;
  result.embedding.setIdentity(model.dof_count(), model.dof_count());
  ForwardDynamicsDerivatives& tree = data.state.forward_derivatives;
  forward_dynamics_derivatives(model.tree(), data.tree(), state.q, state.qd, state.input, gravity,
                               tree);
  result.qdd.resize(model.dof_count());
  model.dof_order().to_file(tree.qdd, result.qdd);
  square_to_file(model, tree.dqdd_dq, result.dqdd_dq);
  square_to_file(model, tree.dqdd_dqd, result.dqdd_dqd);
  square_to_file(model, tree.dqdd_dtau, result.dqdd_dtau);
  require_finite(model, tree.qdd, tree.dqdd_dq, tree.dqdd_dqd, tree.dqdd_dtau);
}

ForwardDerivatives forward_dynamics_derivatives(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                                const Eigen::VectorXd& tau,
                                                const Eigen::Vector3d& gravity) {
  ForwardDerivatives result;
  forward_dynamics_derivatives(model, data, q, qd, tau, gravity, result);
  return result;
}

void inverse_dynamics_derivatives(const Model& model, ModelData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                  const Eigen::Vector3d& gravity, InverseDerivatives& result) {
  prepare_input(model, data, qdd, "qdd");
  const ModelData::State& state = prepare_state(model, data, q, qd);
  if (model.is_closed_chain()) return closed_inverse_derivatives(model, data, gravity, result);
  result.independent = data.independent;
  result.embedding.setIdentity(model.dof_count(), model.dof_count());
  InverseDynamicsDerivatives& tree = data.state.inverse_derivatives;
  inverse_dynamics_derivatives(model.tree(), data.tree(), state.q, state.qd, state.input, gravity,
                               tree);
  result.tau.resize(model.dof_count());
  model.dof_order().to_file(tree.tau, result.tau);
  square_to_file(model, tree.dtau_dq, result.dtau_dq);
  square_to_file(model, tree.dtau_dqd, result.dtau_dqd);
  square_to_file(model, tree.mass, result.mass);
  require_finite(model, tree.tau, tree.dtau_dq, tree.dtau_dqd, tree.mass);
}

InverseDerivatives inverse_dynamics_derivatives(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                                const Eigen::VectorXd& qdd,
                                                const Eigen::Vector3d& gravity) {
  InverseDerivatives result;
  inverse_dynamics_derivatives(model, data, q, qd, qdd, gravity, result);
  return result;
}

Eigen::VectorXd integrate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          double dt) {
  check_input(model, q, "q");
  check_input(model, v, "v");
  if (!std::isfinite(dt)) throw std::invalid_argument("dt is not a finite number");
  const DofOrder& order = model.dof_order();
  return order.vector(integrate(model.tree(), order.model_vector(q), order.model_vector(v), dt));
}

Eigen::VectorXd difference(const Model& model, const Eigen::VectorXd& q0,
                           const Eigen::VectorXd& q1) {
  check_input(model, q0, "q0");
  check_input(model, q1, "q1");
  const DofOrder& order = model.dof_order();
  return order.vector(difference(model.tree(), order.model_vector(q0), order.model_vector(q1)));
}

}  // namespace skograph

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

void refuse_closed_chain(const Model& model) {
  if (model.is_closed_chain())
    throw UsageError(model.file() +
                     ": derivatives of closed chains (loops or couplings) are not available yet; "
                     "trees only");
}

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

}  // namespace

void forward_dynamics_derivatives(const Model& model, ModelData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity, ForwardDerivatives& result) {
  refuse_closed_chain(model);
  prepare_input(model, data, tau, "tau");
  const ModelData::State& state = prepare_state(model, data, q, qd);
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
  refuse_closed_chain(model);
  prepare_input(model, data, qdd, "qdd");
  const ModelData::State& state = prepare_state(model, data, q, qd);
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

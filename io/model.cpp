#include "skograph/io/model.hpp"

#include <utility>

#include "skograph/io/mechanism_file.hpp"
#include "skograph/rigid/fixed_body_fusion.hpp"
#include "skograph/rigid/tree_order.hpp"

namespace skograph {

namespace {

std::string joint_list(const Mechanism& mechanism, const std::vector<int>& joints) {
  std::string names;
  for (const int j : joints)
    names += (names.empty() ? "'" : ", '") + mechanism.joints[static_cast<size_t>(j)].name + "'";
  return names;
}

void check_size(const Model& model, const Eigen::VectorXd& v, const char* name) {
  if (v.size() != model.dof_count())
    throw std::invalid_argument(std::string(name) + " has " + std::to_string(v.size()) +
                                " entries, the model " + std::to_string(model.dof_count()) +
                                " dofs");
}

// (q, qd) in the model's order, closed for a closed chain; data.independent set.
ClosedState model_state(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd) {
  check_size(model, q, "q");
  check_size(model, qd, "qd");
  const DofOrder& order = model.dof_order();
  ClosedState state{order.model_vector(q), order.model_vector(qd)};
  if (!model.is_closed_chain()) {
    data.independent = model.dof_names();
    return state;
  }
  ClosedChainData& closed = *data.closed_chain();
  close_positions(*model.closed_chain(), closed, state.q);
  close_velocities(*model.closed_chain(), closed, state.q, state.qd);
  data.independent.clear();
  for (const int a : order.file_sorted(closed.independent))
    data.independent.push_back(order.names()[static_cast<size_t>(
        order.file_dof(closed.independent[static_cast<size_t>(a)]))]);
  return state;
}

}  // namespace

std::string naming_file(const std::string& file, const std::string& message) {
  return message.rfind(file, 0) == 0 ? message : file + ": " + message;
}

std::string massless_joints_message(const Mechanism& mechanism, const std::vector<int>& joints,
                                    bool strict) {
  if (joints.empty()) return "";
  if (strict)
    return "joint " + joint_list(mechanism, {joints.front()}) +
           " moves no mass (it and every link below it are massless), so the mass matrix is "
           "singular (--strict refuses massless moving subtrees)";
  const bool one = joints.size() == 1;
  return std::string(one ? "joint " : "joints ") + joint_list(mechanism, joints) +
         (one ? " moves" : " move") +
         " only massless links: the dynamics leave their accelerations at zero and they take no "
         "force";
}

Model load_model(const std::string& path, const ReadOptions& options) {
  Mechanism read = read_mechanism_file(path, options);
  if (!options.independent.empty()) {
    try {
      named_dofs(read, options.independent);
    } catch (const std::invalid_argument& e) {
      throw ModelError(naming_file(path, e.what()));
    }
    read.independent = options.independent;
  }
  const Mechanism fused = fuse_fixed_bodies(read);
  Mechanism ordered = depth_first_order(fused);
  Model model;
  model.file_ = path;
  model.order_ = DofOrder(fused, ordered);
  model.warnings_ = fused.warnings;
  const bool closed = !ordered.loops.empty() || !ordered.couplings.empty();
  std::vector<int> massless;
  try {
    if (closed) {
      model.closed_chain_ = std::make_shared<const ClosedChainModel>(std::move(ordered));
      model.tree_ =
          std::shared_ptr<const RigidBodyModel>(model.closed_chain_, &model.closed_chain_->tree());
      massless = model.closed_chain_->massless_moving_joints();
    } else {
      model.tree_ = std::make_shared<const RigidBodyModel>(std::move(ordered));
      massless = model.tree_->massless_moving_joints();
    }
  } catch (const std::invalid_argument& e) {
    throw ModelError(naming_file(path, e.what()));
  } catch (const ClosureError& e) {
    throw ModelError(naming_file(path, e.what()));
  }
  const std::string problem = massless_joints_message(model.mechanism(), massless, options.strict);
  if (!problem.empty() && options.strict) throw ModelError(naming_file(path, problem));
  if (!problem.empty()) model.warnings_.push_back(problem);
  return model;
}

ModelData::ModelData(const Model& model) {
  if (model.is_closed_chain())
    closed_chain_ = std::make_unique<ClosedChainData>(*model.closed_chain());
  else
    tree_ = std::make_unique<RigidBodyData>(model.tree());
}
ModelData::~ModelData() = default;
ModelData::ModelData(ModelData&&) noexcept = default;
ModelData& ModelData::operator=(ModelData&&) noexcept = default;
RigidBodyData& ModelData::tree() {
  return closed_chain_ ? closed_chain_->tree : *tree_;
}
ClosedChainData* ModelData::closed_chain() {
  return closed_chain_.get();
}

ClosedState close_state(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd) {
  const ClosedState state = model_state(model, data, q, qd);
  return {model.dof_order().vector(state.q), model.dof_order().vector(state.qd)};
}

Eigen::VectorXd forward_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                 const Eigen::Vector3d& gravity) {
  check_size(model, tau, "tau");
  const ClosedState state = model_state(model, data, q, qd);
  const Eigen::VectorXd force = model.dof_order().model_vector(tau);
  if (model.is_closed_chain())
    return model.dof_order().vector(forward_dynamics(*model.closed_chain(), *data.closed_chain(),
                                                     state.q, state.qd, force, gravity));
  return model.dof_order().vector(
      forward_dynamics(model.tree(), data.tree(), state.q, state.qd, force, gravity));
}

Eigen::VectorXd inverse_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                                 const Eigen::Vector3d& gravity) {
  check_size(model, qdd, "qdd");
  const ClosedState state = model_state(model, data, q, qd);
  const Eigen::VectorXd acceleration = model.dof_order().model_vector(qdd);
  if (!model.is_closed_chain())
    return model.dof_order().vector(
        inverse_dynamics(model.tree(), data.tree(), state.q, state.qd, acceleration, gravity));
  return model.dof_order().vector(actuator_forces(*model.closed_chain(), *data.closed_chain(),
                                                  state.q, state.qd, acceleration, gravity));
}

Eigen::MatrixXd mass_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  const ClosedState state = model_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
  return model.dof_order().symmetric(mass_matrix(model.tree(), data.tree(), state.q));
}

Eigen::VectorXd bias_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& qd, const Eigen::Vector3d& gravity) {
  const ClosedState state = model_state(model, data, q, qd);
  return model.dof_order().vector(
      bias_forces(model.tree(), data.tree(), state.q, state.qd, gravity));
}

Eigen::MatrixXd embedding_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  const ClosedState state = model_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
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
  const ClosedState state = model_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
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

ConstraintForces constraint_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                   const Eigen::Vector3d& gravity) {
  check_size(model, tau, "tau");
  const ClosedState state = model_state(model, data, q, qd);
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

#include "skograph/io/model.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <utility>

#include "model_internal.hpp"
#include "skograph/io/base_change.hpp"
#include "skograph/io/loop_file.hpp"
#include "skograph/io/mechanism_file.hpp"
#include "skograph/rigid/base_change.hpp"
#include "skograph/rigid/fixed_body_fusion.hpp"
#include "skograph/rigid/multiplier_dynamics.hpp"
#include "skograph/rigid/tree_order.hpp"

namespace skograph {

namespace io_detail {

void check_size(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& v, const char* name) {
  if (v.size() != model.dof_count())
    throw std::invalid_argument(std::string(name) + " has " + std::to_string(v.size()) +
                                " entries, the model " + std::to_string(model.dof_count()) +
                                " dofs");
}

void check_input(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& v, const char* name) {
  check_size(model, v, name);
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw std::invalid_argument(
          std::string(name) + " is not a finite number at dof '" +
          model.dof_names()[static_cast<std::size_t>(i)] + "' (" +
          (std::isnan(v[i]) ? "nan" : v[i] > 0 ? "inf" : "-inf") + ")");
}

}  // namespace io_detail

using io_detail::check_input;
using io_detail::check_size;

namespace {

std::string joint_list(const Mechanism& mechanism, const std::vector<int>& joints) {
  std::string names;
  for (const int j : joints)
    names += (names.empty() ? "'" : ", '") + mechanism.joints[static_cast<size_t>(j)].name + "'";
  return names;
}

// q (model order) of a closed chain assembled in place; data.moved set.
void assemble_in_model_order(const Model& model, ModelData& data, Eigen::VectorXd& q) {
  const DofOrder& order = model.dof_order();
  const AssemblyReport report = assemble(*model.closed_chain(), *data.closed_chain(), q);
  data.moved.clear();
  for (const int a : order.file_sorted(report.moved))
    data.moved.push_back(
        {order.names()[static_cast<size_t>(order.file_dof(report.moved[static_cast<size_t>(a)]))],
         report.displacement[static_cast<size_t>(a)]});
}

}  // namespace

// (q, qd) in the model's order, closed for a closed chain; data.independent set.
void io_detail::update_state(const Model& model, ModelData& data,
                             const Eigen::Ref<const Eigen::VectorXd>& q,
                             const Eigen::Ref<const Eigen::VectorXd>& qd) {
  check_input(model, q, "q");
  check_input(model, qd, "qd");
  const DofOrder& order = model.dof_order();
  ModelData::State& state = data.state;
  state.q.resize(q.size());
  state.qd.resize(qd.size());
  order.to_model(q, state.q);
  order.to_model(qd, state.qd);
  if (!model.is_closed_chain()) {
    if (data.independent.empty()) data.independent = model.dof_names();  // never changes
    return;
  }
  ClosedChainData& closed = *data.closed_chain();
  assemble_in_model_order(model, data, state.q);
  close_velocities(*model.closed_chain(), closed, state.q, state.qd);
  if (closed.independent == state.independent_dofs && !data.independent.empty()) return;
  state.independent_dofs = closed.independent;
  data.independent.clear();
  for (const int a : order.file_sorted(closed.independent))
    data.independent.push_back(order.names()[static_cast<size_t>(
        order.file_dof(closed.independent[static_cast<size_t>(a)]))]);
}

ClosedState io_detail::model_state(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd) {
  update_state(model, data, q, qd);
  return {data.state.q, data.state.qd};
}

std::string assembly_warning(const ModelData& data) {
  if (data.moved.empty()) return "";
  std::ostringstream text;
  text << std::setprecision(3) << "the independent coordinate"
       << (data.moved.size() > 1 ? "s" : "");
  for (std::size_t i = 0; i < data.moved.size(); ++i)
    text << (i ? ", '" : " '") << data.moved[i].dof << "' (by " << data.moved[i].by << ")";
  text << " had to move to close the loops: the given values leave no closed configuration";
  return text.str();
}

namespace {

std::string condition_text(double value) {
  if (!std::isfinite(value)) return "infinite (rank lost)";
  std::ostringstream text;
  text << std::setprecision(3) << value;
  return text.str();
}

std::string dof_list(const Model& model, const std::vector<int>& dofs) {
  const DofOrder& order = model.dof_order();
  std::string names;
  for (const int a : order.file_sorted(dofs))
    names += (names.empty() ? "'" : ", '") +
             order.names()[static_cast<std::size_t>(order.file_dof(dofs[static_cast<std::size_t>(a)]))] +
             "'";
  return names;
}

}  // namespace

StateMessages state_messages(const Model& model, const ModelData& data) {
  StateMessages messages;
  if (const std::string moved = assembly_warning(data); !moved.empty())
    messages.warnings.push_back(moved);
  if (!model.is_closed_chain() || data.closed_chain_view() == nullptr) return messages;
  std::ostringstream limit_text;  // the limit as given: 1000, 2.5e+04
  limit_text << model.build_options().conditioning_limit;
  const std::string limit =
      "the conditioning limit " + limit_text.str() + " (--conditioning-limit, conditioning_limit=)";
  for (const SelectionCondition& c :
       selection_conditions(*model.closed_chain(), *data.closed_chain_view())) {
    const std::string names = dof_list(model, c.independent);
    if (c.condition > 0.0 && c.chosen)
      messages.warnings.push_back(
          "the chosen independent coordinates " + names + " of " + c.label +
          " are ill-conditioned at this state: the constraints on the other coordinates have "
          "condition number " + condition_text(c.condition) + ", above " + limit +
          "; they are used as chosen, and forward dynamics refines its solution");
    else if (c.condition > 0.0)
      messages.notes.push_back(
          "no choice of independent coordinates of " + c.label +
          " keeps the constraints' condition number within " + limit + " at this state: " + names +
          " have " + condition_text(c.condition) + ", the best choice found " +
          condition_text(c.best) + "; forward dynamics refines its solution");
    if (!c.preferred_dependent.empty()) {
      const bool one = c.preferred_dependent.size() == 1;
      messages.notes.push_back(
          "the preferred independent coordinate" + std::string(one ? " " : "s ") +
          dof_list(model, c.preferred_dependent) + (one ? " is" : " are") +
          " dependent at this state: with the preferred ones kept, the other coordinates of " +
          c.label +
          (std::isfinite(c.preferred_condition)
               ? " carry the loops with condition number " + condition_text(c.preferred_condition) +
                     ", above " + limit
               : " cannot carry the loops (their constraints lose rank)"));
    }
  }
  return messages;
}

std::string naming_file(const std::string& file, const std::string& message) {
  return message.rfind(file, 0) == 0 ? message : file + ": " + message;
}

namespace {

// The problem with massless moving subtrees (`joints`, the top ones): under strict the error,
// otherwise the warning.
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

// An InputError of `source` from what a model constructor refused.
InputError refused(const std::string& source, const std::string& message) {
  return InputError(source, 0,
                    message.rfind(source, 0) == 0 ? message.substr(source.size() + 2) : message);
}

// What the model constructors refused, charged to the loop file that declared the loop the
// message names, else to `source`.
InputError refused(const Mechanism& mechanism, const std::string& source,
                   const std::string& message) {
  const Declaration declared = loop_declaration(mechanism, message);
  if (declared.file.empty()) return refused(source, message);
  return InputError(declared.file, declared.line,
                    message.rfind(source, 0) == 0 ? message.substr(source.size() + 2) : message);
}

}  // namespace

Mechanism load_mechanism(const std::string& path, const ReadOptions& options) {
  ReadOptions reading = options;
  if (!options.loops_file.empty()) {
    const std::vector<std::string> actuated = loop_file_actuated_joints(options.loops_file);
    reading.tree_joints.insert(reading.tree_joints.end(), actuated.begin(), actuated.end());
  }
  Mechanism read = read_mechanism_file(path, reading);
  if (!options.loops_file.empty()) apply_loop_file(options.loops_file, read);
  if (!options.independent.empty()) {
    try {
      named_dofs(read, options.independent);  // every name a moving joint or dof of the file
    } catch (const std::invalid_argument& e) {
      throw refused(path, e.what());
    }
    read.independent = options.independent;
  }
  if (!options.base.empty()) {
    try {
      read = change_base(read, options.base);
    } catch (const std::invalid_argument& e) {
      throw InputError(path, 0, "base body '" + options.base + "': " + e.what());
    }
  }
  return read;
}

BuildOptions build_options(const ReadOptions& options) {
  return {options.strict, options.conditioning_limit};
}

Model build_model(Mechanism mechanism, const std::string& source, const BuildOptions& options) {
  const bool strict = options.strict;
  if (!(options.conditioning_limit >= 1.0) || !std::isfinite(options.conditioning_limit))
    throw UsageError("the conditioning limit must be a finite number of at least 1");
  const Mechanism fused = fuse_fixed_bodies(mechanism);
  Mechanism ordered = depth_first_order(fused);
  Model model;
  model.file_ = source;
  model.options_ = options;
  model.source_ = std::make_shared<const Mechanism>(mechanism);
  model.order_ = DofOrder(fused, ordered);
  model.warnings_ = fused.warnings;
  model.notes_ = fused.notes;
  const bool closed = !ordered.loops.empty() || !ordered.couplings.empty();
  try {
    if (closed) {
      ClosedChainOptions closed_options;
      closed_options.reselect_conditioning = 1.0 / options.conditioning_limit;
      model.closed_chain_ =
          std::make_shared<const ClosedChainModel>(std::move(ordered), closed_options);
      model.tree_ =
          std::shared_ptr<const RigidBodyModel>(model.closed_chain_, &model.closed_chain_->tree());
      model.massless_ = model.closed_chain_->massless_moving_joints();
      model.notes_.insert(model.notes_.end(), model.closed_chain_->notes().begin(),
                          model.closed_chain_->notes().end());
    } else {
      if (!ordered.independent.empty()) {  // names checked by load_mechanism: they are joints
        std::string names;
        for (const std::string& name : ordered.independent)
          names += (names.empty() ? "'" : ", '") + name + "'";
        model.notes_.push_back("independent coordinates " + names +
                               " given, but the model has no loops or gear couplings: every "
                               "coordinate is independent");
      }
      model.tree_ = std::make_shared<const RigidBodyModel>(std::move(ordered));
      model.massless_ = model.tree_->massless_moving_joints();
    }
  } catch (const std::invalid_argument& e) {
    throw refused(mechanism, source, e.what());
  } catch (const Error& e) {  // a loop the embedding cannot take at the model's nominal state
    throw refused(mechanism, source, e.what());
  }
  const std::string problem = massless_joints_message(model.mechanism(), model.massless_, strict);
  if (!problem.empty() && strict) throw refused(source, problem);
  if (!problem.empty()) model.warnings_.push_back(problem);
  return model;
}

Declaration loop_declaration(const Mechanism& mechanism, const std::string& message) {
  for (const LoopClosure& loop : mechanism.loops)
    if (message.find("loop '" + loop.name + "'") != std::string::npos)
      return {loop.source_file, loop.source_file.empty() ? 0 : loop.source_line};
  return {};
}

Model load_model(const std::string& path, const ReadOptions& options) {
  if (!options.base.empty()) {  // the file's model first: states are read in its coordinates
    ReadOptions as_declared = options;
    as_declared.base.clear();
    return with_base(load_model(path, as_declared), options.base);
  }
  return build_model(load_mechanism(path, options), path, build_options(options));
}

void check_forces_move_mass(const Model& model, const Eigen::VectorXd& tau,
                            const std::string& what) {
  const RigidBodyModel& tree = model.tree();
  const Forest& forest = tree.forest();
  for (int k = 0; k < tree.node_count(); ++k) {
    const int dofs = tree.joint_dofs(k);
    if (dofs == 0 || tau.segment(tree.joint_dof_offset(k), dofs).isZero(0.0)) continue;
    // k moves no mass when it lies at or below one of the top massless joints.
    for (const int top : model.massless_joints())
      if (forest.is_ancestor_or_self(top, k))
        throw InputError(model.file(), 0,
                         "joint '" + tree.mechanism().joints[static_cast<size_t>(k)].name +
                             "' moves no mass (every link below it is massless), so the "
                             "generalized force " +
                             what + " gives it would accelerate nothing");
  }
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
MultiplierWorkspace& ModelData::multiplier_workspace(const Model& model) {
  if (!model.is_closed_chain())
    throw std::invalid_argument("the multiplier method needs a closed chain; a tree has no rows");
  if (!multipliers_) multipliers_ = std::make_unique<MultiplierWorkspace>(*model.closed_chain());
  return *multipliers_;
}

ClosedState close_state(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd) {
  const ClosedState state = io_detail::model_state(model, data, q, qd);
  return {model.dof_order().vector(state.q), model.dof_order().vector(state.qd)};
}

Eigen::VectorXd assemble_positions(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  check_input(model, q, "q");
  if (!model.is_closed_chain()) return q;
  Eigen::VectorXd closed = model.dof_order().model_vector(q);
  assemble_in_model_order(model, data, closed);
  return model.dof_order().vector(closed);
}

namespace {

// data.state at (q, qd), closed, and `input` (file order, checked as `name`) in data.state.input
// in the model's order: what the dynamics calls below start from.
void prepare_state(const Model& model, ModelData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
                   const Eigen::Ref<const Eigen::VectorXd>& qd,
                   const Eigen::Ref<const Eigen::VectorXd>& input, const char* name) {
  check_input(model, input, name);
  io_detail::update_state(model, data, q, qd);
  data.state.input.resize(input.size());
  model.dof_order().to_model(input, data.state.input);
}

}  // namespace

void forward_dynamics(const Model& model, ModelData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd,
                      const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity,
                      Eigen::Ref<Eigen::VectorXd> qdd) {
  check_size(model, qdd, "qdd");
  prepare_state(model, data, q, qd, tau, "tau");
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
  prepare_state(model, data, q, qd, qdd, "qdd");
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
  io_detail::update_state(model, data, q, state.zero_rates);
  model.dof_order().symmetric_to_file(mass_matrix(model.tree(), data.tree(), state.q), mass);
}

Eigen::MatrixXd mass_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  Eigen::MatrixXd mass(model.dof_count(), model.dof_count());
  mass_matrix(model, data, q, mass);
  return mass;
}

Eigen::VectorXd bias_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& qd, const Eigen::Vector3d& gravity) {
  const ClosedState state = io_detail::model_state(model, data, q, qd);
  return model.dof_order().vector(
      bias_forces(model.tree(), data.tree(), state.q, state.qd, gravity));
}

Eigen::MatrixXd embedding_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  const ClosedState state = io_detail::model_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
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
  const ClosedState state = io_detail::model_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
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
  const ClosedState state = io_detail::model_state(model, data, q, Eigen::VectorXd::Zero(q.size()));
  const DofOrder& order = model.dof_order();
  ModelSko result;
  if (embedded && model.is_closed_chain()) {
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
    for (int k = 0; k < model.tree().node_count(); ++k)
      for (int r = 0; r < 6; ++r) result.node_rows.push_back(6 * order.file_joint(k) + r);
  }
  return result;
}

ConstraintForces constraint_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                   const Eigen::Vector3d& gravity) {
  check_input(model, tau, "tau");
  const ClosedState state = io_detail::model_state(model, data, q, qd);
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

// States made ready for the calls on a model (model/state.hpp): the inputs checked and put in the
// model's dof order, closed chains assembled and their velocities projected, what the assembly did
// and what a user should know about it.
#include "skograph/model/state.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

#include "skograph/model/batch.hpp"
#include "state_internal.hpp"

namespace skograph {

namespace model_detail {

void check_size(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& v, const char* name) {
  if (v.size() != model.dof_count())
    throw std::invalid_argument(std::string(name) + " has " + std::to_string(v.size()) +
                                " entries, the model " + std::to_string(model.dof_count()) +
                                " dofs");
}

void require_rigid_links(const Model& model, const std::string& what) {
  if (model.tree().has_flexible_links())
    throw UsageError(model.file() + ": " + what +
                     " do not take flexible links yet (docs/flexible-bodies.md lists what does)");
}

void require_rigid_loops(const Model& model, const std::string& what) {
  if (model.is_closed_chain() && model.tree().has_flexible_links())
    throw UsageError(model.file() + ": " + what +
                     " of closed chains do not take flexible links yet (docs/flexible-bodies.md "
                     "lists what does)");
}

void check_input(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& v, const char* name) {
  check_size(model, v, name);
  if (all_finite(v.data(), v.size())) return;  // the common case; the loop names a bad entry
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw std::invalid_argument(std::string(name) + " is not a finite number at dof '" +
                                  model.dof_names()[static_cast<std::size_t>(i)] + "' (" +
                                  non_finite_word(v[i]) + ")");
}

}  // namespace model_detail

using model_detail::check_input;
using model_detail::check_size;

namespace {

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

const ModelData::State& model_detail::prepare_state(const Model& model, ModelData& data,
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
    return state;
  }
  ClosedChainData& closed = *data.closed_chain();
  assemble_in_model_order(model, data, state.q);
  close_velocities(*model.closed_chain(), closed, state.q, state.qd);
  if (closed.independent == state.independent_dofs && !data.independent.empty()) return state;
  state.independent_dofs = closed.independent;
  data.independent.clear();
  for (const int a : order.file_sorted(closed.independent))
    data.independent.push_back(order.names()[static_cast<size_t>(
        order.file_dof(closed.independent[static_cast<size_t>(a)]))]);
  return state;
}

void model_detail::prepare_input(const Model& model, ModelData& data,
                                 const Eigen::Ref<const Eigen::VectorXd>& input, const char* name) {
  check_input(model, input, name);
  data.state.input.resize(input.size());
  model.dof_order().to_model(input, data.state.input);
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
    names +=
        (names.empty() ? "'" : ", '") +
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
          "condition number " +
          condition_text(c.condition) + ", above " + limit +
          "; they are used as chosen, and forward dynamics refines its solution");
    else if (c.condition > 0.0)
      messages.notes.push_back("no choice of independent coordinates of " + c.label +
                               " keeps the constraints' condition number within " + limit +
                               " at this state: " + names + " have " + condition_text(c.condition) +
                               ", the best choice found " + condition_text(c.best) +
                               "; forward dynamics refines its solution");
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

void check_forces_move_mass(const Model& model, const Eigen::VectorXd& tau,
                            const std::string& what) {
  const RigidBodyModel& tree = model.tree();
  const Forest& forest = tree.forest();
  const Eigen::VectorXd in_model_order = model.dof_order().model_vector(tau);
  for (int k = 0; k < tree.node_count(); ++k) {
    const int dofs = tree.joint_dofs(k);
    if (dofs == 0 || in_model_order.segment(tree.joint_dof_offset(k), dofs).isZero(0.0)) continue;
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

ClosedState close_state(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd) {
  const ModelData::State& state = model_detail::prepare_state(model, data, q, qd);
  ClosedState closed{model.dof_order().vector(state.q), model.dof_order().vector(state.qd)};
  if (model.is_closed_chain())
    closed.residual = position_residual(*model.closed_chain(), *data.closed_chain(), state.q);
  return closed;
}

Eigen::VectorXd assemble_positions(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  check_input(model, q, "q");
  if (!model.is_closed_chain()) return q;
  Eigen::VectorXd closed = model.dof_order().model_vector(q);
  assemble_in_model_order(model, data, closed);
  return model.dof_order().vector(closed);
}

double closure_residual(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  if (!model.is_closed_chain()) return 0.0;
  model_detail::check_input(model, q, "q");
  return position_residual(*model.closed_chain(), *data.closed_chain(),
                           model.dof_order().model_vector(q));
}

}  // namespace skograph

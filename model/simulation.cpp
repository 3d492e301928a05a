// A model's motion from a state, in the file's dof order (model/simulation.hpp).
#include "skograph/model/simulation.hpp"

#include <optional>

#include "state_internal.hpp"

namespace skograph {

Simulation simulate(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& qd, SimulationOptions options,
                    const FileOrderCallback& callback) {
  const DofOrder& order = model.dof_order();
  if (options.tau.size() != 0) {
    model_detail::check_input(model, options.tau, "tau");
    options.tau = order.model_vector(options.tau);
  }
  Simulation run;
  // A closed chain's state is assembled first, as every call of the model does.
  run.start = close_state(model, data, q, qd);
  run.moved = data.moved;
  run.messages = state_messages(model, data);
  // The integrator runs in minimal coordinates; a tree is a closed chain without aggregates.
  const std::optional<ClosedChainModel> tree_model =
      model.is_closed_chain() ? std::nullopt : std::optional<ClosedChainModel>(model.mechanism());
  const ClosedChainModel& closed = model.is_closed_chain() ? *model.closed_chain() : *tree_model;
  ClosedChainData closed_data(closed);  // the integrator's own: `data` keeps the assembly
  Eigen::VectorXd model_q = order.model_vector(run.start.q);
  Eigen::VectorXd model_qd = order.model_vector(run.start.qd);
  Eigen::VectorXd shown_q, shown_qd;
  const auto in_file_order = [&](const SimulationSample& sample) {
    shown_q = order.vector(*sample.q);
    shown_qd = order.vector(*sample.qd);
    SimulationSample shown = sample;
    shown.q = &shown_q;
    shown.qd = &shown_qd;
    callback(shown);
  };
  run.summary = simulate(closed, closed_data, model_q, model_qd, options,
                         callback ? SimulationCallback(in_file_order) : SimulationCallback());
  run.q = order.vector(model_q);
  run.qd = order.vector(model_qd);
  for (const int a : order.file_sorted(closed_data.independent))
    run.independent.push_back(order.names()[static_cast<std::size_t>(
        order.file_dof(closed_data.independent[static_cast<std::size_t>(a)]))]);
  return run;
}

std::vector<std::string> constraint_force_names(const Model& model) {
  const Mechanism& mechanism = model.mechanism();
  std::vector<std::string> names;
  for (const LoopClosure& loop : mechanism.loops)
    for (const char* part : {"_mx", "_my", "_mz", "_fx", "_fy", "_fz"})
      names.push_back(loop.name + part);
  for (const Coupling& coupling : mechanism.couplings) {
    // One column per dof of the coupled joints: NAME_tau, or NAME:k_tau for several.
    const int count = model.tree().joint_dofs(coupling.joint_a);
    for (int k = 0; k < count; ++k)
      names.push_back(coupling.name + (count == 1 ? "" : ":" + std::to_string(k)) + "_tau");
  }
  return names;
}

}  // namespace skograph

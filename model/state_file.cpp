// read_model_state (model/state.hpp): a state file in a model's coordinates.
#include "skograph/io/state_reader.hpp"
#include "skograph/model/base_change.hpp"
#include "skograph/model/state.hpp"

namespace skograph {

MechanismState read_model_state(const std::string& path, const Model& model) {
  const Model& file = model.file_model() ? *model.file_model() : model;
  MechanismState state =
      path.empty() ? zero_state(file.mechanism()) : read_state_file(path, file.mechanism());
  if (!model.file_model()) return state;
  const DofOrder& from = file.dof_order();
  const ModelState converted = convert_state(file, model,
                                             {from.vector(state.q), from.vector(state.qd),
                                              from.vector(state.qdd), from.vector(state.tau)});
  const DofOrder& to = model.dof_order();
  state.q = to.model_vector(converted.q);
  state.qd = to.model_vector(converted.qd);
  state.qdd = to.model_vector(converted.qdd);
  state.tau = to.model_vector(converted.tau);
  return state;
}

}  // namespace skograph

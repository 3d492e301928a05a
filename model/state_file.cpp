// read_model_state and model_state_text (model/state.hpp): a state file in a model's
// coordinates and the file's dof order.
#include "skograph/io/state_reader.hpp"
#include "skograph/model/base_change.hpp"
#include "skograph/model/state.hpp"

namespace skograph {

ModelState read_model_state(const std::string& path, const Model& model) {
  const Model& file = model.file_model() ? *model.file_model() : model;
  const MechanismState read =
      path.empty() ? zero_state(file.mechanism()) : read_state_file(path, file.mechanism());
  const DofOrder& order = file.dof_order();
  ModelState state{order.vector(read.q),   order.vector(read.qd), order.vector(read.qdd),
                   order.vector(read.tau), read.gravity,          read.has_qdd};
  return model.file_model() ? convert_state(file, model, state) : state;
}

std::string model_state_text(const Model& model, const ModelState& state, bool with_qdd) {
  const Model& file = model.file_model() ? *model.file_model() : model;
  ModelState in_file = model.file_model() ? convert_state(model, file, state) : state;
  const DofOrder& order = file.dof_order();
  MechanismState written;
  written.gravity = in_file.gravity;
  written.has_qdd = in_file.has_qdd;
  written.q = order.model_vector(in_file.q);
  written.qd = order.model_vector(in_file.qd);
  written.qdd = in_file.qdd.size() > 0 ? order.model_vector(in_file.qdd)
                                       : Eigen::VectorXd::Zero(file.dof_count());
  written.tau = in_file.tau.size() > 0 ? order.model_vector(in_file.tau)
                                       : Eigen::VectorXd::Zero(file.dof_count());
  return state_text(file.mechanism(), written, with_qdd);
}

}  // namespace skograph

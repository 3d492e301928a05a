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
  // In the model's own order, as state_text writes; an empty qdd or tau as zeros.
  const auto model_order = [&](const Eigen::VectorXd& v) -> Eigen::VectorXd {
    return v.size() > 0 ? order.model_vector(v) : Eigen::VectorXd::Zero(file.dof_count());
  };
  written.q = model_order(in_file.q);
  written.qd = model_order(in_file.qd);
  written.qdd = model_order(in_file.qdd);
  written.tau = model_order(in_file.tau);
  return state_text(file.mechanism(), written, with_qdd);
}

}  // namespace skograph

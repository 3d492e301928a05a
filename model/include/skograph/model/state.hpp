// A state in the file's dof order, made ready for the calls on a model: closed chains assembled
// (their loops closed, the independent coordinates kept where the loops allow), qd projected onto
// the constraints; what the assembly did and what a user should know about it; state files read in
// the model's coordinates.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "skograph/io/state_reader.hpp"
#include "skograph/model/model_data.hpp"

namespace skograph {

// A state of a model in the file's dof order (the order of every call on the model): what a
// state file gives (io/state_reader.hpp), read and written by read_model_state and
// model_state_text. Empty qdd or tau where a caller has none.
struct ModelState {
  Eigen::VectorXd q, qd, qdd, tau;
  Eigen::Vector3d gravity = kStandardGravity;
  bool has_qdd = false;  // the file gave "qdd" (zero otherwise)
};

// Closed chains: the closed configuration of the assembly from q (rigid/closed_chain_model.hpp:
// assemble: q's independent coordinates kept when the loops close with them, otherwise the
// closed configuration nearest q, with data.moved saying which moved), then qd's independent
// entries kept and the dependent ones set (qd = X qd_R); returns the closed (q, qd). Every call
// below assembles this way. Trees: (q, qd) unchanged. ClosureError when no closed configuration
// is found; SingularConfigurationError when the one found is singular.
struct ClosedState {
  Eigen::VectorXd q, qd;
  double residual = 0.0;  // the largest closure error left at q (0 for trees)
};
ClosedState close_state(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd);
// The positions of close_state alone (no velocity projection, which a singular closed
// configuration refuses): q assembled, file order.
Eigen::VectorXd assemble_positions(const Model& model, ModelData& data, const Eigen::VectorXd& q);
// The largest closure error of the loops at q (file order) as it is, not assembled: 0 for trees.
double closure_residual(const Model& model, ModelData& data, const Eigen::VectorXd& q);
// One warning line for data.moved ("" when empty): "the independent coordinates 'a' (by 0.12)
// had to move to close the loops: the given ones leave none closed".
std::string assembly_warning(const ModelData& data);
// What a user should know about the closed state of data's last call, one line each (empty for
// trees): warnings where independent coordinates had to move (assembly_warning) and where the
// user's own choice is ill-conditioned there (it is used as chosen); notes where no choice keeps
// the constraints' condition number within the model's conditioning limit (with the best
// found) and where preferred coordinates (a loop file's motors) are left dependent, and why.
struct StateMessages {
  std::vector<std::string> warnings, notes;
};
StateMessages state_messages(const Model& model, const ModelData& data);

// A generalized force on a joint that moves no mass would accelerate nothing: InputError naming
// the joint and the source of the force (`what`, e.g. "the state STATE.json"). `tau` in the
// file's dof order.
void check_forces_move_mass(const Model& model, const Eigen::VectorXd& tau,
                            const std::string& what);

// A state file (io/state_reader.hpp) in the model's coordinates and the file's dof order: read
// against the joints of the file's model and converted when the model has another base body
// (Model::file_model(), model/base_change.hpp). An empty path gives the zero state (the file's,
// converted). InputError naming the state file, as read_state_file.
ModelState read_model_state(const std::string& path, const Model& model);
// The state file of `state` that read_model_state reads back: in the file's model's
// coordinates (converted back across a base change), every moving joint named, numbers that read
// back exactly. `with_qdd` adds "qdd".
std::string model_state_text(const Model& model, const ModelState& state, bool with_qdd = true);

}  // namespace skograph

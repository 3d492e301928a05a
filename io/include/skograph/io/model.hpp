// The one way in: every model of the library, the program and the Python module is loaded here.
//
//   load_mechanism(path, options)   reads URDF, YAML, MJCF or SDF (io/mechanism_file.hpp) and
//                                   applies the options (the independent coordinates): the file's
//                                   mechanism, every link a node, as `graph` and the pictures show
//                                   it;
//   build_model(mechanism, source)  fuses fixed bodies (massless flanges and sensor frames
//   disappear,
//                                   rigid/fixed_body_fusion.hpp), orders the joints depth first for
//                                   the recursions (rigid/tree_order.hpp), maps the file's dof
//                                   order (io/dof_order.hpp) and builds the tree model or, when the
//                                   mechanism has loops or gear couplings, the constraint-embedded
//                                   closed-chain model (rigid/closed_chain_model.hpp), with the
//                                   readers' and the model's warnings;
//   load_model(path, options)       both.
//
// The functions below take and give vectors in the file's dof order (dof_names()), the meaning
// `skograph dynamics --json` gives them (docs/command-line.md), so that a user never meets the
// internal order. Model is immutable and cheap to copy (shared); ModelData is the workspace of one
// thread. Errors: InputError naming the file (and line) for anything the file or the options get
// wrong, the model's refusals included (graph/error.hpp lists the others).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "skograph/graph/digraph.hpp"
#include "skograph/io/dof_order.hpp"
#include "skograph/io/read_options.hpp"
#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/mechanism.hpp"
#include "skograph/rigid/multiplier_dynamics.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

// What the model refuses is bad input: an InputError naming the file.
using ModelError [[deprecated("use InputError")]] = InputError;

inline const Eigen::Vector3d kStandardGravity(0.0, 0.0, -9.81);

// How build_model makes a model from a mechanism: the part of ReadOptions that is not about
// reading (load_model passes it on; with_base keeps it).
struct BuildOptions {
  // Refuse massless moving subtrees (otherwise a warning).
  bool strict = false;
  // Closed chains: ReadOptions::conditioning_limit.
  double conditioning_limit = kConditioningLimit;
};
BuildOptions build_options(const ReadOptions& options);

class Model {
 public:
  // The file it was read from (or the source named to build_model).
  const std::string& file() const { return file_; }
  bool is_closed_chain() const { return closed_chain_ != nullptr; }
  int dof_count() const { return tree_->dof_count(); }
  // Dof names in the file's order ("joint" for one dof, "joint:0".. for several).
  const std::vector<std::string>& dof_names() const { return order_.names(); }
  // What the reader and the model noticed but accepted (inconsistent inertias, massless joints).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // What the loading decided that a user should know but is no warning (a loop that fusion made
  // redundant, a preferred independent coordinate the loops leave no freedom): one line each.
  const std::vector<std::string>& notes() const { return notes_; }
  // The spanning-tree model (joints depth first) and, for closed chains, the embedded model.
  const RigidBodyModel& tree() const { return *tree_; }
  const ClosedChainModel* closed_chain() const { return closed_chain_.get(); }
  // The model's mechanism: fixed bodies fused, joints depth first (state files are read against
  // it: io/state_reader.hpp).
  const Mechanism& mechanism() const { return tree_->mechanism(); }
  const DofOrder& dof_order() const { return order_; }
  // The top joints of the massless moving subtrees (model joint indices): they move no mass.
  const std::vector<int>& massless_joints() const { return massless_; }
  // The mechanism build_model was given (every link a node, fixed bodies not yet fused).
  const Mechanism& source_mechanism() const { return *source_; }
  // The model as the file declares it when this one has another base body
  // (io/base_change.hpp: with_base): state files and the dof names of the file are that model's.
  // Null otherwise.
  const Model* file_model() const { return file_model_.get(); }
  // The base body with_base gave the model ("" when none), and the joints it reversed.
  const std::string& base() const { return base_; }
  const std::vector<std::string>& reversed_joints() const { return reversed_; }
  // What build_model was given (with_base builds with the same).
  const BuildOptions& build_options() const { return options_; }

 private:
  friend Model build_model(Mechanism mechanism, const std::string& source,
                           const BuildOptions& options);
  friend Model with_base(const Model& model, const std::string& link);
  std::string file_;
  DofOrder order_;
  std::vector<std::string> warnings_, notes_;
  std::vector<int> massless_;
  std::shared_ptr<const RigidBodyModel> tree_;
  std::shared_ptr<const ClosedChainModel> closed_chain_;
  std::shared_ptr<const Mechanism> source_;
  std::shared_ptr<const Model> file_model_;
  std::string base_;
  std::vector<std::string> reversed_;
  BuildOptions options_;
};

// The file's mechanism with the options applied (the independent coordinates checked against it
// and set): InputError naming the file (and line).
Mechanism load_mechanism(const std::string& path, const ReadOptions& options = {});
// The ready model of a mechanism read from `source` (a file name, or a name for messages):
// InputError naming the source for what the model refuses; options.strict refuses massless moving
// subtrees, which are otherwise a warning.
Model build_model(Mechanism mechanism, const std::string& source,
                  const BuildOptions& options = {});
// load_mechanism, then build_model: the ready model of any supported file.
Model load_model(const std::string& path, const ReadOptions& options = {});

// Where the loop a message names ("loop 'NAME' ...") was declared when that is not the model
// file (a loop file given with --loops): {file, line}; {"", 0} otherwise. Errors about such a
// loop name the file that declared it, as bad input does.
struct Declaration {
  std::string file;
  int line = 0;
};
Declaration loop_declaration(const Mechanism& mechanism, const std::string& message);

// A generalized force on a joint that moves no mass would accelerate nothing: InputError naming
// the joint and the source of the force (`what`, e.g. "the state STATE.json"). `tau` in the
// model's dof order.
void check_forces_move_mass(const Model& model, const Eigen::VectorXd& tau,
                            const std::string& what);

// The workspace of the functions below (one per thread).
class ModelData {
 public:
  explicit ModelData(const Model& model);
  ~ModelData();
  ModelData(ModelData&&) noexcept;
  ModelData& operator=(ModelData&&) noexcept;
  RigidBodyData& tree();            // the tree's (for a closed chain: of its spanning tree)
  ClosedChainData* closed_chain();  // null for trees
  const ClosedChainData* closed_chain_view() const { return closed_chain_.get(); }
  // Closed chains: the workspace of the multiplier method (rigid/multiplier_dynamics.hpp), made
  // on first use.
  MultiplierWorkspace& multiplier_workspace(const Model& model);
  // Independent dof names (file order) of the last closed-chain call; every dof for a tree.
  std::vector<std::string> independent;
  // Closed chains: the independent coordinates the last call had to move to close the loops
  // (rigid/closed_chain_model.hpp: assemble), file order, with how far; empty when the state's
  // were kept. assembly_warning() words it.
  struct Moved {
    std::string dof;
    double by = 0.0;
  };
  std::vector<Moved> moved;
  // The workspace of the calls below (the state in the model's order, closed; an input in the
  // model's order; zero rates for the mass matrix), kept between calls so that the calls with an
  // output argument allocate nothing once they have seen a state. Not an input of those calls:
  // they overwrite it first.
  struct State {
    Eigen::VectorXd q, qd, input, zero_rates;
    Eigen::MatrixXd matrix;
    std::vector<int> independent_dofs;  // the model dofs data.independent names
  } state;

 private:
  std::unique_ptr<RigidBodyData> tree_;
  std::unique_ptr<ClosedChainData> closed_chain_;
  std::unique_ptr<MultiplierWorkspace> multipliers_;
};

// Closed chains: the closed configuration of the assembly from q (rigid/closed_chain_model.hpp:
// assemble: q's independent coordinates kept when the loops close with them, otherwise the
// closed configuration nearest q, with data.moved saying which moved), then qd's independent
// entries kept and the dependent ones set (qd = X qd_R); returns the closed (q, qd). Every call
// below assembles this way. Trees: (q, qd) unchanged. ClosureError when no closed configuration
// is found; SingularConfigurationError when the one found is singular.
struct ClosedState {
  Eigen::VectorXd q, qd;
};
ClosedState close_state(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd);
// The positions of close_state alone (no velocity projection, which a singular closed
// configuration refuses): q assembled, file order.
Eigen::VectorXd assemble_positions(const Model& model, ModelData& data, const Eigen::VectorXd& q);
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

// All in the file's dof order. Closed chains at the closed state (close_state):
// forward_dynamics: qdd for tau acting on every joint (X* tau in the minimal coordinates);
// inverse_dynamics: the actuator forces for qdd's independent entries (qdd_R): nonzero only at
// the independent dofs, X* tau = T_R (rigid/closed_chain_model.hpp: actuator_forces), so that
// forward_dynamics of that tau gives back qdd_R; mass_matrix and bias_forces: the spanning tree's
// M(q) and C(q, qd) (gravity included), as `skograph dynamics --json` reports them.
Eigen::VectorXd forward_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                 const Eigen::Vector3d& gravity = kStandardGravity);
Eigen::VectorXd inverse_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                                 const Eigen::Vector3d& gravity = kStandardGravity);
Eigen::MatrixXd mass_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q);
// The same into `qdd`, `tau` (dofs) and `mass` (dofs x dofs): no allocation once `data` has
// seen a state, for closed chains at closed states (one that must be assembled runs the closure
// search); the Python module's batch rows; tests/io/model_allocation_test.cpp. The inputs must
// not be data.state's vectors.
void forward_dynamics(const Model& model, ModelData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd,
                      const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity,
                      Eigen::Ref<Eigen::VectorXd> qdd);
void inverse_dynamics(const Model& model, ModelData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd,
                      const Eigen::Ref<const Eigen::VectorXd>& qdd, const Eigen::Vector3d& gravity,
                      Eigen::Ref<Eigen::VectorXd> tau);
void mass_matrix(const Model& model, ModelData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
                 Eigen::Ref<Eigen::MatrixXd> mass);
Eigen::VectorXd bias_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& qd,
                            const Eigen::Vector3d& gravity = kStandardGravity);
// Closed chains: X (dofs in file order x independent dofs in file order) and M_R = X* M X at the
// closed q, with the independent names in data.independent.
Eigen::MatrixXd embedding_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q);
Eigen::MatrixXd reduced_mass_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q);

// The SKO model behind the sparse matrices of `model` at q (file order; closed first), in `data`
// (valid until its next use), and where its entries go in the file's order (for
// sparse/sparse_export.hpp): the tree's model (its M), or for a closed chain with `embedded` the
// constraint-embedded model (its M is M_R = X* M X, hinge entries in the order of the independent
// dofs as the file lists them, nodes the aggregated forest's); without `embedded` a closed
// chain's spanning tree. `skograph export` and the Python module both take their matrices here.
struct ModelSko {
  const SkoModel* sko = nullptr;
  std::vector<int> hinge_rows;         // hinge entry -> row (empty: the model's own order)
  std::vector<int> node_rows;          // scalar node row (6 per node) -> row (empty: own order)
  std::vector<std::string> row_names;  // the dof names of M's rows, in row order
};
ModelSko model_sko(const Model& model, ModelData& data, const Eigen::VectorXd& q, bool embedded);

// Closed chains: what goes through the loops and couplings while the chain moves under tau
// (forward_dynamics above; rigid/closed_chain_forces.hpp): per loop of mechanism().loops the
// spatial force [moment; force] on its child link from its parent, about the joint, in F_p
// coordinates; per coupling the force on its first joint (per dof; the second joint gets -ratio
// times it); `skograph dynamics --json`'s "loop_forces" and "coupling_forces". Trees: empty.
ConstraintForces constraint_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                   const Eigen::Vector3d& gravity = kStandardGravity);

// "FILE: " + message, unless the message already starts with the file name (the one-line errors
// of the loading path and the program).
std::string naming_file(const std::string& file, const std::string& message);

}  // namespace skograph

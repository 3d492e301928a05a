// The one way in: every model of the library, the program and the Python module is loaded here.
//
//   load_mechanism(path, options)   reads URDF, YAML, MJCF or SDF (io/mechanism_file.hpp) and
//                                   applies the options (a loop file, the independent
//                                   coordinates, the base body): the file's mechanism, every link
//                                   a node, as `graph` and the pictures show it;
//   build_model(mechanism, source)  fuses fixed bodies (massless flanges and sensor frames
//                                   disappear: rigid/fixed_body_fusion.hpp), orders the joints
//                                   depth first for the recursions (rigid/tree_order.hpp), maps the
//                                   file's dof order (model/dof_order.hpp) and builds the tree
//                                   model or, when the mechanism has loops or gear couplings, the
//                                   constraint-embedded closed-chain model
//                                   (rigid/closed_chain_model.hpp), with the readers' and the
//                                   model's warnings;
//   load_model(path, options)       both, then the base body (model/base_change.hpp: with_base).
//
// The calls on a model take and give vectors in the file's dof order (model/state.hpp,
// model/dynamics.hpp, model/kinematics.hpp, ...), the meaning `skograph dynamics --json` gives them
// (docs/command-line.md), so that a user never meets the internal order. Model is immutable and
// cheap to copy (shared); ModelData (model/model_data.hpp) is the workspace of one thread. Errors:
// InputError naming the file (and line) for anything the file or the options get wrong, the
// model's refusals included (graph/error.hpp lists the others).
#pragma once

#include <Eigen/Core>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "skograph/graph/digraph.hpp"
#include "skograph/io/read_options.hpp"
#include "skograph/model/dof_order.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/mechanism.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

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
  // (model/base_change.hpp: with_base): state files and the dof names of the file are that model's.
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
// `mechanism` (read from `path`) with `link` as its base body (rigid/base_change.hpp:
// change_base), as load_mechanism applies ReadOptions::base: InputError naming the file.
Mechanism with_base_body(const Mechanism& mechanism, const std::string& link,
                         const std::string& path);
// The ready model of a mechanism read from `source` (a file name, or a name for messages):
// InputError naming the source for what the model refuses; options.strict refuses massless moving
// subtrees, which are otherwise a warning.
Model build_model(Mechanism mechanism, const std::string& source, const BuildOptions& options = {});
// load_mechanism, then build_model: the ready model of any supported file.
Model load_model(const std::string& path, const ReadOptions& options = {});

// Where the loop an error is about (ClosedChainError::loop, LoopDefinitionError::loop, an
// index into mechanism.loops) was declared when that is not the model file (a loop file given
// with --loops): {file, line}; {"", 0} otherwise. Errors about such a loop name the file that
// declared it, as bad input does.
struct Declaration {
  std::string file;
  int line = 0;
};
Declaration loop_declaration(const Mechanism& mechanism, const std::exception& error);

// "FILE: " + message, unless the message already starts with the file name (the one-line errors
// of the loading path and the program).
std::string naming_file(const std::string& file, const std::string& message);

}  // namespace skograph

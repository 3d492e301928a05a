// Loading a model (model/model.hpp): the file's mechanism with the options applied
// (load_mechanism) and the ready model of a mechanism (build_model).
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "skograph/io/loop_file.hpp"
#include "skograph/io/mechanism_file.hpp"
#include "skograph/model/model.hpp"
#include "skograph/rigid/base_change.hpp"
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
// error carries, else to `source`.
InputError refused(const Mechanism& mechanism, const std::string& source,
                   const std::exception& error) {
  const std::string message = error.what();
  const Declaration declared = loop_declaration(mechanism, error);
  if (declared.file.empty()) return refused(source, message);
  return InputError(declared.file, declared.line,
                    message.rfind(source, 0) == 0 ? message.substr(source.size() + 2) : message);
}

}  // namespace

Mechanism load_mechanism(const std::string& path, const ReadOptions& options) {
  ReadOptions reading = options;
  std::optional<LoopFile> loop_file;  // read once: its motors first, its loops after the model
  if (!options.loops_file.empty()) {
    loop_file = LoopFile::read(options.loops_file);
    const std::vector<std::string>& actuated = loop_file->actuated_joints();
    reading.tree_joints.insert(reading.tree_joints.end(), actuated.begin(), actuated.end());
  }
  Mechanism read = read_mechanism_file(path, reading);
  if (loop_file) {
    const std::size_t model_loops = read.loops.size();
    loop_file->apply(read);
    // A flexible link names the nodes of its loops in the model file, which never saw these.
    for (std::size_t i = model_loops; i < read.loops.size(); ++i)
      for (const int end : {read.loops[i].parent, read.loops[i].child})
        if (end >= 0 && read.links[static_cast<std::size_t>(end)].flexible)
          throw InputError(options.loops_file, read.loops[i].source_line,
                           "loop '" + read.loops[i].name + "' attaches to flexible link '" +
                               read.links[static_cast<std::size_t>(end)].name +
                               "': give it in the model file (loops: or loops_file:), where "
                               "the link's nodes can name it");
  }
  if (!options.independent.empty()) {
    try {
      named_dofs(read, options.independent);  // every name a moving joint or dof of the file
    } catch (const std::invalid_argument& e) {
      throw refused(path, e.what());
    }
    read.independent = options.independent;
  }
  return options.base.empty() ? read : with_base_body(read, options.base, path);
}

Mechanism with_base_body(const Mechanism& mechanism, const std::string& link,
                         const std::string& path) {
  try {
    return change_base(mechanism, link);
  } catch (const std::invalid_argument& e) {
    throw InputError(path, 0, "base body '" + link + "': " + e.what());
  }
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
  Mechanism loops_only;  // the loops in the order the errors number them
  loops_only.loops = ordered.loops;
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
    throw refused(loops_only, source, e);
  } catch (const Error& e) {  // a loop the embedding cannot take at the model's nominal state
    throw refused(loops_only, source, e);
  }
  const std::string problem = massless_joints_message(model.mechanism(), model.massless_, strict);
  if (!problem.empty() && strict) throw refused(source, problem);
  if (!problem.empty()) model.warnings_.push_back(problem);
  return model;
}

Declaration loop_declaration(const Mechanism& mechanism, const std::exception& error) {
  int loop = -1;
  if (const auto* closed = dynamic_cast<const ClosedChainError*>(&error)) loop = closed->loop();
  if (const auto* definition = dynamic_cast<const LoopDefinitionError*>(&error))
    loop = definition->loop();
  if (loop < 0 || loop >= static_cast<int>(mechanism.loops.size())) return {};
  const LoopClosure& closure = mechanism.loops[static_cast<std::size_t>(loop)];
  return {closure.source_file, closure.source_file.empty() ? 0 : closure.source_line};
}

std::string naming_file(const std::string& file, const std::string& message) {
  return message.rfind(file, 0) == 0 ? message : file + ": " + message;
}

}  // namespace skograph

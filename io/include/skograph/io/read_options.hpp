// Options shared by every model reader (io/mechanism_file.hpp).
#pragma once

#include <string>
#include <vector>

namespace skograph {

struct ReadOptions {
  // Refuse physically inconsistent inertias (a negative principal moment, the triangle inequality
  // violated, rotational inertia without mass) at their line instead of accepting them with one
  // warning (Mechanism::warnings); the command line's --strict. Commands that build a dynamics
  // model also refuse massless moving subtrees under it.
  bool strict = false;
  // Closed chains: the coordinates to keep independent (joint or dof names), replacing the file's
  // own list (the YAML key `independent:`); load_model applies it.
  std::vector<std::string> independent;
  // A loop file (io/loop_file.hpp: the example-parallel-robots robot.yaml) closing the loops of
  // the model's mechanism; load_mechanism applies it. Empty: none.
  std::string loops_file;
  // Joints to keep in the spanning tree, beside `independent`, when the file's joints form none (a
  // link with two parents: rigid/tree_joint_choice.hpp); load_mechanism adds the loop file's
  // name_mot, the actuated joints.
  std::vector<std::string> tree_joints;
  // A free-flying model's base body (model/base_change.hpp): load_mechanism roots the mechanism at
  // this link, load_model gives the model with_base makes. Empty: the file's base.
  std::string base;
  // Closed chains: the largest condition number of the constraints on the dependent coordinates
  // taken as well conditioned (rigid/closed_chain_model.hpp: kConditioningLimit); the command
  // line's --conditioning-limit. At least 1.
  double conditioning_limit = 1e3;
};

}  // namespace skograph

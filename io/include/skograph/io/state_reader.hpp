// STATE.json: the state and inputs of a mechanism for `skograph dynamics`.
//   {"gravity": [gx, gy, gz], "q": {joint: value}, "qd": {...}, "tau": {...}, "qdd": {...}}
// All keys optional: zeros by default, gravity (0, 0, -9.81). A 1-dof joint takes a number, a
// multi-dof joint an array with one entry per dof (coordinates as in rigid/mechanism.hpp); fixed
// joints take nothing. Errors throw skograph::InputError(file, line, problem): malformed JSON
// (line from nlohmann's byte position), unknown top-level keys, unknown joint names, wrong lengths,
// values that are not finite numbers.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

struct MechanismState {
  Eigen::Vector3d gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  Eigen::VectorXd q, qd, tau, qdd;  // in the order of dof_names()
  bool has_qdd = false;             // the file gave "qdd" (zero otherwise)
};

MechanismState zero_state(const Mechanism& mechanism);
MechanismState parse_state(const std::string& text, const std::string& source,
                           const Mechanism& mechanism);
MechanismState read_state_file(const std::string& path, const Mechanism& mechanism);
// The state file of `state` (the format above, every moving joint named, numbers that read back
// exactly): what read_state_file reads back, e.g. the closed state `skograph assemble --out`
// writes. `with_qdd` adds "qdd".
std::string state_text(const Mechanism& mechanism, const MechanismState& state,
                       bool with_qdd = true);

}  // namespace skograph

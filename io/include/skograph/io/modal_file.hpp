// The modal data file: a flexible body's modes exported from a user's own finite-element code, as
// plain text (docs/flexible-bodies.md, "The modal data file"), named by a link's `flexible: {file:
// PATH}` in the YAML format. `#` starts a comment; each section is a name on its own line followed
// by rows of numbers:
//
//   modes N                      first: the number of modal coordinates (1 .. 1000)
//   modal_mass                   N rows of N (default: the identity, mass-normalized modes)
//   modal_stiffness              N rows of N, or
//   frequencies_hz               one row of N (needs a diagonal modal mass)
//   modal_damping                N rows of N, or
//   damping_ratios               one row of N (default: no damping)
//   coupling                     6 rows of N: [angular; linear], about the link origin, link axes
//   node NAME                    6 rows of N: [rotation; translation] of the node where the joint
//                                or loop NAME attaches, per unit modal coordinate, link axes
//
// Everything wrong is an InputError naming the file and the line.
#pragma once

#include <string>

#include "skograph/rigid/modal_body.hpp"

namespace skograph {

ModalBody read_modal_file(const std::string& path);
ModalBody parse_modal_file(const std::string& text, const std::string& source);

}  // namespace skograph

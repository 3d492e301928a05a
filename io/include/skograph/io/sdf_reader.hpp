// SDF input (SDFormat, Gazebo's format) through Debian's libsdformat (sdformat 12): the first
// <model> of the file (or of its first <world>) as a skograph::Mechanism.
//
// SDF describes a graph: links posed in the model frame (poses with relative_to resolved by
// sdformat) and joints between them, which may close cycles. The tree is the breadth-first
// spanning tree from the world over the joints in file order (parent to child); every other joint
// closes a loop and becomes a loop closure (a cut edge of the standard digraph, embedded exactly):
// revolute and continuous -> revolute loops, prismatic -> prismatic, ball -> spherical, fixed ->
// weld; the closure frames are the joint frame on both links. A link that no joint reaches from
// the world floats (a floating joint "<link>_floating", q = 0 at its pose in the file), or is
// welded to the world in a <static> model.
//
// Tree joints: revolute (limits from <axis><limit>), continuous, prismatic, ball -> spherical,
// fixed, universal and revolute2 -> two revolute joints "<name>:0" (about axis, fixed in the
// parent) and "<name>:1" (about axis2, fixed in the child) with a massless link "<name>/cross"
// between them; screw and gearbox joints are refused. As everywhere in skograph, a child link's
// frame is the joint frame after the joint's motion: the SDF link frame, inertials and frames are
// moved into it. <frame> elements become named frames. Nested models are refused.
//
// Errors throw InputError(file, line, problem): malformed XML (TinyXML-2, with its line), missing
// links and unknown joint types at the joint's line, else sdformat's first error made one line.
#pragma once

#include <string>

#include "skograph/io/read_options.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph {

Mechanism read_sdf_file(const std::string& path, const ReadOptions& options = {});

}  // namespace skograph

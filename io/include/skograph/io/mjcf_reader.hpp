// MJCF input (MuJoCo's XML) through Debian's libmujoco (MuJoCo 2.2.2): mj_loadXML compiles
// <default> classes, <include>, angle units, euler/axisangle/xyaxes/zaxis frames and the inertias
// MuJoCo derives from geoms exactly as MuJoCo users expect; this reader turns the compiled mjModel
// into a skograph::Mechanism.
//
// Bodies and joints. Each body is a link named after the body; its joints (hinge -> revolute when
// limited, continuous otherwise; slide -> prismatic; ball -> spherical; free -> floating) become a
// chain: a body with n joints gives n - 1 massless links named "<body>/<joint>" followed by the
// body's own link, and a body without joints is welded to its parent (fixed joint "<body>_weld").
// MuJoCo rotates a body about the joint's anchor (jnt_pos) and measures hinge and slide positions
// from the joint's reference (qpos0): skograph's joint frame is placed at the anchor and turned by
// -ref, so that skograph's q is MuJoCo's qpos - qpos0 for hinge and slide joints (zero = the pose
// written in the file), the rotation vector of MuJoCo's ball quaternion, and for a free joint the
// rotation vector and position relative to the body's pose in the file. Link frames sit at the
// joint anchors with the body's orientation; mass properties, sites and closure frames are moved
// into them. Named <site>s become frames.
//
// Closed chains (MuJoCo treats them as soft constraints; skograph embeds them exactly):
//   <connect body1 body2 anchor>  a spherical loop at the anchor (body2's point computed by MuJoCo
//                                 at qpos0, where MuJoCo assumes the constraint is satisfied);
//   <weld body1 body2 relpose>    a weld loop (relpose, or the relative pose at qpos0);
//   <joint joint1 joint2 polycoef> the gear coupling q1 = c0 + c1 q2 (MuJoCo's y - y0 = c0 +
//                                 c1 (x - x0) in skograph's coordinates); c2..c4 must be zero.
// Inactive equalities (active="false") are skipped with a warning; tendon and distance equalities,
// a joint equality without joint2 and higher polynomial terms are refused in one line.
//
// Errors throw InputError(file, line, problem): MuJoCo's compiler message made one line, with the
// line MuJoCo names; the line of the <equality> child for what this reader refuses.
#pragma once

#include <string>

#include "skograph/io/read_options.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph {

Mechanism read_mjcf_file(const std::string& path, const ReadOptions& options = {});

}  // namespace skograph

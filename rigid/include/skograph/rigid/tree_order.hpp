// Depth-first joint order: the recursions of RigidBodyModel visit one node per joint, parents
// before children (and back), and keep their per-node numbers in joint order. When the joints of a
// file are listed in any other order (a URDF may list them as it likes; a random tree certainly
// does), each step of a recursion jumps through memory; listed depth first, the recursions walk
// their arrays in order (inverse dynamics per link stays flat from 10^2 to 10^5 links).
#pragma once

#include <vector>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// The mechanism with its joints in depth-first preorder of the joint tree (the world's joints in
// file order, each followed by its subtree, children in file order). Couplings are renumbered;
// links, loops and frames are unchanged. Joints that do not reach the world (an invalid
// mechanism, rejected by RigidBodyModel) keep their relative order at the end. Dof names are
// those of the joints, so a vector in the new dof order maps back to the file's by name
// (dof_permutation).
Mechanism depth_first_order(const Mechanism& mechanism);

// True when every joint's parent link is the world or the child of an earlier joint.
bool parents_listed_first(const Mechanism& mechanism);

}  // namespace skograph

// Fixed-body fusion: a mechanism transform that merges every link on a fixed joint into its parent
// body, exactly, so that the recursions visit only the bodies that move.
//
// Real robot files carry many links on fixed joints (sensor, camera, IMU and tool frames, cover
// plates, a base_link welded to the world): ANYmal C has 78 links for 13 moving bodies. Each of
// them would be a node of every recursion although it moves with its parent. Fusing it is exact:
// a rigid assembly of bodies is one rigid body whose mass is the sum of the masses, whose center of
// mass is the mass-weighted mean and whose inertia about that center is the sum of each part's
// inertia moved there by the parallel-axis theorem (Steiner).
#pragma once

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// The mechanism with every link on a fixed joint merged into its nearest ancestor on a moving
// joint (its "body"), or into the world when only fixed joints lead there (the link is then
// static and its mass plays no part in the dynamics):
//   - bodies keep their order; their mass, center of mass and inertia about the center of mass
//     become those of the rigid union of the body and the links fused into it;
//   - every fused link stays a named Frame on its body (pose = the composed fixed-joint origins),
//     as do the frames already on fused links, so that a name in the file still locates a frame
//     (Mechanism::locate_frame);
//   - moving joints, loops and closure frames on fused links move to the body, their frames
//     composed through the fixed joints: the same frames in space, the same dynamics;
//   - couplings are renumbered; a fixed joint named by a coupling keeps its link, so that the
//     closed-chain model can refuse the coupling with its own message.
// Joint dofs and their order do not change (fixed joints have none).
Mechanism fuse_fixed_bodies(const Mechanism& mechanism);

}  // namespace skograph

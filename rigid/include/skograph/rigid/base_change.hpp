// Change of base body of a free-flying system (free-flying-base-invariance Appendix A).
//
// A free-flying tree hangs from the world by one floating joint at its base link B. Any other
// link L may serve as the base instead (Lemma A.1): the six coordinates of B's floating joint are
// replaced by those of a floating joint on L, and the joints on the path from L up to B are
// reversed (their child becomes their parent), so that the tree is rooted at L. The mass matrix in
// the new coordinates is M_k = T_{n,k}* M_n T_{n,k} (Eq. 44) and has a Newton-Euler factorization
// of its own (Lemma A.2): the new mechanism is an ordinary tree, and every algorithm runs on it.
// The operational-space inertias Lambda(k) and compliances Omega(k) of the links do not depend on
// the choice (Section 4); tests/model/base_change_test.cpp checks that they do not.
#pragma once

#include <string>
#include <vector>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// What change_base did.
struct BaseChange {
  std::string removed_joint;          // the old base's floating joint ("" when L was the base)
  std::string new_joint;              // the new floating joint, world -> L
  std::vector<std::string> reversed;  // the joints of the path from L to the old base
};

// The mechanism with `link` as the base body of its free-flying tree:
// - the floating joint from the world to the tree's base B (joint F) is replaced, at F's place in
//   the joint list, by a floating joint `new_joint` from the world to `link`, whose frame is
//   `link`'s world pose at q = 0, so that q = 0 is the same configuration in both mechanisms;
//   F's name stays a frame name (B's frame), as a URDF joint names its child link's frame;
// - the joints from `link` up to B are reversed (their child becomes their parent): the old
//   parent's frame moves to the old joint frame, the links whose frame moved are re-expressed
//   (their declared frames, which name the links, stay where the file put them), and each
//   reversed joint's name keeps naming its old child's frame. A revolute or prismatic joint's
//   axis turns and q, qd, qdd and tau keep their values (the motion about -axis by q is the
//   inverse of the one about axis by q, as rigid/tree_joint_choice.hpp reverses joints); a
//   spherical joint with rotation vector r and rates w (child frame) becomes r' = -r,
//   w' = -R(r) w, wdot' = -R(r) wdot, tau' = -R(r) tau (the inverse rotation, its rates seen from
//   the new child, the same power);
// - names of F's dofs in `independent` and `preferred_independent` become the new joint's.
// `new_joint` is "<link>_floating" (with '_' appended while a joint or frame already has that
// name). A `link` that is already the base gives the mechanism unchanged. Throws
// std::invalid_argument: no link of that name; the link's tree hangs from the world by a joint
// that is not floating (a fixed-base system has no base to change); a planar or floating joint on
// the path (their inverse motion is no joint of the same kind in the same coordinates); a
// coupling naming F.
Mechanism change_base(const Mechanism& mechanism, const std::string& link,
                      BaseChange* change = nullptr);

}  // namespace skograph

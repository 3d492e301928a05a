// Where the cut goes: a file whose joints do not form a tree (a link with two
// parent joints, joints closing a cycle, a link reached only against a joint's direction) names no
// loop joint; the spanning tree is chosen here and the other joints become loop closures
// (constraint-embedding §4.2 step 1: any spanning tree will do; the choice sets the aggregates).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// What choose_tree_joints did, in the joints' file order.
struct TreeJointChoice {
  std::vector<std::string> cut;         // joints turned into loop closures of the same name
  std::vector<std::string> reversed;    // tree joints whose parent and child were swapped
  std::vector<std::string> wanted_cut;  // wanted joints the cycles among them forced out
  bool changed() const { return !cut.empty() || !reversed.empty(); }
};

// The joint (or, when no joint reaches it, the link) a choice could not place, and why.
class TreeJointChoiceError : public std::invalid_argument {
 public:
  TreeJointChoiceError(std::string joint, std::string link, const std::string& problem)
      : std::invalid_argument(problem), joint_(std::move(joint)), link_(std::move(link)) {}
  const std::string& joint() const { return joint_; }  // "" when the problem is a link's
  const std::string& link() const { return link_; }

 private:
  std::string joint_, link_;
};

// Makes mechanism.joints a tree rooted at the world, in place, when they are not one:
// - keeps in the tree first the joints that cannot be loop closures (planar, floating) and those
//   couplings name, then the `wanted` joints (joint names or dof names "joint:k": the actuated
//   joints of --independent, URDF+ independent="true"), then fixed joints, as far as they form no
//   cycle among themselves (Kruskal over that priority);
// - joins the rest by a breadth-first search from the world over the other joints in file order,
//   along their direction where it can (graph/undirected_spanning_tree.hpp), so that each cut
//   closes the shortest cycle it can: every loop lies in one biconnected component, so no
//   aggregate outgrows one;
// - cuts every joint left over into a LoopClosure of its type (revolute and continuous ->
//   revolute, prismatic, fixed -> weld, spherical): F_p is the joint frame on its parent link,
//   F_c the child's link frame, as the file declares the joint;
// - reverses a tree joint the search walks against its direction (revolute, continuous,
//   prismatic or fixed): the child link's frame becomes the old joint frame, the axis turns, and
//   q keeps its meaning (the motion about -axis by q is the inverse of the one about axis by q),
//   so limits, couplings and states carry over; mass properties, frames and loop frames of the
//   links whose frame moved are re-expressed.
// A mechanism that is already a tree is left alone. Throws TreeJointChoiceError when a link is
// connected to the world by no joint, a planar or floating joint would have to be cut or a
// multi-dof joint reversed, or a coupling's joint cut. Adds one note saying what was chosen.
TreeJointChoice choose_tree_joints(Mechanism& mechanism, const std::vector<std::string>& wanted);

// The joint a wanted name names: "leg:2" (a dof name) -> "leg", a joint name unchanged.
std::string joint_of_wanted_name(const std::string& name);

// The priority of keeping a joint in the tree, lowest first: 0 a joint that cannot be a loop
// closure (or that a coupling names), 1 a wanted one, 2 a fixed one, 3 any other. The URDF and
// SDF choices both order their joints by it.
int tree_joint_priority(bool cannot_be_cut, bool wanted, bool fixed);

// The note reporting a choice: "the joints form no tree: cut 'a' (now a loop closure), reversed
// 'b' (axis turned, same coordinate)".
std::string tree_joint_choice_note(const TreeJointChoice& choice);

}  // namespace skograph

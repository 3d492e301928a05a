#include "skograph/rigid/tree_joint_choice.hpp"

#include "skograph/graph/undirected_spanning_tree.hpp"

#include <algorithm>

namespace skograph {

namespace {

// Every link the child of exactly one joint, every walk up ending at the world.
bool is_tree(const Mechanism& mechanism) {
  const int n = static_cast<int>(mechanism.links.size());
  std::vector<int> parent(static_cast<std::size_t>(n), -2);
  for (const Joint& joint : mechanism.joints) {
    if (joint.child < 0 || joint.child >= n || joint.parent < -1 || joint.parent >= n ||
        parent[static_cast<std::size_t>(joint.child)] != -2)
      return false;  // (a joint naming no link is reported by choose_tree_joints)
    parent[static_cast<std::size_t>(joint.child)] = joint.parent;
  }
  std::vector<char> state(static_cast<std::size_t>(n), 0);  // 1 on this walk, 2 reaches the world
  for (int k = 0; k < n; ++k) {
    std::vector<int> walk;
    int link = k;
    while (link >= 0 && state[static_cast<std::size_t>(link)] != 2) {
      if (state[static_cast<std::size_t>(link)] == 1 ||
          parent[static_cast<std::size_t>(link)] == -2)
        return false;
      state[static_cast<std::size_t>(link)] = 1;
      walk.push_back(link);
      link = parent[static_cast<std::size_t>(link)];
    }
    for (const int visited : walk) state[static_cast<std::size_t>(visited)] = 2;
  }
  return true;
}

LoopType loop_type_of(const Joint& joint) {
  switch (joint.type) {
    case JointType::kRevolute:
    case JointType::kContinuous:
      return LoopType::kRevolute;
    case JointType::kPrismatic:
      return LoopType::kPrismatic;
    case JointType::kSpherical:
      return LoopType::kSpherical;
    case JointType::kFixed:
      return LoopType::kWeld;
    default:
      throw TreeJointChoiceError(joint.name, "",
                                 "joint '" + joint.name + "' (" + joint_type_name(joint.type) +
                                     ") closes a cycle, but skograph closes loops "
                                     "with revolute, prismatic, spherical or fixed "
                                     "joints only");
  }
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

}  // namespace

std::string tree_joint_choice_note(const TreeJointChoice& choice) {
  std::string note = "the joints form no tree: cut " + quoted_list(choice.cut) +
                     (choice.cut.size() == 1 ? " (now a loop closure)" : " (now loop closures)");
  if (choice.cut.empty()) note = "the joints form no tree as the file directs them";
  if (!choice.reversed.empty())
    note += ", reversed " + quoted_list(choice.reversed) + " (axis turned, same coordinate)";
  if (!choice.wanted_cut.empty())
    note += "; the wanted joints " + quoted_list(choice.wanted_cut) +
            " close cycles among themselves and were cut";
  return note;
}

std::string joint_of_wanted_name(const std::string& name) {
  const std::size_t colon = name.rfind(':');
  return colon == std::string::npos ? name : name.substr(0, colon);
}

int tree_joint_priority(bool cannot_be_cut, bool wanted, bool fixed) {
  return cannot_be_cut ? 0 : wanted ? 1 : fixed ? 2 : 3;
}

TreeJointChoice choose_tree_joints(Mechanism& mechanism, const std::vector<std::string>& wanted) {
  TreeJointChoice choice;
  if (is_tree(mechanism)) return choice;
  const int n = static_cast<int>(mechanism.links.size());
  const int world = n;  // node of the world
  const int joint_count = static_cast<int>(mechanism.joints.size());
  auto node = [&](int link) { return link < 0 ? world : link; };

  // Priority of keeping each joint in the tree (tree_joint_priority).
  std::vector<char> cannot_be_cut(static_cast<std::size_t>(joint_count), 0),
      is_wanted(static_cast<std::size_t>(joint_count), 0);
  for (const Coupling& coupling : mechanism.couplings) {
    for (int i = -1; i < coupling.term_count(); ++i) {
      const int j = i < 0 ? coupling.joint_a : coupling.term_joint(i);
      if (j >= 0 && j < joint_count) cannot_be_cut[static_cast<std::size_t>(j)] = 1;
    }
  }
  for (const std::string& name : wanted) {
    int j = mechanism.find_joint(name);
    if (j < 0) j = mechanism.find_joint(joint_of_wanted_name(name));
    if (j >= 0) is_wanted[static_cast<std::size_t>(j)] = 1;
  }
  std::vector<int> priority(static_cast<std::size_t>(joint_count));
  for (int j = 0; j < joint_count; ++j) {
    const JointType type = mechanism.joints[static_cast<std::size_t>(j)].type;
    priority[static_cast<std::size_t>(j)] =
        tree_joint_priority(cannot_be_cut[static_cast<std::size_t>(j)] ||
                                type == JointType::kPlanar || type == JointType::kFloating,
                            is_wanted[static_cast<std::size_t>(j)], type == JointType::kFixed);
  }

  for (int j = 0; j < joint_count; ++j) {
    const Joint& joint = mechanism.joints[static_cast<std::size_t>(j)];
    if (joint.child < 0 || joint.child >= n || joint.parent < -1 || joint.parent >= n)
      throw TreeJointChoiceError(joint.name, "",
                                 "joint '" + joint.name + "' names a link the mechanism lacks");
    if (joint.parent == joint.child)
      throw TreeJointChoiceError(joint.name, "",
                                 "joint '" + joint.name + "' connects link '" +
                                     mechanism.links[static_cast<std::size_t>(joint.child)].name +
                                     "' to itself");
  }
  std::vector<Edge> edges;
  edges.reserve(static_cast<std::size_t>(joint_count));
  for (const Joint& joint : mechanism.joints)
    edges.emplace_back(node(joint.parent), node(joint.child));
  std::vector<char> may_reverse(static_cast<std::size_t>(joint_count), 0);
  for (int j = 0; j < joint_count; ++j)
    may_reverse[static_cast<std::size_t>(j)] =
        joint_dof_count(mechanism.joints[static_cast<std::size_t>(j)].type) <= 1;
  const UndirectedSpanningTree tree =
      undirected_spanning_tree(n + 1, edges, priority, 3, world, may_reverse);
  for (int k = 0; k < n; ++k)
    if (!tree.reached(k)) {
      const std::string& name = mechanism.links[static_cast<std::size_t>(k)].name;
      throw TreeJointChoiceError("", name,
                                 "link '" + name +
                                     "' is connected to the world by no chain of joints "
                                     "(attach it to 'world' or another link)");
    }
  const std::vector<char>& in_tree = tree.in_tree;
  for (int j = 0; j < joint_count; ++j)
    if (priority[static_cast<std::size_t>(j)] == 1 && !in_tree[static_cast<std::size_t>(j)])
      choice.wanted_cut.push_back(mechanism.joints[static_cast<std::size_t>(j)].name);

  // Walk the tree from the world: re-express forward joints in their parent's (possibly moved)
  // frame, reverse the others. moved[k]: link k's new frame in its old one.
  std::vector<Eigen::Isometry3d> moved(static_cast<std::size_t>(n), Eigen::Isometry3d::Identity());
  std::vector<char> is_moved(static_cast<std::size_t>(n), 0);
  auto moved_of = [&](int link) -> Eigen::Isometry3d {
    return link < 0 ? Eigen::Isometry3d::Identity() : moved[static_cast<std::size_t>(link)];
  };
  std::vector<Frame> reversed_aliases;
  for (const int v : tree.order) {
    if (v == world) continue;
    const int u = tree.parent[static_cast<std::size_t>(v)];
    const int u_link = u == world ? -1 : u;
    Joint& joint =
        mechanism.joints[static_cast<std::size_t>(tree.parent_edge[static_cast<std::size_t>(v)])];
    if (node(joint.parent) == u) {
      joint.origin = moved_of(u_link).inverse() * joint.origin;
      continue;
    }
    if (joint_dof_count(joint.type) > 1)
      throw TreeJointChoiceError(
          joint.name, "",
          "joint '" + joint.name + "' (" + joint_type_name(joint.type) +
              ") would have to be reversed to reach link '" +
              mechanism.links[static_cast<std::size_t>(v)].name +
              "' from the world; skograph reverses 0- and 1-dof joints only");
    // The joint frame at zero is u's old link frame; v's new frame is the old joint frame.
    const Eigen::Isometry3d old_origin = joint.origin;
    // The joint's name keeps naming its file child's frame (URDF: a joint names its child link's
    // frame), now on the joint's parent; fixed at u's final frame below.
    reversed_aliases.push_back({joint.name, u_link, Eigen::Isometry3d::Identity(), true});
    joint.origin = moved_of(u_link).inverse();
    joint.axis = -joint.axis;
    joint.parent = u_link;
    joint.child = v;
    moved[static_cast<std::size_t>(v)] = old_origin;
    is_moved[static_cast<std::size_t>(v)] = 1;
    choice.reversed.push_back(joint.name);
  }

  // Cut joints -> loop closures, in the links' frames before they move.
  std::vector<LoopClosure> cut_loops;
  for (int j = 0; j < joint_count; ++j) {
    if (in_tree[static_cast<std::size_t>(j)]) continue;
    const Joint& joint = mechanism.joints[static_cast<std::size_t>(j)];
    if (priority[static_cast<std::size_t>(j)] == 0)
      throw TreeJointChoiceError(joint.name, "",
                                 "joint '" + joint.name + "' (" + joint_type_name(joint.type) +
                                     ") closes a cycle with joints that must stay in "
                                     "the tree (planar, floating or coupled)");
    LoopClosure loop;
    loop.name = joint.name;
    loop.type = loop_type_of(joint);
    loop.parent = joint.parent;
    loop.child = joint.child;
    loop.parent_origin = joint.origin;  // F_p: the joint frame; F_c: the child's link frame
    loop.axis = joint.axis;
    cut_loops.push_back(loop);
    choice.cut.push_back(joint.name);
  }
  for (int k = 0; k < n; ++k)
    if (is_moved[static_cast<std::size_t>(k)])
      move_link_frame(mechanism, k, moved[static_cast<std::size_t>(k)]);
  for (Frame& alias : reversed_aliases) {
    if (alias.link >= 0)
      alias.pose = mechanism.links[static_cast<std::size_t>(alias.link)].declared_frame;
    mechanism.frames.push_back(alias);
  }
  for (LoopClosure& loop : cut_loops) {
    if (loop.parent >= 0) loop.parent_origin = moved_of(loop.parent).inverse() * loop.parent_origin;
    loop.child_origin = moved_of(loop.child).inverse();
    mechanism.loops.push_back(loop);
  }

  // Drop the cut joints; couplings name joints by index.
  std::vector<int> new_index(static_cast<std::size_t>(joint_count), -1);
  std::vector<Joint> kept;
  for (int j = 0; j < joint_count; ++j)
    if (in_tree[static_cast<std::size_t>(j)]) {
      new_index[static_cast<std::size_t>(j)] = static_cast<int>(kept.size());
      kept.push_back(std::move(mechanism.joints[static_cast<std::size_t>(j)]));
    }
  mechanism.joints = std::move(kept);
  auto renumbered = [&](int j) {
    return j >= 0 && j < joint_count ? new_index[static_cast<std::size_t>(j)] : j;
  };
  for (Coupling& coupling : mechanism.couplings) {
    coupling.joint_a = renumbered(coupling.joint_a);
    coupling.joint_b = renumbered(coupling.joint_b);
    for (int& j : coupling.further_joints) j = renumbered(j);
  }

  mechanism.notes.push_back(tree_joint_choice_note(choice));
  return choice;
}

}  // namespace skograph

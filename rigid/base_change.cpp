#include "skograph/rigid/base_change.hpp"

#include <stdexcept>

namespace skograph {

namespace {

std::string quoted_names(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

bool name_taken(const Mechanism& mechanism, const std::string& name) {
  int link = -1;
  Eigen::Isometry3d pose;
  return mechanism.find_joint(name) >= 0 || mechanism.locate_frame(name, link, pose);
}

// "F" and "F:k" become "N" and "N:k".
void rename_joint_in(std::vector<std::string>& names, const std::string& from,
                     const std::string& to) {
  for (std::string& name : names) {
    if (name == from) name = to;
    if (name.rfind(from + ":", 0) == 0) name = to + name.substr(from.size());
  }
}

}  // namespace

// Appendix A, Lemma A.1: the tree rooted at the new base body; the coordinates of the path keep
// their meaning, the base's six become the new base's.
Mechanism change_base(const Mechanism& mechanism, const std::string& link, BaseChange* change) {
  const int base = mechanism.find_link(link);
  if (base < 0) throw std::invalid_argument("the mechanism has no link '" + link + "'");
  // The path from `link` up to the world: its joints, nearest first.
  std::vector<int> path;
  for (int k = base, steps = 0; k >= 0; ++steps) {
    const int j = mechanism.parent_joint(k);
    if (j < 0 || steps > static_cast<int>(mechanism.joints.size()))
      throw std::invalid_argument("link '" + mechanism.links[static_cast<std::size_t>(k)].name +
                                  "' hangs from no chain of joints to the world");
    path.push_back(j);
    // A flexible link's modes are clamped at its own hinge: re-rooted, its hinge would move.
    if (mechanism.links[static_cast<std::size_t>(k)].flexible)
      throw std::invalid_argument("link '" + mechanism.links[static_cast<std::size_t>(k)].name +
                                  "' is flexible: a base change through flexible links is not "
                                  "supported yet");
    k = mechanism.joints[static_cast<std::size_t>(j)].parent;
  }
  const int root_joint = path.back();
  const Joint floating = mechanism.joints[static_cast<std::size_t>(root_joint)];
  if (floating.type != JointType::kFloating)
    throw std::invalid_argument(
        "link '" + link + "' belongs to a tree that hangs from the world by joint '" +
        floating.name + "' (" + joint_type_name(floating.type) +
        "), not by a floating joint: only a free-flying system can change its base body");
  BaseChange made;
  if (path.size() == 1) {
    made.new_joint = floating.name;
    if (change) *change = made;
    return mechanism;
  }
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    const Joint& joint = mechanism.joints[static_cast<std::size_t>(path[i])];
    if (joint_dof_count(joint.type) > 1 && joint.type != JointType::kSpherical)
      throw std::invalid_argument("joint '" + joint.name + "' (" + joint_type_name(joint.type) +
                                  ") lies between link '" + link + "' and the base link '" +
                                  mechanism.links[static_cast<std::size_t>(floating.child)].name +
                                  "': only fixed, 1-dof and spherical joints can be reversed");
  }
  for (const Coupling& coupling : mechanism.couplings)
    for (int i = -1; i < coupling.term_count(); ++i)
      if ((i < 0 ? coupling.joint_a : coupling.term_joint(i)) == root_joint)
        throw std::invalid_argument("coupling '" + coupling.name + "' names the floating joint '" +
                                    floating.name + "'");

  // The link's world pose at q = 0: the joints' origins along the path (every motion is the
  // identity at zero).
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  for (auto j = path.rbegin(); j != path.rend(); ++j)
    pose = pose * mechanism.joints[static_cast<std::size_t>(*j)].origin;

  Mechanism changed = mechanism;
  made.removed_joint = floating.name;
  made.new_joint = link + "_floating";
  while (name_taken(mechanism, made.new_joint)) made.new_joint += "_";
  Joint& replaced = changed.joints[static_cast<std::size_t>(root_joint)];
  replaced.name = made.new_joint;
  replaced.child = base;
  replaced.origin = pose;
  rename_joint_in(changed.independent, floating.name, made.new_joint);
  rename_joint_in(changed.preferred_independent, floating.name, made.new_joint);

  // Reverse the path's joints from the new base outwards: joint j between `parent` (old) and
  // `child` (old) now runs child -> parent. X_child_parent(q) = motion(q)^-1 origin^-1, so the
  // parent's new frame is the old joint frame (it moves by `origin`), the joint frame sits at the
  // child's link frame, and motion(q)^-1 is the motion about -axis by q (revolute, prismatic)
  // or by the rotation vector -q (spherical: rigid/base_change.hpp). moved[k]: link k's new
  // frame in its old one.
  const std::size_t link_count = mechanism.links.size();
  std::vector<Eigen::Isometry3d> moved(link_count, Eigen::Isometry3d::Identity());
  std::vector<char> is_moved(link_count, 0);
  std::vector<int> alias_links;  // each reversed joint keeps naming its old child's frame
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    Joint& joint = changed.joints[static_cast<std::size_t>(path[i])];
    const int old_parent = joint.parent, old_child = joint.child;
    moved[static_cast<std::size_t>(old_parent)] = joint.origin;
    is_moved[static_cast<std::size_t>(old_parent)] = 1;
    joint.origin = moved[static_cast<std::size_t>(old_child)].inverse();
    joint.axis = -joint.axis;
    joint.parent = old_child;
    joint.child = old_parent;
    made.reversed.push_back(joint.name);
    alias_links.push_back(old_child);
  }
  // The other joints leaving a moved link, in its new frame.
  std::vector<char> on_path(changed.joints.size(), 0);
  for (const int j : path) on_path[static_cast<std::size_t>(j)] = 1;
  for (std::size_t j = 0; j < changed.joints.size(); ++j) {
    Joint& joint = changed.joints[j];
    if (!on_path[j] && joint.parent >= 0 && is_moved[static_cast<std::size_t>(joint.parent)])
      joint.origin = moved[static_cast<std::size_t>(joint.parent)].inverse() * joint.origin;
  }
  // F keeps naming the old base's frame, as a URDF joint names its child link's frame.
  changed.frames.push_back(
      {floating.name, floating.child,
       mechanism.links[static_cast<std::size_t>(floating.child)].declared_frame, true});
  for (std::size_t k = 0; k < link_count; ++k)
    if (is_moved[k]) move_link_frame(changed, static_cast<int>(k), moved[k]);
  for (std::size_t i = 0; i < made.reversed.size(); ++i)
    changed.frames.push_back(
        {made.reversed[i], alias_links[i],
         changed.links[static_cast<std::size_t>(alias_links[i])].declared_frame, true});
  // One note: which joint replaced which, and what each reversal did to its coordinates.
  std::vector<std::string> turned, fixed, spherical;
  for (const std::string& name : made.reversed) {
    const JointType type =
        mechanism.joints[static_cast<std::size_t>(mechanism.find_joint(name))].type;
    (type == JointType::kFixed       ? fixed
     : type == JointType::kSpherical ? spherical
                                     : turned)
        .push_back(name);
  }
  std::string reversals;
  if (!turned.empty())
    reversals += "reversed " + quoted_names(turned) + " (axis turned, same coordinate)";
  if (!spherical.empty())
    reversals += std::string(reversals.empty() ? "" : "; ") + "reversed spherical " +
                 quoted_names(spherical) + " (rotation vector r' = -r, rates w' = -R(r) w)";
  if (!fixed.empty())
    reversals +=
        std::string(reversals.empty() ? "" : "; ") + "reversed fixed " + quoted_names(fixed);
  changed.notes.push_back("base body '" + link + "': floating joint '" + made.new_joint +
                          "' replaces '" + made.removed_joint + "'" +
                          (reversals.empty() ? "" : ", " + reversals));
  if (change) *change = made;
  return changed;
}

}  // namespace skograph

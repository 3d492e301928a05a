// The URDF reader's first pass (io/urdf_outline.cpp): the document's links, joints and their
// lines, the mimic tags, URDF+'s loops, couplings and independent joints, and the joints set aside
// when they form no tree; urdf_reader.cpp builds the mechanism from it and urdfdom's model.
#pragma once

#include <Eigen/Geometry>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace skograph::io {

// A <mimic joint="a" multiplier="k" offset="c"/> on a joint: q = k q[a] + c.
struct MimicTag {
  std::string joint;  // the mimicking joint (the one carrying the tag)
  std::string mimicked;
  double multiplier = 1.0, offset = 0.0;
  int line = 0;
};

// URDF+ (the generalized_rbda project's URDF extension): a <loop> closing the tree between two
// links, a <coupling> gearing two links' joints, a joint's independent="true|false".
struct LoopTag {
  std::string name, type;
  std::string links[2];  // predecessor, successor
  Eigen::Isometry3d origins[2] = {Eigen::Isometry3d::Identity(), Eigen::Isometry3d::Identity()};
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();
  int line = 0;
};
struct CouplingTag {
  std::string name;
  std::string links[2];  // predecessor, successor
  double ratio = 1.0;
  int line = 0;
};

// Elements of the document in order, with their lines (the pre-scan).
struct UrdfOutline {
  std::vector<std::pair<std::string, int>> links;   // name, line
  std::vector<std::pair<std::string, int>> joints;  // name, line
  std::unordered_map<std::string, int> link_line, joint_line;
  std::vector<MimicTag> mimics;  // in joint order
  std::vector<LoopTag> loops;
  std::vector<CouplingTag> couplings;
  // Joints with an `independent` attribute: name -> value; the others default to true.
  std::unordered_map<std::string, bool> independent;
  // When the joints form no tree: the joints set aside from urdfdom's tree
  // building (a second parent of a link, a joint closing a cycle) with their real child link,
  // the root urdfdom sees and the document it reads (the set-aside joints hang a placeholder leaf
  // each, the other roots hang from that root by placeholder fixed joints). Empty: the file as is.
  std::unordered_map<std::string, std::string> set_aside_child;
  std::string root;
  std::string urdfdom_text;
};

// The outline of a URDF document's text (`source` names it in errors): InputError for malformed
// XML, bad numbers and bad URDF+ elements, with their lines.
UrdfOutline outline_urdf(const std::string& text, const std::string& source);

}  // namespace skograph::io

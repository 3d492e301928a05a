#include "io/mechanism_file.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "graph/digraph.hpp"
#include "io/urdf_reader.hpp"
#include "io/yaml_reader.hpp"

namespace skograph {

namespace {
std::string lowercase_extension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}
}  // namespace

bool is_mechanism_file(const std::string& path) {
  const std::string extension = lowercase_extension(path);
  return extension == ".urdf" || extension == ".yaml" || extension == ".yml";
}

Mechanism read_mechanism_file(const std::string& path) {
  const std::string extension = lowercase_extension(path);
  if (extension == ".urdf") return read_urdf_file(path);
  if (extension == ".yaml" || extension == ".yml") return read_yaml_file(path);
  throw InputError(path, 0,
                   "unknown model file type '" + extension + "' (expected .urdf, .yaml or .yml)");
}

Mechanism without_massless_fixed_leaves(const Mechanism& mechanism) {
  const int n = static_cast<int>(mechanism.links.size());
  std::vector<int> children(n, 0);
  std::vector<char> referenced(n, 0), removed(n, 0);
  std::vector<int> parent_joint(n, -1);
  for (int j = 0; j < static_cast<int>(mechanism.joints.size()); ++j) {
    const Joint& joint = mechanism.joints[j];
    if (joint.parent >= 0) ++children[joint.parent];
    parent_joint[joint.child] = j;
  }
  // Loops may name a massless frame (a URDF tool frame carrying a closure): the frame goes and the
  // loop moves to the nearest kept ancestor with its closure frame composed through the fixed
  // joints, which is the same frame in space. Couplings name moving joints, whose links stay.
  for (const Coupling& coupling : mechanism.couplings) {
    referenced[mechanism.joints[coupling.joint_a].child] = 1;
    referenced[mechanism.joints[coupling.joint_b].child] = 1;
  }
  // Leaves first: removing a leaf may make its parent a leaf.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Joint& joint : mechanism.joints) {
      const int k = joint.child;
      if (removed[k] || referenced[k] || children[k] > 0 || joint.type != JointType::kFixed ||
          mechanism.links[k].mass != 0.0)
        continue;
      removed[k] = 1;
      if (joint.parent >= 0) --children[joint.parent];
      changed = true;
    }
  }
  Mechanism result = mechanism;
  result.links.clear();
  result.joints.clear();
  std::vector<int> new_index(n, -1);
  for (int k = 0; k < n; ++k) {
    if (removed[k]) continue;
    new_index[k] = static_cast<int>(result.links.size());
    result.links.push_back(mechanism.links[k]);
  }
  auto renumbered = [&](int link) { return link < 0 ? link : new_index[link]; };
  std::vector<int> new_joint(mechanism.joints.size(), -1);
  for (size_t j = 0; j < mechanism.joints.size(); ++j) {
    if (removed[mechanism.joints[j].child]) continue;
    Joint joint = mechanism.joints[j];
    joint.parent = renumbered(joint.parent);
    joint.child = renumbered(joint.child);
    new_joint[j] = static_cast<int>(result.joints.size());
    result.joints.push_back(joint);
  }
  // A removed link's kept ancestor (or the world, -1) and the removed link's frame in it.
  auto kept_frame = [&](int link, Eigen::Isometry3d& frame) {
    while (link >= 0 && removed[link]) {
      const Joint& joint = mechanism.joints[parent_joint[link]];
      frame = joint.origin * frame;
      link = joint.parent;
    }
    return link;
  };
  for (LoopClosure& loop : result.loops) {
    loop.parent = renumbered(kept_frame(loop.parent, loop.parent_origin));
    loop.child = renumbered(kept_frame(loop.child, loop.child_origin));
  }
  for (Coupling& coupling : result.couplings) {
    coupling.joint_a = new_joint[coupling.joint_a];
    coupling.joint_b = new_joint[coupling.joint_b];
  }
  return result;
}

}  // namespace skograph

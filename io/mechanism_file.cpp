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

Mechanism without_massless_fixed_links(const Mechanism& mechanism) {
  const int n = static_cast<int>(mechanism.links.size());
  std::vector<char> removed(n, 0);
  std::vector<int> parent_joint(n, -1);
  for (int j = 0; j < static_cast<int>(mechanism.joints.size()); ++j) {
    const Joint& joint = mechanism.joints[j];
    if (joint.child < 0 || joint.child >= n) return mechanism;  // RigidBodyModel reports it
    parent_joint[joint.child] = j;
    removed[joint.child] =
        joint.type == JointType::kFixed && mechanism.links[joint.child].mass == 0.0;
  }
  // A coupled joint keeps its link, so that ClosedChainModel can refuse a coupled fixed joint.
  for (const Coupling& coupling : mechanism.couplings)
    for (int j : {coupling.joint_a, coupling.joint_b})
      if (j >= 0 && j < static_cast<int>(mechanism.joints.size()) &&
          mechanism.joints[j].child >= 0 && mechanism.joints[j].child < n)
        removed[mechanism.joints[j].child] = 0;
  // A removed link's nearest kept ancestor (or the world, -1), with `frame` (given in the removed
  // link's frame) composed through the fixed joints into that ancestor's frame: the same frame in
  // space. Joints, loops and their closure frames on removed links move there.
  auto kept_frame = [&](int link, Eigen::Isometry3d& frame) {
    for (int steps = 0; link >= 0 && removed[link] && steps < n; ++steps) {
      const Joint& joint = mechanism.joints[parent_joint[link]];
      frame = joint.origin * frame;
      link = joint.parent;
    }
    return link;
  };
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
    joint.parent = renumbered(kept_frame(joint.parent, joint.origin));
    joint.child = renumbered(joint.child);
    new_joint[j] = static_cast<int>(result.joints.size());
    result.joints.push_back(joint);
  }
  for (LoopClosure& loop : result.loops) {
    loop.parent = renumbered(kept_frame(loop.parent, loop.parent_origin));
    loop.child = renumbered(kept_frame(loop.child, loop.child_origin));
  }
  for (Coupling& coupling : result.couplings) {
    if (coupling.joint_a >= 0) coupling.joint_a = new_joint[coupling.joint_a];
    if (coupling.joint_b >= 0) coupling.joint_b = new_joint[coupling.joint_b];
  }
  return result;
}

}  // namespace skograph

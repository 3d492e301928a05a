#include "skograph/rigid/tree_order.hpp"

namespace skograph {

Mechanism depth_first_order(const Mechanism& mechanism) {
  const int joint_count = static_cast<int>(mechanism.joints.size());
  const int link_count = static_cast<int>(mechanism.links.size());
  // Joints leaving each link (index link + 1; 0 = the world), in file order, as CSR.
  std::vector<int> start(static_cast<std::size_t>(link_count) + 2, 0);
  for (const Joint& joint : mechanism.joints) {
    if (joint.parent < -1 || joint.parent >= link_count) return mechanism;  // the model reports
    ++start[static_cast<std::size_t>(joint.parent) + 2];
  }
  for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  std::vector<int> leaving(static_cast<std::size_t>(joint_count));
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (int j = 0; j < joint_count; ++j)
    leaving[static_cast<std::size_t>(
        fill[static_cast<std::size_t>(mechanism.joints[j].parent) + 1]++)] = j;

  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(joint_count));
  std::vector<char> placed(static_cast<std::size_t>(joint_count), 0);
  // Iterative preorder: a stack of (link, next child position).
  std::vector<std::pair<int, int>> stack{{-1, start[0]}};
  while (!stack.empty()) {
    auto& [link, next] = stack.back();
    if (next == start[static_cast<std::size_t>(link) + 2]) {
      stack.pop_back();
      continue;
    }
    const int j = leaving[static_cast<std::size_t>(next++)];
    if (placed[static_cast<std::size_t>(j)]) continue;
    placed[static_cast<std::size_t>(j)] = 1;
    order.push_back(j);
    const int child = mechanism.joints[j].child;
    if (child >= 0 && child < link_count)
      stack.emplace_back(child, start[static_cast<std::size_t>(child) + 1]);
  }
  for (int j = 0; j < joint_count; ++j)
    if (!placed[static_cast<std::size_t>(j)]) order.push_back(j);

  Mechanism result = mechanism;
  std::vector<int> new_index(static_cast<std::size_t>(joint_count));
  for (int i = 0; i < joint_count; ++i) {
    result.joints[static_cast<std::size_t>(i)] =
        mechanism.joints[static_cast<std::size_t>(order[i])];
    new_index[static_cast<std::size_t>(order[i])] = i;
  }
  for (Coupling& coupling : result.couplings) {
    if (coupling.joint_a >= 0 && coupling.joint_a < joint_count)
      coupling.joint_a = new_index[static_cast<std::size_t>(coupling.joint_a)];
    if (coupling.joint_b >= 0 && coupling.joint_b < joint_count)
      coupling.joint_b = new_index[static_cast<std::size_t>(coupling.joint_b)];
    for (int& j : coupling.further_joints)
      if (j >= 0 && j < joint_count) j = new_index[static_cast<std::size_t>(j)];
  }
  return result;
}

bool parents_listed_first(const Mechanism& mechanism) {
  std::vector<char> reached(mechanism.links.size(), 0);
  for (const Joint& joint : mechanism.joints) {
    if (joint.parent >= 0 && (joint.parent >= static_cast<int>(reached.size()) ||
                              !reached[static_cast<std::size_t>(joint.parent)]))
      return false;
    if (joint.child >= 0 && joint.child < static_cast<int>(reached.size()))
      reached[static_cast<std::size_t>(joint.child)] = 1;
  }
  return true;
}

}  // namespace skograph

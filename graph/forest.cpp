#include "graph/forest.hpp"

#include <stdexcept>
#include <string>

namespace skograph {

Forest::Forest(std::vector<int> parent) : parent_(std::move(parent)) {
  const int n = size();
  child_offset_.assign(n + 1, 0);
  for (int k = 0; k < n; ++k) {
    const int p = parent_[k];
    if (p == kNone) {
      bases_.push_back(k);
    } else if (p < 0 || p >= n) {
      throw std::invalid_argument("node " + std::to_string(k + 1) + " has parent " +
                                  std::to_string(p + 1) + ", outside 1.." + std::to_string(n));
    } else {
      ++child_offset_[p + 1];
    }
  }
  for (int k = 0; k < n; ++k) child_offset_[k + 1] += child_offset_[k];
  // Counting sort: children of each node in increasing id order.
  children_.resize(static_cast<size_t>(n) - bases_.size());
  std::vector<int> fill(child_offset_.begin(), child_offset_.end() - 1);
  for (int k = 0; k < n; ++k)
    if (parent_[k] != kNone) children_[fill[parent_[k]]++] = k;

  // Iterative depth-first search from every base (deep chains must not overflow the call stack).
  depth_.assign(n, 0);
  subtree_size_.assign(n, 1);
  post_index_.assign(n, -1);
  post_order_.reserve(n);
  std::vector<int> stack, next_child(n, 0);
  stack.reserve(64);
  for (int base : bases_) {
    stack.push_back(base);
    while (!stack.empty()) {
      const int k = stack.back();
      const int c = next_child[k];
      if (c < child_count(k)) {
        ++next_child[k];
        const int child = children_[child_offset_[k] + c];
        depth_[child] = depth_[k] + 1;
        stack.push_back(child);
      } else {
        stack.pop_back();
        post_index_[k] = static_cast<int>(post_order_.size());
        post_order_.push_back(k);
        if (parent_[k] != kNone) subtree_size_[parent_[k]] += subtree_size_[k];
      }
    }
  }
  if (static_cast<int>(post_order_.size()) != n) {
    // Every node has at most one parent, so a node no base reaches lies on or below a cycle.
    for (int k = 0; k < n; ++k)
      if (post_index_[k] < 0)
        throw std::invalid_argument("the parent array has a cycle through node " +
                                    std::to_string(k + 1));
  }

  // Serial segments: a node whose parent does not have exactly one child is a segment base.
  segment_of_.assign(n, 0);
  segment_offset_.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    const int k = post_order_[i];
    segment_of_[k] = static_cast<int>(segment_offset_.size()) - 1;
    if (parent_[k] == kNone || child_count(parent_[k]) != 1) segment_offset_.push_back(i + 1);
  }
  segment_parent_.resize(segment_offset_.size() - 1);
  for (int s = 0; s < segment_count(); ++s) {
    const int p = parent_[segment_base(s)];
    segment_parent_[s] = p == kNone ? kNone : segment_of_[p];
  }
}

std::vector<int> Forest::tips() const {
  std::vector<int> result;
  for (int k = 0; k < size(); ++k)
    if (is_tip(k)) result.push_back(k);
  return result;
}

int Forest::closest_common_ancestor(int i, int j) const {
  while (depth_[i] > depth_[j]) i = parent_[i];
  while (depth_[j] > depth_[i]) j = parent_[j];
  while (i != j) {
    i = parent_[i];
    j = parent_[j];
    if (i == kNone || j == kNone) return kNone;
  }
  return i;
}

Forest Forest::segment_tree() const { return Forest(segment_parent_); }

}  // namespace skograph

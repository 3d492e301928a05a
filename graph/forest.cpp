#include "skograph/graph/forest.hpp"

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

  // Breadth-first level order from the bases (parents before children); a node that no base
  // reaches lies on or below a cycle (every node has at most one parent).
  level_order_.reserve(n);
  level_order_.assign(bases_.begin(), bases_.end());
  for (size_t head = 0; head < level_order_.size(); ++head) {
    const int k = level_order_[head];
    for (int i = child_offset_[k]; i < child_offset_[k + 1]; ++i)
      level_order_.push_back(children_[i]);
  }
  if (static_cast<int>(level_order_.size()) != n) {
    std::vector<char> reached(n, 0);
    for (int k : level_order_) reached[k] = 1;
    for (int k = 0; k < n; ++k)
      if (!reached[k])
        throw std::invalid_argument("the parent array has a cycle through node " +
                                    std::to_string(k + 1));
  }
  // Subtree sizes tip-to-base, then depth-first post-order positions base-to-tip without a
  // search stack: a node's sub-tree occupies the positions [post - size + 1, post], and its
  // children's sub-trees fill that range in child order, the node itself last.
  subtree_size_.assign(n, 1);
  for (int i = n - 1; i >= 0; --i) {
    const int k = level_order_[i];
    if (parent_[k] != kNone) subtree_size_[parent_[k]] += subtree_size_[k];
  }
  depth_.assign(n, 0);
  post_index_.assign(n, 0);
  int next_start = 0;
  for (int b : bases_) {
    post_index_[b] = next_start + subtree_size_[b] - 1;
    next_start += subtree_size_[b];
  }
  for (int k : level_order_) {
    int start = post_index_[k] - subtree_size_[k] + 1;
    for (int i = child_offset_[k]; i < child_offset_[k + 1]; ++i) {
      const int c = children_[i];
      post_index_[c] = start + subtree_size_[c] - 1;
      start += subtree_size_[c];
      depth_[c] = depth_[k] + 1;
    }
  }
  post_order_.resize(n);
  for (int k = 0; k < n; ++k) post_order_[post_index_[k]] = k;

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

Forest Forest::segment_tree() const {
  return Forest(segment_parent_);
}

}  // namespace skograph

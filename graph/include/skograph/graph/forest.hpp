// Forest: the immutable topology of a tree or forest, precomputed into plain arrays.
//
// Every recursion in skograph (scatter/gather, Newton-Euler, composite inertias, articulated-body
// inertias) walks this structure and nothing else, in the spirit of Featherstone's lambda arrays
// and MuJoCo's dof_parentid. Nodes are 0-based internally (users see 1-based numbers). Edges point
// from parent to child (inboard to outboard); a node without a parent is a base node (a root of the
// forest; for a multibody system the base bodies are the children of the removed inertial root).
//
// The node ids are whatever numbering the caller chose (canonical or not); the forest also
// carries a depth-first post-order, which is a strictly canonical numbering (part I section 2):
//   * every node comes after all of its descendants (parent > child), and
//   * each serial segment (part II section 7.1) occupies a contiguous range, tip first,
//   * each sub-tree occupies a contiguous range ending at its root (O(1) ancestor tests).
// Tip-to-base recursions (gather, Eq. 8 of part II) iterate post-order forwards; base-to-tip
// recursions (scatter) iterate it backwards.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace skograph {

class Forest {
 public:
  static constexpr int kNone = -1;

  Forest() = default;
  // parent[k] is the parent of node k, or kNone for a base node. Throws std::invalid_argument when
  // a parent index is out of range or the parent array contains a cycle.
  explicit Forest(std::vector<int> parent);

  int size() const { return static_cast<int>(parent_.size()); }
  int parent(int k) const { return parent_[k]; }
  std::span<const int> parents() const { return parent_; }
  std::span<const int> children(int k) const {
    return {children_.data() + child_offset_[k], children_.data() + child_offset_[k + 1]};
  }
  int child_count(int k) const { return child_offset_[k + 1] - child_offset_[k]; }
  bool is_base(int k) const { return parent_[k] == kNone; }
  bool is_tip(int k) const { return child_count(k) == 0; }
  std::span<const int> bases() const { return bases_; }  // the roots of the forest
  std::vector<int> tips() const;
  int depth(int k) const { return depth_[k]; }  // 0 for a base node
  int subtree_size(int k) const { return subtree_size_[k]; }

  // Depth-first post-order: children before parents. post_order()[i] is the node at position i;
  // post_index(k) is the position of node k (a strictly canonical 0-based number).
  std::span<const int> post_order() const { return post_order_; }
  // Breadth-first level order from the bases (another parents-before-children order).
  std::span<const int> level_order() const { return level_order_; }
  int post_index(int k) const { return post_index_[k]; }

  // Ancestry (part I section 2). `is_ancestor` is strict: a node is not its own ancestor.
  bool is_ancestor_or_self(int ancestor, int k) const {
    const int a = post_index_[ancestor], p = post_index_[k];
    return p <= a && p > a - subtree_size_[ancestor];
  }
  bool is_ancestor(int ancestor, int k) const {
    return ancestor != k && is_ancestor_or_self(ancestor, k);
  }
  bool related(int i, int j) const {
    return is_ancestor_or_self(i, j) || is_ancestor_or_self(j, i);
  }
  // The deepest node that is an ancestor-or-self of both i and j, or kNone when i and j lie in
  // different trees of the forest (part I's closest common ancestor, with related pairs mapping to
  // the ancestor of the two). O(depth).
  int closest_common_ancestor(int i, int j) const;

  // Serial segments (part II section 7.1): maximal paths v1 -> ... -> vk in which each vi (i < k)
  // has exactly one child. Segment ids follow post-order, so a parent segment's id exceeds its
  // children's (the numbering of part II Eq. 61-63) and segment s holds post-order positions
  // [segment_begin(s), segment_end(s)) listed tip first.
  int segment_count() const { return static_cast<int>(segment_parent_.size()); }
  int segment_of(int k) const { return segment_of_[k]; }
  int segment_parent(int s) const { return segment_parent_[s]; }  // kNone for a base segment
  int segment_begin(int s) const { return segment_offset_[s]; }
  int segment_end(int s) const { return segment_offset_[s + 1]; }
  std::span<const int> segment_nodes_tip_first(int s) const {
    return {post_order_.data() + segment_offset_[s], post_order_.data() + segment_offset_[s + 1]};
  }
  int segment_base(int s) const { return post_order_[segment_offset_[s + 1] - 1]; }
  int segment_tip(int s) const { return post_order_[segment_offset_[s]]; }
  // The tree of segments (homeomorphic to this forest), as a forest of its own.
  Forest segment_tree() const;

 private:
  std::vector<int> parent_;
  std::vector<int>
      child_offset_;  // children of k: children_[child_offset_[k] .. child_offset_[k+1])
  std::vector<int> children_;
  std::vector<int> bases_;
  std::vector<int> depth_;
  std::vector<int> subtree_size_;
  std::vector<int> post_order_;
  std::vector<int> post_index_;
  std::vector<int> level_order_;
  std::vector<int> segment_of_;
  std::vector<int> segment_offset_;
  std::vector<int> segment_parent_;
};

}  // namespace skograph

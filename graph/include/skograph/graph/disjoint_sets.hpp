// Disjoint sets (union-find with path halving) over the nodes 0..n-1: which nodes a set of
// undirected edges connects, as spanning-tree choices need it.
#pragma once

#include <numeric>
#include <vector>

namespace skograph {

class DisjointSets {
 public:
  DisjointSets() = default;
  explicit DisjointSets(int n) { reset(n); }
  // n singletons again, reusing the storage (no allocation once it has held n nodes).
  void reset(int n) {
    parent_.resize(static_cast<std::size_t>(n));
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  // The representative of v's set.
  int find(int v) {
    while (at(v) != v) v = at(v) = at(at(v));
    return v;
  }
  // Joins the sets of a and b; false when they were one already.
  bool join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    at(b) = a;
    return true;
  }

 private:
  int& at(int v) { return parent_[static_cast<std::size_t>(v)]; }
  std::vector<int> parent_;
};

}  // namespace skograph

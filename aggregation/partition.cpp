#include "skograph/aggregation/partition.hpp"

#include <algorithm>
#include <stdexcept>

namespace skograph {
namespace {

std::string node_name(int k) {
  return "node " + std::to_string(k + 1);
}

}  // namespace

// Assumption 1 of constraint-embedding §2 (the aggregation condition), on an SKO forest whose
// missing root is the inertial frame: S is path-induced and exactly one node outside S (possibly
// the inertial frame) is the parent of nodes of S. O(|S| depth).
AggregationCheck check_aggregation_condition(const Forest& forest, const std::vector<int>& nodes) {
  AggregationCheck check;
  if (nodes.empty()) {
    check.reason = "the sub-graph is empty";
    return check;
  }
  std::vector<char> inside(forest.size(), 0);
  for (const int k : nodes) {
    if (k < 0 || k >= forest.size()) {
      check.reason = "node " + std::to_string(k + 1) + " is out of range (the tree has " +
                     std::to_string(forest.size()) + " nodes)";
      return check;
    }
    if (inside[k]) {
      check.reason = node_name(k) + " appears twice in the sub-graph";
      return check;
    }
    inside[k] = 1;
  }
  // Path-induced: walking up from b, once the path leaves S it must never re-enter it.
  for (const int b : nodes) {
    int outside = Forest::kNone;
    for (int k = forest.parent(b); k != Forest::kNone; k = forest.parent(k)) {
      if (!inside[k]) {
        if (outside == Forest::kNone) outside = k;
      } else if (outside != Forest::kNone) {
        check.reason = node_name(outside) + " lies on the path from " + node_name(k) + " to " +
                       node_name(b) + " but is not in the sub-graph";
        return check;
      }
    }
  }
  // Exactly one outside parent (the inertial frame counts as one).
  std::vector<int> outside_parents;
  for (const int k : nodes) {
    const int p = forest.parent(k);
    if ((p == Forest::kNone || !inside[p]) &&
        std::find(outside_parents.begin(), outside_parents.end(), p) == outside_parents.end())
      outside_parents.push_back(p);
  }
  if (outside_parents.size() != 1) {
    std::sort(outside_parents.begin(), outside_parents.end());  // kNone first
    const bool inertial = outside_parents.front() == Forest::kNone;
    const size_t first = inertial ? 1 : 0, numbered = outside_parents.size() - first;
    std::string names = numbered == 1 ? "node " : "nodes ";
    for (size_t i = first; i < outside_parents.size(); ++i) {
      if (i > first) names += i + 1 == outside_parents.size() ? " and " : ", ";
      names += std::to_string(outside_parents[i] + 1);
    }
    if (inertial) names = "the inertial frame and " + names;
    check.reason = "the sub-graph has " + std::to_string(outside_parents.size()) +
                   " parents outside it (" + names + "); it must have exactly one";
    return check;
  }
  check.satisfied = true;
  return check;
}

// The partition of the nodes into C, S and P of constraint-embedding §2 (Lemma 2's [C; S; P]
// ordering). O(N).
TreePartition partition_tree(const Forest& forest, const std::vector<int>& nodes) {
  const AggregationCheck check = check_aggregation_condition(forest, nodes);
  if (!check.satisfied) throw std::invalid_argument(check.reason);
  TreePartition part;
  std::vector<char> inside(forest.size(), 0);
  for (const int k : nodes) inside[k] = 1;
  part.subgraph = nodes;
  std::sort(part.subgraph.begin(), part.subgraph.end(),
            [&](int a, int b) { return forest.post_index(a) > forest.post_index(b); });
  part.parent = forest.parent(part.subgraph.front());  // the base-most node hangs from p
  // Child side: a node is in C when its parent is in S (and it is not) or its parent is in C.
  // Level order visits parents before children.
  std::vector<char> child_side(forest.size(), 0);
  for (const int k : forest.level_order()) {
    const int p = forest.parent(k);
    if (inside[k] || p == Forest::kNone) continue;
    child_side[k] = inside[p] || child_side[p];
  }
  for (int k = 0; k < forest.size(); ++k) {
    const int p = forest.parent(k);
    if (inside[k]) {
      if (p == part.parent) part.bases.push_back(k);
    } else if (child_side[k]) {
      part.child_side.push_back(k);
      if (inside[p]) part.children.push_back(k);
    } else {
      part.parent_side.push_back(k);
    }
  }
  return part;
}

}  // namespace skograph

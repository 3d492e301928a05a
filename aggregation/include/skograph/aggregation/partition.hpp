// Partitioning an SKO forest by a sub-graph S (constraint-embedding §2-3, Assumption 1;
// conventions.md "Aggregation"): the nodes split into the parent side P, the sub-graph S and the
// child side C, ordered [C; S; P] so that the SKO operator becomes block lower triangular with
// connector blocks between the parts (constraint-embedding Lemma 2).
//
// The forest here is an SKO forest: the inertial frame is not a node, and Forest::kNone as the
// outside parent means "the inertial frame". A sub-graph whose nodes hang from the inertial frame
// (several base nodes of the forest) is valid; this is how a loop closed to the ground or between
// two independent arms is aggregated.
#pragma once

#include <string>
#include <vector>

#include "skograph/graph/forest.hpp"

namespace skograph {

// The result of checking the aggregation condition (constraint-embedding Assumption 1).
struct AggregationCheck {
  bool satisfied = false;
  // Empty when satisfied; otherwise one sentence naming the offending nodes 1-based, e.g.
  // "node 7 lies on the path from node 3 to node 9 but is not in the sub-graph" or
  // "the sub-graph has 2 parents outside it (nodes 2 and 5); it must have exactly one".
  std::string reason;
};

// Assumption 1 on an SKO forest: S is non-empty, has no repeated or out-of-range node, is
// path-induced (every node on a directed path between two nodes of S is in S) and all nodes of S
// whose parent is outside S share that one parent (which may be the inertial frame, kNone).
AggregationCheck check_aggregation_condition(const Forest& forest, const std::vector<int>& nodes);

// The parts of constraint-embedding §2 for one sub-graph S.
struct TreePartition {
  std::vector<int> subgraph;     // S, base first (decreasing post index), so parents precede
  int parent = Forest::kNone;    // p, the one parent outside S (kNone: the inertial frame)
  std::vector<int> bases;        // the nodes of S whose parent is p, increasing id
  std::vector<int> children;     // c: nodes outside S whose parent is in S, increasing id
  std::vector<int> child_side;   // C: the children and all their descendants, increasing id
  std::vector<int> parent_side;  // P: every other node, increasing id
};

// Throws std::invalid_argument with check_aggregation_condition's reason when S fails it.
TreePartition partition_tree(const Forest& forest, const std::vector<int>& nodes);

}  // namespace skograph

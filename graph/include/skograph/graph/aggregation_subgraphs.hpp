// Minimal aggregation sub-graphs of cut edges (constraint-embedding §4.2, conventions.md
// "Aggregation sub-graph of a cut edge") and the aggregated tree.
#pragma once

#include <vector>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/forest.hpp"

namespace skograph {

struct AggregationSubgraph {
  std::vector<int> nodes;  // tree nodes, base first (decreasing post-order position)
  int parent =
      Forest::kNone;  // the single node outside the sub-graph that is a parent of one in it
  std::vector<Edge> cut_edges;  // the cut edges it embeds, in input order
};

// For each cut edge (u, v): the smallest sub-tree of `tree` holding u and v (the union of the paths
// from their closest common ancestor to each) minus its root. Sub-graphs that share a node are
// merged, so a cut edge across independent trees reaches down to the base nodes under a common
// root, and two cut edges sharing a node share one sub-graph (constraint-embedding Fig. 4). Each
// result satisfies the aggregation condition (Assumption 1): path-induced, with exactly one parent
// outside. Sub-graphs are listed in the order of their first cut edge. Throws std::invalid_argument
// when u and v lie in different trees of `tree` (no common root to hang the aggregate from).
// O(sum of path lengths).
std::vector<AggregationSubgraph> aggregation_subgraphs(const Forest& tree,
                                                       const std::vector<Edge>& cut_edges);

// The tree after each sub-graph is aggregated into a single node (constraint-embedding Lemma 1).
struct AggregatedTree {
  // members[a]: tree nodes of aggregated node a (one node, or a sub-graph's nodes base first).
  std::vector<std::vector<int>> members;
  std::vector<int> node_of;      // tree node -> aggregated node
  std::vector<int> subgraph_of;  // aggregated node -> index in the sub-graph list, or -1
  Forest forest;                 // topology over the aggregated nodes
};

// Aggregated nodes are numbered in the order of their first member in tree-node order.
AggregatedTree aggregated_tree(const Forest& tree,
                               const std::vector<AggregationSubgraph>& subgraphs);

// The aggregation condition of constraint-embedding Assumption 1, checked by brute force from the
// definitions (used by tests and to validate user-supplied sub-graphs): the sub-graph is
// path-induced (every node on a directed path between two of its nodes is in it) and exactly one
// node outside it is a parent of a node in it.
bool satisfies_aggregation_condition(const Forest& tree, const std::vector<int>& nodes);

}  // namespace skograph

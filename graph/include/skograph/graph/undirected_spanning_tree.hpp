// A spanning tree of an undirected multigraph chosen by edge priority (where a mechanism's cut
// goes when its file names no loop joint; constraint-embedding §4.2 step 1: any
// spanning tree will do, the choice sets the aggregates). The edges' directions are ignored.
#pragma once

#include <vector>

#include "skograph/graph/digraph.hpp"

namespace skograph {

struct UndirectedSpanningTree {
  std::vector<char> in_tree;     // per edge
  std::vector<int> parent;       // per node: its parent in the tree, -1 for the root and unreached
  std::vector<int> parent_edge;  // per node: the tree edge to its parent, -1 likewise
  std::vector<int> order;        // the reached nodes, root first, breadth-first (parents first)
  bool reached(int node) const {
    return node == root || parent[static_cast<std::size_t>(node)] >= 0;
  }
  int root = -1;
};

// Edges with priority[e] < search_priority are kept first, in increasing priority (input order
// within one), each as long as it closes no cycle with those kept before (Kruskal); the components
// they form are then joined by a breadth-first search from `root`'s over the other edges in input
// order, so that every other edge closes the shortest cycle it can and every cycle stays in one
// biconnected component. The search prefers edges along their direction (first -> second): at
// each depth those leaving a reached component from their first end go first, and an edge with
// may_reverse[e] == 0 is never searched backwards (empty: every edge may be). A component of
// kept edges is entered at a node none of its one-way kept edges points toward, while the search
// has another way in; a second pass then enters the components still unreached anywhere (the
// caller reports the one-way edge that points the wrong way). Self loops are never tree edges.
// O((n + e) log n) at most.
UndirectedSpanningTree undirected_spanning_tree(int node_count, const std::vector<Edge>& edges,
                                                const std::vector<int>& priority,
                                                int search_priority, int root,
                                                const std::vector<char>& may_reverse = {});

}  // namespace skograph

// Spanning tree and cut edges of a rooted digraph (part I section 2; constraint-embedding §4.2,
// step 1). Tree edges point away from the root; the edges left out are the cut edges.
#pragma once

#include <string>
#include <vector>

#include "graph/digraph.hpp"
#include "graph/forest.hpp"

namespace skograph {

struct SpanningTree {
  bool exists = false;
  std::string reason;          // why there is no spanning arborescence (when !exists)
  bool virtual_root = false;   // a common root was added above several roots
  int root = -1;               // node id of the root; == node_count() of the digraph when virtual
  std::vector<std::string> names;  // names of the tree's nodes: the digraph's, then the virtual root
  Forest tree;                 // over names.size() nodes; `root` is its only base
  std::vector<Edge> edges;     // tree edges (parent, child) in breadth-first order
  std::vector<Edge> cut_edges; // digraph edges not in the tree, in input order
};

// Breadth-first spanning arborescence from the root (children in input order), so each node keeps
// the first edge by which the search reaches it. Several roots (nodes without parents) get a
// virtual common root named "virtual_root" (made unique). When some node cannot be reached from
// any root, `exists` is false and `reason` says which node and why. O(n + e).
SpanningTree spanning_tree(const Digraph& graph);

}  // namespace skograph

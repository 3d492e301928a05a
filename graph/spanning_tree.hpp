// Spanning tree and cut edges of a rooted digraph (part I section 2; constraint-embedding §4.2,
// step 1). Tree edges point away from the root; the edges left out are the cut edges.
#pragma once

#include <string>
#include <vector>

#include "graph/digraph.hpp"
#include "graph/digraph_arrays.hpp"
#include "graph/forest.hpp"

namespace skograph {

struct SpanningTree {
  bool exists = false;
  std::string reason;          // why there is no spanning arborescence (when !exists)
  bool virtual_root = false;   // a common root was added above several roots
  int root = -1;               // node id of the root; == node_count() of the digraph when virtual
  std::string virtual_root_name;  // unique among the digraph's names (when virtual_root)
  Forest tree;                 // over node_count() (+1 with a virtual root) nodes; `root` its only base
  std::vector<Edge> edges;     // tree edges (parent, child) in the tree's level order
  std::vector<Edge> cut_edges; // digraph edges not in the tree, in input order

  // Name of tree node k: the digraph's node, or the virtual root.
  const std::string& name(const Digraph& graph, int k) const {
    return k < graph.node_count() ? graph.name(k) : virtual_root_name;
  }
  std::vector<std::string> names(const Digraph& graph) const;
};

// Breadth-first spanning arborescence from the root (children in input order), so each node keeps
// the first edge by which the search reaches it. Several roots (nodes without parents) get a
// virtual common root named "virtual_root" (made unique). When some node cannot be reached from
// any root, `exists` is false and `reason` says which node and why. O(n + e); a digraph that is
// already a tree (one root, one parent each, n - 1 edges) is its own spanning tree and skips the
// search.
SpanningTree spanning_tree(const Digraph& graph);
SpanningTree spanning_tree(const Digraph& graph, const DigraphArrays& arrays);

}  // namespace skograph

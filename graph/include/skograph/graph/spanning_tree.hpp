// Spanning tree and cut edges of a rooted digraph (part I section 2; constraint-embedding §4.2,
// step 1). Tree edges point away from the root; the edges left out are the cut edges.
#pragma once

#include <string>
#include <vector>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/digraph_arrays.hpp"
#include "skograph/graph/forest.hpp"

namespace skograph {

struct SpanningTree {
  bool exists = false;
  std::string reason;         // why there is no spanning arborescence (when !exists)
  bool virtual_root = false;  // a common root was added above several roots
  int root = -1;              // node id of the root; == node_count() of the digraph when virtual
  std::string virtual_root_name;  // unique among the digraph's names (when virtual_root)
  Forest tree;  // over node_count() (+1 with a virtual root) nodes; `root` its only base
  std::vector<Edge> edges;      // tree edges (parent, child) in the tree's level order
  std::vector<Edge> cut_edges;  // digraph edges not in the tree, in input order

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

// A designated spanning tree (a mechanism's tree joints, constraint-embedding §4.2 step 1):
// parent[v] is v's tree parent or Forest::kNone. Each tree edge parent[v] -> v must be an edge of
// the digraph; every other edge (including a second copy of a tree edge) becomes a cut edge, in
// input order. Several parentless nodes get a virtual common root as in spanning_tree(). Throws
// std::invalid_argument when parent has the wrong size, names a node out of range or an edge
// the digraph lacks, or has a cycle. O(n + e).
SpanningTree spanning_tree_from_parents(const Digraph& graph, std::vector<int> parent);

}  // namespace skograph

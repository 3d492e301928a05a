// Classification of a digraph along the taxonomy of part I, Fig. 1 and section 2.
#pragma once

#include <string>
#include <vector>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/digraph_arrays.hpp"

namespace skograph {

struct Classification {
  bool connected = false;  // weakly connected: an undirected path joins every pair
  bool rooted = false;     // connected, one root that is an ancestor of every other node
  bool dag = false;        // connected and without directed cycles
  bool polytree =
      false;          // DAG with at most one directed path between any pair (no undirected cycle)
  bool tree = false;  // polytree in which every node has at most one parent
  bool serial_chain = false;  // tree in which every node has at most one child
  bool forest = false;        // disjoint union of trees (a single tree is a forest of one)
  std::vector<int> roots;     // nodes without parents, in node order
  std::vector<int> tips;      // nodes without children, in node order

  // The most specific class that holds, in the order serial-chain, tree, forest, polytree, dag,
  // rooted, connected, disconnected.
  std::string class_name() const;
};

// O(n + e): degree counts, weak components by union-find over the edge list, Kahn's topological
// sort, and (only for cyclic digraphs) one search from the root.
Classification classify(const Digraph& graph);
Classification classify(const DigraphArrays& arrays);

// Directed reachability (part I section 2): `ancestor` reaches `node` by a path of length >= 1.
bool is_ancestor(const Digraph& graph, int ancestor, int node);
// Related pairs: one is an ancestor of the other (a node is related to itself).
bool related(const Digraph& graph, int i, int j);

}  // namespace skograph

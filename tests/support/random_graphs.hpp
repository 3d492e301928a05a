// Random trees and forests for property tests (header-only test support).
#pragma once

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "skograph/graph/digraph.hpp"

namespace skograph::testing_support {

// A random forest of n nodes with `trees` base nodes (at most n), in a random numbering:
// returns parent[k] (-1 for a base). Shapes vary from chains to bushy trees.
inline std::vector<int> random_forest_parents(int n, std::mt19937& rng, int trees = 1) {
  trees = std::max(1, std::min(trees, n));
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int> parent(n, -1);
  const int window = 1 + static_cast<int>(rng() % 4);  // small window: chain-like; large: bushy
  for (int i = trees; i < n; ++i) {
    const int lo = (rng() % 3 == 0) ? 0 : std::max(0, i - window);
    const int j = lo + static_cast<int>(rng() % (i - lo));
    parent[order[i]] = order[j];
  }
  return parent;
}

// A random recursive tree as a digraph: node k > 0 hangs under a uniformly drawn earlier node.
inline Digraph random_tree_digraph(int n, std::mt19937& random) {
  Digraph graph;
  for (int k = 0; k < n; ++k) graph.add_node("n" + std::to_string(k));
  for (int k = 1; k < n; ++k)
    graph.add_edge(std::uniform_int_distribution<int>(0, k - 1)(random), k);
  return graph;
}

}  // namespace skograph::testing_support

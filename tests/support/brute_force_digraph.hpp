// Brute-force definitions of part I section 2 on small digraphs (test support): reachability by
// transitive closure, path counting by enumeration. Deliberately O(n^3) and independent of graph/.
#pragma once

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "skograph/graph/digraph.hpp"

namespace skograph::testing_support {

struct BruteDigraph {
  int n = 0;
  std::vector<std::pair<int, int>> edges;
  std::vector<std::vector<char>> reach;       // reach[i][j]: a directed path of length >= 1 i -> j
  std::vector<std::vector<char>> undirected;  // weak connectivity (reflexive)

  explicit BruteDigraph(const Digraph& g) : n(g.node_count()), edges(g.edges()) {
    reach.assign(n, std::vector<char>(n, 0));
    undirected.assign(n, std::vector<char>(n, 0));
    for (auto [a, b] : edges) reach[a][b] = undirected[a][b] = undirected[b][a] = 1;
    for (int i = 0; i < n; ++i) undirected[i][i] = 1;
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          if (reach[i][k] && reach[k][j]) reach[i][j] = 1;
          if (undirected[i][k] && undirected[k][j]) undirected[i][j] = 1;
        }
  }
  int in_degree(int v) const {
    return static_cast<int>(
        std::count_if(edges.begin(), edges.end(), [&](auto e) { return e.second == v; }));
  }
  int out_degree(int v) const {
    return static_cast<int>(
        std::count_if(edges.begin(), edges.end(), [&](auto e) { return e.first == v; }));
  }
  bool connected() const {
    for (int j = 0; j < n; ++j)
      if (!undirected[0][j]) return false;
    return true;
  }
  bool acyclic() const {
    for (int i = 0; i < n; ++i)
      if (reach[i][i]) return false;
    return true;
  }
  // Number of directed paths i -> j (acyclic graphs only), by enumeration.
  long paths(int i, int j) const {
    if (i == j) return 1;
    long count = 0;
    for (auto [a, b] : edges)
      if (a == i) count += paths(b, j);
    return count;
  }
  bool rooted() const {
    if (!connected()) return false;
    int roots = 0, root = -1;
    for (int v = 0; v < n; ++v)
      if (in_degree(v) == 0) ++roots, root = v;
    if (roots != 1) return false;
    for (int v = 0; v < n; ++v)
      if (v != root && !reach[root][v]) return false;
    return true;
  }
  bool dag() const { return connected() && acyclic(); }
  bool polytree() const {
    if (!dag()) return false;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j && paths(i, j) > 1) return false;
    return true;
  }
  bool tree() const {
    if (!polytree()) return false;
    for (int v = 0; v < n; ++v)
      if (in_degree(v) > 1) return false;
    return true;
  }
  bool serial_chain() const {
    if (!tree()) return false;
    for (int v = 0; v < n; ++v)
      if (out_degree(v) > 1) return false;
    return true;
  }
  // Every weak component is a tree.
  bool forest() const {
    if (!acyclic()) return false;
    for (int v = 0; v < n; ++v)
      if (in_degree(v) > 1) return false;
    // No undirected cycle: per component, edges = nodes - 1.
    std::vector<char> done(n, 0);
    for (int v = 0; v < n; ++v) {
      if (done[v]) continue;
      int nodes = 0, inner = 0;
      for (int u = 0; u < n; ++u)
        if (undirected[v][u]) done[u] = 1, ++nodes;
      for (auto [a, b] : edges)
        if (undirected[v][a]) ++inner;
      if (inner != nodes - 1) return false;
    }
    return true;
  }
};

// Random digraphs of the kinds the property tests need, as DOT-free Digraphs with names "n1"...
inline Digraph make_digraph(int n, const std::vector<std::pair<int, int>>& edges) {
  Digraph g;
  for (int v = 0; v < n; ++v) g.add_node("n" + std::to_string(v + 1));
  for (auto [a, b] : edges) g.add_edge(a, b);
  return g;
}

// kind 0: tree; 1: forest; 2: polytree; 3: DAG; 4: cyclic (any simple digraph).
inline Digraph random_digraph(int n, int kind, std::mt19937& rng) {
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::set<std::pair<int, int>> edges;
  std::vector<std::pair<int, int>> list;
  auto add = [&](int a, int b) {
    if (a != b && !edges.count({a, b})) {
      edges.insert({a, b});
      list.emplace_back(a, b);
    }
  };
  const int first = kind == 1 ? 1 + static_cast<int>(rng() % 3) : 1;
  for (int i = first; i < n; ++i) {
    const int j = static_cast<int>(rng() % i);
    if (kind == 2 && rng() % 3 == 0)
      add(order[i], order[j]);  // flipped edge: polytree
    else
      add(order[j], order[i]);
  }
  if (kind >= 3) {
    const int extra = 1 + static_cast<int>(rng() % std::max(1, n / 2));
    for (int e = 0; e < extra; ++e) {
      int i = static_cast<int>(rng() % n), j = static_cast<int>(rng() % n);
      if (kind == 3 && i > j) std::swap(i, j);  // forward in `order`: stays acyclic
      add(order[i], order[j]);
    }
  }
  std::shuffle(list.begin(), list.end(), rng);
  return make_digraph(n, list);
}

}  // namespace skograph::testing_support

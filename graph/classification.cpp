#include "skograph/graph/classification.hpp"

#include "disjoint_sets.hpp"
#include "skograph/graph/digraph_arrays.hpp"

namespace skograph {

std::string Classification::class_name() const {
  if (serial_chain) return "serial-chain";
  if (tree) return "tree";
  if (forest) return "forest";
  if (polytree) return "polytree";
  if (dag) return "dag";
  if (rooted) return "rooted";
  if (connected) return "connected";
  return "disconnected";
}

Classification classify(const Digraph& graph) {
  return classify(DigraphArrays(graph));
}

using graph_detail::find_set;

Classification classify(const DigraphArrays& adjacency) {
  const int n = adjacency.n;
  const long long edge_count = static_cast<long long>(adjacency.out.size());
  Classification c;

  int max_in = 0, max_out = 0;
  for (int v = 0; v < n; ++v) {
    if (adjacency.in_degree(v) == 0) c.roots.push_back(v);
    if (adjacency.out_degree(v) == 0) c.tips.push_back(v);
    max_in = std::max(max_in, adjacency.in_degree(v));
    max_out = std::max(max_out, adjacency.out_degree(v));
  }

  // Fast path for the common case, a tree: one root, one parent each, n - 1 edges. Then it is a
  // tree exactly when the root reaches every node (one search instead of three passes).
  if (c.roots.size() == 1 && max_in <= 1 && edge_count == n - 1) {
    std::vector<int> queue(n);
    int head = 0, tail = 0;
    queue[tail++] = c.roots[0];
    while (head < tail) {
      const int v = queue[head++];
      for (int i = adjacency.out_offset[v]; i < adjacency.out_offset[v + 1]; ++i)
        queue[tail++] = adjacency.out[i];
    }
    if (tail == n) {
      c.connected = c.rooted = c.dag = c.polytree = c.tree = c.forest = true;
      c.serial_chain = max_out <= 1;
      return c;
    }
  }

  // Weak components: union-find over the edges (path halving, union by smaller index).
  std::vector<int> link(n);
  for (int v = 0; v < n; ++v) link[v] = v;
  int components = n;
  for (int v = 0; v < n; ++v)
    for (int i = adjacency.out_offset[v]; i < adjacency.out_offset[v + 1]; ++i) {
      const int a = find_set(link, v), b = find_set(link, adjacency.out[i]);
      if (a != b) {
        link[std::max(a, b)] = std::min(a, b);
        --components;
      }
    }
  c.connected = components == 1;

  // Acyclicity: Kahn's algorithm removes every node exactly when there is no directed cycle.
  std::vector<int> remaining_parents(n), queue(n);
  int head = 0, tail = 0;
  for (int v = 0; v < n; ++v) {
    remaining_parents[v] = adjacency.in_degree(v);
    if (remaining_parents[v] == 0) queue[tail++] = v;
  }
  while (head < tail) {
    const int v = queue[head++];
    for (int i = adjacency.out_offset[v]; i < adjacency.out_offset[v + 1]; ++i)
      if (--remaining_parents[adjacency.out[i]] == 0) queue[tail++] = adjacency.out[i];
  }
  const bool acyclic = tail == n;

  // Rooted: connected, a single root, and that root reaches every node. In an acyclic digraph
  // every node descends from some root, so a single root reaches all; only a cyclic digraph needs
  // the search.
  if (c.connected && c.roots.size() == 1) {
    if (acyclic) {
      c.rooted = true;
    } else {
      std::vector<char> seen(n, 0);
      head = tail = 0;
      queue[tail++] = c.roots[0];
      seen[c.roots[0]] = 1;
      while (head < tail) {
        const int v = queue[head++];
        for (int i = adjacency.out_offset[v]; i < adjacency.out_offset[v + 1]; ++i)
          if (!seen[adjacency.out[i]]) seen[queue[tail++] = adjacency.out[i]] = 1;
      }
      c.rooted = tail == n;
    }
  }

  c.dag = c.connected && acyclic;
  // A connected DAG has at most one directed path between any pair iff its underlying undirected
  // graph is a tree (no undirected cycle), i.e. it has n - 1 edges.
  c.polytree = c.dag && edge_count == n - 1;
  c.tree = c.polytree && max_in <= 1;
  c.serial_chain = c.tree && max_out <= 1;
  // A forest: acyclic, at most one parent each, and no undirected cycle (n - components edges).
  c.forest = acyclic && max_in <= 1 && edge_count == n - components;
  return c;
}

bool is_ancestor(const Digraph& graph, int ancestor, int node) {
  const DigraphArrays adjacency(graph);  // O(n + e) per query: for single questions, not loops
  std::vector<char> seen(adjacency.n, 0);
  std::vector<int> stack{ancestor};
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int i = adjacency.out_offset[v]; i < adjacency.out_offset[v + 1]; ++i) {
      const int child = adjacency.out[i];
      if (child == node) return true;
      if (!seen[child]) {
        seen[child] = 1;
        stack.push_back(child);
      }
    }
  }
  return false;
}

bool related(const Digraph& graph, int i, int j) {
  return i == j || is_ancestor(graph, i, j) || is_ancestor(graph, j, i);
}

}  // namespace skograph

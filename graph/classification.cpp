#include "graph/classification.hpp"

#include "graph/adjacency_arrays.hpp"

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
  const detail::AdjacencyArrays adjacency(graph);
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

  // Weak components: breadth-first search over parents and children alike.
  std::vector<int> component(n, -1), queue(n);
  int components = 0;
  for (int start = 0; start < n; ++start) {
    if (component[start] >= 0) continue;
    int head = 0, tail = 0;
    queue[tail++] = start;
    component[start] = components;
    while (head < tail) {
      const int v = queue[head++];
      for (int i = adjacency.out_offset[v]; i < adjacency.out_offset[v + 1]; ++i)
        if (component[adjacency.out[i]] < 0) component[queue[tail++] = adjacency.out[i]] = components;
      for (int i = adjacency.in_offset[v]; i < adjacency.in_offset[v + 1]; ++i)
        if (component[adjacency.in[i]] < 0) component[queue[tail++] = adjacency.in[i]] = components;
    }
    ++components;
  }
  c.connected = components == 1;

  // Acyclicity: Kahn's algorithm removes every node exactly when there is no directed cycle.
  std::vector<int> remaining_parents(n);
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

  // Rooted: connected, a single root, and that root reaches every node.
  if (c.connected && c.roots.size() == 1) {
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
  const detail::AdjacencyArrays adjacency(graph);
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

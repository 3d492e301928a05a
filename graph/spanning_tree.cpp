#include "graph/spanning_tree.hpp"

#include "graph/adjacency_arrays.hpp"

namespace skograph {

namespace {

std::string unique_name(const Digraph& graph, std::string name) {
  while (graph.find(name)) name += "_";
  return name;
}

}  // namespace

SpanningTree spanning_tree(const Digraph& graph) {
  const detail::AdjacencyArrays adjacency(graph);
  const int n = adjacency.n;
  SpanningTree result;

  std::vector<int> roots;
  for (int v = 0; v < n; ++v)
    if (adjacency.in_degree(v) == 0) roots.push_back(v);
  if (roots.empty()) {
    result.reason = "no spanning arborescence: every node has a parent, so the digraph has no root "
                    "(all nodes lie on or below a directed cycle)";
    return result;
  }

  result.virtual_root = roots.size() > 1;
  const int total = n + (result.virtual_root ? 1 : 0);
  result.root = result.virtual_root ? n : roots[0];
  std::vector<int> parent(total, Forest::kNone);
  std::vector<char> reached(total, 0);
  std::vector<int> queue;
  queue.reserve(total);
  reached[result.root] = 1;
  if (result.virtual_root) {
    for (int r : roots) {
      reached[r] = 1;
      parent[r] = result.root;
      result.edges.emplace_back(result.root, r);
      queue.push_back(r);
    }
  } else {
    queue.push_back(result.root);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const int v = queue[head];
    for (int i = adjacency.out_offset[v]; i < adjacency.out_offset[v + 1]; ++i) {
      const int child = adjacency.out[i];
      if (reached[child]) continue;
      reached[child] = 1;
      parent[child] = v;
      result.edges.emplace_back(v, child);
      queue.push_back(child);
    }
  }
  if (static_cast<int>(queue.size()) + (result.virtual_root ? 1 : 0) != total) {
    int missing = 0, count = 0;
    for (int v = 0; v < n; ++v)
      if (!reached[v] && count++ == 0) missing = v;
    result.reason = "no spanning arborescence: node '" + graph.name(missing) + "'" +
                    (count > 1 ? " and " + std::to_string(count - 1) + " other node(s)" : "") +
                    " cannot be reached from " +
                    (roots.size() == 1 ? "the root '" + graph.name(roots[0]) + "'" : "any root") +
                    " (they lie on a directed cycle that no root enters)";
    result.edges.clear();
    return result;
  }

  result.exists = true;
  result.names.reserve(total);
  for (int v = 0; v < n; ++v) result.names.push_back(graph.name(v));
  if (result.virtual_root) result.names.push_back(unique_name(graph, "virtual_root"));
  for (const Edge& e : graph.edges())
    if (parent[e.second] != e.first) result.cut_edges.push_back(e);
  result.tree = Forest(std::move(parent));
  return result;
}

}  // namespace skograph

#include "skograph/graph/undirected_spanning_tree.hpp"

#include <algorithm>
#include <numeric>

namespace skograph {

namespace {

struct DisjointSets {
  explicit DisjointSets(int n) : parent(static_cast<std::size_t>(n)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int v) {
    while (parent[static_cast<std::size_t>(v)] != v)
      v = parent[static_cast<std::size_t>(v)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(v)])];
    return v;
  }
  bool join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent[static_cast<std::size_t>(b)] = a;
    return true;
  }
  std::vector<int> parent;
};

}  // namespace

UndirectedSpanningTree undirected_spanning_tree(int node_count, const std::vector<Edge>& edges,
                                                const std::vector<int>& priority,
                                                int search_priority, int root,
                                                const std::vector<char>& may_reverse) {
  const int edge_count = static_cast<int>(edges.size());
  auto at = [](auto& v, int i) -> auto& {
    return v[static_cast<std::size_t>(i)];
  };
  UndirectedSpanningTree result;
  result.root = root;
  result.in_tree.assign(static_cast<std::size_t>(edge_count), 0);
  result.parent.assign(static_cast<std::size_t>(node_count), -1);
  result.parent_edge.assign(static_cast<std::size_t>(node_count), -1);

  // Kruskal over the preferred edges, lowest priority first.
  std::vector<int> preferred;
  for (int e = 0; e < edge_count; ++e)
    if (at(priority, e) < search_priority) preferred.push_back(e);
  std::stable_sort(preferred.begin(), preferred.end(),
                   [&](int a, int b) { return at(priority, a) < at(priority, b); });
  DisjointSets components(node_count);
  for (const int e : preferred)
    if (components.join(at(edges, e).first, at(edges, e).second)) at(result.in_tree, e) = 1;

  // Breadth-first over the components from the root's, the other edges in input order.
  std::vector<std::vector<int>> incident(static_cast<std::size_t>(node_count));
  for (int e = 0; e < edge_count; ++e) {
    if (at(priority, e) < search_priority) continue;
    const int a = components.find(at(edges, e).first), b = components.find(at(edges, e).second);
    if (a == b) continue;
    at(incident, a).push_back(e);
    at(incident, b).push_back(e);
  }
  // Level by level: the edges that leave a component of the level from their first end before
  // those that reach it at their first end (walked backwards, and only when allowed).
  std::vector<char> component_reached(static_cast<std::size_t>(node_count), 0);
  std::vector<int> level{components.find(root)}, next;
  at(component_reached, level.front()) = 1;
  while (!level.empty()) {
    next.clear();
    for (const bool backwards : {false, true})
      for (const int component : level)
        for (const int e : at(incident, component)) {
          const int a = components.find(at(edges, e).first);
          const int b = components.find(at(edges, e).second);
          if ((a != component) != backwards) continue;
          if (backwards && !may_reverse.empty() && !at(may_reverse, e)) continue;
          const int other = backwards ? a : b;
          if (at(component_reached, other)) continue;
          at(component_reached, other) = 1;
          at(result.in_tree, e) = 1;
          next.push_back(other);
        }
    level.swap(next);
  }

  // Orient the tree edges away from the root.
  std::vector<std::vector<int>> tree_incident(static_cast<std::size_t>(node_count));
  for (int e = 0; e < edge_count; ++e) {
    if (!at(result.in_tree, e)) continue;
    at(tree_incident, at(edges, e).first).push_back(e);
    at(tree_incident, at(edges, e).second).push_back(e);
  }
  std::vector<char> placed(static_cast<std::size_t>(node_count), 0);
  at(placed, root) = 1;
  result.order.push_back(root);
  for (std::size_t i = 0; i < result.order.size(); ++i) {
    const int u = result.order[i];
    for (const int e : at(tree_incident, u)) {
      const int v = at(edges, e).first == u ? at(edges, e).second : at(edges, e).first;
      if (at(placed, v)) continue;
      at(placed, v) = 1;
      at(result.parent, v) = u;
      at(result.parent_edge, v) = e;
      result.order.push_back(v);
    }
  }
  return result;
}

}  // namespace skograph

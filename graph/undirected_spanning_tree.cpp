#include "skograph/graph/undirected_spanning_tree.hpp"

#include "skograph/graph/disjoint_sets.hpp"

#include <algorithm>

namespace skograph {

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

  // The edges chosen so far, listed at both their ends.
  auto tree_edges_at_nodes = [&] {
    std::vector<std::vector<int>> incident(static_cast<std::size_t>(node_count));
    for (int e = 0; e < edge_count; ++e) {
      if (!at(result.in_tree, e)) continue;
      at(incident, at(edges, e).first).push_back(e);
      at(incident, at(edges, e).second).push_back(e);
    }
    return incident;
  };

  // Breadth-first over the components from the root's, the other edges in input order.
  std::vector<std::vector<int>> incident(static_cast<std::size_t>(node_count));
  for (int e = 0; e < edge_count; ++e) {
    if (at(priority, e) < search_priority) continue;
    const int a = components.find(at(edges, e).first), b = components.find(at(edges, e).second);
    if (a == b) continue;
    at(incident, a).push_back(e);
    at(incident, b).push_back(e);
  }
  // A component of preferred edges is entered where none of its one-way edges (may_reverse 0)
  // points inward, so that all of them keep their direction: inward[v] counts the one-way edges
  // that point toward v along the component's tree (re-rooting: crossing a one-way edge p -> c
  // from p to c adds one, from c to p removes one).
  std::vector<int> inward(static_cast<std::size_t>(node_count), 0);
  if (!may_reverse.empty()) {
    const std::vector<std::vector<int>> kept = tree_edges_at_nodes();
    std::vector<char> seen(static_cast<std::size_t>(node_count), 0);
    std::vector<int> walk, found_by(static_cast<std::size_t>(node_count), -1);
    for (int start = 0; start < node_count; ++start) {
      if (at(seen, start)) continue;
      walk.assign(1, start);  // breadth-first over the component's kept edges
      at(seen, start) = 1;
      for (std::size_t i = 0; i < walk.size(); ++i)
        for (const int e : at(kept, walk[i])) {
          const int v = at(edges, e).first == walk[i] ? at(edges, e).second : at(edges, e).first;
          if (at(seen, v)) continue;
          at(seen, v) = 1;
          at(found_by, v) = e;
          walk.push_back(v);
          if (!at(may_reverse, e) && at(edges, e).second == walk[i]) ++at(inward, start);
        }
      for (std::size_t i = 1; i < walk.size(); ++i) {
        const int v = walk[i], e = at(found_by, v);
        const int u = at(edges, e).first == v ? at(edges, e).second : at(edges, e).first;
        at(inward, v) = at(inward, u) + (at(may_reverse, e) ? 0 : at(edges, e).first == u ? 1 : -1);
      }
    }
  }

  // Level by level: the edges that leave a component of the level from their first end before
  // those that reach it at their first end (walked backwards, and only when allowed); a component
  // is entered only where inward is zero while another way may come, then anywhere.
  std::vector<char> component_reached(static_cast<std::size_t>(node_count), 0);
  std::vector<int> reached_components{components.find(root)}, level, next;
  at(component_reached, reached_components.front()) = 1;
  for (const bool anywhere : {false, true}) {
    level = reached_components;
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
            const int entry = backwards ? at(edges, e).first : at(edges, e).second;
            if (at(component_reached, other) || (!anywhere && at(inward, entry) > 0)) continue;
            at(component_reached, other) = 1;
            at(result.in_tree, e) = 1;
            next.push_back(other);
          }
      reached_components.insert(reached_components.end(), next.begin(), next.end());
      level.swap(next);
    }
  }

  // Orient the tree edges away from the root.
  const std::vector<std::vector<int>> tree_incident = tree_edges_at_nodes();
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

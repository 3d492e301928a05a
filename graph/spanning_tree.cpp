#include "skograph/graph/spanning_tree.hpp"

#include <stdexcept>

#include "skograph/graph/digraph_arrays.hpp"

namespace skograph {

namespace {

std::string unique_name(const Digraph& graph, std::string name) {
  while (graph.find(name)) name += "_";
  return name;
}

// Tree edges listed in the tree's level order (the same order whichever way the tree was found).
std::vector<Edge> level_order_edges(const Forest& tree) {
  std::vector<Edge> edges;
  edges.reserve(tree.size() > 0 ? tree.size() - 1 : 0);
  for (int k : tree.level_order())
    if (tree.parent(k) != Forest::kNone) edges.emplace_back(tree.parent(k), k);
  return edges;
}

}  // namespace

std::vector<std::string> SpanningTree::names(const Digraph& graph) const {
  std::vector<std::string> result;
  for (int k = 0; k < tree.size(); ++k) result.push_back(name(graph, k));
  return result;
}

SpanningTree spanning_tree(const Digraph& graph) {
  return spanning_tree(graph, DigraphArrays(graph));
}

SpanningTree spanning_tree(const Digraph& graph, const DigraphArrays& adjacency) {
  const int n = adjacency.n;
  SpanningTree result;

  std::vector<int> roots;
  for (int v = 0; v < n; ++v)
    if (adjacency.in_degree(v) == 0) roots.push_back(v);
  if (roots.empty()) {
    result.reason =
        "no spanning arborescence: every node has a parent, so the digraph has no root "
        "(all nodes lie on or below a directed cycle)";
    return result;
  }

  // A digraph that is already a tree is its own spanning tree: parents straight from the parent
  // lists. (With one root and n - 1 single-parent edges it can still hide a cycle apart from the
  // root; the Forest rejects that and the general search below explains it.)
  if (roots.size() == 1 && static_cast<int>(adjacency.in.size()) == n - 1) {
    bool single_parents = true;
    std::vector<int> parent(n, Forest::kNone);
    for (int v = 0; v < n && single_parents; ++v) {
      single_parents = adjacency.in_degree(v) <= 1;
      if (adjacency.in_degree(v) == 1) parent[v] = adjacency.in[adjacency.in_offset[v]];
    }
    if (single_parents) {
      try {
        result.tree = Forest(std::move(parent));
        result.exists = true;
        result.root = roots[0];
        result.edges = level_order_edges(result.tree);
        return result;
      } catch (const std::invalid_argument&) {
        result = SpanningTree();
      }
    }
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
    return result;
  }

  result.exists = true;
  if (result.virtual_root) result.virtual_root_name = unique_name(graph, "virtual_root");
  for (const Edge& e : graph.edges())
    if (parent[e.second] != e.first) result.cut_edges.push_back(e);
  result.tree = Forest(std::move(parent));
  result.edges = level_order_edges(result.tree);
  return result;
}

SpanningTree spanning_tree_from_parents(const Digraph& graph, std::vector<int> parent) {
  const int n = graph.node_count();
  if (static_cast<int>(parent.size()) != n)
    throw std::invalid_argument("spanning_tree_from_parents: " + std::to_string(parent.size()) +
                                " parents for " + std::to_string(n) + " nodes");
  std::vector<int> roots;
  for (int v = 0; v < n; ++v) {
    if (parent[v] == Forest::kNone) {
      roots.push_back(v);
    } else if (parent[v] < 0 || parent[v] >= n) {
      throw std::invalid_argument("spanning_tree_from_parents: parent of node '" + graph.name(v) +
                                  "' is out of range");
    }
  }
  if (roots.empty())
    throw std::invalid_argument("spanning_tree_from_parents: no node without a parent (a cycle)");
  // Each node's tree edge is taken once, by the first matching digraph edge; the rest are cut.
  SpanningTree result;
  std::vector<char> tree_edge_found(n, 0);
  for (const Edge& e : graph.edges()) {
    if (parent[e.second] == e.first && !tree_edge_found[e.second]) {
      tree_edge_found[e.second] = 1;
    } else {
      result.cut_edges.push_back(e);
    }
  }
  for (int v = 0; v < n; ++v)
    if (parent[v] != Forest::kNone && !tree_edge_found[v])
      throw std::invalid_argument("spanning_tree_from_parents: the digraph has no edge '" +
                                  graph.name(parent[v]) + "' -> '" + graph.name(v) + "'");
  result.virtual_root = roots.size() > 1;
  result.root = result.virtual_root ? n : roots[0];
  if (result.virtual_root) {
    result.virtual_root_name = unique_name(graph, "virtual_root");
    parent.push_back(Forest::kNone);
    for (int r : roots) parent[r] = n;
  }
  result.tree = Forest(std::move(parent));  // throws std::invalid_argument on a cycle
  result.edges = level_order_edges(result.tree);
  result.exists = true;
  return result;
}

}  // namespace skograph

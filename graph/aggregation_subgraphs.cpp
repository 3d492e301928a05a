#include "skograph/graph/aggregation_subgraphs.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

#include "disjoint_sets.hpp"

namespace skograph {

using graph_detail::find_set;

std::vector<AggregationSubgraph> aggregation_subgraphs(const Forest& tree,
                                                       const std::vector<Edge>& cut_edges) {
  const int cut_count = static_cast<int>(cut_edges.size());
  std::vector<int> owner(tree.size(), -1);  // cut edge whose sub-graph first claimed the node
  std::vector<int> link(cut_count);
  std::iota(link.begin(), link.end(), 0);

  // Claims the path from `node` up to (excluding) `top`, merging with sub-graphs met on the way.
  auto claim_path = [&](int node, int top, int edge_index) {
    for (int k = node; k != top; k = tree.parent(k)) {
      if (owner[k] < 0) {
        owner[k] = edge_index;
      } else {
        const int a = find_set(link, owner[k]), b = find_set(link, edge_index);
        if (a != b) link[std::max(a, b)] = std::min(a, b);
      }
    }
  };
  for (int i = 0; i < cut_count; ++i) {
    const auto [u, v] = cut_edges[i];
    const int top = tree.closest_common_ancestor(u, v);
    if (top == Forest::kNone)
      throw std::invalid_argument("cut edge " + std::to_string(u + 1) + " -> " +
                                  std::to_string(v + 1) +
                                  " joins two trees with no common root to aggregate under");
    claim_path(u, top, i);
    claim_path(v, top, i);
  }

  // Collect sets, ordered by their smallest cut-edge index (the union-find representative).
  std::vector<int> slot(cut_count, -1);
  std::vector<AggregationSubgraph> result;
  for (int i = 0; i < cut_count; ++i) {
    const int r = find_set(link, i);
    if (slot[r] < 0) {
      slot[r] = static_cast<int>(result.size());
      result.emplace_back();
    }
    result[slot[r]].cut_edges.push_back(cut_edges[i]);
  }
  for (int k = 0; k < tree.size(); ++k)
    if (owner[k] >= 0) result[slot[find_set(link, owner[k])]].nodes.push_back(k);
  for (AggregationSubgraph& s : result) {
    std::sort(s.nodes.begin(), s.nodes.end(),
              [&](int a, int b) { return tree.post_index(a) > tree.post_index(b); });
    // The base-most node's parent is the one outside parent (see satisfies_aggregation_condition).
    s.parent = s.nodes.empty() ? Forest::kNone : tree.parent(s.nodes.front());
  }
  return result;
}

AggregatedTree aggregated_tree(const Forest& tree,
                               const std::vector<AggregationSubgraph>& subgraphs) {
  AggregatedTree result;
  std::vector<int> subgraph_of_node(tree.size(), -1);
  for (int s = 0; s < static_cast<int>(subgraphs.size()); ++s)
    for (int k : subgraphs[s].nodes) subgraph_of_node[k] = s;
  result.node_of.assign(tree.size(), -1);
  std::vector<int> aggregated_of_subgraph(subgraphs.size(), -1);
  for (int k = 0; k < tree.size(); ++k) {
    const int s = subgraph_of_node[k];
    if (s >= 0 && aggregated_of_subgraph[s] >= 0) {
      result.node_of[k] = aggregated_of_subgraph[s];
      continue;
    }
    const int a = static_cast<int>(result.members.size());
    result.node_of[k] = a;
    if (s >= 0) {
      aggregated_of_subgraph[s] = a;
      result.members.push_back(subgraphs[s].nodes);
    } else {
      result.members.push_back({k});
    }
    result.subgraph_of.push_back(s);
  }
  // Each aggregated node's parent: the (single) outside parent of its members.
  std::vector<int> parent(result.members.size(), Forest::kNone);
  for (int a = 0; a < static_cast<int>(result.members.size()); ++a) {
    const int s = result.subgraph_of[a];
    const int outside = s >= 0 ? subgraphs[s].parent : tree.parent(result.members[a][0]);
    if (outside != Forest::kNone) parent[a] = result.node_of[outside];
  }
  result.forest = Forest(std::move(parent));
  return result;
}

bool satisfies_aggregation_condition(const Forest& tree, const std::vector<int>& nodes) {
  if (nodes.empty()) return false;
  std::vector<char> inside(tree.size(), 0);
  for (int k : nodes) inside[k] = 1;
  std::set<int> outside_parents;
  for (int k : nodes) {
    const int p = tree.parent(k);
    if (p == Forest::kNone || !inside[p]) outside_parents.insert(p);
  }
  if (outside_parents.size() != 1 || *outside_parents.begin() == Forest::kNone) return false;
  // Path-induced: for every pair a ancestor of b in the sub-graph, the path between is inside.
  for (int b : nodes)
    for (int k = tree.parent(b); k != Forest::kNone; k = tree.parent(k)) {
      if (inside[k]) continue;
      // k is outside; no node above k may be inside (else the path to b leaves the sub-graph).
      for (int above = tree.parent(k); above != Forest::kNone; above = tree.parent(above))
        if (inside[above]) return false;
      break;
    }
  return true;
}

}  // namespace skograph

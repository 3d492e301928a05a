// spanning_tree_from_parents and analyze over a designated tree: the tree edges are exactly the
// given parents, every other edge is a cut edge; when the designated tree is the breadth-first one
// the analysis equals analyze(graph); malformed parent arrays are rejected.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

#include "skograph/graph/analysis.hpp"
#include "skograph/graph/spanning_tree.hpp"

namespace skograph {
namespace {

Digraph make_graph(int n, const std::vector<Edge>& edges) {
  Digraph graph;
  for (int v = 0; v < n; ++v) graph.add_node("n" + std::to_string(v));
  for (const auto& [from, to] : edges) graph.add_edge(from, to);
  return graph;
}

TEST(DesignatedSpanningTree, TreeEdgesAreTheParentsAndAllOtherEdgesAreCut) {
  std::mt19937 random(4);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 2 + static_cast<int>(random() % 30);
    // A random tree rooted at 0 (parents before children), plus random extra edges.
    std::vector<int> parent(n, Forest::kNone);
    std::vector<Edge> edges;
    for (int v = 1; v < n; ++v) {
      parent[v] = static_cast<int>(random() % v);
      edges.emplace_back(parent[v], v);
    }
    std::vector<Edge> extra;
    for (int e = 0; e < n / 2; ++e) {
      const int from = static_cast<int>(random() % n),
                to = 1 + static_cast<int>(random() % (n - 1));
      if (from != to && from != parent[to]) extra.emplace_back(from, to);
    }
    std::shuffle(edges.begin(), edges.end(), random);
    std::vector<Edge> all = extra;  // extra edges first: a breadth-first search would prefer them
    all.insert(all.end(), edges.begin(), edges.end());
    Digraph graph;
    for (int v = 0; v < n; ++v) graph.add_node("n" + std::to_string(v));
    std::set<Edge> seen;
    std::vector<Edge> expected_cut;
    for (const Edge& e : all) {
      if (!seen.insert(e).second) continue;  // no parallel edges
      graph.add_edge(e.first, e.second);
      if (parent[e.second] != e.first) expected_cut.push_back(e);
    }
    const SpanningTree tree = spanning_tree_from_parents(graph, parent);
    ASSERT_TRUE(tree.exists);
    EXPECT_FALSE(tree.virtual_root);
    EXPECT_EQ(tree.root, 0);
    for (int v = 0; v < n; ++v) EXPECT_EQ(tree.tree.parent(v), parent[v]);
    EXPECT_EQ(tree.cut_edges, expected_cut);
    EXPECT_EQ(static_cast<int>(tree.edges.size()), n - 1);
  }
}

TEST(DesignatedSpanningTree, TheBreadthFirstTreeDesignatedGivesTheSameAnalysis) {
  const Digraph graph =
      make_graph(7, {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {1, 4}, {4, 5}, {5, 6}, {2, 6}, {6, 5}});
  const DigraphAnalysis reference = analyze(graph);
  ASSERT_TRUE(reference.spanning.exists);
  std::vector<int> parent(graph.node_count());
  for (int v = 0; v < graph.node_count(); ++v) parent[v] = reference.spanning.tree.parent(v);
  const DigraphAnalysis designated = analyze(graph, spanning_tree_from_parents(graph, parent));
  EXPECT_EQ(designated.spanning.edges, reference.spanning.edges);
  EXPECT_EQ(designated.spanning.cut_edges, reference.spanning.cut_edges);
  EXPECT_EQ(designated.canonical, reference.canonical);
  EXPECT_EQ(designated.strictly_canonical, reference.strictly_canonical);
  ASSERT_EQ(designated.aggregates.size(), reference.aggregates.size());
  for (size_t a = 0; a < reference.aggregates.size(); ++a) {
    EXPECT_EQ(designated.aggregates[a].nodes, reference.aggregates[a].nodes);
    EXPECT_EQ(designated.aggregates[a].cut_edges, reference.aggregates[a].cut_edges);
  }
  EXPECT_EQ(designated.aggregated.members, reference.aggregated.members);
  EXPECT_EQ(designated.classification.class_name(), reference.classification.class_name());
}

TEST(DesignatedSpanningTree, SeveralBasesGetAVirtualRoot) {
  const Digraph graph = make_graph(4, {{0, 1}, {2, 3}, {1, 3}});
  const SpanningTree tree = spanning_tree_from_parents(graph, {Forest::kNone, 0, Forest::kNone, 2});
  ASSERT_TRUE(tree.exists);
  EXPECT_TRUE(tree.virtual_root);
  EXPECT_EQ(tree.root, 4);
  EXPECT_EQ(tree.tree.parent(0), 4);
  EXPECT_EQ(tree.tree.parent(2), 4);
  EXPECT_EQ(tree.cut_edges, (std::vector<Edge>{{1, 3}}));
}

TEST(DesignatedSpanningTree, MalformedParentArraysAreRejected) {
  const Digraph graph = make_graph(4, {{0, 1}, {1, 2}, {2, 1}, {2, 3}});
  const int none = Forest::kNone;
  EXPECT_THROW(spanning_tree_from_parents(graph, {none, 0, 1}), std::invalid_argument);     // size
  EXPECT_THROW(spanning_tree_from_parents(graph, {none, 0, 7, 2}), std::invalid_argument);  // range
  EXPECT_THROW(spanning_tree_from_parents(graph, {none, 0, 0, 2}),
               std::invalid_argument);  // no edge 0->2
  EXPECT_THROW(spanning_tree_from_parents(graph, {1, 0, 1, 2}), std::invalid_argument);  // no root
  const Digraph cyclic = make_graph(4, {{0, 3}, {1, 2}, {2, 1}});
  EXPECT_THROW(spanning_tree_from_parents(cyclic, {none, 2, 1, 0}),
               std::invalid_argument);  // cycle
}

}  // namespace
}  // namespace skograph

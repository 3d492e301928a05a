// undirected_spanning_tree (graph/undirected_spanning_tree.hpp) on random multigraphs, against
// properties computed here independently: the tree edges form a spanning tree of the root's
// component (n - 1 edges, no cycle, every node of the component reached, parents along tree
// edges); the preferred edges are all kept when they form a forest; without preferred edges every
// node's depth is its breadth-first distance from the root (so each cut closes a shortest cycle).
#include "skograph/graph/undirected_spanning_tree.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <random>

namespace skograph {
namespace {

// Breadth-first distances over all edges (-1: unreachable).
std::vector<int> distances(int n, const std::vector<Edge>& edges, int root) {
  std::vector<std::vector<int>> adjacent(static_cast<std::size_t>(n));
  for (const auto& [a, b] : edges) {
    adjacent[static_cast<std::size_t>(a)].push_back(b);
    adjacent[static_cast<std::size_t>(b)].push_back(a);
  }
  std::vector<int> distance(static_cast<std::size_t>(n), -1);
  distance[static_cast<std::size_t>(root)] = 0;
  std::deque<int> queue{root};
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (const int v : adjacent[static_cast<std::size_t>(u)])
      if (distance[static_cast<std::size_t>(v)] < 0) {
        distance[static_cast<std::size_t>(v)] = distance[static_cast<std::size_t>(u)] + 1;
        queue.push_back(v);
      }
  }
  return distance;
}

void expect_spanning_tree(int n, const std::vector<Edge>& edges,
                          const UndirectedSpanningTree& tree) {
  const std::vector<int> distance = distances(n, edges, tree.root);
  int reachable = 0;
  for (int v = 0; v < n; ++v) {
    const bool reaches = distance[static_cast<std::size_t>(v)] >= 0;
    reachable += reaches;
    EXPECT_EQ(tree.reached(v), reaches) << v;
    if (v == tree.root || !reaches) continue;
    const int e = tree.parent_edge[static_cast<std::size_t>(v)];
    ASSERT_GE(e, 0);
    EXPECT_TRUE(tree.in_tree[static_cast<std::size_t>(e)]);
    const Edge& edge = edges[static_cast<std::size_t>(e)];
    EXPECT_TRUE((edge.first == v && edge.second == tree.parent[static_cast<std::size_t>(v)]) ||
                (edge.second == v && edge.first == tree.parent[static_cast<std::size_t>(v)]));
  }
  EXPECT_EQ(static_cast<int>(tree.order.size()), reachable);
  // Tree edges inside the root's component: exactly one per non-root node (no cycle).
  int inside = 0;
  for (std::size_t e = 0; e < edges.size(); ++e)
    if (tree.in_tree[e] && distance[static_cast<std::size_t>(edges[e].first)] >= 0) ++inside;
  EXPECT_EQ(inside, reachable - 1);
}

TEST(UndirectedSpanningTree, WithoutPreferenceItIsABreadthFirstTreeOfTheRootsComponent) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 12);
    const int edge_count = static_cast<int>(rng() % (2 * n + 1));
    std::vector<Edge> edges;
    for (int e = 0; e < edge_count; ++e)
      edges.emplace_back(static_cast<int>(rng() % n), static_cast<int>(rng() % n));
    const int root = static_cast<int>(rng() % n);
    const UndirectedSpanningTree tree =
        undirected_spanning_tree(n, edges, std::vector<int>(edges.size(), 1), 1, root);
    SCOPED_TRACE(trial);
    expect_spanning_tree(n, edges, tree);
    const std::vector<int> distance = distances(n, edges, root);
    for (const int v : tree.order) {
      int depth = 0;
      for (int u = v; u != root; u = tree.parent[static_cast<std::size_t>(u)]) ++depth;
      EXPECT_EQ(depth, distance[static_cast<std::size_t>(v)]) << v;
    }
  }
}

TEST(UndirectedSpanningTree, PreferredEdgesThatFormAForestAreAllKept) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 12);
    // A random preferred forest (each node but the first may hang from an earlier one), then
    // random other edges.
    std::vector<Edge> edges;
    std::vector<int> priority;
    for (int v = 1; v < n; ++v)
      if (rng() % 2) {
        edges.emplace_back(v, static_cast<int>(rng() % v));
        priority.push_back(static_cast<int>(rng() % 2));
      }
    const std::size_t preferred = edges.size();
    const int others = static_cast<int>(rng() % (2 * n + 1));
    for (int e = 0; e < others; ++e) {
      edges.emplace_back(static_cast<int>(rng() % n), static_cast<int>(rng() % n));
      priority.push_back(2);
    }
    const UndirectedSpanningTree tree = undirected_spanning_tree(n, edges, priority, 2, 0);
    SCOPED_TRACE(trial);
    expect_spanning_tree(n, edges, tree);
    for (std::size_t e = 0; e < preferred; ++e) EXPECT_TRUE(tree.in_tree[e]) << e;
  }
}

TEST(UndirectedSpanningTree, APreferredCycleLosesItsLastEdgeAndSelfLoopsAreNeverKept) {
  // 0 - 1 - 2 - 0 all preferred (priority 0, 0, 1): the priority-1 edge closes the cycle.
  const std::vector<Edge> edges = {{2, 0}, {0, 1}, {1, 2}, {1, 1}, {2, 3}};
  const UndirectedSpanningTree tree = undirected_spanning_tree(4, edges, {1, 0, 0, 0, 5}, 2, 0);
  EXPECT_EQ(tree.in_tree, (std::vector<char>{0, 1, 1, 0, 1}));
  EXPECT_EQ(tree.parent, (std::vector<int>{-1, 0, 1, 2}));
  EXPECT_EQ(tree.order, (std::vector<int>{0, 1, 2, 3}));
}

TEST(UndirectedSpanningTree, TheSearchPrefersEdgesAlongTheirDirection) {
  // Node 1 is reachable from the root 0 backwards along e0 (1 -> 0) or forwards along e1 (0 -> 1):
  // e1 wins although e0 comes first; node 2 only backwards along e2 (2 -> 1), unless forbidden.
  const std::vector<Edge> edges = {{1, 0}, {0, 1}, {2, 1}};
  const std::vector<int> priority(3, 1);
  const UndirectedSpanningTree tree = undirected_spanning_tree(3, edges, priority, 1, 0);
  EXPECT_EQ(tree.in_tree, (std::vector<char>{0, 1, 1}));
  EXPECT_EQ(tree.parent, (std::vector<int>{-1, 0, 1}));
  const UndirectedSpanningTree forbidden =
      undirected_spanning_tree(3, edges, priority, 1, 0, {1, 1, 0});
  EXPECT_EQ(forbidden.in_tree, (std::vector<char>{0, 1, 0}));
  EXPECT_FALSE(forbidden.reached(2));
}

TEST(UndirectedSpanningTree, AGroupIsEnteredWhereItsOneWayEdgesPointAway) {
  // Nodes 1 and 2 joined first by the one-way edge 1 -> 2; the root reaches 2 first in input
  // order (edge 1), but entering there would walk 1 -> 2 backwards: edge 2 enters at 1 instead.
  const std::vector<Edge> edges = {{1, 2}, {0, 2}, {0, 1}};
  const std::vector<char> may_reverse = {0, 1, 1};
  const UndirectedSpanningTree tree =
      undirected_spanning_tree(3, edges, {0, 1, 1}, 1, 0, may_reverse);
  EXPECT_EQ(tree.in_tree, (std::vector<char>{1, 0, 1}));
  EXPECT_EQ(tree.parent, (std::vector<int>{-1, 0, 1}));
  // With no other way in, the group is entered anyway (the caller reports the reversal).
  const UndirectedSpanningTree only =
      undirected_spanning_tree(3, {{1, 2}, {0, 2}}, {0, 1}, 1, 0, {0, 1});
  EXPECT_EQ(only.parent, (std::vector<int>{-1, 2, 0}));
}

}  // namespace
}  // namespace skograph

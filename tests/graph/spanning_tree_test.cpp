#include "skograph/graph/spanning_tree.hpp"

#include <gtest/gtest.h>

#include <set>

#include "skograph/graph/classification.hpp"
#include "support/brute_force_digraph.hpp"

namespace skograph {
namespace {

using testing_support::BruteDigraph;

// A spanning arborescence exists iff every node is reachable from a root (a virtual common root
// joining several roots). When it exists: tree edges are digraph edges (or virtual-root edges to
// the roots), each non-root node has one tree parent, tree + cut edges = all edges.
TEST(SpanningTree, IsAnArborescenceOfTheDigraphOnRandomDigraphs) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 10);
    const Digraph g = testing_support::random_digraph(n, trial % 5, rng);
    const BruteDigraph brute(g);
    const SpanningTree t = spanning_tree(g);

    std::vector<int> roots;
    for (int v = 0; v < n; ++v)
      if (brute.in_degree(v) == 0) roots.push_back(v);
    bool all_reachable = !roots.empty();
    for (int v = 0; v < n && all_reachable; ++v) {
      bool reached = false;
      for (int r : roots) reached = reached || r == v || brute.reach[r][v];
      all_reachable = reached;
    }
    ASSERT_EQ(t.exists, all_reachable) << trial;
    if (!t.exists) {
      EXPECT_FALSE(t.reason.empty());
      continue;
    }
    EXPECT_EQ(t.virtual_root, roots.size() > 1);
    const int total = n + (t.virtual_root ? 1 : 0);
    ASSERT_EQ(t.tree.size(), total);
    ASSERT_EQ(static_cast<int>(t.names(g).size()), total);
    EXPECT_EQ(t.tree.bases().size(), 1u);
    EXPECT_EQ(t.tree.bases()[0], t.root);
    EXPECT_EQ(static_cast<int>(t.edges.size()), total - 1);
    std::set<Edge> all(g.edges().begin(), g.edges().end()), covered;
    for (const Edge& e : t.edges) {
      EXPECT_EQ(t.tree.parent(e.second), e.first);
      if (t.virtual_root && e.first == t.root) {
        EXPECT_EQ(brute.in_degree(e.second), 0);
      } else {
        EXPECT_TRUE(all.count(e));
        covered.insert(e);
      }
    }
    for (const Edge& e : t.cut_edges) {
      EXPECT_TRUE(all.count(e));
      EXPECT_TRUE(covered.insert(e).second);  // disjoint from the tree edges
    }
    EXPECT_EQ(covered, all);
  }
}

TEST(SpanningTree, ExplainsWhyThereIsNone) {
  using testing_support::make_digraph;
  const SpanningTree cycle = spanning_tree(make_digraph(3, {{0, 1}, {1, 2}, {2, 0}}));
  EXPECT_FALSE(cycle.exists);
  EXPECT_NE(cycle.reason.find("no root"), std::string::npos);
  // n1 is a root, but n3 -> n4 -> n3 is a cycle nobody enters.
  const SpanningTree island = spanning_tree(make_digraph(4, {{0, 1}, {2, 3}, {3, 2}}));
  EXPECT_FALSE(island.exists);
  EXPECT_NE(island.reason.find("'n3'"), std::string::npos);
  EXPECT_NE(island.reason.find("cannot be reached"), std::string::npos);
}

TEST(SpanningTree, VirtualRootJoinsSeveralRootsWithAUniqueName) {
  Digraph g;
  const int a = g.add_node("virtual_root"), b = g.add_node("b"), c = g.add_node("c");
  g.add_edge(a, b);
  (void)c;
  const SpanningTree t = spanning_tree(g);
  ASSERT_TRUE(t.exists);
  EXPECT_TRUE(t.virtual_root);
  EXPECT_EQ(t.root, 3);
  EXPECT_EQ(t.name(g, 3), "virtual_root_");
  EXPECT_EQ(t.tree.parent(a), 3);
  EXPECT_EQ(t.tree.parent(c), 3);
  EXPECT_EQ(t.tree.parent(b), a);
}

}  // namespace
}  // namespace skograph

#include "skograph/graph/classification.hpp"

#include <gtest/gtest.h>

#include "support/brute_force_digraph.hpp"

namespace skograph {
namespace {

using testing_support::BruteDigraph;

// Thousands of random trees, forests, polytrees, DAGs and cyclic digraphs: every predicate equals
// its brute-force definition (part I section 2), and roots/tips/ancestry match.
TEST(Classification, MatchesBruteForceDefinitionsOnRandomDigraphs) {
  std::mt19937 rng(2024);
  int seen[5] = {0, 0, 0, 0, 0};
  for (int trial = 0; trial < 2500; ++trial) {
    const int kind = trial % 5;
    const int n = 1 + static_cast<int>(rng() % 9);
    const Digraph g = testing_support::random_digraph(n, kind, rng);
    const BruteDigraph brute(g);
    const Classification c = classify(g);
    ASSERT_EQ(c.connected, brute.connected()) << trial;
    ASSERT_EQ(c.rooted, brute.rooted()) << trial;
    ASSERT_EQ(c.dag, brute.dag()) << trial;
    ASSERT_EQ(c.polytree, brute.polytree()) << trial;
    ASSERT_EQ(c.tree, brute.tree()) << trial;
    ASSERT_EQ(c.serial_chain, brute.serial_chain()) << trial;
    ASSERT_EQ(c.forest, brute.forest()) << trial;
    for (int v = 0; v < n; ++v) {
      const bool is_root = std::find(c.roots.begin(), c.roots.end(), v) != c.roots.end();
      const bool is_tip = std::find(c.tips.begin(), c.tips.end(), v) != c.tips.end();
      EXPECT_EQ(is_root, brute.in_degree(v) == 0);
      EXPECT_EQ(is_tip, brute.out_degree(v) == 0);
      for (int u = 0; u < n; ++u) {
        EXPECT_EQ(is_ancestor(g, u, v), static_cast<bool>(brute.reach[u][v]));
        EXPECT_EQ(related(g, u, v), u == v || brute.reach[u][v] || brute.reach[v][u]);
      }
    }
    ++seen[kind];
  }
  for (int count : seen) EXPECT_GT(count, 400);
}

// The class is the most specific one that holds, in the documented order.
TEST(Classification, ClassNameIsTheMostSpecificClass) {
  using testing_support::make_digraph;
  EXPECT_EQ(classify(make_digraph(3, {{0, 1}, {1, 2}})).class_name(), "serial-chain");
  EXPECT_EQ(classify(make_digraph(3, {{0, 1}, {0, 2}})).class_name(), "tree");
  EXPECT_EQ(classify(make_digraph(4, {{0, 1}, {2, 3}})).class_name(), "forest");
  EXPECT_EQ(classify(make_digraph(3, {{0, 2}, {1, 2}})).class_name(), "polytree");
  EXPECT_EQ(classify(make_digraph(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}})).class_name(), "dag");
  EXPECT_EQ(classify(make_digraph(3, {{0, 1}, {1, 2}, {2, 1}})).class_name(), "rooted");
  EXPECT_EQ(classify(make_digraph(3, {{0, 1}, {1, 2}, {2, 0}})).class_name(), "connected");
  EXPECT_EQ(classify(make_digraph(4, {{0, 1}, {1, 0}, {2, 3}})).class_name(), "disconnected");
  EXPECT_EQ(classify(make_digraph(1, {})).class_name(), "serial-chain");
}

}  // namespace
}  // namespace skograph

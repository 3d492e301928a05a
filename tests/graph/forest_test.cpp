#include "skograph/graph/forest.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "support/random_graphs.hpp"

namespace skograph {
namespace {

// Brute-force ancestry by walking parent pointers: the definition of part I section 2.
bool brute_is_ancestor(const std::vector<int>& parent, int a, int k) {
  for (int p = parent[k]; p != Forest::kNone; p = parent[p])
    if (p == a) return true;
  return false;
}

TEST(Forest, PostOrderIsStrictlyCanonicalAndAncestryMatchesDefinition) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 40);
    const std::vector<int> parent = testing_support::random_forest_parents(n, rng, trial % 3 + 1);
    const Forest f(parent);
    ASSERT_EQ(f.size(), n);
    for (int k = 0; k < n; ++k) {
      if (parent[k] != Forest::kNone) {
        EXPECT_GT(f.post_index(parent[k]), f.post_index(k));  // canonical
      }
      for (int a = 0; a < n; ++a) {
        EXPECT_EQ(f.is_ancestor(a, k), brute_is_ancestor(parent, a, k));
      }
    }
    // Each segment is a run of consecutive post-order positions, tip first, each inner node with
    // exactly one child, and maximal.
    for (int s = 0; s < f.segment_count(); ++s) {
      const auto nodes = f.segment_nodes_tip_first(s);
      for (size_t i = 0; i + 1 < nodes.size(); ++i) {
        EXPECT_EQ(parent[nodes[i]], nodes[i + 1]);
        EXPECT_EQ(f.child_count(nodes[i + 1]), 1);
      }
      const int base = nodes.back();
      EXPECT_TRUE(parent[base] == Forest::kNone || f.child_count(parent[base]) != 1);
      EXPECT_NE(f.child_count(nodes.front()), 1);
      if (f.segment_parent(s) != Forest::kNone) {
        EXPECT_GT(f.segment_parent(s), s);
      }
    }
  }
}

TEST(Forest, ClosestCommonAncestorMatchesBruteForce) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 30);
    const std::vector<int> parent = testing_support::random_forest_parents(n, rng, 2);
    const Forest f(parent);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        int best = Forest::kNone;
        for (int a = 0; a < n; ++a) {
          const bool common = (a == i || brute_is_ancestor(parent, a, i)) &&
                              (a == j || brute_is_ancestor(parent, a, j));
          if (common && (best == Forest::kNone || f.depth(a) > f.depth(best))) best = a;
        }
        EXPECT_EQ(f.closest_common_ancestor(i, j), best);
      }
  }
}

TEST(Forest, RejectsCyclesAndBadParents) {
  EXPECT_THROW(Forest({1, 0}), std::invalid_argument);
  EXPECT_THROW(Forest({-1, 5}), std::invalid_argument);
  EXPECT_THROW(Forest({-1, 2, 3, 1}), std::invalid_argument);
}

TEST(Forest, DeepChainDoesNotOverflowTheStack) {
  const int n = 1'000'000;
  std::vector<int> parent(n);
  for (int k = 0; k < n; ++k) parent[k] = k - 1;  // node 0 is the base
  const Forest f(parent);
  EXPECT_EQ(f.segment_count(), 1);
  EXPECT_EQ(f.depth(n - 1), n - 1);
  EXPECT_EQ(f.post_index(0), n - 1);
}

}  // namespace
}  // namespace skograph

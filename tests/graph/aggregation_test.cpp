#include "skograph/graph/aggregation_subgraphs.hpp"

#include <gtest/gtest.h>

#include <set>

#include "skograph/graph/analysis.hpp"
#include "support/brute_force_digraph.hpp"
#include "support/random_graphs.hpp"

namespace skograph {
namespace {

// Brute force from the definition: the minimal sub-graph of (u, v) is every node that is a
// descendant-or-self of the closest common ancestor c and an ancestor-or-self of u or of v, minus
// c; sets that share a node are merged until none do.
std::vector<std::set<int>> brute_aggregates(const Forest& f, const std::vector<Edge>& cuts) {
  auto up = [&](int k) {
    std::set<int> s;
    for (; k != Forest::kNone; k = f.parent(k)) s.insert(k);
    return s;
  };
  std::vector<std::set<int>> sets;
  for (auto [u, v] : cuts) {
    const std::set<int> au = up(u), av = up(v);
    int c = Forest::kNone;  // deepest common element
    for (int a : au)
      if (av.count(a) && (c == Forest::kNone || f.depth(a) > f.depth(c))) c = a;
    std::set<int> s;
    for (int a : au)
      if (a != c && f.is_ancestor(c, a)) s.insert(a);
    for (int a : av)
      if (a != c && f.is_ancestor(c, a)) s.insert(a);
    sets.push_back(s);
  }
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < sets.size() && !merged; ++i)
      for (size_t j = i + 1; j < sets.size() && !merged; ++j) {
        std::vector<int> common;
        std::set_intersection(sets[i].begin(), sets[i].end(), sets[j].begin(), sets[j].end(),
                              std::back_inserter(common));
        if (!common.empty()) {
          sets[i].insert(sets[j].begin(), sets[j].end());
          sets.erase(sets.begin() + static_cast<long>(j));
          merged = true;
        }
      }
  }
  return sets;
}

TEST(AggregationSubgraphs, MinimalMergedAndSatisfyTheAggregationCondition) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 1500; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 20);
    const Forest f(
        testing_support::random_forest_parents(n, rng, 1));  // one root: like a spanning tree
    std::vector<Edge> cuts;
    const int cut_count = 1 + static_cast<int>(rng() % 3);
    while (static_cast<int>(cuts.size()) < cut_count) {
      const int u = static_cast<int>(rng() % n), v = static_cast<int>(rng() % n);
      if (u != v && f.parent(v) != u) cuts.emplace_back(u, v);
    }
    const auto aggregates = aggregation_subgraphs(f, cuts);
    auto expected = brute_aggregates(f, cuts);
    std::vector<std::set<int>> got;
    size_t cuts_listed = 0;
    for (const auto& a : aggregates) {
      got.emplace_back(a.nodes.begin(), a.nodes.end());
      EXPECT_EQ(got.back().size(), a.nodes.size());
      EXPECT_TRUE(satisfies_aggregation_condition(f, a.nodes));
      // The one outside parent, and both ends of each cut edge are inside or are that parent.
      for (int k : a.nodes) EXPECT_TRUE(got.back().count(f.parent(k)) || f.parent(k) == a.parent);
      for (auto [u, v] : a.cut_edges) {
        EXPECT_TRUE(got.back().count(u) || u == a.parent);
        EXPECT_TRUE(got.back().count(v) || v == a.parent);
      }
      cuts_listed += a.cut_edges.size();
      // Base first.
      for (size_t i = 1; i < a.nodes.size(); ++i)
        EXPECT_GT(f.post_index(a.nodes[i - 1]), f.post_index(a.nodes[i]));
    }
    EXPECT_EQ(cuts_listed, cuts.size());
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(got, expected) << trial;

    // The aggregated tree: each aggregate is one node whose parent holds its outside parent.
    const AggregatedTree t = aggregated_tree(f, aggregates);
    int total = 0;
    for (const auto& members : t.members) total += static_cast<int>(members.size());
    EXPECT_EQ(total, n);
    for (int k = 0; k < n; ++k) {
      const int a = t.node_of[k];
      const int p = f.parent(k);
      if (p == Forest::kNone) {
        EXPECT_EQ(t.forest.parent(a), Forest::kNone);
      } else if (t.node_of[p] != a) {
        EXPECT_EQ(t.forest.parent(a), t.node_of[p]);
      }
    }
  }
}

TEST(AggregationSubgraphs, ConditionCheckerRejectsInvalidSubgraphs) {
  // 0 -> 1 -> 2 -> 3, 0 -> 4
  const Forest f({-1, 0, 1, 2, 0});
  EXPECT_TRUE(satisfies_aggregation_condition(f, {1, 2}));
  EXPECT_FALSE(satisfies_aggregation_condition(f, {1, 3}));  // not path-induced (2 missing)
  EXPECT_TRUE(satisfies_aggregation_condition(f, {1, 4}));   // unrelated siblings under 0
  EXPECT_TRUE(satisfies_aggregation_condition(f, {1, 2, 3, 4}));
  EXPECT_FALSE(satisfies_aggregation_condition(f, {2, 4}));  // two outside parents (1 and 0)
  EXPECT_FALSE(satisfies_aggregation_condition(f, {0, 1}));  // contains the root: no parent
}

}  // namespace
}  // namespace skograph

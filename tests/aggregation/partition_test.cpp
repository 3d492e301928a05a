// The aggregation condition (constraint-embedding Assumption 1) and the [C; S; P] partition of
// §2, checked against graph/aggregation_subgraphs.hpp's brute-force test and the definitions.
#include "skograph/aggregation/partition.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

#include "skograph/graph/aggregation_subgraphs.hpp"
#include "support/aggregation_support.hpp"
#include "support/random_graphs.hpp"

namespace skograph {
namespace {

// The forest with the inertial frame added as node n, parent of every base node: a sub-graph of
// the SKO forest hanging from the inertial frame hangs from node n here, so the graph layer's
// brute-force test (which needs a real outside parent) decides the SKO-forest condition.
Forest rooted(const Forest& forest) {
  std::vector<int> parent(forest.parents().begin(), forest.parents().end());
  for (int& p : parent)
    if (p == Forest::kNone) p = forest.size();
  parent.push_back(Forest::kNone);
  return Forest(parent);
}

TEST(AggregationCondition, AgreesWithTheBruteForceTestOnRandomForests) {
  std::mt19937 rng(5);
  int satisfied = 0, failed = 0, inertial = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const int n = 1 + trial % 17;
    const Forest forest(testing_support::random_forest_parents(n, rng, 1 + trial % 3));
    const Forest with_root = rooted(forest);
    std::vector<int> nodes;
    if (trial % 2 == 0) {  // arbitrary node sets: mostly failing
      for (int k = 0; k < n; ++k)
        if (rng() % 3 == 0) nodes.push_back(k);
      if (nodes.empty()) nodes.push_back(static_cast<int>(rng() % n));
    } else {  // grown sub-graphs: mostly satisfying
      nodes = testing_support::random_aggregation_subgraphs(forest, 1, rng, 1 + trial % 7).at(0);
      if (rng() % 4 == 0) nodes.push_back(static_cast<int>(rng() % n));  // maybe break it
      std::sort(nodes.begin(), nodes.end());
      nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    }
    const AggregationCheck check = check_aggregation_condition(forest, nodes);
    const bool expected = satisfies_aggregation_condition(with_root, nodes);
    EXPECT_EQ(check.satisfied, expected) << "trial " << trial;
    EXPECT_EQ(check.reason.empty(), check.satisfied) << check.reason;
    if (check.satisfied) {
      ++satisfied;
      if (partition_tree(forest, nodes).parent == Forest::kNone) ++inertial;
    } else {
      ++failed;
    }
  }
  // Both outcomes and the inertial-frame parent occur often enough to matter.
  EXPECT_GT(satisfied, 150);
  EXPECT_GT(failed, 150);
  EXPECT_GT(inertial, 20);
}

// 1 -> 2 -> 3 and 1 -> 4 (1-based; 0-based parents below), plus a second tree 5 -> 6.
Forest small_forest() {
  return Forest({Forest::kNone, 0, 1, 0, Forest::kNone, 4});
}

TEST(AggregationCondition, ReasonsNameTheOffendingNodesOneBased) {
  const Forest forest = small_forest();
  EXPECT_EQ(check_aggregation_condition(forest, {}).reason, "the sub-graph is empty");
  EXPECT_EQ(check_aggregation_condition(forest, {6}).reason,
            "node 7 is out of range (the tree has 6 nodes)");
  EXPECT_EQ(check_aggregation_condition(forest, {1, 1}).reason,
            "node 2 appears twice in the sub-graph");
  // {1, 3} skips node 2 on the path 1 -> 2 -> 3.
  EXPECT_EQ(check_aggregation_condition(forest, {0, 2}).reason,
            "node 2 lies on the path from node 1 to node 3 but is not in the sub-graph");
  // {3, 4}: parents 2 and 1.
  EXPECT_EQ(check_aggregation_condition(forest, {2, 3}).reason,
            "the sub-graph has 2 parents outside it (nodes 1 and 2); it must have exactly one");
  // {2, 5}: parents node 1 and the inertial frame.
  EXPECT_EQ(check_aggregation_condition(forest, {1, 4}).reason,
            "the sub-graph has 2 parents outside it (the inertial frame and node 1); it must have "
            "exactly one");
  // Two base nodes under the inertial frame: valid.
  EXPECT_TRUE(check_aggregation_condition(forest, {0, 4}).satisfied);
  EXPECT_TRUE(check_aggregation_condition(forest, {1, 3}).satisfied);
}

TEST(PartitionTree, PartsMatchTheirDefinitionsOnRandomForests) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + trial % 23;
    const Forest forest(testing_support::random_forest_parents(n, rng, 1 + trial % 4));
    const std::vector<int> nodes =
        testing_support::random_aggregation_subgraphs(forest, 1, rng, 1 + trial % 8).at(0);
    const TreePartition part = partition_tree(forest, nodes);
    const std::set<int> s(nodes.begin(), nodes.end());
    // S: the same set, parents before children.
    EXPECT_EQ(std::set<int>(part.subgraph.begin(), part.subgraph.end()), s);
    for (size_t i = 0; i < part.subgraph.size(); ++i)
      for (size_t j = i + 1; j < part.subgraph.size(); ++j)
        EXPECT_FALSE(forest.is_ancestor(part.subgraph[j], part.subgraph[i]));
    // p and the bases: the nodes of S whose parent is outside, all with parent p.
    std::vector<int> bases;
    for (const int k : nodes)
      if (!s.count(forest.parent(k))) {
        EXPECT_EQ(forest.parent(k), part.parent);
        bases.push_back(k);
      }
    std::sort(bases.begin(), bases.end());
    EXPECT_EQ(part.bases, bases);
    // C: nodes with an ancestor in S (and not in S); children: those whose parent is in S.
    std::vector<int> child_side, children, parent_side;
    for (int k = 0; k < n; ++k) {
      if (s.count(k)) continue;
      const bool below =
          std::any_of(nodes.begin(), nodes.end(), [&](int j) { return forest.is_ancestor(j, k); });
      (below ? child_side : parent_side).push_back(k);
      if (forest.parent(k) != Forest::kNone && s.count(forest.parent(k))) children.push_back(k);
    }
    EXPECT_EQ(part.child_side, child_side);
    EXPECT_EQ(part.children, children);
    EXPECT_EQ(part.parent_side, parent_side);
    EXPECT_EQ(part.child_side.size() + part.parent_side.size() + part.subgraph.size(),
              static_cast<size_t>(n));
  }
}

TEST(PartitionTree, ThrowsTheReasonForAnInvalidSubgraph) {
  try {
    partition_tree(small_forest(), {0, 2});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "node 2 lies on the path from node 1 to node 3 but is not in the sub-graph");
  }
}

}  // namespace
}  // namespace skograph

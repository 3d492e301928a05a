#include "skograph/graph/numbering.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "support/random_graphs.hpp"

namespace skograph {
namespace {

// Brute-force serial segments from the definition (conventions.md): a node starts a segment when
// it has no parent or its parent does not have exactly one child.
std::vector<std::vector<int>> brute_segments(const std::vector<int>& parent) {
  const int n = static_cast<int>(parent.size());
  std::vector<int> children(n, 0);
  for (int k = 0; k < n; ++k)
    if (parent[k] >= 0) ++children[parent[k]];
  std::vector<std::vector<int>> segments;
  for (int k = 0; k < n; ++k) {
    if (parent[k] >= 0 && children[parent[k]] == 1) continue;
    std::vector<int> segment{k};
    int v = k;
    while (children[v] == 1) {
      int child = -1;
      for (int c = 0; c < n; ++c)
        if (parent[c] == v) child = c;
      v = child;
      segment.push_back(v);
    }
    segments.push_back(segment);
  }
  return segments;
}

TEST(Numbering, CanonicalAndStrictlyCanonicalOnRandomForests) {
  std::mt19937 rng(5);
  int not_strict = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 25);
    const std::vector<int> parent = testing_support::random_forest_parents(n, rng, 1 + trial % 3);
    const Forest f(parent);
    const Permutation canonical = canonical_numbering(f);
    const Permutation strict = strictly_canonical_numbering(f);
    ASSERT_TRUE(is_permutation(canonical));
    ASSERT_TRUE(is_permutation(strict));
    for (int k = 0; k < n; ++k) {
      if (parent[k] < 0) continue;
      EXPECT_GT(canonical[parent[k]], canonical[k]);  // definition of canonical
      EXPECT_GT(strict[parent[k]], strict[k]);
    }
    // Strictly canonical: each brute-force segment occupies consecutive numbers, base highest.
    const auto segments = brute_segments(parent);
    EXPECT_EQ(static_cast<int>(segments.size()), f.segment_count());
    for (const auto& segment : segments)
      for (size_t i = 1; i < segment.size(); ++i)
        EXPECT_EQ(strict[segment[i - 1]], strict[segment[i]] + 1);
    EXPECT_TRUE(is_canonical(f, canonical));
    EXPECT_TRUE(is_strictly_canonical(f, strict));
    if (!is_strictly_canonical(f, canonical)) ++not_strict;
    // The renumbered adjacency matrix is T S T* (part I section 3.1) and strictly lower triangular
    // for a canonical numbering (section 3.2, property 4).
    const Eigen::MatrixXd t = Eigen::MatrixXd(permutation_matrix(canonical));
    const Eigen::MatrixXd s = Eigen::MatrixXd(adjacency_matrix(f));
    const Eigen::MatrixXd renumbered = Eigen::MatrixXd(adjacency_matrix(renumber(f, canonical)));
    EXPECT_EQ((t * s * t.transpose() - renumbered).norm(), 0.0);
    EXPECT_EQ(renumbered.triangularView<Eigen::Upper>().toDenseMatrix().norm(), 0.0);
    EXPECT_EQ((t * t.transpose() - Eigen::MatrixXd::Identity(n, n)).norm(), 0.0);  // orthogonal
  }
  EXPECT_GT(not_strict, 100);  // the level numbering really is a different, weaker numbering
}

TEST(Numbering, RejectsWhatIsNotCanonical) {
  const Forest f({-1, 0, 1});  // chain 1 -> 2 -> 3 (node 0 is the base)
  EXPECT_FALSE(is_canonical(f, {0, 1, 2}));
  EXPECT_TRUE(is_canonical(f, {2, 1, 0}));
  EXPECT_FALSE(is_canonical(f, {2, 2, 0}));
  const Forest branched({-1, 0, 0, 1});  // base 0 with children 1 (-> 3) and 2
  EXPECT_TRUE(is_canonical(branched, {3, 2, 1, 0}));
  EXPECT_FALSE(is_strictly_canonical(branched, {3, 2, 1, 0}));  // segment {1, 3} is not consecutive
  EXPECT_TRUE(is_strictly_canonical(branched, {3, 2, 0, 1}));
}

}  // namespace
}  // namespace skograph

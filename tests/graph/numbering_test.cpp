#include "skograph/graph/numbering.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <stdexcept>

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

// Part I Eq. 2 for any digraph: S(i, j) = 1 exactly when j is a child of i (parallel edges one
// entry), checked entry by entry on random digraphs with several parents, cycles and self-loops;
// nilpotent (S^n = 0) exactly when the digraph has no directed cycle (part I section 3.1); on a
// forest the same matrix as the forest's adjacency_matrix (Eq. 7).
TEST(DigraphAdjacency, IsEq2OnAnyDigraphAndNilpotentExactlyWithoutCycles) {
  std::mt19937 rng(71);
  for (int trial = 0; trial < 60; ++trial) {
    Digraph g;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int v = 0; v < n; ++v) g.add_node("n" + std::to_string(v));
    const bool acyclic = trial % 2 == 0;
    Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(n, n);
    const int edges = static_cast<int>(rng() % static_cast<unsigned>(2 * n + 1));
    for (int e = 0; e < edges; ++e) {
      int from = static_cast<int>(rng() % static_cast<unsigned>(n));
      int to = static_cast<int>(rng() % static_cast<unsigned>(n));
      if (acyclic) {
        if (from == to) continue;
        if (from > to) std::swap(from, to);  // edges up the index order: no directed cycle
      }
      g.add_edge(from, to);
      expected(from, to) = 1.0;
    }
    const Eigen::MatrixXd s = Eigen::MatrixXd(adjacency_matrix(g));
    EXPECT_EQ(s, expected) << "trial " << trial;
    Eigen::MatrixXd power = Eigen::MatrixXd::Identity(n, n);
    for (int k = 0; k < n; ++k) power = power * s;
    // A directed cycle keeps a nonzero entry in every power; without one S^n = 0.
    bool cycle = false;
    {
      Eigen::MatrixXd reach = s;
      for (int k = 0; k < n; ++k) reach = (reach + reach * s).cwiseMin(1.0);
      cycle = reach.diagonal().maxCoeff() > 0.0;
    }
    EXPECT_EQ(power.isZero(0.0), !cycle) << "trial " << trial;
    if (acyclic) {
      EXPECT_FALSE(cycle);
    }
  }
  // A forest read as a digraph: the same matrix as the Forest overload.
  Digraph tree;
  for (int v = 0; v < 6; ++v) tree.add_node("t" + std::to_string(v));
  const std::vector<int> parent = {-1, 0, 0, 1, 1, 2};
  for (int v = 1; v < 6; ++v) tree.add_edge(parent[static_cast<std::size_t>(v)], v);
  EXPECT_EQ(Eigen::MatrixXd(adjacency_matrix(tree)),
            Eigen::MatrixXd(adjacency_matrix(Forest(parent))));
}

// Part I Eq. 12: block (i, j) of the BWA matrix is the weight of the edge i -> j, zero elsewhere;
// with 1 x 1 unit weights it is the adjacency matrix.
TEST(DigraphAdjacency, BwaMatrixIsEq12) {
  Digraph g;
  for (int v = 0; v < 4; ++v) g.add_node("n" + std::to_string(v));
  for (const auto& [from, to] :
       std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {3, 1}, {0, 3}})
    g.add_edge(from, to);
  const std::vector<int> dims = {1, 3, 2, 4};
  std::vector<Eigen::MatrixXd> weights;
  for (const auto& [from, to] : g.edges())
    weights.push_back(Eigen::MatrixXd::Random(dims[static_cast<std::size_t>(from)],
                                              dims[static_cast<std::size_t>(to)]));
  const Eigen::MatrixXd bwa = Eigen::MatrixXd(bwa_matrix(g, dims, weights));
  const std::vector<int> offset = {0, 1, 4, 6, 10};
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(10, 10);
  for (std::size_t e = 0; e < weights.size(); ++e) {
    const auto [from, to] = g.edges()[e];
    expected.block(offset[static_cast<std::size_t>(from)], offset[static_cast<std::size_t>(to)],
                   dims[static_cast<std::size_t>(from)], dims[static_cast<std::size_t>(to)]) =
        weights[e];
  }
  EXPECT_EQ(bwa, expected);
  const std::vector<Eigen::MatrixXd> ones(g.edges().size(), Eigen::MatrixXd::Ones(1, 1));
  EXPECT_EQ(Eigen::MatrixXd(bwa_matrix(g, std::vector<int>(4, 1), ones)),
            Eigen::MatrixXd(adjacency_matrix(g)));
  weights.pop_back();
  EXPECT_THROW(bwa_matrix(g, dims, weights), std::invalid_argument);
}

}  // namespace
}  // namespace skograph

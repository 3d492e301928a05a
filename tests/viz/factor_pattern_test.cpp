// The factor L of M and its fill, against the elimination game on a dense boolean matrix (the
// definition of symbolic Cholesky: eliminating k joins every pair of its later neighbours).
#include "skograph/viz/factor_pattern.hpp"

#include <gtest/gtest.h>

#include <random>
#include "support/random_graphs.hpp"

namespace skograph::viz {
namespace {

using skograph::testing_support::random_tree_digraph;

// Lower-triangular boolean pattern of L for eliminating the rows of `mass` in `order`
// (order[k] = row of M eliminated k-th), in elimination positions.
std::vector<std::vector<bool>> elimination_game(const SparsityPattern& mass,
                                                const std::vector<int>& order) {
  const int n = mass.rows;
  std::vector<int> position(n);
  for (int k = 0; k < n; ++k) position[order[k]] = k;
  std::vector<std::vector<bool>> a(n, std::vector<bool>(n, false));
  for (int c = 0; c < n; ++c)
    for (int e = mass.column_start[c]; e < mass.column_start[c + 1]; ++e)
      a[position[mass.row_index[e]]][position[c]] = true;
  for (int k = 0; k < n; ++k)
    for (int i = k + 1; i < n; ++i)
      for (int j = k + 1; j < n; ++j)
        if (a[i][k] && a[j][k]) a[i][j] = true;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) a[i][j] = false;
  return a;
}

void expect_factor_is(const SparsityPattern& factor, const std::vector<std::vector<bool>>& game) {
  const int n = static_cast<int>(game.size());
  ASSERT_EQ(factor.rows, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) EXPECT_EQ(factor.contains(i, j), game[i][j]) << i << "," << j;
}

// Part II section 7.4 / pitfalls.md: with the canonical numbering L has exactly the pattern of
// tril(M) (no fill); the root-first numbering fills as the elimination game says.
TEST(FactorPattern, CanonicalHasNoFillAndRootFirstFillsAsTheEliminationGameSays) {
  std::mt19937 random(3);
  for (int trial = 0; trial < 30; ++trial) {
    const Digraph graph = random_tree_digraph(2 + trial, random);
    std::vector<int> hinge_dims(graph.node_count());
    for (int& r : hinge_dims) r = std::uniform_int_distribution<int>(0, 3)(random);
    const SkoTopology topology = sko_topology(graph, analyze(graph), {}, hinge_dims);
    const SparsityPattern mass = matrix_pattern(topology, MatrixKind::kMass);
    const int n = mass.rows;
    std::vector<int> identity(n), reversed(n);
    for (int k = 0; k < n; ++k) identity[k] = k, reversed[k] = n - 1 - k;

    const MatrixPicture canonical = factor_picture(topology, "canonical");
    expect_factor_is(canonical.pattern, elimination_game(mass, identity));
    EXPECT_EQ(canonical.pattern.nonzeros(), lower_triangle(mass).nonzeros());
    EXPECT_EQ(canonical.fill->nonzeros(), 0);
    EXPECT_EQ(canonical.boundaries, segment_boundaries(topology.forest, topology.hinge_layout));

    const MatrixPicture root_first = factor_picture(topology, "root-first");
    const auto game = elimination_game(mass, reversed);
    expect_factor_is(root_first.pattern, game);
    EXPECT_TRUE(root_first.boundaries.empty());
    // Fill: entries of L that tril(P M P*) lacks (P reverses the rows).
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j)
        EXPECT_EQ(root_first.fill->contains(i, j),
                  game[i][j] && !mass.contains(n - 1 - i, n - 1 - j));
  }
}

TEST(FactorPattern, OrderingTableAgreesWithThePictures) {
  std::mt19937 random(5);
  const Digraph graph = random_tree_digraph(60, random);
  const SkoTopology topology = sko_topology(graph, analyze(graph));
  const std::vector<FactorFill> table = factor_fill_by_ordering(topology);
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table[0].ordering, "canonical");
  EXPECT_EQ(table[0].fill, 0);
  for (const FactorFill& row : table) {
    if (!row.available) continue;  // METIS may be missing from CHOLMOD
    EXPECT_GE(row.fill, 0);
    if (row.ordering == "metis") continue;
    const MatrixPicture picture = factor_picture(topology, row.ordering);
    EXPECT_EQ(picture.pattern.nonzeros(), row.nonzeros) << row.ordering;
    EXPECT_EQ(picture.fill->nonzeros(), row.fill) << row.ordering;
    // Every fill entry is an entry of L.
    for (int c = 0; c < picture.fill->cols; ++c)
      for (int e = picture.fill->column_start[c]; e < picture.fill->column_start[c + 1]; ++e)
        EXPECT_TRUE(picture.pattern.contains(picture.fill->row_index[e], c));
  }
  EXPECT_THROW(factor_picture(topology, "natural"), std::invalid_argument);
}

// A root-first L of a branched 3 * 10^4-node tree has more than 10^8 nonzeros (a random recursive
// tree's root-first L is dense where the root's branches meet: 3.5 * 10^7 at 10^4 nodes, growing as
// n^2): refused from the analysis' counts with
// the count in the message, before any pattern is built; the canonical L of the same tree is
// drawn and has no fill.
TEST(FactorPattern, FactorsTooBigToDrawAreRefusedWithTheirSize) {
  std::mt19937 random(11);
  const Digraph graph = random_tree_digraph(30000, random);
  const SkoTopology topology = sko_topology(graph, analyze(graph));
  try {
    factor_picture(topology, "root-first");
    ADD_FAILURE() << "a root-first L of a 3 * 10^4-node tree was drawn";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("root-first ordering would have"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(kMaxFactorPictureNonzeros)), std::string::npos);
  }
  const std::vector<FactorFill> table = factor_fill_by_ordering(topology);
  EXPECT_GT(table[1].nonzeros, kMaxFactorPictureNonzeros);  // the table still counts it
  const MatrixPicture canonical = factor_picture(topology, "canonical");
  EXPECT_EQ(canonical.fill->nonzeros(), 0);
  EXPECT_EQ(canonical.pattern.nonzeros(), table[0].nonzeros);
}

}  // namespace
}  // namespace skograph::viz

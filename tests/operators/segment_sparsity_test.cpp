// Sparsity structure by serial segments (part II section 7) against the nonzero patterns of the
// dense E_A, A = (I - E_A)^-1 and M = H A M A* H* of random models (nothing cancels with random
// weights), and the tree of part II Fig. 3-6 / Eq. 61-63.
#include "skograph/operators/segment_sparsity.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::block_pattern;

// Entries below this fraction of the largest entry are rounding noise of the dense LU inverse.
constexpr double kNoise = 1e-11;

double noise_level(const Eigen::MatrixXd& dense) {
  return dense.size() == 0 ? 0.0 : kNoise * std::max(1.0, dense.cwiseAbs().maxCoeff());
}

void expect_node_pattern(const SparsityPattern& pattern, const Eigen::MatrixXd& dense,
                         const BlockLayout& layout, const char* what) {
  const std::vector<std::string> blocks = block_pattern(dense, layout, layout, noise_level(dense));
  ASSERT_EQ(pattern.rows, layout.count());
  ASSERT_EQ(pattern.cols, layout.count());
  for (int i = 0; i < layout.count(); ++i)
    for (int j = 0; j < layout.count(); ++j) {
      const bool empty = layout.dim(i) == 0 || layout.dim(j) == 0;
      if (!empty) {
        EXPECT_EQ(pattern.contains(i, j), blocks[i][j] == 'X')
            << what << " block " << i << "," << j;
      } else {
        EXPECT_EQ(blocks[i][j], '.');
      }
    }
}

void expect_scalar_pattern(const SparsityPattern& pattern, const Eigen::MatrixXd& dense,
                           const char* what) {
  ASSERT_EQ(pattern.rows, dense.rows());
  ASSERT_EQ(pattern.cols, dense.cols());
  const double noise = noise_level(dense);
  int nonzeros = 0;
  for (int c = 0; c < dense.cols(); ++c)
    for (int r = 0; r < dense.rows(); ++r) {
      const bool nonzero = std::abs(dense(r, c)) > noise;
      nonzeros += nonzero;
      EXPECT_EQ(pattern.contains(r, c), nonzero) << what << " entry " << r << "," << c;
    }
  EXPECT_EQ(pattern.nonzeros(), nonzeros) << what;
}

// The segment kinds against the node-block zero patterns: `blocks` is the node-level pattern of
// the dense matrix ('X' nonzero), `empty` tells which node blocks have no entries.
void expect_segment_kinds(const Forest& forest, const std::vector<std::string>& blocks,
                          const BlockLayout& layout, char which) {
  for (int si = 0; si < forest.segment_count(); ++si)
    for (int sj = 0; sj < forest.segment_count(); ++sj) {
      const SegmentBlock kind = which == 'E'   ? kernel_segment_block(forest, si, sj)
                                : which == 'A' ? resolvent_segment_block(forest, si, sj)
                                               : mass_segment_block(forest, si, sj);
      for (const int i : forest.segment_nodes_tip_first(si))
        for (const int j : forest.segment_nodes_tip_first(sj)) {
          if (layout.dim(i) == 0 || layout.dim(j) == 0) continue;
          bool expected = false;
          switch (kind) {
            case SegmentBlock::kZero:
              expected = false;
              break;
            case SegmentBlock::kConnector:  // Eq. 62: tip of the parent segment, base of the child
              expected = i == forest.segment_tip(si) && j == forest.segment_base(sj);
              break;
            case SegmentBlock::kSegment:
              expected = which == 'E'   ? forest.parent(j) == i
                         : which == 'A' ? forest.is_ancestor_or_self(i, j)
                                        : true;
              break;
            case SegmentBlock::kRelated:
              expected = true;
              break;
          }
          EXPECT_EQ(blocks[i][j] == 'X', expected)
              << which << " segments " << si << "," << sj << " nodes " << i << "," << j;
        }
    }
}

struct Dense {
  Eigen::MatrixXd e, a, m;
};

void check_model(const SkoModel& model) {
  const Forest& forest = model.forest();
  const SkoStructure& s = model.structure();
  const Dense d{testing_support::dense_kernel(model), testing_support::dense_resolvent(model),
                testing_support::dense_mass_matrix(model)};
  expect_node_pattern(kernel_node_pattern(forest), d.e, s.node, "E");
  expect_node_pattern(resolvent_node_pattern(forest), d.a, s.node, "A");
  expect_node_pattern(mass_node_pattern(forest), d.m, s.hinge, "M");
  expect_scalar_pattern(kernel_scalar_pattern(forest, s.node), d.e, "E");
  expect_scalar_pattern(resolvent_scalar_pattern(forest, s.node), d.a, "A");
  expect_scalar_pattern(mass_scalar_pattern(forest, s.hinge), d.m, "M");
  expect_segment_kinds(forest, block_pattern(d.e, s.node, s.node, noise_level(d.e)), s.node, 'E');
  expect_segment_kinds(forest, block_pattern(d.a, s.node, s.node, noise_level(d.a)), s.node, 'A');
  expect_segment_kinds(forest, block_pattern(d.m, s.hinge, s.hinge, noise_level(d.m)), s.hinge,
                       'M');
  const SegmentSparsity table = segment_sparsity(forest);
  ASSERT_EQ(table.segment_count, forest.segment_count());
  for (int i = 0; i < table.segment_count; ++i)
    for (int j = 0; j < table.segment_count; ++j) {
      EXPECT_EQ(table.kernel_block(i, j), kernel_segment_block(forest, i, j));
      EXPECT_EQ(table.resolvent_block(i, j), resolvent_segment_block(forest, i, j));
      EXPECT_EQ(table.mass_block(i, j), mass_segment_block(forest, i, j));
    }
}

TEST(SegmentSparsity, PatternsAreTheNonzerosOfTheDenseReferences) {
  std::mt19937 rng(51);
  const int sizes[][2] = {{1, 1}, {2, 1}, {7, 2}, {15, 1}, {25, 3}, {40, 1}, {60, 5}, {80, 2}};
  for (int seed = 0; seed < 3; ++seed)
    for (const auto& size : sizes) {
      testing_support::RandomSkoOptions options;
      options.nodes = size[0];
      options.trees = size[1];
      options.max_dim = size[0] > 40 ? 5 : 9;
      check_model(testing_support::random_sko_model(options, rng));
    }
}

char kind_char(SegmentBlock kind) {
  switch (kind) {
    case SegmentBlock::kZero:
      return '.';
    case SegmentBlock::kSegment:
      return 'S';
    case SegmentBlock::kConnector:
      return 'C';
    case SegmentBlock::kRelated:
      return 'R';
  }
  return '?';
}

// Part II Fig. 3: five serial segments, segment 4 the parent of 1 and 2, segment 5 the parent of
// 3 and 4, numbered canonically by segment (1: nodes 1-3, 2: 4-5, 3: 6-8, 4: 9-10, 5: 11-13).
TEST(SegmentSparsity, TreeOfPartTwoFigure3) {
  const std::vector<int> parent = {1, 2, 8, 4, 8, 6, 7, 10, 9, 10, 11, 12, Forest::kNone};
  const Forest forest(parent);
  ASSERT_EQ(forest.segment_count(), 5);
  const int paper_tip[5] = {0, 3, 5, 8, 10};  // the tip node of paper segment 1..5
  int segment[5];
  for (int p = 0; p < 5; ++p) segment[p] = forest.segment_of(paper_tip[p]);
  auto table = [&](SegmentBlock (*kind)(const Forest&, int, int)) {
    std::vector<std::string> rows(5, std::string(5, ' '));
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) rows[i][j] = kind_char(kind(forest, segment[i], segment[j]));
    return rows;
  };
  // Eq. 61-62: segment SKOs on the diagonal, connectors E_A(4,1), E_A(4,2), E_A(5,3), E_A(5,4).
  EXPECT_EQ(table(kernel_segment_block),
            (std::vector<std::string>{"S....", ".S...", "..S..", "CC.S.", "..CCS"}));
  // Eq. 63: A(4,1), A(4,2) and A(5,1..4) are the non-zero connector blocks.
  EXPECT_EQ(table(resolvent_segment_block),
            (std::vector<std::string>{"S....", ".S...", "..S..", "RR.S.", "RRRRS"}));
  // Section 7.4 / Fig. 6: dense diagonal blocks, related segment pairs in both triangles.
  EXPECT_EQ(table(mass_segment_block),
            (std::vector<std::string>{"S..RR", ".S.RR", "..S.R", "RR.SR", "RRRRS"}));

  // And the patterns of a model on this tree against the dense references.
  std::mt19937 rng(52);
  for (int trial = 0; trial < 3; ++trial) {
    const auto structure = testing_support::random_structure(parent, rng, 6);
    SkoModel model(structure);
    model.kernel() = testing_support::random_kernel(structure, rng);
    for (int k = 0; k < model.size(); ++k) {
      const int r = model.hinge_dim(k), m = model.node_dim(k);
      Eigen::HouseholderQR<Eigen::MatrixXd> qr(testing_support::random_matrix(m, m, rng));
      model.hinge_map(k) = Eigen::MatrixXd(qr.householderQ()).topRows(r);
      model.inertia(k) = testing_support::random_spd(m, rng);
    }
    check_model(model);
  }
}

TEST(SegmentSparsity, RejectsALayoutOfAnotherSize) {
  const Forest forest({1, Forest::kNone});
  EXPECT_THROW(kernel_scalar_pattern(forest, BlockLayout({1, 2, 3})), std::invalid_argument);
}

}  // namespace
}  // namespace skograph

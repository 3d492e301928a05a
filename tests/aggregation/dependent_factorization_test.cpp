#include "skograph/aggregation/dependent_factorization.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "skograph/aggregation/constraint_embedding.hpp"
#include "support/allocation_counter.hpp"

namespace skograph {
namespace {

// A constraint matrix whose dependent columns split into `blocks` groups of rows (each block
// square or tall), with rows no dependent column touches and independent columns dense over all
// rows; rows and columns shuffled so that no block is contiguous.
struct BlockCase {
  Eigen::MatrixXd Q;
  std::vector<int> dependent, independent;
  int blocks = 0;
};

// The case's split as a selection of full rank.
CoordinateSelection selection_of(const BlockCase& c) {
  CoordinateSelection selection;
  selection.dependent = c.dependent;
  selection.independent = c.independent;
  selection.rank = static_cast<int>(c.dependent.size());
  return selection;
}

// Q with normal noise of scale `size` on Y1's nonzero entries (its pattern kept).
Eigen::MatrixXd perturbed(const BlockCase& c, double size, std::mt19937& rng,
                          std::normal_distribution<double>& normal) {
  Eigen::MatrixXd changed = c.Q;
  for (const int j : c.dependent)
    for (Eigen::Index i = 0; i < changed.rows(); ++i)
      if (changed(i, j) != 0.0) changed(i, j) += size * normal(rng);
  return changed;
}

// 0 .. count - 1 in random order.
std::vector<int> shuffled_order(int count, std::mt19937& rng) {
  std::vector<int> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

// Sorts the dependent columns and fills the columns of column_order from position `dependent` on
// as independent ones in range(Y1), as a constraint matrix's are (rank of Q = rank of Y1).
void add_independent_columns(BlockCase& c, const std::vector<int>& column_order, int dependent,
                             std::mt19937& rng, std::normal_distribution<double>& normal) {
  std::sort(c.dependent.begin(), c.dependent.end());
  const Eigen::MatrixXd y1 = c.Q(Eigen::all, c.dependent);
  for (std::size_t j = static_cast<std::size_t>(dependent); j < column_order.size(); ++j) {
    const int k = column_order[j];
    c.independent.push_back(k);
    Eigen::VectorXd weights(y1.cols());
    for (Eigen::Index i = 0; i < weights.size(); ++i) weights(i) = normal(rng);
    c.Q.col(k) = y1 * weights;
  }
  std::sort(c.independent.begin(), c.independent.end());
}

BlockCase random_block_case(std::mt19937& rng) {
  std::uniform_int_distribution<int> block_count(1, 5), block_size(1, 4), extra(0, 1),
      free_columns(0, 4);
  std::normal_distribution<double> normal;
  BlockCase c;
  c.blocks = block_count(rng);
  std::vector<std::pair<int, int>> shapes;  // rows, columns per block
  int rows = 0, dependent = 0;
  for (int b = 0; b < c.blocks; ++b) {
    const int columns = block_size(rng);
    shapes.emplace_back(columns + extra(rng), columns);
    rows += shapes.back().first;
    dependent += columns;
  }
  const int empty_rows = extra(rng), independent = free_columns(rng);
  rows += empty_rows;
  const int columns = dependent + independent;
  const std::vector<int> row_order = shuffled_order(rows, rng);
  const std::vector<int> column_order = shuffled_order(columns, rng);
  c.Q.setZero(rows, columns);
  int row = 0, column = 0;
  for (const auto& [block_rows, block_columns] : shapes) {
    for (int i = 0; i < block_rows; ++i)
      for (int j = 0; j < block_columns; ++j)
        c.Q(row_order[static_cast<std::size_t>(row + i)],
            column_order[static_cast<std::size_t>(column + j)]) = normal(rng);
    for (int j = 0; j < block_columns; ++j)
      c.dependent.push_back(column_order[static_cast<std::size_t>(column + j)]);
    row += block_rows;
    column += block_columns;
  }
  add_independent_columns(c, column_order, dependent, rng, normal);
  return c;
}

// A bordered (block-angular) Y1 inside one connected block, as a parallel robot's with its
// actuators independent: groups of rows (legs) each with their own sparse columns, and shared
// columns (the platform's) over the rows of several groups; extra zeros inside the groups; rows
// and columns shuffled. Full column rank generically: each group has at least one row more than
// its own columns, and there are no more shared columns than groups.
BlockCase random_bordered_case(std::mt19937& rng) {
  std::uniform_int_distribution<int> group_count(2, 6), group_columns(1, 5), extra(1, 2);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> normal;
  const int groups = group_count(rng);
  const int shared = std::uniform_int_distribution<int>(1, groups)(rng);
  std::vector<std::pair<int, int>> shapes;
  int rows = 0, own = 0;
  for (int g = 0; g < groups; ++g) {
    const int columns = group_columns(rng);
    shapes.emplace_back(columns + extra(rng), columns);
    rows += shapes.back().first;
    own += columns;
  }
  const int dependent = own + shared, independent = std::uniform_int_distribution<int>(0, 4)(rng);
  const int columns = dependent + independent;
  const std::vector<int> row_order = shuffled_order(rows, rng);
  const std::vector<int> column_order = shuffled_order(columns, rng);
  BlockCase c;
  c.blocks = 1;
  c.Q.setZero(rows, columns);
  auto at = [&](int i, int j) -> double& {
    return c.Q(row_order[static_cast<std::size_t>(i)], column_order[static_cast<std::size_t>(j)]);
  };
  int row = 0, column = 0;
  for (const auto& [group_rows, columns_of_group] : shapes) {
    for (int j = 0; j < columns_of_group; ++j)
      for (int i = 0; i < group_rows; ++i)
        if (i == j || uniform(rng) < 0.7) at(row + i, column + j) = normal(rng);
    // Every group reaches at least one shared column; each shared column reaches every group
    // with probability 0.8 (and the first group always, so that the block is connected).
    for (int k = 0; k < shared; ++k)
      if (k == (row % shared) || row == 0 || uniform(rng) < 0.8)
        for (int i = 0; i < group_rows; ++i)
          if (uniform(rng) < 0.8) at(row + i, own + k) = normal(rng);
    row += group_rows;
    column += columns_of_group;
  }
  for (int j = 0; j < dependent; ++j)
    c.dependent.push_back(column_order[static_cast<std::size_t>(j)]);
  add_independent_columns(c, column_order, dependent, rng, normal);
  return c;
}

// The sparse elimination inside a block against dense references on bordered patterns: the
// solves against one dense least-squares solve, the least-norm transposed solve against the
// complete orthogonal decomposition, |R^-1|_F against the dense R's inverse (column order does not
// change it: |R^-1|_F = |Y1^+|_F), and the conditioning check against the SVD, also at thresholds
// just below the conditioning (decided by the Cholesky certificate). The same object is reused
// across patterns, and new values on a kept elimination solve as their own dense QR does.
TEST(DependentFactorization, SparseEliminationInsideABlockEqualsTheDenseSolve) {
  std::mt19937 rng(2027);
  std::normal_distribution<double> normal;
  DependentFactorization y1;
  int certified = 0, single = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const BlockCase c = random_bordered_case(rng);
    const Eigen::MatrixXd dense = c.Q(Eigen::all, c.dependent);
    const auto r = static_cast<Eigen::Index>(c.dependent.size());
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(dense);
    const double conditioning = svd.singularValues()(r - 1) / svd.singularValues()(0);
    ASSERT_GT(conditioning, 1e-10) << "trial " << trial;  // the generator's full column rank
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(dense);
    y1.compute(c.Q, c.dependent);
    single += y1.block_count() == 1;
    const double scale = 1.0 / conditioning;
    if (!c.independent.empty()) {
      Eigen::MatrixXd x(r, static_cast<Eigen::Index>(c.independent.size()));
      y1.solve_columns(c.Q, c.independent, x);
      const Eigen::MatrixXd expected = qr.solve(c.Q(Eigen::all, c.independent));
      EXPECT_LT((x - expected).cwiseAbs().maxCoeff(), 1e-12 * scale * (1.0 + expected.norm()))
          << "trial " << trial;
    }
    const Eigen::VectorXd b =
        dense * Eigen::VectorXd::Random(r) + Eigen::VectorXd::Random(c.Q.rows());
    Eigen::VectorXd xb(r);
    y1.solve(b, xb);
    const Eigen::VectorXd expected_b = qr.solve(b);
    EXPECT_LT((xb - expected_b).cwiseAbs().maxCoeff(), 1e-12 * scale * (1.0 + expected_b.norm()))
        << "trial " << trial;
    const Eigen::VectorXd right = Eigen::VectorXd::Random(r);
    Eigen::VectorXd y(c.Q.rows());
    ASSERT_TRUE(y1.solve_transposed(right, y));
    const Eigen::VectorXd expected_y =
        Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(dense.transpose()).solve(right);
    EXPECT_LT((y - expected_y).cwiseAbs().maxCoeff(), 1e-12 * scale * (1.0 + expected_y.norm()))
        << "trial " << trial;
    // Several right sides at once: each column the vector call's bits, the least-norm solution.
    const Eigen::MatrixXd rights = Eigen::MatrixXd::Random(r, 1 + trial % 7);
    Eigen::MatrixXd ys(c.Q.rows(), rights.cols());
    ASSERT_TRUE(y1.solve_transposed_columns(rights, ys));
    for (Eigen::Index j = 0; j < rights.cols(); ++j) {
      Eigen::VectorXd one(c.Q.rows());
      ASSERT_TRUE(y1.solve_transposed(rights.col(j), one));
      EXPECT_EQ(ys.col(j), one) << "trial " << trial << " column " << j;
    }
    const Eigen::MatrixXd expected_ys =
        Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(dense.transpose()).solve(rights);
    EXPECT_LT((ys - expected_ys).cwiseAbs().maxCoeff(), 1e-12 * scale * (1.0 + expected_ys.norm()))
        << "trial " << trial;
    const double inverse = svd.singularValues().cwiseInverse().squaredNorm();
    EXPECT_NEAR(y1.inverse_frobenius_squared(), inverse, 1e-9 * inverse) << "trial " << trial;
    for (const double factor : {0.3, 0.9, 0.99, 1.01, 1.1, 3.0}) {
      const double threshold = factor * conditioning;
      switch (y1.conditioning_against(threshold)) {
        case DependentFactorization::Conditioning::kBelow:
          EXPECT_LT(conditioning, threshold) << trial << " " << factor;
          break;
        case DependentFactorization::Conditioning::kAbove:
          EXPECT_GE(conditioning, threshold) << trial << " " << factor;
          certified += factor > 0.5 && factor < 1.0;
          break;
        case DependentFactorization::Conditioning::kUndecided:
          break;
      }
    }
    // New values on the same pattern through the kept elimination, against their own dense solve.
    Eigen::MatrixXd moved = c.Q;
    for (const int j : c.dependent)
      for (Eigen::Index i = 0; i < moved.rows(); ++i)
        if (moved(i, j) != 0.0) moved(i, j) *= 1.0 + 0.1 * normal(rng);
    y1.compute(moved, c.dependent);
    const Eigen::MatrixXd moved_y1 = moved(Eigen::all, c.dependent);
    const Eigen::JacobiSVD<Eigen::MatrixXd> moved_svd(moved_y1);
    const double moved_scale = moved_svd.singularValues()(0) / moved_svd.singularValues()(r - 1);
    Eigen::VectorXd again(r);
    y1.solve(b, again);
    const Eigen::VectorXd moved_expected = moved_y1.householderQr().solve(b);
    EXPECT_LT((again - moved_expected).cwiseAbs().maxCoeff(),
              1e-12 * moved_scale * (1.0 + moved_expected.norm()))
        << "trial " << trial;
  }
  // Thresholds 1-10% below the conditioning, where the power iterations alone left the SVD to
  // the caller, are mostly decided.
  EXPECT_GT(certified, 300);
  EXPECT_GT(single, 250);  // mostly one connected block: the bordered form, not separate blocks
}

// Bounds kept from one check prove the conditioning of a changed Y1 (same pattern) above or below
// a threshold only where the SVD agrees, and serve small changes; another pattern drops them.
TEST(DependentFactorization, KeptCertificateHoldsOnlyWhereTheSvdAgrees) {
  std::mt19937 rng(77);
  std::normal_distribution<double> normal;
  DependentFactorization y1;
  int kept = 0, kept_below = 0, dropped = 0;
  for (int trial = 0; trial < 200; ++trial) {
    BlockCase c = trial % 2 ? random_bordered_case(rng) : random_block_case(rng);
    const CoordinateSelection selection = selection_of(c);
    const double conditioning = selection_conditioning(c.Q, selection);
    y1.compute(c.Q, c.dependent);
    // Checked at a low threshold, so that it passes and leaves a certificate.
    ASSERT_TRUE(selection_conditioning_at_least(c.Q, selection, 0.5 * conditioning, y1));
    for (const double size : {1e-6, 1e-4, 1e-2, 1e-1}) {
      const Eigen::MatrixXd changed = perturbed(c, size, rng, normal);
      y1.compute(changed, c.dependent);
      const double now = selection_conditioning(changed, selection);
      for (const double factor : {0.5, 0.9, 0.99}) {
        const double threshold = factor * conditioning;
        if (y1.certified_at_least(threshold)) {
          EXPECT_GE(now, threshold) << trial << " " << size << " " << factor;
          kept += size == 1e-6 && factor == 0.5;
        }
      }
      y1.compute(c.Q, c.dependent);  // back to the certified values
    }
    // Checked at a high threshold: bounds that prove "below" for changed values.
    y1.compute(c.Q, c.dependent);
    ASSERT_FALSE(selection_conditioning_at_least(c.Q, selection, 2.0 * conditioning, y1));
    for (const double size : {1e-6, 1e-2}) {
      const Eigen::MatrixXd changed = perturbed(c, size, rng, normal);
      y1.compute(changed, c.dependent);
      const double now = selection_conditioning(changed, selection);
      for (const double factor : {1.01, 1.5, 2.0, 4.0})
        if (y1.certified_below(factor * conditioning)) {
          EXPECT_LT(now, factor * conditioning) << trial << " " << size << " " << factor;
          kept_below += size == 1e-6 && factor == 2.0;
        }
      y1.compute(c.Q, c.dependent);
    }
    // Another pattern by a change far too small to matter to the bounds (1e-9 where a dependent
    // column of a one-block Y1 is zero): the kept bounds are dropped all the same.
    y1.compute(c.Q, c.dependent);
    ASSERT_TRUE(selection_conditioning_at_least(c.Q, selection, 0.5 * conditioning, y1));
    Eigen::MatrixXd other = c.Q;
    bool changed_pattern = false;
    for (const int j : c.dependent)
      for (Eigen::Index i = 0; i < other.rows() && !changed_pattern; ++i)
        if (other(i, j) == 0.0 && other.row(i).cwiseAbs().maxCoeff() > 0.0) {
          other(i, j) = 1e-9;
          changed_pattern = true;
        }
    if (y1.block_count() == 1 && changed_pattern) {
      y1.compute(other, c.dependent);
      EXPECT_FALSE(y1.certified_at_least(0.5 * conditioning)) << trial;
      EXPECT_FALSE(y1.certified_below(1e9)) << trial;
      ++dropped;
    }
  }
  EXPECT_GT(kept, 150);  // a change of 1e-6 keeps most certificates at half the conditioning
  EXPECT_GT(kept_below, 100);
  EXPECT_GT(dropped, 50);
}

// A selection checked against a threshold above its conditioning and then against one below it
// (rigid/closed_chain/selection.cpp: the option's threshold, then the kept bar) keeps both
// answers: the second certificate merges the first's bounds, so both are proven without a new
// check, and each agrees with the SVD; a small change of Y1 keeps them where the SVD still agrees.
TEST(DependentFactorization, CertificatesAtTwoThresholdsKeepBothAnswers) {
  std::mt19937 rng(91);
  std::normal_distribution<double> normal;
  DependentFactorization y1;
  int both = 0, checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    BlockCase c = trial % 2 ? random_bordered_case(rng) : random_block_case(rng);
    const CoordinateSelection selection = selection_of(c);
    const double conditioning = selection_conditioning(c.Q, selection);
    if (conditioning < 1e-8) continue;  // singular to rounding: no answer to keep
    ++checked;
    const double high = 2.0 * conditioning, low = 0.5 * conditioning;
    y1.compute(c.Q, c.dependent);
    ASSERT_FALSE(selection_conditioning_at_least(c.Q, selection, high, y1)) << trial;
    ASSERT_TRUE(selection_conditioning_at_least(c.Q, selection, low, y1)) << trial;
    const bool below = y1.certified_below(high), above = y1.certified_at_least(low);
    both += below && above;
    const Eigen::MatrixXd changed = perturbed(c, 1e-3, rng, normal);
    y1.compute(changed, c.dependent);
    const double now = selection_conditioning(changed, selection);
    if (y1.certified_below(high)) {
      EXPECT_LT(now, high) << trial;
    }
    if (y1.certified_at_least(low)) {
      EXPECT_GE(now, low) << trial;
    }
  }
  EXPECT_GT(checked, 150);
  EXPECT_GT(both, checked * 9 / 10);  // without the merge the second check replaced the first's
}

// compute on the last call's pattern copies Y1 into the blocks in the pass that checks the
// pattern: new values on the same pattern, then one entry of Y1 made nonzero where it was zero
// (off every block in the block-diagonal cases: blocks merge or gain a row), then one made zero
// (inside a block). Each time the block count and the solve are a fresh object's (which finds the
// blocks anew), the solve bit for bit, and the solve is the dense least-squares solve of that Y1.
TEST(DependentFactorization, ARepeatedPatternIsCheckedWhereItIsCopied) {
  std::mt19937 rng(41);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  DependentFactorization blocks;  // one object over every step: the pattern check is its own
  int same = 0, filled = 0, emptied = 0;
  auto check = [&](const Eigen::MatrixXd& Q, const std::vector<int>& dependent,
                   const std::string& step) {
    blocks.compute(Q, dependent);
    DependentFactorization fresh;
    fresh.compute(Q, dependent);
    EXPECT_EQ(blocks.block_count(), fresh.block_count()) << step;
    Eigen::VectorXd weights(Q.cols());
    for (Eigen::Index j = 0; j < weights.size(); ++j) weights(j) = normal(rng);
    const Eigen::VectorXd b = Q * weights;
    Eigen::VectorXd x(static_cast<Eigen::Index>(dependent.size())), x_fresh(x.size());
    blocks.solve(b, x);
    fresh.solve(b, x_fresh);
    EXPECT_TRUE(
        (x.array() == x_fresh.array() || (x.array().isNaN() && x_fresh.array().isNaN())).all())
        << step;
    const Eigen::MatrixXd y1 = Q(Eigen::all, dependent);
    if (y1.colPivHouseholderQr().rank() < y1.cols()) return false;
    const Eigen::VectorXd expected = y1.householderQr().solve(b);
    EXPECT_LT((x - expected).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + expected.norm())) << step;
    return true;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const BlockCase c = trial % 2 == 0 ? random_block_case(rng) : random_bordered_case(rng);
    const std::string name = "trial " + std::to_string(trial);
    check(c.Q, c.dependent, name);
    Eigen::MatrixXd Q = c.Q;
    std::vector<std::pair<Eigen::Index, int>> zeros, nonzeros;
    for (const int j : c.dependent)
      for (Eigen::Index i = 0; i < Q.rows(); ++i) {
        if (Q(i, j) != 0.0) Q(i, j) *= 1.0 + 0.1 * normal(rng);
        (Q(i, j) == 0.0 ? zeros : nonzeros).emplace_back(i, j);
      }
    same += check(Q, c.dependent, name + ", same pattern");
    if (!zeros.empty()) {
      const auto [i, j] =
          zeros[std::min(zeros.size() - 1, static_cast<std::size_t>(uniform(rng) * zeros.size()))];
      Q(i, j) = normal(rng);
      filled += check(Q, c.dependent, name + ", an entry filled");
    }
    const auto [i, j] = nonzeros[std::min(
        nonzeros.size() - 1, static_cast<std::size_t>(uniform(rng) * nonzeros.size()))];
    Q(i, j) = 0.0;
    emptied += check(Q, c.dependent, name + ", an entry emptied");
  }
  EXPECT_GT(same, 190);
  EXPECT_GT(filled, 150);
  EXPECT_GT(emptied, 100);
}

// Rows of rounding noise (a planar loop closed by 6-d rows) join no block: the blocks are those of
// the matrix without them, and the solves equal the dense solve of the noisy Y1 to roundoff.
TEST(DependentFactorization, RowsOfRoundingNoiseJoinNoBlock) {
  std::mt19937 rng(31);
  std::normal_distribution<double> normal;
  DependentFactorization y1;
  for (int trial = 0; trial < 100; ++trial) {
    const BlockCase c = random_block_case(rng);
    Eigen::MatrixXd noisy(c.Q.rows() * 2, c.Q.cols());
    for (Eigen::Index i = 0; i < c.Q.rows(); ++i) {
      noisy.row(2 * i) = c.Q.row(i);
      for (Eigen::Index j = 0; j < c.Q.cols(); ++j) noisy(2 * i + 1, j) = 1e-17 * normal(rng);
    }
    y1.compute(noisy, c.dependent);
    EXPECT_EQ(y1.block_count(), c.blocks) << "trial " << trial;
    const Eigen::MatrixXd dense = noisy(Eigen::all, c.dependent);
    const Eigen::VectorXd b = noisy * Eigen::VectorXd::Random(noisy.cols());
    Eigen::VectorXd x(static_cast<Eigen::Index>(c.dependent.size()));
    y1.solve(b, x);
    const Eigen::VectorXd expected = dense.householderQr().solve(b);
    EXPECT_LT((x - expected).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + expected.norm()))
        << "trial " << trial;
  }
}

// The residual bound of solve_columns against the residuals formed from the definition,
// b - Y1 x with the solved x: at least their largest entry, at most their 2-norm (up to rounding);
// about zero when b lies in range(Y1); none (infinite) before a solve. Block and bordered
// patterns, b in range(Y1) and off it (also on rows outside every block).
TEST(DependentFactorization, ResidualBoundBracketsTheLeastSquaresResidual) {
  std::mt19937 rng(31);
  std::normal_distribution<double> normal;
  DependentFactorization blocks;
  int off_range = 0;
  for (int trial = 0; trial < 300; ++trial) {
    BlockCase c = trial % 2 ? random_block_case(rng) : random_bordered_case(rng);
    if (c.independent.empty()) continue;
    const bool in_range = trial % 3 == 0;
    if (!in_range)
      for (const int k : c.independent)
        for (Eigen::Index i = 0; i < c.Q.rows(); ++i) c.Q(i, k) += 0.1 * normal(rng);
    blocks.compute(c.Q, c.dependent);
    EXPECT_EQ(blocks.residual_bound(c.Q, c.independent), std::numeric_limits<double>::infinity());
    const Eigen::MatrixXd y1 = c.Q(Eigen::all, c.dependent);
    Eigen::MatrixXd x(y1.cols(), static_cast<Eigen::Index>(c.independent.size()));
    blocks.solve_columns(c.Q, c.independent, x);
    const Eigen::MatrixXd residual = c.Q(Eigen::all, c.independent) - y1 * x;
    const double scale = 1e-12 * (1.0 + c.Q.norm() * (1.0 + x.norm()));
    const double bound = blocks.residual_bound(c.Q, c.independent);
    EXPECT_GE(bound, residual.cwiseAbs().maxCoeff() - scale) << "trial " << trial;
    EXPECT_LE(bound, residual.colwise().norm().maxCoeff() + scale) << "trial " << trial;
    if (in_range) {
      EXPECT_LT(bound, scale) << "trial " << trial;
    }
    if (!in_range && residual.cwiseAbs().maxCoeff() > 1e-3) ++off_range;
  }
  EXPECT_GT(off_range, 50);  // the cases off range(Y1) do have residuals
}

// The residual bound where Y1 cannot be solved exactly or is not there: a wide Y1 (every row a
// pivot: b in its range, residual zero), a rank-deficient Y1 (two equal columns: the bound is
// infinite or at least the residual), no dependent columns (b is the residual), each against the
// residual formed from the definition.
TEST(DependentFactorization, ResidualBoundOfWideDeficientAndEmptyY1) {
  DependentFactorization blocks;
  Eigen::MatrixXd Q(2, 5);        // wide: two rows, three dependent columns
  Q << 1.0, 2.0, 0.5, -1.0, 0.3,  //
      0.0, 1.0, 1.5, 2.0, -0.7;
  const std::vector<int> wide = {0, 1, 2}, right = {3, 4};
  blocks.compute(Q, wide);
  Eigen::MatrixXd x(3, 2);
  blocks.solve_columns(Q, right, x);
  Eigen::MatrixXd residual = Q(Eigen::all, right) - Q(Eigen::all, wide) * x;
  EXPECT_LT(residual.cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT(blocks.residual_bound(Q, right), 1e-12);  // |x|_1 times 1e-14 |Y1|_max
  // Rank-deficient: columns 0 and 1 equal, b off their range.
  Eigen::MatrixXd deficient(3, 3);
  deficient << 1.0, 1.0, 0.2,  //
      2.0, 2.0, -0.4,          //
      -1.0, -1.0, 1.0;
  const std::vector<int> pair = {0, 1}, last = {2};
  blocks.compute(deficient, pair);
  Eigen::MatrixXd y(2, 1);
  blocks.solve_columns(deficient, last, y);
  residual = deficient(Eigen::all, last) - deficient(Eigen::all, pair) * y;
  const double bound = blocks.residual_bound(deficient, last);
  if (std::isfinite(residual.cwiseAbs().maxCoeff())) {
    EXPECT_GE(bound, residual.cwiseAbs().maxCoeff() * (1.0 - 1e-12));
  } else {
    EXPECT_EQ(bound, std::numeric_limits<double>::infinity());
  }
  // No dependent columns: nothing solves, b is the residual, on every row.
  blocks.compute(Q, {});
  EXPECT_EQ(blocks.residual_bound(Q, right), std::numeric_limits<double>::infinity());
  Eigen::MatrixXd none(0, 2);
  blocks.solve_columns(Q, right, none);
  const Eigen::MatrixXd b = Q(Eigen::all, right);
  EXPECT_NEAR(blocks.residual_bound(Q, right), b.colwise().norm().maxCoeff(), 1e-15);
}

// The block solves against one dense least-squares solve of the whole Y1, and the Frobenius norms
// against the dense matrix and the dense R.
TEST(DependentFactorization, BlockSolvesEqualTheDenseLeastSquaresSolve) {
  std::mt19937 rng(27);
  DependentFactorization blocks;  // one object over all patterns: its storage is reused
  for (int trial = 0; trial < 200; ++trial) {
    const BlockCase c = random_block_case(rng);
    const Eigen::MatrixXd y1 = c.Q(Eigen::all, c.dependent);
    const Eigen::HouseholderQR<Eigen::MatrixXd> dense(y1);
    blocks.compute(c.Q, c.dependent);
    EXPECT_EQ(blocks.block_count(), c.blocks) << "trial " << trial;
    const auto r = static_cast<Eigen::Index>(c.dependent.size());
    Eigen::MatrixXd x(r, static_cast<Eigen::Index>(c.independent.size()));
    if (!c.independent.empty()) {
      blocks.solve_columns(c.Q, c.independent, x);
      const Eigen::MatrixXd expected = dense.solve(c.Q(Eigen::all, c.independent));
      EXPECT_LT((x - expected).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + expected.norm()))
          << "trial " << trial;
    }
    const Eigen::VectorXd b = Eigen::VectorXd::Random(c.Q.rows());
    Eigen::VectorXd xb(r);
    blocks.solve(b, xb);
    const Eigen::VectorXd expected_b = dense.solve(b);
    EXPECT_LT((xb - expected_b).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + expected_b.norm()))
        << "trial " << trial;
    // X's right-hand sides and the vector in one pass: what the two solves give (the same
    // arithmetic per right-hand side), and solve_columns' residual bound unchanged.
    const double bound_alone = blocks.residual_bound(c.Q, c.independent);
    Eigen::MatrixXd x_together(r, static_cast<Eigen::Index>(c.independent.size()));
    Eigen::VectorXd xb_together(r);
    blocks.solve_columns(c.Q, c.independent, x_together, b, xb_together);
    EXPECT_LE((xb_together - xb).cwiseAbs().maxCoeff(), 1e-14 * (1.0 + xb.norm()))
        << "trial " << trial;
    if (!c.independent.empty()) {
      EXPECT_LE((x_together - x).cwiseAbs().maxCoeff(), 1e-14 * (1.0 + x.norm()))
          << "trial " << trial;
      const double bound_together = blocks.residual_bound(c.Q, c.independent);
      if (std::isfinite(bound_alone))
        EXPECT_NEAR(bound_together, bound_alone, 1e-14 * (1.0 + bound_alone)) << "trial " << trial;
      else
        EXPECT_EQ(bound_together, bound_alone) << "trial " << trial;
    }
    // The least-norm solution of Y1* y = c against the complete orthogonal decomposition of Y1*.
    const Eigen::VectorXd c_dependent = Eigen::VectorXd::Random(r);
    Eigen::VectorXd y(c.Q.rows());
    ASSERT_TRUE(blocks.solve_transposed(c_dependent, y));
    const Eigen::VectorXd expected_y =
        Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(y1.transpose()).solve(c_dependent);
    EXPECT_LT((y - expected_y).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + expected_y.norm()))
        << "trial " << trial;
    EXPECT_NEAR(blocks.frobenius_squared(), y1.squaredNorm(), 1e-12 * y1.squaredNorm());
    Eigen::MatrixXd inverse = Eigen::MatrixXd::Identity(r, r);
    dense.matrixQR().topRows(r).triangularView<Eigen::Upper>().solveInPlace(inverse);
    EXPECT_NEAR(blocks.inverse_frobenius_squared(), inverse.squaredNorm(),
                1e-9 * inverse.squaredNorm())
        << "trial " << trial;
    // The conditioning check agrees with the SVD of Y1 wherever it is clear of the threshold.
    CoordinateSelection selection;
    selection.dependent = c.dependent;
    selection.independent = c.independent;
    selection.rank = static_cast<int>(r);
    const double conditioning = selection_conditioning(c.Q, selection);
    for (const double threshold : {1e-3, 1e-1, 0.5})
      if (std::abs(conditioning - threshold) > 1e-6 * threshold) {
        EXPECT_EQ(selection_conditioning_at_least(c.Q, selection, threshold, blocks),
                  conditioning >= threshold)
            << "trial " << trial << " conditioning " << conditioning;
      }
  }
}

// X_S from the block factorization satisfies Q X_S = 0 and has the identity on the independent
// rows (constraint-embedding Lemma 5), also for a selection listed out of order.
TEST(DependentFactorization, EmbeddingMatricesFromBlocksAnnihilateQ) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    BlockCase c = random_block_case(rng);
    CoordinateSelection selection;
    selection.dependent = c.dependent;
    selection.independent = c.independent;
    if (trial % 2) std::reverse(selection.dependent.begin(), selection.dependent.end());
    selection.rank = static_cast<int>(c.dependent.size());
    const Eigen::VectorXd product = c.Q * Eigen::VectorXd::Random(c.Q.cols());
    Eigen::MatrixXd X;
    Eigen::VectorXd rate;
    embedding_matrices(c.Q, product, selection, X, rate);
    if (X.cols() > 0) {
      EXPECT_LT((c.Q * X).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
    }
    EXPECT_LT((c.Q * rate + product).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
    for (std::size_t j = 0; j < c.independent.size(); ++j) {
      Eigen::VectorXd unit = Eigen::VectorXd::Zero(X.cols());
      unit(static_cast<Eigen::Index>(j)) = 1.0;
      EXPECT_EQ(X.row(c.independent[j]).transpose(), unit) << "trial " << trial;
      EXPECT_EQ(rate(c.independent[j]), 0.0);
    }
  }
}

// More dependent columns than rows (Y1 without full column rank, which only a user's selection
// can ask for): the basic least-squares solution of Eigen's dense QR, the rest zero, no overrun;
// the conditioning is zero.
TEST(DependentFactorization, WideY1GivesTheDenseBasicSolution) {
  std::mt19937 rng(8);
  std::normal_distribution<double> normal;
  DependentFactorization y1;
  for (const int rows : {0, 1, 2, 3}) {
    Eigen::MatrixXd Q(rows, 6);
    for (Eigen::Index i = 0; i < Q.size(); ++i) Q.data()[i] = normal(rng);
    CoordinateSelection selection;
    selection.dependent = {0, 2, 3, 5};
    selection.independent = {1, 4};
    selection.rank = 4;
    y1.compute(Q, selection.dependent);
    Eigen::VectorXd b(rows);
    for (Eigen::Index i = 0; i < rows; ++i) b(i) = normal(rng);
    Eigen::VectorXd x(4);
    y1.solve(b, x);
    Eigen::MatrixXd xs(4, 2);
    y1.solve_columns(Q, selection.independent, xs);
    if (rows > 0) {
      const Eigen::HouseholderQR<Eigen::MatrixXd> dense(Q(Eigen::all, selection.dependent));
      EXPECT_LT((x - dense.solve(b)).cwiseAbs().maxCoeff(), 1e-12) << rows;
      EXPECT_LT((xs - dense.solve(Q(Eigen::all, selection.independent))).cwiseAbs().maxCoeff(),
                1e-12)
          << rows;
    } else {
      EXPECT_EQ(x, Eigen::VectorXd::Zero(4));
      EXPECT_EQ(xs, Eigen::MatrixXd::Zero(4, 2));
    }
    EXPECT_FALSE(selection_conditioning_at_least(Q, selection, 1e-12, y1)) << rows;
    EXPECT_EQ(selection_conditioning(Q, selection), 0.0) << rows;
  }
}

// conditioning_against against the SVD of the whole Y1 on random permuted block-diagonal Y1,
// with one DependentFactorization reused across cases (its warm-start vectors carried from one
// block pattern to the next, of equal sizes or not) and thresholds around the true conditioning:
// "below" must be below, "above" at least the threshold.
TEST(DependentFactorization, ConditioningAgainstAThresholdAgreesWithTheSvd) {
  std::mt19937 rng(41);
  DependentFactorization y1;
  int below = 0, above = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const BlockCase c = random_block_case(rng);
    const Eigen::MatrixXd dense = c.Q(Eigen::all, c.dependent);
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(dense);
    const Eigen::VectorXd sigma = svd.singularValues();
    const double conditioning = sigma(sigma.size() - 1) / sigma(0);
    y1.compute(c.Q, c.dependent);
    for (const double factor : {0.3, 0.6, 0.9, 1.1, 1.7, 3.0}) {
      const double threshold = factor * conditioning;
      switch (y1.conditioning_against(threshold)) {
        case DependentFactorization::Conditioning::kBelow:
          EXPECT_LT(conditioning, threshold) << trial << " " << factor;
          ++below;
          break;
        case DependentFactorization::Conditioning::kAbove:
          EXPECT_GE(conditioning, threshold) << trial << " " << factor;
          ++above;
          break;
        case DependentFactorization::Conditioning::kUndecided:
          break;
      }
    }
  }
  // Most thresholds clear of the conditioning are decided.
  EXPECT_GT(below, 300);
  EXPECT_GT(above, 300);
}

TEST(DependentFactorization, NoAllocationOnceTheBlocksHaveBeenSeen) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  std::mt19937 rng(3);
  BlockCase c = random_block_case(rng);
  while (c.blocks < 3 || c.independent.empty()) c = random_block_case(rng);
  const CoordinateSelection selection = selection_of(c);
  DependentFactorization y1;
  Eigen::MatrixXd X;
  Eigen::VectorXd rate;
  const Eigen::VectorXd product = c.Q * Eigen::VectorXd::Random(c.Q.cols());
  auto factorize = [&] { factorize_dependent(c.Q, selection, y1); };
  auto check = [&] { selection_conditioning_at_least(c.Q, selection, 1e-3, y1); };
  auto embed = [&] { embedding_matrices(c.Q, product, selection, y1, X, rate); };
  const Eigen::VectorXd right = Eigen::VectorXd::Random(selection.rank);
  Eigen::VectorXd multipliers(c.Q.rows());
  auto transposed = [&] { y1.solve_transposed(right, multipliers); };
  factorize();
  check();
  embed();
  transposed();
  c.Q *= 1.5;  // new values, same pattern
  EXPECT_EQ(testing_support::allocations_in(factorize), 0);
  EXPECT_EQ(testing_support::allocations_in(check), 0);
  EXPECT_EQ(testing_support::allocations_in(embed), 0);
  EXPECT_EQ(testing_support::allocations_in(transposed), 0);
}

}  // namespace
}  // namespace skograph

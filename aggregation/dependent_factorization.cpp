#include "skograph/aggregation/dependent_factorization.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "skograph/aggregation/fixed_count.hpp"
#include "sparse_upper.hpp"

namespace skograph {

namespace {

// Y1's entries of one block into its matrix, those within `negligible` of zero as zero; returns
// whether the block's pattern differs from the one it was analysed for (one pass for both). A
// template so that it takes DependentFactorization's private Block by deduction.
template <class Block>
char copy_block(Block& block, const Eigen::Ref<const Eigen::MatrixXd>& Q,
                const std::vector<int>& dependent, double negligible) {
  const auto m = static_cast<Eigen::Index>(block.rows.size());
  const auto r = static_cast<Eigen::Index>(block.columns.size());
  block.matrix.resize(m, r);
  char changed = 0;
  auto copy_columns = [&](auto row_of) {
    for (Eigen::Index j = 0; j < r; ++j) {
      const double* column =
          Q.col(dependent[static_cast<std::size_t>(block.columns[static_cast<std::size_t>(j)])])
              .data();
      const char* known = block.pattern.data() + j * m;
      double* to = block.matrix.data() + j * m;
      for (Eigen::Index i = 0; i < m; ++i) {
        const double value = column[row_of(i)];
        const bool nonzero = !(std::abs(value) <= negligible);
        changed |= static_cast<char>(known[i] ^ static_cast<char>(nonzero));
        to[i] = nonzero ? value : 0.0;
      }
    }
  };
  // The rows increase, so they are contiguous when the last is m - 1 past the first (a block of
  // every row, as one aggregate's loops through a shared platform give): then the copy reads Q's
  // columns without the index loads.
  if (m > 0 && block.rows.back() - block.rows.front() == m - 1) {
    const Eigen::Index first = block.rows.front();
    copy_columns([first](Eigen::Index i) { return first + i; });
  } else {
    copy_columns([&](Eigen::Index i) { return block.rows[static_cast<std::size_t>(i)]; });
  }
  return changed;
}

// Applies H = I - tau v v* (v = 1 at rows[0], essential[t] at rows[t]) to `Columns` columns in
// one pass: each row index and entry of v is read once for all of them (the indexed loads, not the
// arithmetic, are most of a reflection's cost at these sizes). Each column's sums run in the same
// order whatever the count, so the results are the same bits.
template <int Columns>
inline void reflect(const int* rows, const double* essential, int count, double tau,
                    double* const* columns) {
  double dot[Columns];
  for (int c = 0; c < Columns; ++c) dot[c] = columns[c][rows[0]];
  for (int t = 1; t < count; ++t) {
    const int i = rows[t];
    const double e = essential[t];
    for (int c = 0; c < Columns; ++c) dot[c] += e * columns[c][i];
  }
  for (int c = 0; c < Columns; ++c) {
    dot[c] *= tau;
    columns[c][rows[0]] -= dot[c];
  }
  for (int t = 1; t < count; ++t) {
    const int i = rows[t];
    const double e = essential[t];
    for (int c = 0; c < Columns; ++c) columns[c][i] -= dot[c] * e;
  }
}

}  // namespace

// Symbolic sparse QR by row merging: eliminating a column by one reflection over its unpivoted
// nonzero rows makes every later column that is nonzero on one of those rows nonzero on all of
// them (and on the pivot, R's row). The next column is the one with the fewest unpivoted nonzero
// rows (ties: the lowest position, so a dense block keeps the column order and pivots rows in
// order, as the dense Householder QR); columns with none left go last.
void DependentFactorization::analyze_block(Block& block, AnalysisScratch& scratch) {
  const int m = static_cast<int>(block.rows.size());
  const int r = static_cast<int>(block.columns.size());
  const auto size_m = static_cast<std::size_t>(m), size_r = static_cast<std::size_t>(r);
  block.steps = std::min(m, r);
  const auto steps = static_cast<std::size_t>(block.steps);
  // Worst-case capacities, so that another pattern of the same sizes allocates nothing.
  block.order.reserve(size_r);
  block.offsets.reserve(steps + 1);
  block.reflection_rows.reserve(steps * size_m);
  block.touched_offsets.reserve(steps + 1);
  block.touched.reserve(steps * size_r);
  block.upper.offsets.reserve(steps + 1);
  block.upper.steps.reserve(steps * size_r);
  block.upper.values.reserve(steps * size_r);
  block.essential.reserve(steps * size_m);
  std::vector<char>& fill = scratch.fill;
  fill = block.pattern;
  scratch.pivoted.assign(size_m, 0);
  scratch.done.assign(size_r, 0);
  scratch.step_of.assign(size_r, -1);
  block.order.clear();
  block.offsets.assign(1, 0);
  block.reflection_rows.clear();
  block.touched_offsets.assign(1, 0);
  block.touched.clear();  // column positions first, turned into steps below
  auto at = [&](int i, int j) -> char& {
    return fill[static_cast<std::size_t>(j) * size_m + static_cast<std::size_t>(i)];
  };
  for (int k = 0; k < block.steps; ++k) {
    int best = -1, best_count = 0;
    for (int j = 0; j < r; ++j) {
      if (scratch.done[static_cast<std::size_t>(j)]) continue;
      int count = 0;
      for (int i = 0; i < m; ++i)
        count += !scratch.pivoted[static_cast<std::size_t>(i)] && at(i, j);
      if (count == 0) count = m + 1;  // structurally empty: last
      if (best < 0 || count < best_count) best = j, best_count = count;
    }
    scratch.done[static_cast<std::size_t>(best)] = 1;
    scratch.step_of[static_cast<std::size_t>(best)] = k;
    block.order.push_back(best);
    const std::size_t first_row = block.reflection_rows.size();
    for (int i = 0; i < m; ++i)
      if (!scratch.pivoted[static_cast<std::size_t>(i)] && at(i, best))
        block.reflection_rows.push_back(i);
    if (block.reflection_rows.size() == first_row)  // none left: an unpivoted row, no reflection
      for (int i = 0; i < m && block.reflection_rows.size() == first_row; ++i)
        if (!scratch.pivoted[static_cast<std::size_t>(i)]) block.reflection_rows.push_back(i);
    block.offsets.push_back(static_cast<int>(block.reflection_rows.size()));
    scratch.pivoted[static_cast<std::size_t>(block.reflection_rows[first_row])] = 1;
    for (int j = 0; j < r; ++j) {
      if (scratch.done[static_cast<std::size_t>(j)]) continue;
      bool touches = false;
      for (std::size_t t = first_row; t < block.reflection_rows.size() && !touches; ++t)
        touches = at(block.reflection_rows[t], j);
      if (!touches) continue;
      block.touched.push_back(j);
      for (std::size_t t = first_row; t < block.reflection_rows.size(); ++t)
        at(block.reflection_rows[t], j) = 1;
    }
    block.touched_offsets.push_back(static_cast<int>(block.touched.size()));
  }
  for (int j = 0; j < r; ++j)  // a wide block's columns beyond its rows, in column order
    if (!scratch.done[static_cast<std::size_t>(j)]) block.order.push_back(j);
  SparseUpper& upper = block.upper;
  upper.offsets.assign(1, 0);
  upper.steps.clear();
  for (int k = 0; k < block.steps; ++k) {
    for (int e = block.touched_offsets[static_cast<std::size_t>(k)];
         e < block.touched_offsets[static_cast<std::size_t>(k) + 1]; ++e) {
      int& entry = block.touched[static_cast<std::size_t>(e)];
      const int later = scratch.step_of[static_cast<std::size_t>(entry)];
      entry = later >= 0 ? later : -1 - entry;
      if (later >= 0) upper.steps.push_back(later);
    }
    upper.offsets.push_back(static_cast<int>(upper.steps.size()));
  }
  upper.values.resize(upper.steps.size());
  upper.diagonal.resize(block.steps);
  block.essential.resize(block.reflection_rows.size());
  block.coefficients.resize(block.steps);
}

// The numeric factorization along the block's elimination: each reflection maps the column's
// values x on its rows to [beta; 0] with beta = -sign(x_0) |x|, essential = x(1:) / (x_0 - beta),
// tau = (beta - x_0) / beta, none (tau = 0) when x(1:) vanishes (Eigen's convention).
void DependentFactorization::factorize_block(Block& block) {
  const Eigen::Index m = block.matrix.rows();
  block.work = block.matrix;
  SparseUpper& upper = block.upper;
  std::size_t value = 0;  // next entry of upper.values
  for (int k = 0; k < block.steps; ++k) {
    const int* rows = block.reflection_rows.data() + block.offsets[static_cast<std::size_t>(k)];
    double* essential = block.essential.data() + block.offsets[static_cast<std::size_t>(k)];
    const int count =
        block.offsets[static_cast<std::size_t>(k) + 1] - block.offsets[static_cast<std::size_t>(k)];
    double* column = block.work.data() + block.order[static_cast<std::size_t>(k)] * m;
    double tail = 0.0;
    for (int t = 1; t < count; ++t) tail += column[rows[t]] * column[rows[t]];
    const double first = column[rows[0]];
    double tau = 0.0, beta = first;
    if (!(tail <= std::numeric_limits<double>::min())) {  // as Eigen: a NaN tail spreads
      beta = std::sqrt(first * first + tail);
      if (first >= 0.0) beta = -beta;
      const double denominator = first - beta;
      for (int t = 1; t < count; ++t) essential[t] = column[rows[t]] / denominator;
      tau = (beta - first) / beta;
    } else {
      for (int t = 1; t < count; ++t) essential[t] = 0.0;
    }
    for (int t = 1; t < count; ++t) column[rows[t]] = 0.0;
    column[rows[0]] = beta;
    block.coefficients(k) = tau;
    upper.diagonal(k) = beta;
    // The touched columns four, then two, then one at a time; R's entries recorded in the touched
    // order.
    auto target_of = [&](int e) {
      const int later = block.touched[static_cast<std::size_t>(e)];
      const int position = later >= 0 ? block.order[static_cast<std::size_t>(later)] : -1 - later;
      return block.work.data() + position * m;
    };
    const int end = block.touched_offsets[static_cast<std::size_t>(k) + 1];
    int e = block.touched_offsets[static_cast<std::size_t>(k)];
    auto reflect_next = [&]<int Columns>(std::integral_constant<int, Columns>) {
      double* targets[Columns];
      for (int c = 0; c < Columns; ++c) targets[c] = target_of(e + c);
      if (tau != 0.0) reflect<Columns>(rows, essential, count, tau, targets);
      for (int c = 0; c < Columns; ++c, ++e)
        if (block.touched[static_cast<std::size_t>(e)] >= 0)
          upper.values[value++] = targets[c][rows[0]];
    };
    while (e + 3 < end) reflect_next(std::integral_constant<int, 4>{});
    if (e + 1 < end) reflect_next(std::integral_constant<int, 2>{});
    if (e < end) reflect_next(std::integral_constant<int, 1>{});
  }
}

void DependentFactorization::apply_reflections(const Block& block, bool forward,
                                               Eigen::Ref<Eigen::MatrixXd> target) {
  for (int step = 0; step < block.steps; ++step) {
    const int k = forward ? step : block.steps - 1 - step;
    const double tau = block.coefficients(k);
    if (tau == 0.0) continue;
    const auto offset = static_cast<std::size_t>(block.offsets[static_cast<std::size_t>(k)]);
    const int count = block.offsets[static_cast<std::size_t>(k) + 1] - static_cast<int>(offset);
    const int* rows = block.reflection_rows.data() + offset;
    const double* essential = block.essential.data() + offset;
    // Four columns, then two, then one at a time (reflect).
    Eigen::Index j = 0;
    auto reflect_next = [&]<int Columns>(std::integral_constant<int, Columns>) {
      double* columns[Columns];
      for (int c = 0; c < Columns; ++c) columns[c] = target.col(j + c).data();
      reflect<Columns>(rows, essential, count, tau, columns);
      j += Columns;
    };
    while (j + 3 < target.cols()) reflect_next(std::integral_constant<int, 4>{});
    if (j + 1 < target.cols()) reflect_next(std::integral_constant<int, 2>{});
    if (j < target.cols()) reflect_next(std::integral_constant<int, 1>{});
  }
}

// The blocks are the connected components of the bipartite graph rows -- dependent columns with
// an edge per nonzero of Y1 (nodes 0..m-1 the rows, m..m+r-1 the columns); rows no dependent
// column touches belong to no block (they only add to the least-squares residual). Blocks are
// numbered by their first dependent column, rows and columns increasing within each.
bool DependentFactorization::find_blocks(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                         const std::vector<int>& dependent) {
  bool same = dependent == dependent_ && block_count_ > 0 &&
              y1_pattern_.size() == static_cast<std::size_t>(rows_ * columns_);
  if (!same) y1_pattern_.resize(static_cast<std::size_t>(rows_ * columns_));
  char changed = same ? 0 : 1;  // branch-free: every entry is read and written anyway
  for (int c = 0; c < columns_; ++c) {
    const double* column = Q.col(dependent[static_cast<std::size_t>(c)]).data();
    char* known =
        y1_pattern_.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(rows_);
    for (int i = 0; i < rows_; ++i) {
      const char nonzero = static_cast<char>(!(std::abs(column[i]) <= negligible_));
      changed |= static_cast<char>(known[i] ^ nonzero);
      known[i] = nonzero;
    }
  }
  if (!changed) return false;
  dependent_ = dependent;
  block_count_ = 0;
  components_.reset(rows_ + columns_);
  for (int c = 0; c < columns_; ++c)
    for (int i = 0; i < rows_; ++i)
      if (y1_pattern_[static_cast<std::size_t>(c * rows_ + i)]) components_.join(i, rows_ + c);
  block_of_root_.assign(static_cast<std::size_t>(rows_ + columns_), -1);
  auto block_of = [&](int node) -> Block& {
    int& id = block_of_root_[static_cast<std::size_t>(components_.find(node))];
    if (id < 0) {
      id = block_count_++;
      if (static_cast<int>(blocks_.size()) < block_count_) blocks_.emplace_back();
      blocks_[static_cast<std::size_t>(id)].rows.clear();
      blocks_[static_cast<std::size_t>(id)].columns.clear();
    }
    return blocks_[static_cast<std::size_t>(id)];
  };
  // A column without any nonzero is a block of its own (with no rows: wide, so Y1 is one block).
  for (int c = 0; c < columns_; ++c) block_of(rows_ + c).columns.push_back(c);
  rows_outside_.clear();
  for (int i = 0; i < rows_; ++i) {
    const int root = components_.find(i);
    if (block_of_root_[static_cast<std::size_t>(root)] >= 0)
      block_of(i).rows.push_back(i);
    else
      rows_outside_.push_back(i);
  }
  wide_ = false;
  for (int b = 0; b < block_count_; ++b)
    wide_ = wide_ || blocks_[static_cast<std::size_t>(b)].rows.size() <
                         blocks_[static_cast<std::size_t>(b)].columns.size();
  if (wide_) {  // one block: all rows, all columns
    block_count_ = 1;
    rows_outside_.clear();
    Block& block = blocks_.front();
    block.rows.resize(static_cast<std::size_t>(rows_));
    block.columns.resize(static_cast<std::size_t>(columns_));
    for (int i = 0; i < rows_; ++i) block.rows[static_cast<std::size_t>(i)] = i;
    for (int c = 0; c < columns_; ++c) block.columns[static_cast<std::size_t>(c)] = c;
  }
  // Each column's rows outside its block, column by column (none when wide_).
  off_block_rows_.clear();
  off_block_rows_.reserve(static_cast<std::size_t>(rows_ * columns_));  // any later pattern's too
  off_block_offsets_.assign(static_cast<std::size_t>(columns_) + 1, 0);
  if (!wide_) {
    row_block_.assign(static_cast<std::size_t>(rows_), -1);
    for (int b = 0; b < block_count_; ++b)
      for (const int i : blocks_[static_cast<std::size_t>(b)].rows)
        row_block_[static_cast<std::size_t>(i)] = b;
    for (int b = 0; b < block_count_; ++b)
      for (const int c : blocks_[static_cast<std::size_t>(b)].columns)
        for (int i = 0; i < rows_; ++i)
          if (row_block_[static_cast<std::size_t>(i)] != b)
            ++off_block_offsets_[static_cast<std::size_t>(c) + 1];
    for (int c = 0; c < columns_; ++c)
      off_block_offsets_[static_cast<std::size_t>(c) + 1] +=
          off_block_offsets_[static_cast<std::size_t>(c)];
    off_block_rows_.resize(static_cast<std::size_t>(off_block_offsets_.back()));
    for (int b = 0; b < block_count_; ++b)
      for (const int c : blocks_[static_cast<std::size_t>(b)].columns) {
        int next = off_block_offsets_[static_cast<std::size_t>(c)];
        for (int i = 0; i < rows_; ++i)
          if (row_block_[static_cast<std::size_t>(i)] != b)
            off_block_rows_[static_cast<std::size_t>(next++)] = i;
      }
  }
  for (int b = 0; b < block_count_; ++b) {  // each block's elimination from its pattern
    Block& block = blocks_[static_cast<std::size_t>(b)];
    const auto m = static_cast<Eigen::Index>(block.rows.size());
    const auto r = static_cast<Eigen::Index>(block.columns.size());
    block.pattern.resize(static_cast<std::size_t>(m * r));
    for (Eigen::Index j = 0; j < r; ++j)
      for (Eigen::Index i = 0; i < m; ++i)
        block.pattern[static_cast<std::size_t>(j * m + i)] =
            wide_ || y1_pattern_[static_cast<std::size_t>(
                         block.columns[static_cast<std::size_t>(j)] * rows_ +
                         block.rows[static_cast<std::size_t>(i)])];
    analyze_block(block, scratch_);
    block.rows_off_pivot.clear();  // the analysis leaves the pivot rows marked
    for (int i = 0; i < static_cast<int>(m); ++i)
      if (!scratch_.pivoted[static_cast<std::size_t>(i)]) block.rows_off_pivot.push_back(i);
    // certify's copy and the certificate's scratch, sized here so that they allocate nothing.
    block.certified.resize(m, r);
    block.gram.resize(block.steps, block.steps);
    if (block.power_largest.size() != r) {  // conditioning_against's start, sized here
      block.power_largest.setOnes(r);
      block.power_inverse.setOnes(r);
    }
  }
  return true;
}

// Entries within rounding of zero count as zero (and compute() sets them to zero): a planar loop
// closed by 6-d rows has rows of 1e-16 noise (robot_delta: 9 of 18, the 5-bar: 3 of 6), which
// would otherwise join every reflection. Dropping them perturbs Y1 by at most
// kNegligible |Y1|_max, within what the factorization's rounding does anyway; a NaN stays.
void DependentFactorization::set_negligible(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                            const std::vector<int>& dependent) {
  double largest = 0.0;
  for (int c = 0; c < columns_ && rows_ > 0; ++c)
    largest =
        std::max(largest, Q.col(dependent[static_cast<std::size_t>(c)]).cwiseAbs().maxCoeff());
  negligible_ = std::isfinite(largest) ? kNegligible * largest : 0.0;  // an inf stays
}

// The steady state of a simulation: the pattern is the last one, so find_blocks' pass over Y1
// and the copy into the blocks are one pass (branch-free: every entry is read, every block entry
// written).
bool DependentFactorization::copy_unchanged_blocks(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                                   const std::vector<int>& dependent) {
  if (block_count_ == 0 || wide_ || dependent != dependent_ ||
      y1_pattern_.size() != static_cast<std::size_t>(rows_ * columns_))
    return false;
  char changed = 0;  // branch-free: a change is rare, and every entry is read anyway
  for (int c = 0; c < columns_; ++c) {
    const double* column = Q.col(dependent[static_cast<std::size_t>(c)]).data();
    for (int e = off_block_offsets_[static_cast<std::size_t>(c)];
         e < off_block_offsets_[static_cast<std::size_t>(c) + 1]; ++e)
      changed |= static_cast<char>(
          !(std::abs(column[off_block_rows_[static_cast<std::size_t>(e)]]) <= negligible_));
  }
  for (int b = 0; b < block_count_; ++b)
    changed |= copy_block(blocks_[static_cast<std::size_t>(b)], Q, dependent, negligible_);
  return !changed;
}

void DependentFactorization::compute(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                     const std::vector<int>& dependent) {
  inverse_frobenius_squared_ = -1.0;
  residual_known_ = false;
  if (static_cast<int>(Q.rows()) != rows_ || static_cast<int>(dependent.size()) != columns_)
    block_count_ = 0;  // other sizes: find the blocks again
  if (block_count_ == 0) certified_ = false;
  rows_ = static_cast<int>(Q.rows());
  columns_ = static_cast<int>(dependent.size());
  if (columns_ == 0) {
    block_count_ = 0;
    dependent_.clear();
    certified_ = false;
    rows_outside_.resize(static_cast<std::size_t>(rows_));  // no block: b is the residual
    for (int i = 0; i < rows_; ++i) rows_outside_[static_cast<std::size_t>(i)] = i;
    return;
  }
  set_negligible(Q, dependent);
  if (!copy_unchanged_blocks(Q, dependent)) {
    if (find_blocks(Q, dependent)) certified_ = false;
    for (int b = 0; b < block_count_; ++b)  // patterns just analysed: the comparison is moot
      copy_block(blocks_[static_cast<std::size_t>(b)], Q, dependent, negligible_);
  }
  for (int b = 0; b < block_count_; ++b) factorize_block(blocks_[static_cast<std::size_t>(b)]);
}

// Per block: Q_f* b, then R x = (Q_f* b)(pivot rows) by back substitution for all right-hand
// sides at once (x stored step by step, each R entry used once), x scattered to its columns; a
// wide block's columns beyond its rows get 0, as Eigen's HouseholderQR::solve.
void DependentFactorization::solve_columns(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                           const std::vector<int>& columns,
                                           Eigen::Ref<Eigen::MatrixXd> x) {
  solve_together(Q, columns, x, nullptr, nullptr);
}

void DependentFactorization::solve_columns(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                           const std::vector<int>& columns,
                                           Eigen::Ref<Eigen::MatrixXd> x,
                                           const Eigen::Ref<const Eigen::VectorXd>& b,
                                           Eigen::Ref<Eigen::VectorXd> y) {
  solve_together(Q, columns, x, &b, &y);
}

// solve_columns with b = Q(:, columns) and, when `vector` is given, one more right-hand side
// after them (column k of right_hand_side and of column_solution's rows): the reflections and
// the substitution pass over all of them at once, with the same arithmetic per right-hand side
// as solve's.
void DependentFactorization::solve_together(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                            const std::vector<int>& columns,
                                            Eigen::Ref<Eigen::MatrixXd> x,
                                            const Eigen::Ref<const Eigen::VectorXd>* vector,
                                            Eigen::Ref<Eigen::VectorXd>* vector_solution) {
  const auto k = static_cast<Eigen::Index>(columns.size());
  const Eigen::Index stride = k + (vector != nullptr ? 1 : 0);
  residual_known_ = true;  // residual_bound reads the blocks' right-hand sides and solutions
  solved_columns_ = static_cast<int>(k);
  solution_stride_ = static_cast<int>(stride);
  if (stride == 0) return;
  for (int b = 0; b < block_count_; ++b) {
    Block& block = blocks_[static_cast<std::size_t>(b)];
    const auto m = static_cast<Eigen::Index>(block.rows.size());
    Eigen::MatrixXd& rhs = block.right_hand_side;
    rhs.resize(m, stride);
    for (Eigen::Index j = 0; j < k; ++j) {
      const double* column = Q.col(columns[static_cast<std::size_t>(j)]).data();
      for (Eigen::Index i = 0; i < m; ++i)
        rhs(i, j) = column[block.rows[static_cast<std::size_t>(i)]];
    }
    if (vector != nullptr)
      for (Eigen::Index i = 0; i < m; ++i)
        rhs(i, k) = (*vector)(block.rows[static_cast<std::size_t>(i)]);
    if (m > 0) apply_reflections(block, true, rhs);
    const int steps = block.steps;
    block.column_solution.resize(static_cast<std::size_t>(steps * stride));
    double* solution = block.column_solution.data();  // steps x stride, row-major
    const SparseUpper& upper = block.upper;
    // The substitution with the right-hand side count fixed at compile time for 1-7 (Fixed > 0,
    // with_fixed_count), so that the loops over them unroll.
    auto substitute = [&]<int Fixed>(std::integral_constant<int, Fixed>) {
      const Eigen::Index count = Fixed > 0 ? Fixed : stride;
      for (int s = steps - 1; s >= 0; --s) {
        double* row = solution + static_cast<std::ptrdiff_t>(s) * count;
        const int pivot = block.reflection_rows[static_cast<std::size_t>(
            block.offsets[static_cast<std::size_t>(s)])];
        for (Eigen::Index j = 0; j < count; ++j) row[j] = rhs(pivot, j);
        for (int e = upper.offsets[static_cast<std::size_t>(s)];
             e < upper.offsets[static_cast<std::size_t>(s) + 1]; ++e) {
          const double value = upper.values[static_cast<std::size_t>(e)];
          const double* later =
              solution +
              static_cast<std::ptrdiff_t>(upper.steps[static_cast<std::size_t>(e)]) * count;
          for (Eigen::Index j = 0; j < count; ++j) row[j] -= value * later[j];
        }
        const double diagonal = upper.diagonal(s);
        for (Eigen::Index j = 0; j < count; ++j)
          if (row[j] != 0.0) row[j] /= diagonal;
      }
    };
    with_fixed_count<7>(stride, substitute);
    for (int s = 0; s < steps; ++s) {
      const int target =
          block.columns[static_cast<std::size_t>(block.order[static_cast<std::size_t>(s)])];
      const double* row = solution + static_cast<std::ptrdiff_t>(s) * stride;
      for (Eigen::Index j = 0; j < k; ++j) x(target, j) = row[j];
      if (vector_solution != nullptr) (*vector_solution)(target) = row[k];
    }
    for (std::size_t c = static_cast<std::size_t>(steps); c < block.order.size(); ++c) {
      const int target = block.columns[static_cast<std::size_t>(block.order[c])];
      if (k > 0) x.row(target).setZero();
      if (vector_solution != nullptr) (*vector_solution)(target) = 0.0;
    }
  }
}

// |b - Y1 x|_inf <= |b - Y1' x|_2 + |(Y1 - Y1') x|_inf with Y1' the factorized matrix (entries
// within negligible_ set to zero): the first is orthogonally invariant, so it is the norm of
// Q_f* b at the rows without a pivot (and of b outside every block); the second is at most
// negligible_ |x|_1.
double DependentFactorization::residual_bound(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                              const std::vector<int>& columns) const {
  const int k = solved_columns_;
  if (!residual_known_ || static_cast<int>(columns.size()) != k || Q.rows() != rows_)
    return std::numeric_limits<double>::infinity();
  double bound = 0.0;
  for (int j = 0; j < k; ++j) {
    double squared = 0.0;
    const double* column = Q.col(columns[static_cast<std::size_t>(j)]).data();
    for (const int i : rows_outside_) squared += column[i] * column[i];  // b is its residual there
    double solution_norm = 0.0;
    for (int b = 0; b < block_count_; ++b) {
      const Block& block = blocks_[static_cast<std::size_t>(b)];
      for (const int i : block.rows_off_pivot)
        squared += block.right_hand_side(i, j) * block.right_hand_side(i, j);
      for (int step = 0; step < block.steps; ++step)
        solution_norm +=
            std::abs(block.column_solution[static_cast<std::size_t>(step * solution_stride_ + j)]);
    }
    const double candidate = std::sqrt(squared) + negligible_ * solution_norm;
    // A zero pivot over a nonzero value gives inf, and inf - inf or 0 * inf a NaN: no bound.
    if (!std::isfinite(candidate)) return std::numeric_limits<double>::infinity();
    bound = std::max(bound, candidate);
  }
  return bound;
}

void DependentFactorization::solve(const Eigen::Ref<const Eigen::VectorXd>& b,
                                   Eigen::Ref<Eigen::VectorXd> x) {
  for (int n = 0; n < block_count_; ++n) {
    Block& block = blocks_[static_cast<std::size_t>(n)];
    const auto m = static_cast<Eigen::Index>(block.rows.size());
    Eigen::VectorXd& rhs = block.vector_right_hand_side;
    rhs.resize(m);
    for (Eigen::Index i = 0; i < m; ++i) rhs(i) = b(block.rows[static_cast<std::size_t>(i)]);
    if (m > 0) apply_reflections(block, true, rhs);
    const int steps = block.steps;
    block.solution.resize(static_cast<std::size_t>(steps));
    for (int s = 0; s < steps; ++s)
      block.solution[static_cast<std::size_t>(s)] =
          rhs(block.reflection_rows[static_cast<std::size_t>(
              block.offsets[static_cast<std::size_t>(s)])]);
    block.upper.solve(block.solution.data());
    for (int s = 0; s < steps; ++s)
      x(block.columns[static_cast<std::size_t>(block.order[static_cast<std::size_t>(s)])]) =
          block.solution[static_cast<std::size_t>(s)];
    for (std::size_t c = static_cast<std::size_t>(steps); c < block.order.size(); ++c)
      x(block.columns[static_cast<std::size_t>(block.order[c])]) = 0.0;
  }
}

}  // namespace skograph

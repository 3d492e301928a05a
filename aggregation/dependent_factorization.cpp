#include "skograph/aggregation/dependent_factorization.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace skograph {

namespace {

// Applies H = I - tau v v* (v = [1; essential], the essential part at v[k + 1 .. m - 1]) to rows
// k .. m - 1 of one column: the one reflection step of the factorization and of its solves.
inline void reflect(const double* v, double tau, Eigen::Index k, Eigen::Index m, double* column) {
  double dot = column[k];
  for (Eigen::Index i = k + 1; i < m; ++i) dot += v[i] * column[i];
  dot *= tau;
  column[k] -= dot;
  for (Eigen::Index i = k + 1; i < m; ++i) column[i] -= dot * v[i];
}

// factors = the Householder QR of `matrix` in Eigen's convention (as HouseholderQR's matrixQR()
// and hCoeffs(), unblocked): column k's reflection maps x = factors(k:, k) to [beta; 0] with
// beta = -sign(x_0) |x|, essential = x(1:) / (x_0 - beta), tau = (beta - x_0) / beta, and none
// (tau = 0) when x(1:) vanishes.
void householder_in_place(const Eigen::MatrixXd& matrix, Eigen::MatrixXd& factors,
                          Eigen::VectorXd& coefficients) {
  factors = matrix;
  const Eigen::Index m = factors.rows(), n = factors.cols(), size = std::min(m, n);
  coefficients.resize(size);
  for (Eigen::Index k = 0; k < size; ++k) {
    double* column = factors.data() + k * m;
    double tail = 0.0;
    for (Eigen::Index i = k + 1; i < m; ++i) tail += column[i] * column[i];
    const double first = column[k];
    double tau = 0.0, beta = first;
    if (!(tail <= std::numeric_limits<double>::min())) {  // as Eigen: a NaN tail spreads
      beta = std::sqrt(first * first + tail);
      if (first >= 0.0) beta = -beta;
      const double denominator = first - beta;
      for (Eigen::Index i = k + 1; i < m; ++i) column[i] /= denominator;
      tau = (beta - first) / beta;
    } else {
      for (Eigen::Index i = k + 1; i < m; ++i) column[i] = 0.0;
    }
    column[k] = beta;
    coefficients(k) = tau;
    if (tau == 0.0) continue;
    for (Eigen::Index j = k + 1; j < n; ++j) reflect(column, tau, k, m, factors.data() + j * m);
  }
}

// Solves the upper-triangular R x = b in place on the columns of b (R: the top rows x rows of
// `factors`).
void solve_upper(const Eigen::MatrixXd& factors, Eigen::Index rows, Eigen::Ref<Eigen::MatrixXd> b) {
  for (Eigen::Index j = 0; j < b.cols(); ++j)
    for (Eigen::Index i = rows - 1; i >= 0; --i) {
      double value = b(i, j);
      for (Eigen::Index k = i + 1; k < rows; ++k) value -= factors(i, k) * b(k, j);
      if (value != 0.0) value /= factors(i, i);  // a zero pivot over a zero entry stays 0
      b(i, j) = value;
    }
}

}  // namespace

void DependentFactorization::apply_reflections(const Block& block, Eigen::Index count, bool forward,
                                               Eigen::Ref<Eigen::MatrixXd> target) {
  const Eigen::Index m = target.rows();
  for (Eigen::Index step = 0; step < count; ++step) {
    const Eigen::Index k = forward ? step : count - 1 - step;
    const double tau = block.coefficients(k);
    if (tau == 0.0) continue;
    const double* v = block.factors.data() + k * block.factors.rows();
    for (Eigen::Index j = 0; j < target.cols(); ++j) reflect(v, tau, k, m, target.col(j).data());
  }
}

// The blocks are the connected components of the bipartite graph rows -- dependent columns with
// an edge per nonzero of Y1 (nodes 0..m-1 the rows, m..m+r-1 the columns); rows no dependent
// column touches belong to no block (they only add to the least-squares residual). Blocks are
// numbered by their first dependent column, rows and columns increasing within each.
void DependentFactorization::compute(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                     const std::vector<int>& dependent) {
  rows_ = static_cast<int>(Q.rows());
  columns_ = static_cast<int>(dependent.size());
  block_count_ = 0;
  inverse_frobenius_squared_ = -1.0;
  if (columns_ == 0) return;
  components_.reset(rows_ + columns_);
  for (int c = 0; c < columns_; ++c)
    for (int i = 0; i < rows_; ++i)
      if (Q(i, dependent[static_cast<std::size_t>(c)]) != 0.0) components_.join(i, rows_ + c);
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
  for (int i = 0; i < rows_; ++i) {
    const int root = components_.find(i);
    if (block_of_root_[static_cast<std::size_t>(root)] >= 0) block_of(i).rows.push_back(i);
  }
  bool wide = false;
  for (int b = 0; b < block_count_; ++b)
    wide = wide || blocks_[static_cast<std::size_t>(b)].rows.size() <
                       blocks_[static_cast<std::size_t>(b)].columns.size();
  if (wide) {  // one block: all rows, all columns
    block_count_ = 1;
    Block& block = blocks_.front();
    block.rows.resize(static_cast<std::size_t>(rows_));
    block.columns.resize(static_cast<std::size_t>(columns_));
    for (int i = 0; i < rows_; ++i) block.rows[static_cast<std::size_t>(i)] = i;
    for (int c = 0; c < columns_; ++c) block.columns[static_cast<std::size_t>(c)] = c;
  }
  for (int b = 0; b < block_count_; ++b) {
    Block& block = blocks_[static_cast<std::size_t>(b)];
    const auto m = static_cast<Eigen::Index>(block.rows.size());
    const auto r = static_cast<Eigen::Index>(block.columns.size());
    block.matrix.resize(m, r);
    for (Eigen::Index j = 0; j < r; ++j)
      for (Eigen::Index i = 0; i < m; ++i)
        block.matrix(i, j) = Q(block.rows[static_cast<std::size_t>(i)],
                               dependent[static_cast<std::size_t>(block.columns[j])]);
    householder_in_place(block.matrix, block.factors, block.coefficients);
    if (block.power_largest.size() != r) {  // conditioning_against's start, sized here
      block.power_largest.setOnes(r);
      block.power_inverse.setOnes(r);
    }
  }
}

// Q_f* b by the block's reflections (first to last), then R x = (Q_f* b)(top) in place; a block
// with fewer rows than columns (only when Y1 cannot have full column rank) is solved on its first
// m columns with the rest of x zero, as Eigen's HouseholderQR::solve does.
void DependentFactorization::solve_block(Block& block) {
  const auto m = static_cast<Eigen::Index>(block.rows.size());
  const auto r = static_cast<Eigen::Index>(block.columns.size());
  const Eigen::Index rank = std::min(m, r);
  Eigen::MatrixXd& rhs = block.right_hand_side;
  if (rhs.cols() == 0 || m == 0) return;
  apply_reflections(block, rank, true, rhs);
  solve_upper(block.factors, rank, rhs.topRows(rank));
}

void DependentFactorization::solve_columns(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                           const std::vector<int>& columns,
                                           Eigen::Ref<Eigen::MatrixXd> x) {
  const auto k = static_cast<Eigen::Index>(columns.size());
  if (k == 0) return;  // nothing to solve (and no 0-column triangular solve: UBSan)
  for (int b = 0; b < block_count_; ++b) {
    Block& block = blocks_[static_cast<std::size_t>(b)];
    const auto m = static_cast<Eigen::Index>(block.rows.size());
    block.right_hand_side.resize(m, k);
    for (Eigen::Index j = 0; j < k; ++j)
      for (Eigen::Index i = 0; i < m; ++i)
        block.right_hand_side(i, j) =
            Q(block.rows[static_cast<std::size_t>(i)], columns[static_cast<std::size_t>(j)]);
    solve_block(block);
    const auto rank = static_cast<Eigen::Index>(std::min(block.rows.size(), block.columns.size()));
    for (std::size_t c = 0; c < block.columns.size(); ++c) {
      if (static_cast<Eigen::Index>(c) < rank)
        x.row(block.columns[c]) = block.right_hand_side.row(static_cast<Eigen::Index>(c));
      else
        x.row(block.columns[c]).setZero();
    }
  }
}

// One right-hand side as a vector: the same reflections in the same order as Eigen's
// HouseholderQR::solve (results agree with it to roundoff), without its copy.
void DependentFactorization::solve(const Eigen::Ref<const Eigen::VectorXd>& b,
                                   Eigen::Ref<Eigen::VectorXd> x) {
  for (int n = 0; n < block_count_; ++n) {
    Block& block = blocks_[static_cast<std::size_t>(n)];
    const auto m = static_cast<Eigen::Index>(block.rows.size());
    const auto r = static_cast<Eigen::Index>(block.columns.size());
    block.vector_right_hand_side.resize(m);
    for (Eigen::Index i = 0; i < m; ++i)
      block.vector_right_hand_side(i) = b(block.rows[static_cast<std::size_t>(i)]);
    const Eigen::Index rank = std::min(m, r);
    if (m > 0) {
      apply_reflections(block, rank, true, block.vector_right_hand_side);
      solve_upper(block.factors, rank, block.vector_right_hand_side.head(rank));
    }
    for (std::size_t c = 0; c < block.columns.size(); ++c)
      x(block.columns[c]) = static_cast<Eigen::Index>(c) < rank
                                ? block.vector_right_hand_side(static_cast<Eigen::Index>(c))
                                : 0.0;
  }
}

bool DependentFactorization::solve_transposed(const Eigen::Ref<const Eigen::VectorXd>& c,
                                              Eigen::Ref<Eigen::VectorXd> y) {
  for (int n = 0; n < block_count_; ++n) {
    const Block& block = blocks_[static_cast<std::size_t>(n)];
    const auto r = static_cast<Eigen::Index>(block.columns.size());
    if (static_cast<Eigen::Index>(block.rows.size()) < r) return false;
    for (Eigen::Index i = 0; i < r; ++i)
      if (!(std::abs(block.factors(i, i)) > 0.0)) return false;
  }
  y.setZero();
  for (int n = 0; n < block_count_; ++n) {
    Block& block = blocks_[static_cast<std::size_t>(n)];
    const auto m = static_cast<Eigen::Index>(block.rows.size());
    const auto r = static_cast<Eigen::Index>(block.columns.size());
    Eigen::VectorXd& w = block.vector_right_hand_side;
    w.resize(m);
    for (Eigen::Index i = 0; i < r; ++i) w(i) = c(block.columns[static_cast<std::size_t>(i)]);
    w.tail(m - r).setZero();
    // R* z = c by forward substitution, then Q_f [z; 0] = H_0 ... H_(r-1) [z; 0].
    for (Eigen::Index i = 0; i < r; ++i) {
      double value = w(i);
      for (Eigen::Index k = 0; k < i; ++k) value -= block.factors(k, i) * w(k);
      w(i) = value / block.factors(i, i);
    }
    if (m > 0) apply_reflections(block, r, false, w);
    for (Eigen::Index i = 0; i < m; ++i) y(block.rows[static_cast<std::size_t>(i)]) = w(i);
  }
  return true;
}

double DependentFactorization::frobenius_squared() const {
  double sum = 0.0;
  for (int b = 0; b < block_count_; ++b)
    sum += blocks_[static_cast<std::size_t>(b)].matrix.squaredNorm();
  return sum;
}

// |R^-1|_F column by column (R^-1 e_j), block by block.
double DependentFactorization::inverse_frobenius_squared() {
  if (inverse_frobenius_squared_ >= 0.0) return inverse_frobenius_squared_;
  inverse_frobenius_squared_ = std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (int b = 0; b < block_count_; ++b) {
    Block& block = blocks_[static_cast<std::size_t>(b)];
    const auto r = static_cast<Eigen::Index>(block.columns.size());
    if (static_cast<Eigen::Index>(block.rows.size()) < r)
      return std::numeric_limits<double>::infinity();  // no full column rank
    for (Eigen::Index i = 0; i < r; ++i)
      if (!(std::abs(block.factors(i, i)) > 0.0)) return std::numeric_limits<double>::infinity();
    // Column j of R^-1 by back substitution: zero below row j, so about r^3 / 6 products.
    const Eigen::MatrixXd& qr = block.factors;
    block.unit.resize(r, 1);
    for (Eigen::Index j = 0; j < r; ++j) {
      double* x = block.unit.data();
      for (Eigen::Index i = j; i >= 0; --i) {
        double value = i == j ? 1.0 : 0.0;
        for (Eigen::Index k = i + 1; k <= j; ++k) value -= qr(i, k) * x[k];
        x[i] = value / qr(i, i);
        sum += x[i] * x[i];
      }
    }
  }
  inverse_frobenius_squared_ = sum;
  return sum;
}

DependentFactorization::Conditioning DependentFactorization::conditioning_against(
    double threshold) {
  using Vector64 = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 64, 1>;
  double largest = 0.0, inverse_largest = 0.0;  // lower bounds on sigma_max and 1 / sigma_min
  bool converged = true;
  for (int b = 0; b < block_count_; ++b) {
    Block& block = blocks_[static_cast<std::size_t>(b)];
    const auto r = static_cast<Eigen::Index>(block.columns.size());
    if (r > 64 || static_cast<Eigen::Index>(block.rows.size()) < r) return Conditioning::kUndecided;
    const auto upper = block.factors.topLeftCorner(r, r).triangularView<Eigen::Upper>();
    Eigen::VectorXd& x = block.power_largest;
    Eigen::VectorXd& y = block.power_inverse;
    // The previous update's vectors with a share of the fixed start mixed in, so that a vector
    // settled on what is now the second direction (after a crossing along a motion, or a block of
    // the same size that is another block now) still has a component along the first.
    const double share = 0.1 / std::sqrt(static_cast<double>(r));
    if (!(x.squaredNorm() > 0.0) || !x.allFinite()) x.setOnes();
    if (!(y.squaredNorm() > 0.0) || !y.allFinite()) y.setOnes();
    x.normalize();
    y.normalize();
    x.array() += share;
    y.array() += share;
    double block_largest = 0.0, block_inverse = 0.0;
    int settled = 0;  // consecutive steps with both estimates changing by under 1e-4
    for (int step = 0; step < 40 && settled < 2; ++step) {
      x.normalize();
      const Vector64 rx = upper * x;
      const double new_largest = rx.norm();
      x.noalias() = upper.transpose() * rx;  // R* R x
      y.normalize();
      upper.solveInPlace(y);  // R^-1 y
      const double new_inverse = y.norm();
      upper.transpose().solveInPlace(y);  // R^-* R^-1 y
      if (!(new_largest > 0.0) || !std::isfinite(new_inverse) || !y.allFinite()) {
        x.setOnes();  // no warm start from here
        y.setOnes();
        return Conditioning::kUndecided;
      }
      const bool small = std::abs(new_largest - block_largest) <= 1e-4 * new_largest &&
                         std::abs(new_inverse - block_inverse) <= 1e-4 * new_inverse;
      settled = small ? settled + 1 : 0;
      block_largest = std::max(block_largest, new_largest);
      block_inverse = std::max(block_inverse, new_inverse);
      // Bounds valid for the whole Y1 at every step: c <= 1 / (largest * inverse_largest).
      if (1.0 / (std::max(largest, block_largest) * std::max(inverse_largest, block_inverse)) <
          threshold * (1.0 - 1e-9))
        return Conditioning::kBelow;  // clear of rounding
    }
    const bool block_converged = settled >= 2;
    largest = std::max(largest, block_largest);
    inverse_largest = std::max(inverse_largest, block_inverse);
    converged = converged && block_converged;
  }
  if (converged && 1.0 / (largest * inverse_largest) >= 1.5 * threshold)
    return Conditioning::kAbove;
  return Conditioning::kUndecided;
}

}  // namespace skograph

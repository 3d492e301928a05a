// The least-norm solutions of Y1* y = c (DependentFactorization::solve_transposed and
// solve_transposed_columns, aggregation/dependent_factorization.hpp): the loop forces'
// multipliers from the dependent dofs' equations, block by block through the factorization's R
// and reflections.
#include <algorithm>
#include <cmath>

#include "skograph/aggregation/dependent_factorization.hpp"
#include "sparse_upper.hpp"

namespace skograph {

bool DependentFactorization::transposed_solvable() const {
  for (int n = 0; n < block_count_; ++n) {
    const Block& block = blocks_[static_cast<std::size_t>(n)];
    if (static_cast<int>(block.rows.size()) < static_cast<int>(block.columns.size())) return false;
    for (int i = 0; i < block.steps; ++i)
      if (!(std::abs(block.upper.diagonal(i)) > 0.0)) return false;
  }
  return true;
}

bool DependentFactorization::solve_transposed(const Eigen::Ref<const Eigen::VectorXd>& c,
                                              Eigen::Ref<Eigen::VectorXd> y) {
  // As one-column matrices by Map: a Ref of another shape would copy c (and allocate).
  const Eigen::Map<const Eigen::MatrixXd> right_side(c.data(), c.size(), 1);
  Eigen::Map<Eigen::MatrixXd> solution(y.data(), y.size(), 1);
  return solve_transposed_into(right_side, solution, true);
}

bool DependentFactorization::solve_transposed_columns(const Eigen::Ref<const Eigen::MatrixXd>& C,
                                                      Eigen::Ref<Eigen::MatrixXd> Y) {
  return solve_transposed_into(C, Y, false);
}

// Per block, R* z = c (c in elimination order) by forward substitution for each column, then
// Q_f [z; 0] with z at the pivot rows, on all the columns at once.
bool DependentFactorization::solve_transposed_into(const Eigen::Ref<const Eigen::MatrixXd>& C,
                                                   Eigen::Ref<Eigen::MatrixXd> Y, bool one_column) {
  eigen_assert(C.rows() == columns_ && Y.rows() == rows_ && Y.cols() == C.cols());
  if (!transposed_solvable()) return false;
  Y.setZero();
  const Eigen::Index k = C.cols();
  for (int n = 0; n < block_count_; ++n) {
    Block& block = blocks_[static_cast<std::size_t>(n)];
    const auto m = static_cast<Eigen::Index>(block.rows.size());
    const int steps = block.steps;
    block.solution.resize(static_cast<std::size_t>(steps));
    double* z = block.solution.data();
    Eigen::MatrixXd& buffer = block.transposed_solution;
    if (one_column)
      block.vector_right_hand_side.resize(m);  // solve's scratch, of this size already
    else if (buffer.rows() < m || buffer.cols() < k)
      buffer.resize(std::max(m, buffer.rows()), std::max(k, buffer.cols()));
    Eigen::Ref<Eigen::MatrixXd> w = one_column
                                        ? Eigen::Ref<Eigen::MatrixXd>(Eigen::Map<Eigen::MatrixXd>(
                                              block.vector_right_hand_side.data(), m, 1))
                                        : Eigen::Ref<Eigen::MatrixXd>(buffer.topLeftCorner(m, k));
    w.setZero();
    for (Eigen::Index j = 0; j < k; ++j) {
      for (int s = 0; s < steps; ++s)
        z[s] =
            C(block.columns[static_cast<std::size_t>(block.order[static_cast<std::size_t>(s)])], j);
      block.upper.solve_transposed(z);
      for (int s = 0; s < steps; ++s)
        w(block.reflection_rows[static_cast<std::size_t>(
              block.offsets[static_cast<std::size_t>(s)])],
          j) = z[s];
    }
    if (m > 0 && k > 0) apply_reflections(block, false, w);
    for (Eigen::Index i = 0; i < m; ++i) Y.row(block.rows[static_cast<std::size_t>(i)]) = w.row(i);
  }
  return true;
}

}  // namespace skograph

// Products with a dense matrix whose nonzeros are few (rigid/closed_chain_derivatives.hpp:
// SparseColumns): a chain of small loops has an embedding X with one aggregate's dofs per column,
// so A X costs rows(A) x nonzeros(X) instead of rows(A) x dofs x independent.
#include <Eigen/Core>

#include "skograph/rigid/closed_chain_derivatives.hpp"

namespace skograph {

void SparseColumns::scan(const Eigen::MatrixXd& dense) {
  rows = dense.rows();
  cols = dense.cols();
  starts.resize(static_cast<std::size_t>(cols) + 1);
  // Room for every entry: a state with more nonzeros than the last (a first call at rest, where
  // the rows' derivative along qd is exactly zero) must not allocate.
  indices.reserve(static_cast<std::size_t>(rows * cols));
  values.reserve(static_cast<std::size_t>(rows * cols));
  indices.clear();
  values.clear();
  for (Eigen::Index c = 0; c < cols; ++c) {
    starts[static_cast<std::size_t>(c)] = static_cast<int>(indices.size());
    for (Eigen::Index i = 0; i < rows; ++i)
      if (dense(i, c) != 0.0) {
        indices.push_back(static_cast<int>(i));
        values.push_back(dense(i, c));
      }
  }
  starts[static_cast<std::size_t>(cols)] = static_cast<int>(indices.size());
}

void multiply(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const SparseColumns& pattern,
              double alpha, bool add, Eigen::MatrixXd& out) {
  eigen_assert(pattern.rows == B.rows() && pattern.cols == B.cols() && A.cols() == B.rows());
  if (!add) out.resize(A.rows(), B.cols());
  eigen_assert(out.rows() == A.rows() && out.cols() == B.cols());
  if (!pattern.worth_it()) {
    if (add)
      out.noalias() += alpha * A * B;
    else
      out.noalias() = alpha * A * B;
    return;
  }
  if (!add) out.setZero();
  // B's zeros are skipped: a NaN in A's matching column does not spread as 0 x NaN would (the
  // callers check their results' finiteness on what the dense product keeps).
  for (Eigen::Index c = 0; c < B.cols(); ++c)
    for (int k = pattern.starts[static_cast<std::size_t>(c)];
         k < pattern.starts[static_cast<std::size_t>(c) + 1]; ++k)
      out.col(c) += (alpha * pattern.values[static_cast<std::size_t>(k)]) *
                    A.col(pattern.indices[static_cast<std::size_t>(k)]);
}

void multiply_transposed(const Eigen::MatrixXd& B, const SparseColumns& pattern,
                         const Eigen::MatrixXd& C, Eigen::MatrixXd& out) {
  eigen_assert(pattern.rows == B.rows() && pattern.cols == B.cols() && C.rows() == B.rows());
  out.resize(B.cols(), C.cols());
  if (!pattern.worth_it()) {
    out.noalias() = B.transpose() * C;
    return;
  }
  for (Eigen::Index j = 0; j < C.cols(); ++j)
    for (Eigen::Index c = 0; c < B.cols(); ++c) {
      double sum = 0.0;
      for (int k = pattern.starts[static_cast<std::size_t>(c)];
           k < pattern.starts[static_cast<std::size_t>(c) + 1]; ++k)
        sum += pattern.values[static_cast<std::size_t>(k)] *
               C(pattern.indices[static_cast<std::size_t>(k)], j);
      out(c, j) = sum;
    }
}

void add_product(const Eigen::MatrixXd& B, const SparseColumns& pattern, const Eigen::MatrixXd& C,
                 Eigen::MatrixXd& out) {
  eigen_assert(pattern.rows == B.rows() && pattern.cols == B.cols() && C.rows() == B.cols() &&
               out.rows() == B.rows() && out.cols() == C.cols());
  if (!pattern.worth_it()) {
    out.noalias() += B * C;
    return;
  }
  for (Eigen::Index j = 0; j < C.cols(); ++j)
    for (Eigen::Index c = 0; c < B.cols(); ++c) {
      const double weight = C(c, j);
      if (weight == 0.0) continue;
      for (int k = pattern.starts[static_cast<std::size_t>(c)];
           k < pattern.starts[static_cast<std::size_t>(c) + 1]; ++k)
        out(pattern.indices[static_cast<std::size_t>(k)], j) +=
            pattern.values[static_cast<std::size_t>(k)] * weight;
    }
}

}  // namespace skograph

// Products with a dense matrix whose nonzeros are few (rigid/closed_chain_derivatives.hpp:
// SparseColumns): a chain of small loops has an embedding X with one aggregate's dofs per column,
// so A X costs rows(A) x nonzeros(X) instead of rows(A) x dofs x independent.
#include <Eigen/Core>

#include "skograph/aggregation/fixed_count.hpp"
#include "skograph/rigid/closed_chain_derivatives.hpp"

namespace skograph {

namespace {

// out = alpha A B (add: out += alpha A B) for B of `Columns` columns, four rows of out at a time
// with all their sums in registers. For a small mechanism's few independent coordinates (a delta
// robot: 13 dofs, 3 columns) Eigen's general product spends more on packing both operands into
// blocks than on the multiply-adds; from about six columns the packed product is as fast.
template <int Columns>
void multiply_narrow(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, double alpha, bool add,
                     Eigen::MatrixXd& out) {
  const Eigen::Index rows = A.rows(), inner = A.cols();
  const double* a = A.data();
  const double* b = B.data();
  double* o = out.data();
  Eigen::Index i = 0;
  for (; i + 4 <= rows; i += 4) {
    double sum[Columns][4] = {};
    for (Eigen::Index k = 0; k < inner; ++k) {
      const double* column = a + k * rows + i;
      for (int c = 0; c < Columns; ++c) {
        const double weight = b[k + c * inner];
        for (int r = 0; r < 4; ++r) sum[c][r] += column[r] * weight;
      }
    }
    for (int c = 0; c < Columns; ++c)
      for (int r = 0; r < 4; ++r) {
        double& entry = o[i + r + c * rows];
        entry = add ? entry + alpha * sum[c][r] : alpha * sum[c][r];
      }
  }
  for (; i < rows; ++i)  // the last rows one at a time
    for (int c = 0; c < Columns; ++c) {
      double sum = 0.0;
      for (Eigen::Index k = 0; k < inner; ++k) sum += a[i + k * rows] * b[k + c * inner];
      double& entry = o[i + c * rows];
      entry = add ? entry + alpha * sum : alpha * sum;
    }
}

// multiply_narrow for B of one to four columns; false (nothing done) for wider B.
bool multiply_narrow(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, double alpha, bool add,
                     Eigen::MatrixXd& out) {
  return with_fixed_count<4>(B.cols(), [&]<int Columns>(std::integral_constant<int, Columns>) {
    if constexpr (Columns == 0) {
      return false;
    } else {
      multiply_narrow<Columns>(A, B, alpha, add, out);
      return true;
    }
  });
}

}  // namespace

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
    if (multiply_narrow(A, B, alpha, add, out)) return;
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

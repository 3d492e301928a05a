// Test support for the sparse layer: dense references from definitions (support/random_sko.hpp)
// and a dense symbolic Cholesky that counts nnz(L) of a given elimination order from first
// principles (eliminating column k joins every pair of its remaining neighbours).
#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <vector>

#include "skograph/operators/segment_sparsity.hpp"

namespace skograph::testing_support {

// nnz(L) (diagonal included) of the Cholesky factor of a symmetric matrix with the given
// structural pattern when eliminated in `order` (order[i] = the i-th eliminated index). O(n^3).
inline long dense_symbolic_factor_nonzeros(const SparsityPattern& pattern,
                                           const std::vector<int>& order) {
  const int n = pattern.rows;
  std::vector<int> position(n);
  for (int i = 0; i < n; ++i) position[order[i]] = i;
  std::vector<std::vector<char>> filled(n, std::vector<char>(n, 0));
  for (int c = 0; c < n; ++c)
    for (int p = pattern.column_start[c]; p < pattern.column_start[c + 1]; ++p) {
      const int r = pattern.row_index[p];
      filled[position[r]][position[c]] = filled[position[c]][position[r]] = 1;
    }
  long count = 0;
  for (int k = 0; k < n; ++k) {
    filled[k][k] = 1;
    std::vector<int> below;
    for (int i = k; i < n; ++i)
      if (filled[i][k]) below.push_back(i);
    count += static_cast<long>(below.size());
    for (const int i : below)
      for (const int j : below) filled[i][j] = 1;
  }
  return count;
}

// nnz of the lower triangle (diagonal included) of a pattern.
inline long lower_nonzeros(const SparsityPattern& pattern) {
  long count = 0;
  for (int c = 0; c < pattern.cols; ++c)
    for (int p = pattern.column_start[c]; p < pattern.column_start[c + 1]; ++p)
      count += pattern.row_index[p] >= c;
  return count;
}

// P M P' with (P M P')(i, j) = M(order[i], order[j]).
inline Eigen::MatrixXd permuted(const Eigen::MatrixXd& m, const std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  Eigen::MatrixXd result(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) result(i, j) = m(order[i], order[j]);
  return result;
}

// The node owning each dof of the hinge layout.
inline std::vector<int> node_of_dof(const BlockLayout& hinge) {
  std::vector<int> node;
  for (int k = 0; k < hinge.count(); ++k)
    for (int d = 0; d < hinge.dim(k); ++d) node.push_back(k);
  return node;
}

}  // namespace skograph::testing_support

// Test support for the operators recursions (engineer ops1): random operators over a given
// structure, wrapping a BwaMatrix as an SKO model so the dense references of random_sko.hpp apply
// to it, and block zero patterns of dense matrices.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "operators/block_diagonal.hpp"
#include "support/random_sko.hpp"

namespace skograph::testing_support {

// An SKO model whose E_A is `kernel` (H and M zero), so dense_kernel / dense_resolvent give the
// dense references of any BwaMatrix (E_A, E_psi, shifted or renumbered operators).
inline SkoModel model_with_kernel(const BwaMatrix& kernel) {
  SkoModel model(kernel.structure_ptr());
  model.kernel() = kernel;
  return model;
}

// A second random BWA matrix over the same structure (for A != B in the Lyapunov products).
inline BwaMatrix random_kernel(std::shared_ptr<const SkoStructure> structure, std::mt19937& rng) {
  BwaMatrix kernel(std::move(structure));
  for (int k = 0; k < kernel.size(); ++k) {
    auto w = kernel.weight(k);
    w = random_matrix(static_cast<int>(w.rows()), static_cast<int>(w.cols()), rng);
  }
  return kernel;
}

// Random blocks; `shift` times the identity is added to make them safely invertible.
inline BlockDiagonal random_block_diagonal(const BlockLayout& layout, std::mt19937& rng,
                                           double shift = 0.0) {
  BlockDiagonal result(layout);
  for (int k = 0; k < layout.count(); ++k) {
    const int m = layout.dim(k);
    result.block(k) = random_matrix(m, m, rng) + shift * Eigen::MatrixXd::Identity(m, m);
  }
  return result;
}

// A structure over the given parent array with random node dims in 1..max_dim and random hinge
// dims in 0..m_k.
inline std::shared_ptr<const SkoStructure> random_structure(const std::vector<int>& parent,
                                                            std::mt19937& rng, int max_dim = 9) {
  std::vector<int> dims(parent.size()), hinge(parent.size());
  for (size_t k = 0; k < parent.size(); ++k) {
    dims[k] = 1 + static_cast<int>(rng() % max_dim);
    hinge[k] = static_cast<int>(rng() % (dims[k] + 1));
  }
  return std::make_shared<const SkoStructure>(Forest(parent), dims, hinge);
}

// The block zero pattern of a dense matrix over (row, column) block layouts, one string per block
// row: 'I' for an identity diagonal block, 'X' for a block with an entry above `tolerance` in
// magnitude, '.' otherwise. Empty blocks count as zero.
inline std::vector<std::string> block_pattern(const Eigen::MatrixXd& dense, const BlockLayout& rows,
                                              const BlockLayout& cols, double tolerance = 0.0,
                                              bool mark_identity = false) {
  std::vector<std::string> pattern(rows.count(), std::string(cols.count(), '.'));
  for (int i = 0; i < rows.count(); ++i)
    for (int j = 0; j < cols.count(); ++j) {
      const auto block = dense.block(rows.offset(i), cols.offset(j), rows.dim(i), cols.dim(j));
      if (block.size() == 0) continue;
      if (mark_identity && i == j && block.isIdentity(0.0))
        pattern[i][j] = 'I';
      else if (block.cwiseAbs().maxCoeff() > tolerance)
        pattern[i][j] = 'X';
    }
  return pattern;
}

// Splits a row-major pattern string of n*n characters into n rows (to quote the papers' figures).
inline std::vector<std::string> pattern_rows(const std::string& flat, int n) {
  std::vector<std::string> rows;
  for (int i = 0; i < n; ++i) rows.push_back(flat.substr(static_cast<size_t>(i) * n, n));
  return rows;
}

}  // namespace skograph::testing_support

// Test support for the operators layer: random operators over a given structure, dense layouts
// of the per-node blocks an algorithm produced (P, D, G, E_psi, ...), bounded random models for
// tests that invert M, and block zero patterns of dense matrices. Dense references from the
// definitions live in random_sko.hpp.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "skograph/operators/block_buffer.hpp"
#include "skograph/operators/block_diagonal.hpp"
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

// Block-diagonal operator with block k at (rows.offset(k), cols.offset(k)).
inline Eigen::MatrixXd dense_block_diagonal(const BlockBuffer& blocks, const BlockLayout& rows,
                                            const BlockLayout& cols) {
  Eigen::MatrixXd result = Eigen::MatrixXd::Zero(rows.total(), cols.total());
  for (int k = 0; k < blocks.count(); ++k)
    result.block(rows.offset(k), cols.offset(k), rows.dim(k), cols.dim(k)) = blocks[k];
  return result;
}

inline Eigen::VectorXd random_vector(int n, std::mt19937& rng) {
  return random_matrix(n, 1, rng);
}

// Scales every weight E_A(parent(k), k) to spectral norm at most 1 (keeping its shape, rank and
// direction). Deep random chains otherwise give A = (I - E_A)^-1 entries growing like a product of
// random matrices and mass matrices too ill-conditioned for a 1e-10 comparison of M^-1 quantities.
inline void bound_weights(SkoModel& model) {
  for (int k = 0; k < model.size(); ++k) {
    if (model.forest().is_base(k)) continue;
    const double norm = Eigen::JacobiSVD<Eigen::MatrixXd>(model.weight(k)).singularValues()(0);
    if (norm > 1.0) model.weight(k) /= norm;
  }
}

// A random model with weights bounded by bound_weights.
inline SkoModel random_bounded_sko_model(const RandomSkoOptions& options, std::mt19937& rng) {
  SkoModel model = random_sko_model(options, rng);
  bound_weights(model);
  return model;
}

// Random model options cycling through trees and forests of growing size for seed `seed`.
inline RandomSkoOptions options_for_seed(int seed, int max_nodes) {
  RandomSkoOptions options;
  options.nodes = 1 + (seed * 37) % max_nodes;
  options.trees = 1 + (seed % 3 == 0 ? seed % 5 : 0);  // every third seed a forest
  return options;
}

}  // namespace skograph::testing_support

// Dense operator assembly for the forward-dynamics family tests (engineer ops2; test support).
//
// The dense references of random_sko.hpp come from the model's definition; the helpers here lay
// out, as dense matrices, the per-node blocks an algorithm produced (P, D, G, E_psi, ...), so that
// the operator identities of part II Lemmas 7-11 can be checked as plain matrix equations.
#pragma once

#include <Eigen/Dense>
#include <random>
#include <vector>

#include "operators/block_buffer.hpp"
#include "support/random_sko.hpp"

namespace skograph::testing_support {

// Block-diagonal operator with block k at (rows.offset(k), cols.offset(k)).
inline Eigen::MatrixXd dense_block_diagonal(const BlockBuffer& blocks, const BlockLayout& rows,
                                            const BlockLayout& cols) {
  Eigen::MatrixXd result = Eigen::MatrixXd::Zero(rows.total(), cols.total());
  for (int k = 0; k < blocks.count(); ++k)
    result.block(rows.offset(k), cols.offset(k), rows.dim(k), cols.dim(k)) = blocks[k];
  return result;
}

// A BWA matrix (an SKO operator such as E_psi) laid out densely, part I Eq. 13.
inline Eigen::MatrixXd dense_bwa(const BwaMatrix& bwa) {
  const BlockLayout& node = bwa.layout();
  Eigen::MatrixXd e = Eigen::MatrixXd::Zero(node.total(), node.total());
  for (int k = 0; k < bwa.size(); ++k) {
    const int p = bwa.forest().parent(k);
    if (p != Forest::kNone)
      e.block(node.offset(p), node.offset(k), node.dim(p), node.dim(k)) = bwa.weight(k);
  }
  return e;
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

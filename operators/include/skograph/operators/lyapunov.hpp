// Forward and backward Lyapunov recursions for SKO models (part II section 4).
//
// For two BWA matrices E_A and E_B over the same structure (for instance E_A and E_psi of a model,
// or E_A twice) with resolvents A and B, and a block-diagonal X over the node layout:
//
//   backward:  Z = A* X B,  Y = diagonal of Z, X = Y - diagOf{E_A* Y E_B}   (Lemma 5, Eq. 21-25)
//   forward:   Z = A X B*,  Y = diagonal of Z, X = Y - E_A Y E_B*           (Lemma 3, Eq. 11-15)
//
// The diagonal recursions are O(N) and do not allocate once the LyapunovWorkspace exists; the
// element accessors walk one or two paths (O(depth)); the dense assemblies are for small systems
// and tests. E_A and E_B must share the structure (same forest and node dimensions;
// std::invalid_argument otherwise).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "skograph/operators/block_diagonal.hpp"
#include "skograph/operators/bwa_matrix.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

struct LyapunovWorkspace {
  explicit LyapunovWorkspace(const SkoStructure& structure);

  BlockDiagonal diagonal;       // Y(k), the diagonal blocks of Z
  std::vector<double> scratch;  // max m_k^2, one intermediate product
};

// Y(k) = A*(parent(k), k) Y(parent(k)) B(parent(k), k) + X(k), a base-to-tips scatter
// (part II Lemma 5, Eq. 23-24): the diagonal blocks of A* X B. Returns workspace.diagonal.
const BlockDiagonal& backward_lyapunov_diagonal(const BwaMatrix& a, const BlockDiagonal& x,
                                                const BwaMatrix& b, LyapunovWorkspace& workspace);

// The block Z(i, j) of Z = A* X B, m_i x m_j, from the diagonal Y of backward_lyapunov_diagonal
// (part II Eq. 25 and Algorithm 4.3): with k the closest common ancestor of i and j,
// Z(i, j) = A*(k, i) Y(k) B(k, j), which is Y(i) for i == j (case 1), the propagation of Y(j)
// down to i when j is an ancestor of i (case 2), of Y(i) down to j when i is an ancestor of j
// (case 3), and the product through the common ancestor for unrelated pairs (case 4); zero when
// i and j lie in different trees of the forest.
Eigen::MatrixXd backward_lyapunov_element(const BwaMatrix& a, const BwaMatrix& b,
                                          const BlockDiagonal& y, int i, int j);

// The whole Z = A* X B as a dense N x N matrix, element by element (small systems).
Eigen::MatrixXd backward_lyapunov_dense(const BwaMatrix& a, const BlockDiagonal& x,
                                        const BwaMatrix& b);

// Y(k) = sum_{j in C(k)} A(k, j) Y(j) B*(k, j) + X(k), a tips-to-base gather (part II Lemma 3,
// Eq. 13-14): the diagonal blocks of A X B*. With A = B = E_A and X = M these are the composite
// body inertias R(k) of Algorithm 4.1. Returns workspace.diagonal.
const BlockDiagonal& forward_lyapunov_diagonal(const BwaMatrix& a, const BlockDiagonal& x,
                                               const BwaMatrix& b, LyapunovWorkspace& workspace);
// Convenience: the same into a fresh BlockDiagonal (allocates it).
BlockDiagonal forward_lyapunov_diagonal(const BwaMatrix& a, const BlockDiagonal& x,
                                        const BwaMatrix& b);

// The block Z(i, j) of Z = A X B*, m_i x m_j (part II Eq. 15): A(i, j) Y(j) when i is an
// ancestor-or-self of j, Y(i) B*(j, i) when j is an ancestor of i, zero for unrelated pairs.
Eigen::MatrixXd forward_lyapunov_element(const BwaMatrix& a, const BwaMatrix& b,
                                         const BlockDiagonal& y, int i, int j);

// The whole Z = A X B* as a dense N x N matrix (small systems).
Eigen::MatrixXd forward_lyapunov_dense(const BwaMatrix& a, const BlockDiagonal& x,
                                       const BwaMatrix& b);

// The node inertias M(k) of a model as a BlockDiagonal (the X of Lemma 4 / Algorithm 4.1).
BlockDiagonal node_inertias(const SkoModel& model);

}  // namespace skograph

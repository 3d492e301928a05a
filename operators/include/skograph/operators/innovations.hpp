// Innovations factorization, inverse and determinant of the SKO mass matrix (part II section 6).
//
//   ArticulatedBodyWorkspace ws(model.structure_ptr());
//   InnovationsFactors factors;
//   innovations_factors(model, ws, factors);           // M = F D F*, F^-1 = [I - H psi K]
//   ForwardDynamicsWorkspace fd(model.structure_ptr());
//   Eigen::MatrixXd inverse;
//   mass_matrix_inverse(model, fd, inverse);            // M^-1 in O(N^2), never inverting M
//   double log_det = mass_matrix_log_determinant(model, ws);  // sum log det D(k)
//
// With the Riccati quantities of operators/articulated_body.hpp and K = E_A G (single non-zero
// block K(parent(k), k) = A(parent(k), k) G(k)):
//   M = [I + H A K] D [I + H A K]*                     (Lemma 11, Eq. 49)
//   [I + H A K]^-1 = [I - H psi K]                     (Eq. 50)
//   M^-1 = [I - H psi K]* D^-1 [I - H psi K]           (Eq. 51)
//   det M = prod_k det D(k)                            (Corollary 6.1, Eq. 53)
// Both factors have identity diagonal blocks and a non-zero block (i, k) only when node i is an
// ancestor of node k, i.e. they are block lower triangular in any canonical numbering (Cor. 6.1).
// All matrices are in the hinge layout (structure().hinge offsets, node id order).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

struct InnovationsFactors {
  Eigen::MatrixXd newton_euler_factor;  // [I + H A K], N x N
  Eigen::MatrixXd innovations_inertia;  // D = diag(D(k)), N x N
  Eigen::MatrixXd inverse_factor;       // [I - H psi K] = [I + H A K]^-1, N x N
};

struct SparseInnovationsFactors {
  Eigen::SparseMatrix<double> newton_euler_factor;  // [I + H A K]: ancestor/descendant blocks
  Eigen::SparseMatrix<double> innovations_inertia;  // D, block diagonal
  Eigen::SparseMatrix<double> inverse_factor;       // [I - H psi K]
};

// Computes the Riccati quantities (articulated_body_inertias) and the dense innovations factors of
// part II Lemma 11 (Eq. 49-50). Column block k of [I + H A K] is H(i) A(i, k) G(k) for each
// ancestor i of k (carried up the path as X <- A(l, j) X, starting from X = G(k)); column block k
// of [I - H psi K] is -H(i) psi(i, parent(k)) A(parent(k), k) G(k) (carried with the psi
// weights). O(N * depth) block products; the output matrices are resized when needed.
void innovations_factors(const SkoModel& model, ArticulatedBodyWorkspace& workspace,
                         InnovationsFactors& factors);

// The same factors as sparse matrices holding only the structurally non-zero blocks (identity
// diagonal blocks, ancestor/descendant pairs; unrelated node pairs are absent).
void innovations_factors(const SkoModel& model, ArticulatedBodyWorkspace& workspace,
                         SparseInnovationsFactors& factors);

// M^-1 from the factored inverse of part II Lemma 11 (Eq. 51), column by column: each column
// M^-1 e_j is one pair of O(N) sweeps (apply_mass_matrix_inverse), O(N^2) in all, without forming
// or inverting M. Computes the Riccati quantities into workspace.articulated first.
void mass_matrix_inverse(const SkoModel& model, ForwardDynamicsWorkspace& workspace,
                         Eigen::MatrixXd& inverse);

// log det M = sum_k log det D(k) (part II Corollary 6.1, Eq. 53), from the Cholesky factors of
// D(k) computed by articulated_body_inertias (called here). O(N).
double mass_matrix_log_determinant(const SkoModel& model, ArticulatedBodyWorkspace& workspace);

// det M = exp(log det M) (Corollary 6.1, Eq. 53); overflows to inf for large systems, where the
// logarithm is the useful quantity.
double mass_matrix_determinant(const SkoModel& model, ArticulatedBodyWorkspace& workspace);

}  // namespace skograph

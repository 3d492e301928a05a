// Compressed-column (Eigen::SparseMatrix<double>, CSC) assembly of the operators of an SKO model
// (H, A, M) and of its joint-space mass matrix, with the nonzero pattern taken from the topology
// alone (part I section 3-5, part II section 4.2 and section 7).
//
//   auto pattern = mass_matrix_pattern(model.structure());   // before any numbers (§7.4)
//   Eigen::SparseMatrix<double> mass = sparse_mass_matrix(model);   // H A M A* H*
//   // per configuration, same pattern, no reallocation:
//   CompositeInertiaWorkspace workspace(model.structure());
//   sparse_mass_matrix(model, workspace, mass);
//
// Row/column orders: the node layout (structure().node, node-id order) for E_A, A and the spatial
// inertia; the hinge layout (structure().hinge) for the mass matrix; H is hinge x node. Every
// matrix keeps its structural nonzeros even when a value happens to be zero, so the stored pattern
// of a sparse_mass_matrix is exactly mass_matrix_pattern (a CHOLMOD symbolic analysis stays valid).
//
// Nothing here assumes rigid bodies: an embedded closed-chain model (aggregated nodes of
// dimension 6|S|, hinge maps H_R) is just another SkoModel, and sparse_mass_matrix of it is the
// reduced mass matrix M_R.
#pragma once

#include <Eigen/SparseCore>
#include <vector>

#include "skograph/operators/innovations.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/operators/segment_sparsity.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

// E_A (node layout): block (parent(k), k) = E_A(parent(k), k) (part I Eq. 13).
Eigen::SparseMatrix<double> sparse_kernel(const SkoModel& model);

// A = (I - E_A)^-1 (node layout): block (i, j) = A(i, j) for i an ancestor-or-self of j
// (part I Lemma 5 and Eq. 14).
Eigen::SparseMatrix<double> sparse_resolvent(const SkoModel& model);

// H = diag(H(k)) (hinge x node layout, part II section 2.1).
Eigen::SparseMatrix<double> sparse_hinge_map(const SkoModel& model);

// The spatial inertia operator M = diag(M(k)) (node layout, part II section 2.1): the
// block-diagonal "M" of H A M A* H*. Part II also meets the full spatial-level product A M A*
// (Lemma 3, Eq. 11: its block diagonal is the composite inertias R), which is dense on related node
// pairs; that one is not what this function returns (form it as A * M * A^T if needed).
Eigen::SparseMatrix<double> sparse_spatial_mass(const SkoModel& model);

// The structural pattern of the joint-space mass matrix H A M A* H* (hinge layout, both
// triangles): dense blocks for every related node pair (i ancestor-or-self of j or j of i), part II
// Lemma 4 and section 7.4. Nodes with r_k = 0 own no rows. Depends on the structure only.
SparsityPattern mass_matrix_pattern(const SkoStructure& structure);

// A sparse matrix with the given pattern and all stored values 0.
Eigen::SparseMatrix<double> pattern_matrix(const SparsityPattern& pattern);

// The stored pattern of a sparse matrix (explicit zeros included).
SparsityPattern sparsity_pattern(const Eigen::SparseMatrix<double>& matrix);

// The symmetric renumbering T M T* with T(new_index[i], i) = 1, i.e. entry (i, j) moves to
// (new_index[i], new_index[j]) (part I section 5.1); stored entries stay stored, zeros included.
// Used to put the embedded model's hinge order into a user-facing dof order.
Eigen::SparseMatrix<double> renumber_symmetric(const Eigen::SparseMatrix<double>& matrix,
                                               const std::vector<int>& new_index);

// The joint-space mass matrix M = H A M A* H* (part II Eq. 2-3) by composite body inertias
// (part II Algorithm 4.1-4.2, Lemma 4 Eq. 17): R(k) by the tips-to-base gather, then for each node
// k the column X = R(k) H*(k) carried to every ancestor l (X <- E_A(l, j) X), M(l, k) = H(l) X and
// M(k, l) its transpose. O(N * depth) block products.
// The overload with a workspace keeps `mass`'s storage when it already has the pattern of
// mass_matrix_pattern (only values change: no allocation); otherwise it is rebuilt.
Eigen::SparseMatrix<double> sparse_mass_matrix(const SkoModel& model);
void sparse_mass_matrix(const SkoModel& model, CompositeInertiaWorkspace& workspace,
                        Eigen::SparseMatrix<double>& mass);

// The innovations factorization M = [I + H A K] D [I + H A K]* as sparse matrices (part II
// Lemma 11, Eq. 49-50): an alternative, division-free block LDL' of M whose factor is block lower
// triangular in any canonical numbering (Corollary 6.1). Thin wrapper of operators/innovations.hpp.
SparseInnovationsFactors sparse_innovations_factors(const SkoModel& model);

}  // namespace skograph

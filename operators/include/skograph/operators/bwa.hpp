// Block-weighted adjacency (BWA) matrices and their 1-resolvents, assembled (part I sections 4-5).
//
// Recursions never form E or A = (I - E)^-1 (see operators/spo_products.hpp); the assemblies here
// serve tests, sparse solvers and rendering. All functions take a BwaMatrix, so they serve the SKO
// operator E_A of a model as well as derived operators such as E_psi (part II Lemma 8).
//
// Stacked vectors and assembled matrices use the node layout of the structure: node k owns rows
// and columns [offset(k), offset(k) + m_k) in node-id order (not post-order).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <span>
#include <vector>

#include "skograph/graph/numbering.hpp"
#include "skograph/operators/block_diagonal.hpp"
#include "skograph/operators/bwa_matrix.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

// E as a sparse N x N matrix, N = sum of m_k: block (parent(k), k) is w(parent(k), k) and every
// other block is zero (part I Eq. 8 and Eq. 13). Every entry of a weight is stored, zero or not,
// so the stored pattern is the structural one.
Eigen::SparseMatrix<double> assemble_kernel(const BwaMatrix& kernel);

// The 1-resolvent A = (I - E)^-1 as a sparse N x N matrix, from the closed form of part I Lemma 5
// (Eq. 18): A(j, j) = I, A(i, j) = w(i, .) ... w(parent(j), j) (the product of the weights along
// the path) when i is an ancestor of j, and 0 for every other pair. Built in O(nnz * max m) by
// walking up from each node j and extending the path product one edge at a time with the
// semi-group property A(parent(k), j) = A(parent(k), k) A(k, j) (part I Lemma 6, Eq. 19).
// Off-diagonal blocks store every entry of the path product; the identity blocks A(j, j) store
// their diagonal only.
Eigen::SparseMatrix<double> assemble_resolvent(const BwaMatrix& kernel);

// The block A(i, j), m_i x m_j (part I Lemma 5, Eq. 18): identity for i == j, the path product of
// the weights when i is an ancestor of j, zero otherwise (unrelated nodes, or i a descendant of
// j). O(depth) products; allocates its result.
Eigen::MatrixXd resolvent_block(const BwaMatrix& kernel, int i, int j);

// ---- Permutation similarity (renumbering), part I section 5.1 ----
//
// A renumbering is given as new_index[k] = the new id of the node whose old id is k; it must be a
// permutation of 0..n-1 (std::invalid_argument otherwise).

// The structure with nodes renumbered: new forest, node and hinge dimensions moved along.
std::shared_ptr<const SkoStructure> renumber_structure(const SkoStructure& structure,
                                                       std::span<const int> new_index);
// The BWA matrix E' = T E T* of the renumbered tree (part I Eq. 26): weight w'(new_index[p],
// new_index[k]) = w(p, k). `renumbered` must be renumber_structure(kernel.structure(), new_index)
// (or equal to it); the overload without it builds it.
BwaMatrix renumber(const BwaMatrix& kernel, std::shared_ptr<const SkoStructure> renumbered,
                   std::span<const int> new_index);
BwaMatrix renumber(const BwaMatrix& kernel, std::span<const int> new_index);
// The SKO model (H, A, M) of the renumbered tree: weights, hinge maps and inertias moved along, so
// that the renumbered equations of motion are the original ones with stacked vectors permuted.
SkoModel renumber(const SkoModel& model, std::span<const int> new_index);
// The block permutation matrix T (N x N, sparse) with x_new = T x_old for stacked vectors in the
// given layout (node or hinge) of the old numbering. T is orthogonal: T^-1 = T*.
Eigen::SparseMatrix<double> block_permutation_matrix(const BlockLayout& old_layout,
                                                     std::span<const int> new_index);
// A strictly canonical renumbering comes from the graph layer (graph/numbering.hpp:
// strictly_canonical_numbering); after renumbering with it, E is strictly block lower-triangular
// and A block lower-triangular.

// ---- Similarity-shift transformation, part I section 5.2 ----
//
// The BWA matrix E_B with weights B(parent(k), k) = Delta(parent(k)) A(parent(k), k) Delta(k)^-1
// (part I Eq. 28) for an invertible block-diagonal Delta = diag{Delta(k)}, Delta(k) m_k x m_k, over
// the node layout. By Lemma 9 (Eq. 29-30), E_B = Delta E_A Delta^-1 and its resolvent is
// B = Delta A Delta^-1. Throws std::invalid_argument when a Delta(k) is singular or the layout does
// not match.
BwaMatrix similarity_shift(const BwaMatrix& kernel, const BlockDiagonal& delta);

}  // namespace skograph

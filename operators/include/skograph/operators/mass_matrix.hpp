// Composite body inertias and the mass matrix of an SKO model (part II section 4.2).
//
//   CompositeInertiaWorkspace ws(model.structure());
//   composite_body_inertias(model, ws);   // R(k), O(N)
//   Eigen::MatrixXd mass;
//   mass_matrix(model, ws, mass);         // H A M A* H*, O(N^2) blocks
//
// R is the block-diagonal solution of the forward Lyapunov equation M = R - E_A R E_A*
// (part II Lemma 4, Eq. 18); its blocks are the diagonal blocks of A M A* (Lemma 3, Eq. 11).
// Nothing assumes 6x6 blocks: R(k) is m_k x m_k, and hinges with r_k = 0 simply contribute no
// rows or columns to the mass matrix.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "skograph/operators/block_buffer.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

// Storage for the composite body inertia family, sized once from the structure.
struct CompositeInertiaWorkspace {
  explicit CompositeInertiaWorkspace(const SkoStructure& structure);
  BlockBuffer composite_inertia;  // R(k), m_k x m_k
  // Scratch for the recursions: a max_dim x max_dim product and two max_dim x max_hinge columns.
  std::vector<double> product_scratch, column_scratch, next_column_scratch;
};

// Composite body inertias R(k) by the tips-to-base forward Lyapunov gather
// R(k) = M(k) + sum_{children j} A(k, j) R(j) A*(k, j)   (part II Algorithm 4.1, Eq. 20;
// Lemma 4, Eq. 18). O(N); no allocation.
void composite_body_inertias(const SkoModel& model, CompositeInertiaWorkspace& workspace);

// The mass matrix H A M A* H* (part II Eq. 2-3) in the hinge layout (row/column offsets
// structure().hinge.offset(k)), computed from the decomposition M = H R H* + H A~ R H* + H R A~* H*
// (part II Lemma 4, Eq. 17) by Algorithm 4.2: composite inertias, then for each node k the column
// X = R(k) H*(k) is carried to every ancestor l (X <- A(l, j) X) giving the block M(l, k) = H(l) X.
// Blocks of unrelated node pairs are zero. O(N * depth) block products (O(N^2) worst case).
// `mass` is resized (allocating) only when its size differs from the number of hinge dofs.
void mass_matrix(const SkoModel& model, CompositeInertiaWorkspace& workspace,
                 Eigen::MatrixXd& mass);

}  // namespace skograph

// Composite body inertias and the mass matrix of an SKO model (part II section 4.2), with the
// serial-chain paper's other ways to M and its composite-body inverse dynamics (section 3).
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
#include "skograph/operators/inverse_dynamics.hpp"
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

// The two other O(N^2) ways to the mass matrix of the serial-chain paper (section 3), generalized
// to SKO trees and forests, for comparison with Algorithm 4.2 above (tests check all three agree;
// `skograph bench --algo mass-direct|mass-symmetry|mass-sko` times them):
//   mass_matrix_direct    "Direct Method": column j of M is the Newton-Euler inverse dynamics
//                         T = H A M A* H* e_j (thetadot = 0, a = b = 0, Eq. 23), N calls of O(N).
//   mass_matrix_symmetry  "Symmetry Based Method": with only dof j of node k accelerating, the
//                         nodes outside k's subtree stay at rest, so the Newton-Euler sweeps over
//                         that subtree alone give the column's entries M(i, j) of every node i in
//                         it; the entries of k's ancestors are those rows' own columns (M = M*).
//                         O(size of the subtree) per column: O(N * depth) in all.
struct MassMatrixMethodsWorkspace {
  explicit MassMatrixMethodsWorkspace(const SkoStructure& structure);
  Eigen::VectorXd zero_hinge, unit_hinge, zero_node;  // inputs of the direct method's calls
  Eigen::VectorXd acceleration, force;                // alpha, f of one column, node layout
  InverseDynamicsWorkspace inverse_dynamics;
};
void mass_matrix_direct(const SkoModel& model, MassMatrixMethodsWorkspace& workspace,
                        Eigen::MatrixXd& mass);
void mass_matrix_symmetry(const SkoModel& model, MassMatrixMethodsWorkspace& workspace,
                          Eigen::MatrixXd& mass);

// Inverse dynamics by composite body inertias (serial-chain paper, Lemma 3.2, on trees): with
// x = H* thetaddot + a (plus the base acceleration at the bases) and alpha = A* x,
//   f = A (M alpha + b) = R alpha + z,   z(k) = b(k) + sum_{children c} A(k, c) [z(c) + R(c) x(c)]
// (A M A* = R A* + A~ R by part II Lemma 4, Eq. 17, so the lemma's y = A~ R x, plus A b for the
// gyroscopic forces the lemma leaves out), T = H f. The tips-to-base sweep for z and the
// base-to-tips sweep for alpha do not depend on each other (the lemma's point: they can run in
// parallel); R comes from composite_body_inertias. Same inputs and result as inverse_dynamics
// (operators/inverse_dynamics.hpp) without thetadot (V is not needed for T). O(N); no allocation.
struct CompositeInverseDynamicsWorkspace {
  explicit CompositeInverseDynamicsWorkspace(const SkoStructure& structure);
  CompositeInertiaWorkspace composite;
  Eigen::VectorXd motion;        // x = H* thetaddot + a, node layout
  Eigen::VectorXd acceleration;  // alpha = A* x
  Eigen::VectorXd correction;    // z
  Eigen::VectorXd force;         // f = R alpha + z
  Eigen::VectorXd generalized_force;
  int base_acceleration_size = 0;  // as InverseDynamicsWorkspace (declared before base_offset)
  std::vector<int> base_offset;
};
const Eigen::VectorXd& inverse_dynamics_by_composite_inertias(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetaddot,
    const Eigen::Ref<const Eigen::VectorXd>& a, const Eigen::Ref<const Eigen::VectorXd>& b,
    const Eigen::Ref<const Eigen::VectorXd>& base_acceleration,
    CompositeInverseDynamicsWorkspace& workspace);

}  // namespace skograph

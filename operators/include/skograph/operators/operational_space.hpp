// Operational-space compliance and inertia of an SKO model (part II section 6.2).
//
//   OperationalSpaceWorkspace ws(model.structure_ptr());
//   operational_space_compliance_diagonal(model, ws);            // Omega(k, k) for every node,
//   O(N) const std::vector<int> nodes = {tip_a, tip_b}; Eigen::MatrixXd inertia;
//   operational_space_inertia(model, nodes, ws, inertia);        // (B* Omega B)^-1
//
// The extended operational-space compliance (part II Eq. 60)
//   Omega = psi* H* D^-1 H psi = A* H* M^-1 H A,
// the second form by Eq. 45 ([I - H psi K] H A = H psi) and Lemma 11 (Eq. 51). With B the
// pick-off of a set of nodes and J = B* A* H* their Jacobian (V(k) = [A* H* thetadot](k)),
// J M^-1 J* = B* Omega B (Eq. 59-60), and the operational-space inertia of the nodes is its
// inverse. Omega is a backward Lyapunov product psi* X psi with the block-diagonal
// X(k) = H*(k) D^-1(k) H(k), so its diagonal blocks come from the O(N) base-to-tips scatter of
// part II Lemma 5 (Eq. 23-24) and any block Omega(i, j) from one walk through the closest common
// ancestor (Eq. 25, Algorithm 4.3); M^-1 is never formed. The recursions are the backward-Lyapunov
// ones (operators/lyapunov.hpp) applied to E_psi of operators/articulated_body.hpp.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <span>

#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/block_diagonal.hpp"
#include "skograph/operators/lyapunov.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

// Storage for the operational-space family, sized once from the structure.
struct OperationalSpaceWorkspace {
  explicit OperationalSpaceWorkspace(std::shared_ptr<const SkoStructure> structure);
  ArticulatedBodyWorkspace articulated;  // P, D, G, E_psi (Lemma 7-8)
  BlockDiagonal hinge_compliance;        // X(k) = H*(k) D^-1(k) H(k), node layout
  LyapunovWorkspace lyapunov;            // its diagonal Y(k) = Omega(k, k)
};

// The Riccati quantities, X(k) = H*(k) D^-1(k) H(k) and the diagonal blocks Omega(k, k) =
// psi*(parent(k), k) Omega(parent(k), parent(k)) psi(parent(k), k) + X(k) (part II Lemma 5,
// Eq. 23-24 with A = B = psi). O(N); no allocation. Returns workspace.lyapunov.diagonal.
const BlockDiagonal& operational_space_compliance_diagonal(const SkoModel& model,
                                                           OperationalSpaceWorkspace& workspace);

// The block Omega(i, j) (m_i x m_j) = psi*(c, i) Omega(c, c) psi(c, j) through the closest common
// ancestor c of i and j (part II Eq. 25, Algorithm 4.3); zero for nodes in different trees.
// Requires operational_space_compliance_diagonal for this model first. O(depth).
Eigen::MatrixXd operational_space_compliance_block(const OperationalSpaceWorkspace& workspace,
                                                   int i, int j);

// B* Omega B = J M^-1 J* for the listed nodes (part II Eq. 59-60), in the order given: a
// (sum of m_k) square matrix. Computes the diagonal first (O(N)), then each pair (O(depth)).
void operational_space_compliance(const SkoModel& model, std::span<const int> nodes,
                                  OperationalSpaceWorkspace& workspace,
                                  Eigen::MatrixXd& compliance);

// The operational-space inertia (J M^-1 J*)^-1 = (B* Omega B)^-1 of the listed nodes (part II
// section 6.2). Throws std::runtime_error when B* Omega B is singular (the nodes' Jacobian J does
// not have full row rank, e.g. a node with fewer hinge dofs on its path than its dimension).
void operational_space_inertia(const SkoModel& model, std::span<const int> nodes,
                               OperationalSpaceWorkspace& workspace, Eigen::MatrixXd& inertia);

}  // namespace skograph

// Articulated-body inertias: the Riccati solution of an SKO model (part II section 5).
//
//   ArticulatedBodyWorkspace ws(model.structure_ptr());
//   articulated_body_inertias(model, ws);   // P, D, G, tau-bar, P+ and E_psi, O(N)
//
// P is the block-diagonal, symmetric positive-definite solution of the Riccati equation
// M = P - E_A [P - P H* (H P H*)^-1 H P] E_A* (part II Lemma 7, Eq. 31). With it come
//   D = H P H*,  G = P H* D^-1,  tau = G H,  tau-bar = I - tau,  P+ = tau-bar P   (Eq. 32)
// and the derived SKO operator E_psi = E_A tau-bar with weights psi(parent(k), k) =
// A(parent(k), k) tau-bar(k) (Lemma 8, Eq. 34-35), whose resolvent psi = (I - E_psi)^-1 is
// applied by the same gather/scatter recursions as A. The "Kalman gain" K = E_A G (Lemma 10,
// Eq. 43: psi^-1 - A^-1 = K H; the K = E_psi G printed as Eq. 37 would vanish since
// tau-bar G = 0) has the single non-zero block K(parent(k), k) = A(parent(k), k) G(k).
// Every block has the node/hinge dims of its node: P(k) m_k x m_k, D(k) r_k x r_k, G(k) m_k x r_k;
// a 0-dof hinge gives an empty D(k), G(k) and tau-bar(k) = I.
//
// A node whose subtree has no inertia at all (every M(j) below and at k exactly zero: massless
// frames on moving joints) has P(k) = 0 and D(k) = 0: M is singular, but only in that node's
// hinge coordinates, which move nothing. Such a node is "massless": G(k) = 0, tau-bar(k) = I, and
// the sweeps of forward dynamics leave its thetaddot at zero (a prescribed, not a computed,
// acceleration). Any other singular D(k) throws SingularMassMatrixError.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "skograph/graph/error.hpp"
#include "skograph/operators/block_buffer.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

// Storage for the articulated-body (Riccati) family, sized once from the structure.
struct ArticulatedBodyWorkspace {
  explicit ArticulatedBodyWorkspace(std::shared_ptr<const SkoStructure> structure);
  BlockBuffer articulated_inertia;       // P(k), m_k x m_k
  BlockBuffer innovations_inertia;       // D(k) = H(k) P(k) H*(k), r_k x r_k
  BlockBuffer innovations_cholesky;      // lower-triangular L(k) with D(k) = L(k) L*(k)
  BlockBuffer kalman_gain;               // G(k) = P(k) H*(k) D^-1(k), m_k x r_k
  BlockBuffer complement_projector;      // tau-bar(k) = I - G(k) H(k), m_k x m_k
  BlockBuffer articulated_inertia_plus;  // P+(k) = tau-bar(k) P(k), m_k x m_k
  BwaMatrix psi_kernel;                  // E_psi: psi(parent(k), k) = A(parent(k), k) tau-bar(k)
  std::vector<char> massless;            // per node: P(k) = 0 exactly (see above)
  bool any_massless = false;
  // Scratch: a max_dim x max_dim product, a max_hinge x max_dim row block and two max_dim x
  // max_hinge column blocks (for the O(N^2) walks of operators/innovations.hpp).
  std::vector<double> product_scratch, row_scratch, column_scratch, next_column_scratch;
};

// The mass matrix is singular at the configuration for a reason other than a massless subtree
// (graph/error.hpp): D(k) = H P H* of node k is singular while P(k) is not zero (two coaxial
// hinges on massless links, a point mass on a hinge's axis), or a sparse factorization met a zero
// pivot. One sentence naming the joint where known; node() is its SKO node, -1 when unknown.
class SingularMassMatrixError : public Error {
 public:
  SingularMassMatrixError(int node, const std::string& message) : Error(message), node_(node) {}
  int node() const { return node_; }

 private:
  int node_;
};
using SingularHingeError [[deprecated("use SingularMassMatrixError")]] = SingularMassMatrixError;

// The Riccati solution by the tips-to-base gather of part II Lemma 7, Eq. 33:
//   P(k) = sum_{children j} A(k, j) P+(j) A*(k, j) + M(k),  D(k) = H(k) P(k) H*(k),
//   G(k) = P(k) H*(k) D^-1(k),  tau-bar(k) = I - G(k) H(k),  P+(k) = tau-bar(k) P(k),
// plus the E_psi weights of Lemma 8, Eq. 35. D(k) is factored by Cholesky (it is SPD because
// M is SPD and H(k) has full row rank); throws std::runtime_error if a D(k) is not positive
// definite (an invalid model) unless P(k) is exactly zero (a massless node, above). O(N); no
// allocation.
void articulated_body_inertias(const SkoModel& model, ArticulatedBodyWorkspace& workspace);

// The lower Cholesky factor of a small symmetric positive-definite block `matrix` into `lower`
// (strict upper part zeroed); false when a pivot is not positive. No allocation.
bool cholesky_lower(const Eigen::Ref<const Eigen::MatrixXd>& matrix,
                    Eigen::Ref<Eigen::MatrixXd> lower);

// Throws std::runtime_error "<what>: the mass matrix is singular (node k moves no mass)" when the
// last articulated_body_inertias found a massless node (for algorithms that need M^-1).
void require_no_massless_nodes(const ArticulatedBodyWorkspace& workspace, const char* what);
// Solves D(k) x = rhs in place with the stored Cholesky factor of D(k) (rhs: r_k x any).
void solve_innovations_inertia(const ArticulatedBodyWorkspace& workspace, int k,
                               Eigen::Map<Eigen::MatrixXd> rhs);

// log det D(k) from the Cholesky factor: 2 sum_i log L(k)(i, i); 0 for a 0-dof hinge.
double innovations_log_determinant(const ArticulatedBodyWorkspace& workspace, int k);

}  // namespace skograph

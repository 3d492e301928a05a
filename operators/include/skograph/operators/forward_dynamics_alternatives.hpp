// The other forward-dynamics algorithm families of "A unified formulation of serial-chain
// forward dynamics" (serial-chain-unified-formulation.txt, sections 3-4), generalized to SKO
// trees and forests, for comparison with the O(N) articulated-body algorithm of
// operators/forward_dynamics.hpp. All solve M thetaddot = T - C (part II Eq. 2-3) and give the same
// answer:
//
//   forward_dynamics_cholesky            O(N^3): the mass matrix by composite inertias
//                                        (Algorithm 4.2), then a dense Cholesky solve (section 3).
//   forward_dynamics_innovations         O(N^2): the innovations factors M = F D F*,
//                                        F = [I + H A K] (part II Lemma 11, Eq. 49), then the
//                                        triangular solves F D x = T - C, F* thetaddot = x
//                                        (section 4, "Triangularized Equations Method").
//   forward_dynamics_conjugate_gradient  O(N) per iteration: conjugate gradients on M, each M p by
//                                        Newton-Euler inverse dynamics with a = b = 0, optionally
//                                        preconditioned by the block diagonal H R H* of M
//                                        (section 4, "Conjugate Gradient Methods").
//
// The bias C = H A (M A* a + b) of the first three is computed by Newton-Euler (generalized_bias).
// Inputs follow operators/forward_dynamics.hpp (hinge layout thetadot, T; node layout a, b; gravity
// through a). Each returns workspace.generalized_acceleration. The tree generalization: block
// triangularity of F holds in post-order (descendants before ancestors), so the substitutions walk
// forest().post_order() and ancestor paths instead of index ranges.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <memory>

#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/block_buffer.hpp"
#include "skograph/operators/innovations.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

// Storage for all the alternatives, sized once from the structure (including the N x N dense
// matrices of the O(N^3) and O(N^2) methods); the solves themselves do not allocate (except
// inside Eigen's dense LLT, see forward_dynamics_cholesky).
struct AlternativeForwardDynamicsWorkspace {
  explicit AlternativeForwardDynamicsWorkspace(std::shared_ptr<const SkoStructure> structure);
  InverseDynamicsWorkspace inverse_dynamics;  // bias C and the M p products
  CompositeInertiaWorkspace composite;        // R(k) (mass matrix, preconditioner)
  ArticulatedBodyWorkspace articulated;       // D(k), G(k) for the innovations factors
  Eigen::MatrixXd mass;                       // M, O(N^3) method
  Eigen::LLT<Eigen::MatrixXd> mass_cholesky;  // its Cholesky factor
  InnovationsFactors innovations;             // F, D, F^-1, O(N^2) method
  BlockBuffer preconditioner_cholesky;        // lower Cholesky factors of H(k) R(k) H*(k)
  Eigen::VectorXd bias_free_force;            // T - C, hinge layout
  Eigen::VectorXd residual, preconditioned_residual, direction, mass_times_direction;
  Eigen::VectorXd zero_dofs, zero_nodes;     // thetadot = 0, a = b = 0 for the M p products
  Eigen::VectorXd generalized_acceleration;  // the result thetaddot, hinge layout
};

// O(N^3): thetaddot = M^-1 (T - C) with M from mass_matrix (part II Algorithm 4.2) and a dense
// Cholesky factorization (serial-chain-unified-formulation section 3). The only member of the
// family that may allocate after construction: Eigen's blocked LLT takes temporary GEMM blocking
// buffers from the heap for large N.
const Eigen::VectorXd& forward_dynamics_cholesky(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
    AlternativeForwardDynamicsWorkspace& workspace);

// O(N^2): with the innovations factorization M = F D F*, F = [I + H A K] (part II Lemma 11,
// Eq. 49), solve F y = T - C by block forward substitution in post-order (F(i, k) != 0 only for
// i an ancestor of k), x = D^-1 y blockwise, and F* thetaddot = x by back substitution from the
// bases (serial-chain-unified-formulation section 4, steps (a)-(b)).
const Eigen::VectorXd& forward_dynamics_innovations(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
    AlternativeForwardDynamicsWorkspace& workspace);

enum class ConjugateGradientPreconditioner {
  kNone,                 // Lambda = I (the algorithm of the paper's Ref. 4)
  kCompositeBodyInertia  // Lambda = H R H*, the block diagonal of M (the paper's Ref. 5)
};

struct ConjugateGradientOptions {
  ConjugateGradientPreconditioner preconditioner = ConjugateGradientPreconditioner::kNone;
  double relative_tolerance = 1e-14;  // stop when |T - C - M thetaddot| <= tol |T - C|
  int max_iterations = 0;             // 0: 10 x (number of dofs)
};

struct ConjugateGradientReport {
  int iterations = 0;            // M p products (inverse dynamics calls) used
  double relative_residual = 0;  // |T - C - M thetaddot| / |T - C| at exit
  bool converged = false;
};

// Preconditioned conjugate gradients for M thetaddot = T - C (serial-chain-unified-formulation
// section 4): each iteration one O(N) Newton-Euler product M p = H A M A* H* p (part II
// Algorithm 3.1 with thetadot = 0, a = b = 0) and, with kCompositeBodyInertia, the block solve
// Lambda z = r with Lambda = diag(H(k) R(k) H*(k)), R from composite_body_inertias (Algorithm
// 4.1). The solution is in workspace.generalized_acceleration; the report gives the iteration
// count. Converges in at most N iterations in exact arithmetic.
ConjugateGradientReport forward_dynamics_conjugate_gradient(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
    const ConjugateGradientOptions& options, AlternativeForwardDynamicsWorkspace& workspace);

}  // namespace skograph

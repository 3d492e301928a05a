// Derivatives of a closed chain's constraints, the pieces its dynamics' derivatives are built from
// (docs/derivatives.md, "Closed chains"): at a state (q, qd, qdd) of the tree, not necessarily
// closed, with the stacked rows of constraint_jacobian (every row, aggregate by aggregate),
//
//   ConstraintDerivatives d;
//   constraint_derivatives(model, data, q, qd, qdd, lambda, gravity, d);
//   d.velocity_by_q        // d(G qd)/dq                      rows x dofs
//   d.acceleration_by_q    // d(G qdd + Gdot qd)/dq           rows x dofs
//   d.acceleration_by_qd   // d(G qdd + Gdot qd)/dqd          rows x dofs
//   d.force_by_q           // d(G* lambda)/dq, lambda held    dofs x dofs
//   d.tree                 // the tree's inverse-dynamics derivatives at (q, qd, qdd)
//
// d/dq is along the configuration's tangent (rigid/tangent.hpp). The multipliers lambda are held
// in the rows' own axes (a loop's in F_p, about F_c's origin): a wrench held in world axes would
// leave moments in the joint's free directions (a spherical loop's) as q moves. Couplings' rows are
// constant: their entries are zero.
#pragma once

#include <Eigen/Core>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <vector>

#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/derivatives.hpp"

namespace skograph {

// A dense matrix's nonzeros column by column (compressed columns), for products with the
// block-sparse embedding X and the manifold's directions (an aggregate's rows and columns only):
// as sparse where at most half the entries are nonzero, as dense GEMM otherwise. scan() keeps the
// vectors' capacity: no allocation once a pattern as large has been seen.
struct SparseColumns {
  Eigen::Index rows = 0, cols = 0;
  std::vector<int> starts, indices;  // column c: indices[starts[c] .. starts[c + 1])
  std::vector<double> values;        // parallel to indices
  void scan(const Eigen::MatrixXd& dense);
  bool worth_it() const { return 2 * static_cast<Eigen::Index>(values.size()) <= rows * cols; }
};

// out = alpha A B (add: out += alpha A B), B given dense and as its pattern.
void multiply(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const SparseColumns& pattern,
              double alpha, bool add, Eigen::MatrixXd& out);
// out = B* C.
void multiply_transposed(const Eigen::MatrixXd& B, const SparseColumns& pattern,
                         const Eigen::MatrixXd& C, Eigen::MatrixXd& out);
// out += B C.
void add_product(const Eigen::MatrixXd& B, const SparseColumns& pattern, const Eigen::MatrixXd& C,
                 Eigen::MatrixXd& out);

struct ConstraintDerivatives {
  Eigen::MatrixXd velocity_by_q, acceleration_by_q, acceleration_by_qd;  // stacked rows x dofs
  Eigen::MatrixXd force_by_q;                                            // dofs x dofs
  InverseDynamicsDerivatives tree;
};

// `lambda`: one multiplier per stacked row. Sized by the first call: no allocation after it.
void constraint_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& qd,
                            const Eigen::Ref<const Eigen::VectorXd>& qdd,
                            const Eigen::Ref<const Eigen::VectorXd>& lambda,
                            const Eigen::Vector3d& gravity, ConstraintDerivatives& result);

// The motion on the constraint manifold at a closed, consistent state (q, qd, qdd), the piece both
// dynamics' derivatives share: along q_R (tangent, qd_R and qdd_R held) and along qd_R (q_R and
// qdd_R held) the dependent coordinates follow the loops,
//   dqd_dq              (dofs x independent)  W1, the dependent rates along q_R
//   acceleration_by_q   (dofs x independent)  W2q, qdd's change along q_R
//   acceleration_by_qd  (dofs x independent)  W2d, qdd's change along qd_R
// each the particular solution of G w = -(the rows' derivative along the direction), zero on the
// independent rows (least squares on the dependent dofs: redundant rows are consistent).
struct ManifoldTangent {
  Eigen::MatrixXd dqd_dq, acceleration_by_q, acceleration_by_qd;
  // Workspace: the stacked multipliers and rows; the solves aggregate by aggregate through the
  // update's factorizations (`by_aggregate`), else the constraints on the dependent dofs and
  // their least-squares solver.
  Eigen::VectorXd multipliers, aggregate_solution;
  bool by_aggregate = false;
  Eigen::MatrixXd rows, dependent_rows, right_side;
  // The nonzeros of X, dqd_dq, acceleration_by_q and acceleration_by_qd, for their products.
  SparseColumns embedding_pattern, dqd_dq_pattern, acceleration_by_q_pattern,
      acceleration_by_qd_pattern;
  std::vector<int> dependent;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> dependent_solver;
};

// The products and solves both dynamics' derivatives form from the pieces above, kept so that a
// call after the first allocates nothing: M X, dtau/dq - d(G* lambda)/dq, the right sides along
// q_R and qd_R, their reduced solves, the generalized loads along q_R or qd_R and along tau (apart:
// their widths differ) and, per aggregate, the multipliers that balance them (as wide as the
// widest).
struct ClosedChainDerivativeWorkspace {
  Eigen::MatrixXd mass_embedding, held, by_q, by_qd;
  Eigen::MatrixXd reduced_by_q, reduced_by_qd, reduced_by_tau, generalized, generalized_by_tau,
      multipliers, dependent_rights;
  Eigen::VectorXd right;
};

// Forward dynamics' derivatives of a closed chain in its independent coordinates q_R (the
// independent dofs of the update at this state, `independent`): total derivatives on the
// constraint manifold, the dependent coordinates moving with the independent ones. At a closed,
// consistent (q, qd) (close_positions, close_velocities):
//   dqdd_dq   (dofs x independent)  every dof's qdd along q_R (tangent), qd_R held
//   dqdd_dqd  (dofs x independent)  along qd_R, q_R held
//   dqdd_dtau (dofs x dofs)         X M_R^-1 X*
//   dqd_dq    (dofs x independent)  the dependent rates along q_R (qd_R held)
// Their independent rows are dqdd_R/dq_R, dqdd_R/dqd_R, dqdd_R/dtau. Differentiating
// M qdd + C = tau + G* lambda and G qdd + Gdot qd = 0 along (dq, dqd) = (X, W1) and (0, X), with
// dqdd = X dqdd_R + w (w zero on the independent rows, G w the rows' derivative), and X* G* = 0:
//   M_R dqdd_R = X* (dtau - (dtau/dq - d(G* lambda)/dq) dq - dtau/dqd dqd - M w).
struct ClosedChainForwardDerivatives {
  Eigen::VectorXd qdd;
  std::vector<int> independent;
  Eigen::MatrixXd dqdd_dq, dqdd_dqd, dqdd_dtau, dqd_dq;
  Eigen::MatrixXd reduced_mass;  // M_R = X* M X
  ConstraintForces forces;       // lambda at the state
  // The derivatives of ConstraintForces::loop (6 rows) and ::coupling (joint_a's dofs) along q_R,
  // qd_R (x independent) and tau (x dofs): the least-norm multipliers' where rows are redundant.
  std::vector<Eigen::MatrixXd> loop_by_q, loop_by_qd, loop_by_tau;
  std::vector<Eigen::MatrixXd> coupling_by_q, coupling_by_qd, coupling_by_tau;
  ConstraintDerivatives constraints;
  ManifoldTangent tangent;
  Eigen::LLT<Eigen::MatrixXd> reduced_factor;
  ClosedChainDerivativeWorkspace work;
};

// Whether forward_dynamics_derivatives also gives the loop and coupling forces' derivatives
// (loop_by_q, ..., coupling_by_tau): a caller after dqdd's derivatives alone (a solver, the
// linearization) skips their multiplier solves; without them those lists are left empty.
enum class LoopForceDerivatives { kWith, kWithout };

// Sized by the first call: no allocation after it on the same mechanism where every aggregate's
// selection has a factorized Y1 (the least-squares fallbacks allocate).
void forward_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity,
                                  ClosedChainForwardDerivatives& result,
                                  LoopForceDerivatives forces = LoopForceDerivatives::kWith);

}  // namespace skograph

namespace skograph {

// Inverse dynamics' derivatives of a closed chain in its independent coordinates: of
// tau_R = X* (M qdd + C) (inverse_dynamics of closed_chain_model.hpp, qdd = X qdd_R + Xdot qd_R)
// at a closed, consistent (q, qd), total on the manifold. `qdd` has every dof; qdd_R is its
// independent entries at this state's update (as actuator_forces reads it).
//   dtau_dq   (independent x independent)  along q_R (tangent), qd_R and qdd_R held
//   dtau_dqd  (independent x independent)  along qd_R
//   reduced_mass                           dtau_R/dqdd_R = M_R = X* M X
// With the actuator forces tau_a (tau_R on the independent dofs, zero elsewhere), M qdd + C - tau_a
// = G* lambda, and X*'s change along a direction d(X*) f = -X* d(G* lambda)|lambda held (G X = 0,
// X's independent rows constant), so
//   dtau_R/dq_R  = X* ((dtau/dq - d(G* lambda)/dq) X + dtau/dqd W1 + M W2q)
//   dtau_R/dqd_R = X* (dtau/dqd X + M W2d)
// (the tree's derivatives at the consistent qdd; W1, W2q, W2d of ManifoldTangent).
struct ClosedChainInverseDerivatives {
  Eigen::VectorXd tau;  // tau_R, one per independent dof
  Eigen::VectorXd qdd;  // the consistent accelerations of every dof
  std::vector<int> independent;
  Eigen::MatrixXd dtau_dq, dtau_dqd, reduced_mass;
  ConstraintForces forces;  // lambda of the actuator forces
  ConstraintDerivatives constraints;
  ManifoldTangent tangent;
  Eigen::VectorXd actuator_forces;
  ClosedChainDerivativeWorkspace work;
};

void inverse_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                  const Eigen::Vector3d& gravity,
                                  ClosedChainInverseDerivatives& result);

}  // namespace skograph

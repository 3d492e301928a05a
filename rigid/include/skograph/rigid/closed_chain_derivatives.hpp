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
  ConstraintDerivatives constraints;
  // Workspace: the constraints on the dependent dofs, their least-squares solver, the stacked
  // multipliers, right sides.
  Eigen::MatrixXd dependent_rows, right_side, reduced_right_side;
  Eigen::VectorXd multipliers;
  std::vector<int> dependent;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> dependent_solver;
  Eigen::LLT<Eigen::MatrixXd> reduced_factor;
};

void forward_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity,
                                  ClosedChainForwardDerivatives& result);

}  // namespace skograph

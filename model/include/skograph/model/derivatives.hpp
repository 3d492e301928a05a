// Derivatives of a model's dynamics in the file's dof order (docs/derivatives.md) and the
// configuration's tangent they are taken along (rigid/tangent.hpp): forward dynamics' dqdd/dq,
// dqdd/dqd, dqdd/dtau = M^-1 and inverse dynamics' dtau/dq, dtau/dqd, dtau/dqdd = M, analytic
// (rigid/derivatives.hpp). Rows and columns in the file's dof order. Closed chains (the state
// closed as every call closes it, model/state.hpp) in their independent coordinates q_R, the
// dofs `independent` names in the file's order: total derivatives on the constraint manifold
// (rigid/closed_chain_derivatives.hpp), and the loop and coupling forces' derivatives.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "skograph/model/state.hpp"
#include "skograph/rigid/closed_chain_derivatives.hpp"

namespace skograph {

struct ForwardDerivatives {
  Eigen::VectorXd qdd;  // forward dynamics at (q, qd, tau), every dof
  // Trees: dofs x dofs. Closed chains: dqdd_R/dq_R and dqdd_R/dqd_R independent x independent,
  // dqdd_R/dtau independent x dofs (X M_R^-1 X*'s independent rows).
  Eigen::MatrixXd dqdd_dq, dqdd_dqd, dqdd_dtau;
  std::vector<std::string> independent;  // the rows' (and q_R's) dofs: every dof for a tree
  // X of the same update (dofs in the file's order x independent): dq = X dq_R on the manifold.
  // The identity for a tree.
  Eigen::MatrixXd embedding;
  // Closed chains: per loop (the mechanism's order) the derivatives of its force
  // (ConstraintForces::loop, 6 rows) along q_R, qd_R (x independent) and tau (x dofs); per
  // coupling (joint_a's dofs rows) likewise. Empty for a tree.
  std::vector<Eigen::MatrixXd> loop_by_q, loop_by_qd, loop_by_tau;
  std::vector<Eigen::MatrixXd> coupling_by_q, coupling_by_qd, coupling_by_tau;
};
struct InverseDerivatives {
  // Trees: inverse dynamics at (q, qd, qdd). Closed chains: the actuator forces for the
  // independent part of qdd (model/dynamics.hpp: inverse_dynamics; zero at dependent dofs).
  Eigen::VectorXd tau;
  // Trees: dofs x dofs. Closed chains: dtau_R/dq_R, dtau_R/dqd_R and M_R = X* M X, each
  // independent x independent.
  Eigen::MatrixXd dtau_dq, dtau_dqd, mass;
  std::vector<std::string> independent;  // as ForwardDerivatives::independent
  Eigen::MatrixXd embedding;             // as ForwardDerivatives::embedding
};

// At qdd = forward_dynamics(q, qd, tau). Into `result`, sized by its first call: no allocation
// after it (closed chains too, but for their least-squares fallbacks). SingularMassMatrixError
// where forward dynamics raises it. `forces`: kWithout leaves a closed chain's loop_by_... and
// coupling_by_... empty and skips their solves (rigid/closed_chain_derivatives.hpp).
void forward_dynamics_derivatives(const Model& model, ModelData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity, ForwardDerivatives& result,
                                  LoopForceDerivatives forces = LoopForceDerivatives::kWith);
ForwardDerivatives forward_dynamics_derivatives(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                                const Eigen::VectorXd& tau,
                                                const Eigen::Vector3d& gravity = kStandardGravity);
void inverse_dynamics_derivatives(const Model& model, ModelData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                  const Eigen::Vector3d& gravity, InverseDerivatives& result);
InverseDerivatives inverse_dynamics_derivatives(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                                const Eigen::VectorXd& qdd,
                                                const Eigen::Vector3d& gravity = kStandardGravity);

// The tangent in the file's order, over every dof of the model (for a closed chain its spanning
// tree's coordinates; nothing is assembled): q moved along the rates v for dt, and the v that
// takes q0 to q1 in unit time (integrate(q0, difference(q0, q1), 1) = q1, rotations as
// rotations). std::invalid_argument for wrong sizes or entries that are not finite.
Eigen::VectorXd integrate(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          double dt = 1.0);
Eigen::VectorXd difference(const Model& model, const Eigen::VectorXd& q0,
                           const Eigen::VectorXd& q1);

}  // namespace skograph

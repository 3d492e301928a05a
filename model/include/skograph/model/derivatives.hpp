// Derivatives of a model's dynamics in the file's dof order (docs/derivatives.md) and the
// configuration's tangent they are taken along (rigid/tangent.hpp): forward dynamics' dqdd/dq,
// dqdd/dqd, dqdd/dtau = M^-1 and inverse dynamics' dtau/dq, dtau/dqd, dtau/dqdd = M, analytic
// (rigid/derivatives.hpp). Rows and columns in the file's dof order. Closed chains are refused
// (UsageError): their derivatives in the independent coordinates are not built yet.
#pragma once

#include <Eigen/Core>

#include "skograph/model/state.hpp"

namespace skograph {

struct ForwardDerivatives {
  Eigen::VectorXd qdd;                           // forward dynamics at (q, qd, tau)
  Eigen::MatrixXd dqdd_dq, dqdd_dqd, dqdd_dtau;  // dofs x dofs
};
struct InverseDerivatives {
  Eigen::VectorXd tau;                      // inverse dynamics at (q, qd, qdd)
  Eigen::MatrixXd dtau_dq, dtau_dqd, mass;  // dofs x dofs; mass = dtau/dqdd
};

// At qdd = forward_dynamics(q, qd, tau). Into `result`, sized by its first call: no allocation
// after it. SingularMassMatrixError where forward dynamics raises it.
void forward_dynamics_derivatives(const Model& model, ModelData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity, ForwardDerivatives& result);
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

// Derivatives of the dynamics of a tree with flexible links (flexible_derivatives.cpp), taken by
// differences where the analytic recursions (rigid_body_derivatives.cpp) walk rigid nodes only.
#pragma once

#include <Eigen/Core>

#include "skograph/rigid/derivatives.hpp"

namespace skograph::rigid_detail {

// inverse_dynamics_derivatives on a model with flexible links: dtau/dq along the tangent and
// dtau/dqd by central differences of inverse dynamics, Richardson-extrapolated (error O(h^4),
// about 1e-11 relative at the step taken), dtau/dqdd = M exactly.
void flexible_inverse_dynamics_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q,
                                           const Eigen::Ref<const Eigen::VectorXd>& qd,
                                           const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                           const Eigen::Vector3d& gravity,
                                           InverseDynamicsDerivatives& result);

// forward_dynamics_derivatives from those: dqdd/dx = -M^-1 dtau/dx at qdd = FD(q, qd, tau) and
// dqdd/dtau = M^-1 (the modal mass makes M positive definite on every dof).
void flexible_forward_dynamics_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q,
                                           const Eigen::Ref<const Eigen::VectorXd>& qd,
                                           const Eigen::Ref<const Eigen::VectorXd>& tau,
                                           const Eigen::Vector3d& gravity,
                                           ForwardDynamicsDerivatives& result);

}  // namespace skograph::rigid_detail

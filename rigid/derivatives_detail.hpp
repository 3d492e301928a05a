// The tree's derivative passes as the closed chains call them (rigid_body_derivatives.cpp; not
// installed).
#pragma once

#include <Eigen/Core>

#include "skograph/rigid/derivatives.hpp"

namespace skograph::rigid_detail {

// inverse_dynamics_derivatives at the world motion already in data (rigid_detail::world_motion
// at this q and qd, as a closed chain's update of the constraints leaves it), without walking the
// configuration again: one forward and one backward pass. Rigid links only.
void inverse_dynamics_derivatives_at_world_motion(const RigidBodyModel& model, RigidBodyData& data,
                                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                  const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                                  const Eigen::Vector3d& gravity,
                                                  InverseDynamicsDerivatives& result);

// The same passes in two halves around a qdd not known yet (forward dynamics from M): the first
// gives M (result.mass), dtau/dqd and the bias forces C = ID(q, qd, 0) (result.tau); the second,
// at qdd, gives dtau/dq and tau = ID(q, qd, qdd) (result.tau) and leaves the links' accelerations
// in the derivative workspace as the single pass does.
void inverse_dynamics_derivatives_velocity_half(const RigidBodyModel& model, RigidBodyData& data,
                                                const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                const Eigen::Vector3d& gravity,
                                                InverseDynamicsDerivatives& result);
void inverse_dynamics_derivatives_acceleration_half(const RigidBodyModel& model,
                                                    RigidBodyData& data,
                                                    const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                    const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                                    const Eigen::Vector3d& gravity,
                                                    InverseDynamicsDerivatives& result);

}  // namespace skograph::rigid_detail

// Inverse kinematics of trees and closed chains (docs/kinematics.md): the configuration in which
// a frame has a given pose, found as an assembly. The frame is welded to the world at the pose
// (one more loop, rigid/mechanism.hpp) and the mechanism assembled from q0
// (rigid/closed_chain_model.hpp: assemble): when the pose fixes the mechanism (a Stewart
// platform's top, a delta's end effector held in orientation by its parallelograms) the answer is
// the closed configuration nearest q0 that reaches it, and its independent coordinates are the
// actuator values (the legs, the motors); otherwise the coordinates the pose leaves free are kept
// at q0 where the loops allow.
//
//   const Eigen::VectorXd q = inverse_kinematics(model.mechanism(), "platform", target, q0);
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <string>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// q (the mechanism's dof order) with the frame `frame_name` at `pose` (world coordinates) and
// every loop and coupling of the mechanism closed to kClosureTolerance. std::invalid_argument for
// an unknown frame or one fixed on the world; ClosureError "frame 'NAME' cannot reach the pose:
// ..." (with the residual the search ends at) when no configuration reaches it.
Eigen::VectorXd inverse_kinematics(const Mechanism& mechanism, const std::string& frame_name,
                                   const Eigen::Isometry3d& pose, const Eigen::VectorXd& q0);

}  // namespace skograph

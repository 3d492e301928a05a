// Named frames of a rigid-body model: every link of the file, also those fused into their parent
// body (rigid/fixed_body_fusion.hpp), and the sites and frames the readers add. A frame is fixed
// on a link of the model (or on the world) at a pose in that link's frame (Mechanism::frames).
//
//   const FrameRef tool = find_frame(model, "tool0");         // throws for an unknown name
//   update_positions(model, q, data);
//   const Eigen::Isometry3d pose = frame_pose(model, data, tool);
//   add_frame_force(model, tool, wrench, link_forces);        // then inverse_dynamics(..., forces)
//   const Matrix6d lambda = operational_space_inertia(model, data, tool);
#pragma once

#include <Eigen/Geometry>
#include <string>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

struct FrameRef {
  int link = -1;                                           // link of the model, -1 = world
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();  // in that link's frame
};

// A link, named frame or joint (its child link's frame) of the mechanism (Mechanism::locate_frame);
// std::invalid_argument "no link or frame is named 'NAME'" when there is none.
FrameRef find_frame(const Mechanism& mechanism, const std::string& name);
FrameRef find_frame(const RigidBodyModel& model, const std::string& name);

// The frame's pose in the world at the configuration of the last update_positions.
Eigen::Isometry3d frame_pose(const RigidBodyModel& model, const RigidBodyData& data,
                             const FrameRef& frame);

// Adds a spatial force f = [N; F] acting on the frame (about its origin, in its coordinates) to
// link_forces (6 per link, the layout of inverse_dynamics' external forces): the same force about
// the link's origin is phi(link, frame) f (conventions.md).
void add_frame_force(const RigidBodyModel& model, const FrameRef& frame, const Vector6d& force,
                     Eigen::Ref<Eigen::VectorXd> link_forces);

// The 6 x 6 operational-space inertia of the frame at the configuration of the last
// update_positions: with V_frame = phi*(link, frame) V_link, Lambda_frame = phi(frame, link)
// Lambda_link phi(frame, link)* (part II Eq. 59-60 for Lambda_link). std::invalid_argument for a
// frame on the world; std::runtime_error as operational_space_inertia of a link.
Matrix6d operational_space_inertia(const RigidBodyModel& model, RigidBodyData& data,
                                   const FrameRef& frame);

}  // namespace skograph

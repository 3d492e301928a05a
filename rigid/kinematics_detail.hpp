// Kinematics entry points shared by the rigid layer's sources (not installed).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph::rigid_detail {

// update_kinematics without phi(parent, k) (rigid_body_transforms builds it on demand, as after
// the fast dynamics functions): for recursions that read the transforms as (R, l), such as the
// closed chains' embedded model.
void update_motion(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                   const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data);

// The link poses and, in world axes about one point for every tree (the origin of the first base
// link, data.tree_origin of every node), H*(k) (data.world_hinge), V(k) (data.world_velocity) and
// the velocity product a(k) = V x H* qd (data.world_coriolis), for the closed chains, whose loops
// join trees; data.velocity, coriolis and gyroscopic are left as they were. The first pass of
// forward_dynamics, about that point.
void world_motion(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                  const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data);

// mass_matrix at the transforms the last walk of this q made (data.rotation, data.translation:
// world_motion's or update_motion's), without walking the configuration again.
const Eigen::MatrixXd& mass_matrix_at_transforms(const RigidBodyModel& model, RigidBodyData& data);

// Node k's link pose X_world_link = X_world_parent * (R, l) from its joint transform
// (data.rotation, data.translation) and its parent's pose (already composed: parents first).
inline void compose_link_pose(const RigidBodyModel& model, const RigidBodyData& data, int k) {
  Eigen::Isometry3d& pose = data.link_pose[k];
  const Eigen::Matrix3d& R = data.rotation[k];
  const Eigen::Vector3d& l = data.translation[k];
  const int p = model.parents()[k];
  if (p < 0) {
    pose.linear() = R;
    pose.translation() = l;
    return;
  }
  const Eigen::Isometry3d& parent = data.link_pose[p];
  pose.linear().noalias() = parent.linear() * R;
  pose.translation().noalias() = parent.linear() * l;
  pose.translation() += parent.translation();
}

// Whether column j of a joint moves column c of the same joint (j, c: the joint's column
// indices): every column of a joint moves the others, except in a planar joint, taken as the chain
// x, y, theta (x and y fixed in the joint frame, theta in the child), where j moves c for j <= c.
inline bool moves_within(JointType type, int j, int c) {
  return type != JointType::kPlanar || j <= c;
}

}  // namespace skograph::rigid_detail

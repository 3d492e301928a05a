#include "skograph/rigid/frames.hpp"

#include <stdexcept>

namespace skograph {

FrameRef find_frame(const Mechanism& mechanism, const std::string& name) {
  FrameRef frame;
  if (!mechanism.locate_frame(name, frame.link, frame.pose))
    throw std::invalid_argument("no link or frame is named '" + name + "'");
  return frame;
}

FrameRef find_frame(const RigidBodyModel& model, const std::string& name) {
  return find_frame(model.mechanism(), name);
}

Eigen::Isometry3d frame_pose(const RigidBodyModel& model, const RigidBodyData& data,
                             const FrameRef& frame) {
  if (frame.link < 0) return frame.pose;
  return link_poses(model, data)[model.node_of_link(frame.link)] * frame.pose;
}

void add_frame_force(const RigidBodyModel& model, const FrameRef& frame, const Vector6d& force,
                     Eigen::Ref<Eigen::VectorXd> link_forces) {
  if (link_forces.size() != 6 * model.link_count())
    throw std::invalid_argument("add_frame_force: link_forces needs 6 entries per link");
  if (frame.link < 0) return;  // a force on the world moves nothing
  link_forces.segment<6>(6 * frame.link) += rigid_body_transform(frame.pose) * force;
}

Matrix6d operational_space_inertia(const RigidBodyModel& model, RigidBodyData& data,
                                   const FrameRef& frame) {
  if (frame.link < 0)
    throw std::invalid_argument("operational_space_inertia: the frame is fixed on the world");
  const Matrix6d link_inertia = operational_space_inertia(model, data, frame.link);
  const Matrix6d to_frame = rigid_body_transform(frame.pose.inverse());  // phi(frame, link)
  return to_frame * link_inertia * to_frame.transpose();
}

}  // namespace skograph

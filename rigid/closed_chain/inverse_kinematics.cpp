#include "skograph/rigid/inverse_kinematics.hpp"

#include <stdexcept>

#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/frames.hpp"

namespace skograph {

Eigen::VectorXd inverse_kinematics(const Mechanism& mechanism, const std::string& frame_name,
                                   const Eigen::Isometry3d& pose, const Eigen::VectorXd& q0) {
  const FrameRef frame = find_frame(mechanism, frame_name);
  if (frame.link < 0)
    throw std::invalid_argument("frame '" + frame_name +
                                "' is fixed on the world: no motion moves it");
  if (!pose.matrix().allFinite())
    throw std::invalid_argument("the pose of frame '" + frame_name + "' is not finite");
  Mechanism welded = mechanism;
  // The actuators are what the answer gives, not what it holds: no chosen coordinates.
  welded.independent.clear();
  welded.preferred_independent.clear();
  LoopClosure target;
  target.name = "pose of '" + frame_name + "'";
  target.type = LoopType::kWeld;
  target.parent = frame.link;
  target.parent_origin = frame.pose;
  target.child = -1;
  target.child_origin = pose;
  welded.loops.push_back(target);
  const ClosedChainModel model(std::move(welded));
  ClosedChainData data(model);
  Eigen::VectorXd q = q0;
  try {
    assemble(model, data, q);
  } catch (const ClosureError& e) {
    throw ClosureError("frame '" + frame_name + "' cannot reach the pose: " + e.what());
  } catch (const SingularConfigurationError& e) {  // the weld closes only where the rows lose rank
    throw ClosureError("frame '" + frame_name + "' cannot reach the pose: " + e.what());
  }
  return q;
}

}  // namespace skograph

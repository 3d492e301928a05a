// Centres of mass of trees with flexible links (part I section 8's small-deformation model,
// docs/flexible-bodies.md): a flexible link's modes move its first moment of mass by
// coupling_t eta (the coupling's three linear rows), and move every body hanging from its nodes
// with the node's frame. These read the modal coordinates from q; on a rigid model they equal
// rigid/kinematics.hpp's center_of_mass and center_of_mass_jacobian (one implementation, in
// rigid/kinematics.cpp).
#pragma once

#include <Eigen/Core>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

// The centre of mass of the whole model (link -1, static bodies included) or of the subtree of
// `link`, in world coordinates: sum over the links of m p + R (m c + coupling_t eta), over the
// mass. q (dof order) must be the configuration of the last update_positions.
Eigen::Vector3d flexible_center_of_mass(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q, int link = -1);

// Its 3 x dofs Jacobian (c' = J qd, qd along the configuration's tangent): a joint's column moves
// the mass below it rigidly, as in the rigid model; a mode's column moves its own link's first
// moment by R coupling_t's column, and each child subtree with the twist of the child's frame per
// unit modal rate (the weight's X(C<-N) B_N column, rigid/flexible_nodes.cpp). O(N + modes * N).
void flexible_center_of_mass_jacobian(const RigidBodyModel& model, RigidBodyData& data,
                                      const Eigen::Ref<const Eigen::VectorXd>& q,
                                      Eigen::Ref<Eigen::MatrixXd> jacobian, int link = -1);

}  // namespace skograph

// The SKO model of a tree with flexible links at a configuration (flexible_nodes.cpp): what the
// generic operators read, filled in one walk parents first.
#pragma once

#include <Eigen/Core>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph::rigid_detail {

// The joint transforms (with the parent's deformation), link poses, data.phi (the 6 x 6 rigid
// part) and data.sko's weights phi(P, k) and hinge maps H(k) at q; with qd also nu(k), a(k) and
// b(k) (stiffness and damping forces on the modal rows) in data.velocity, coriolis and gyroscopic
// (the structure's node layout). O(N).
void update_flexible_nodes(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                           const Eigen::Ref<const Eigen::VectorXd>* qd, RigidBodyData& data);

// Gravity on a flexible link acts on its deformed first moment m c + coupling_t eta (coupling_t:
// the coupling's translation rows); the base acceleration -g carries m c and the modal rows, and
// this adds the rest, the torque -(coupling_t eta) x R* g, to b(k). Needs the link poses at q.
void add_modal_gravity(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Vector3d& gravity, RigidBodyData& data);

}  // namespace skograph::rigid_detail

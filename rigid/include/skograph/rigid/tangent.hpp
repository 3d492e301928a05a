// The configuration's tangent: how a velocity-like vector v (the components of qd) moves q, and
// back. Derivatives with respect to q (rigid/derivatives.hpp) are taken along these directions.
//
//   revolute, continuous, prismatic, planar   q + v dt (a planar joint's qd is dq/dt);
//   spherical                                 R(r) <- R(r) exp(dt [w]), w in the child frame;
//   floating [r; p]                           the child pose X = (R(r), p) <- X Exp(dt [w; v]),
//                                             the SE(3) exponential of the body twist [w; v]
//                                             (Pinocchio's integrate, whose free flyer orders
//                                             the twist [v; w]).
//
// Rotation vectors come out with norm <= pi. difference(q0, q1) is the v with
// integrate(q0, v, 1) = q1 (as a rotation where q1's rotation vector is not the one of norm
// <= pi); for the rotation it is log(R0^T R1), which is the shortest turn.
#pragma once

#include <Eigen/Core>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

// q moved along v for a time dt, into `result` (dofs; may alias q). std::invalid_argument for
// wrong sizes.
void integrate(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
               const Eigen::Ref<const Eigen::VectorXd>& v, double dt,
               Eigen::Ref<Eigen::VectorXd> result);
Eigen::VectorXd integrate(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& v, double dt = 1.0);

// The v that takes q0 to q1 in unit time, into `result` (dofs; must not alias q0 or q1).
void difference(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q0,
                const Eigen::Ref<const Eigen::VectorXd>& q1, Eigen::Ref<Eigen::VectorXd> result);
Eigen::VectorXd difference(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q0,
                           const Eigen::Ref<const Eigen::VectorXd>& q1);

// One joint's step: its coordinates q (the joint's dofs) moved along v for dt into `result`.
void integrate_joint(JointType type, const double* q, const double* v, double dt, double* result);
// One joint's difference: the v of that joint taking q0 to q1.
void difference_joint(JointType type, const double* q0, const double* q1, double* result);

}  // namespace skograph

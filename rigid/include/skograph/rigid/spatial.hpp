// Spatial algebra of rigid bodies (conventions.md, "Spatial quantities"; part I section 6).
//
// Spatial velocities V = [omega; v] and accelerations are motion vectors, spatial forces
// f = [N; F] are force vectors, all in the coordinates of a body frame O_k. phi(p, k) maps a
// spatial force at O_k to O_p; its transpose phi*(p, k) maps velocities the other way:
//   V(k) = phi*(p, k) V(p) + H*(k) thetadot(k),   f(p) += phi(p, k) f(k).
// Accelerations are the time derivatives of the body-frame coordinate vectors of V, so that
//   alpha(k) = phi*(p, k) alpha(p) + H*(k) thetaddot(k) + a(k)
// with the Coriolis acceleration a(k) of coriolis_acceleration() below, and the body's equation of
// motion about O_k is f = M alpha + b with the gyroscopic force b = V x* (M V).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

using Vector6d = Eigen::Matrix<double, 6, 1>;
using Matrix6d = Eigen::Matrix<double, 6, 6>;
// H*(k): 6 x r(k), r(k) <= 6, with fixed-capacity storage (never allocates).
using HingeMatrix = Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;
using JointVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, 6, 1>;
using HingeSquare = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;

// The cross-product matrix l~ with l~ x = l x x.
Eigen::Matrix3d cross_matrix(const Eigen::Vector3d& l);

// phi(p, k) = [[R, l~ R], [0, R]] for the rigid transform X_p_k of frame k in frame p (R its
// rotation, l its translation: the vector from O_p to O_k in frame p) (conventions.md; part I
// Eq. 5 rigid-body transformation operator).
Matrix6d rigid_body_transform(const Eigen::Isometry3d& transform);
Matrix6d rigid_body_transform(const Eigen::Matrix3d& rotation, const Eigen::Vector3d& translation);

// Spatial inertia about O_k from the mass, the center of mass p (in frame k) and the inertia J_c
// about the center of mass: [[J(O), m p~], [-m p~, m I]], J(O) = J_c - m p~ p~ (paper 002 Eq. 10 as
// written in conventions.md; parallel-axis theorem).
Matrix6d spatial_inertia(double mass, const Eigen::Vector3d& center_of_mass,
                         const Eigen::Matrix3d& inertia_about_center_of_mass);

// Motion cross product V x m = [w x m_w; w x m_v + v x m_w] (the derivative of a motion vector
// m fixed in a frame moving with velocity V = [w; v]).
Vector6d motion_cross(const Vector6d& velocity, const Vector6d& motion);
// Force cross product V x* f = [w x N + v x F; w x F] = -(V x)* f.
Vector6d force_cross(const Vector6d& velocity, const Vector6d& force);

// Rotation of a rotation vector (exponential coordinates): exp(r~).
Eigen::Matrix3d rotation_from_vector(const Eigen::Vector3d& rotation_vector);
// Inverse of the right Jacobian of the exponential map: dr/dt = J_r^-1(r) omega for R = exp(r~)
// and the body-frame angular velocity omega (R' = R omega~).
Eigen::Matrix3d rotation_vector_rate_matrix(const Eigen::Vector3d& rotation_vector);

// The constant data of one joint that its motion needs: type, unit axis and, for planar joints,
// the in-plane unit vectors e1, e2 (a right-handed frame (e1, e2, axis) of the joint frame).
struct JointGeometry {
  JointType type = JointType::kFixed;
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();
  Eigen::Vector3d plane_x = Eigen::Vector3d::UnitX();
  Eigen::Vector3d plane_y = Eigen::Vector3d::UnitY();
  int dofs() const { return joint_dof_count(type); }
};
// Normalizes the axis and builds the plane basis: the rotation taking z to the axis (shortest arc)
// applied to x and y (mechanism.hpp, planar coordinates).
JointGeometry make_joint_geometry(JointType type, const Eigen::Vector3d& axis);

// Joint motion X_joint_child(q): the child frame in the joint frame (mechanism.hpp coordinates).
Eigen::Isometry3d joint_motion(const JointGeometry& joint, const double* q);

// H*(k) (6 x r) at q, in the child (body) frame: the relative spatial velocity of the child with
// respect to the joint frame is H*(k) qd (conventions.md: [axis; 0] revolute, [0; axis] prismatic,
// identity for a floating joint, [I; 0] spherical; planar [[0, 0, axis], [R* e1, R* e2, 0]] with R
// the rotation by theta about the axis).
HingeMatrix joint_hinge_transpose(const JointGeometry& joint, const double* q);

// (d/dt H*(k)) qd in the child frame: non-zero only for planar joints, whose translation directions
// turn with the child: [0; -(theta' axis) x v_rel].
Vector6d joint_velocity_product(const JointGeometry& joint, const double* q, const double* qd);

// Coriolis acceleration of part I section 6 / serial-chain paper section 2, in body-frame
// coordinates: a(k) = V(k) x V_rel(k) + (d/dt H*(k)) qd with V_rel(k) = H*(k) qd. Derivation:
// d/dt phi*(p, k) = -V_rel x phi*(p, k), so d/dt [phi* V(p)] = phi* alpha(p) - V_rel x (V(k) -
// V_rel) = phi* alpha(p) + V(k) x V_rel.
Vector6d coriolis_acceleration(const Vector6d& velocity, const Vector6d& relative_velocity,
                               const Vector6d& hinge_rate_product);
// Gyroscopic force b(k) = V(k) x* (M(k) V(k)) (part I section 7).
Vector6d gyroscopic_force(const Matrix6d& inertia, const Vector6d& velocity);

// dq/dt of one joint from its qd (differs from qd for spherical and floating joints only:
// d(rotation vector)/dt = J_r^-1 omega, d(position)/dt = R v).
void joint_configuration_rate(const JointGeometry& joint, const double* q, const double* qd,
                              double* q_rate);

}  // namespace skograph

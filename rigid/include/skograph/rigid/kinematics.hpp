// Kinematics of frames and of the centre of mass (docs/kinematics.md): where a frame is, how it
// moves, its geometric Jacobian and the Jacobian's bias term, the centre of mass of the model or
// of a subtree with its velocity and Jacobian. All read the link poses, velocities V(k) and
// Coriolis terms a(k) that update_positions / update_kinematics leave in RigidBodyData (part I
// section 6-7), and write only into caller-sized outputs and data's workspace: no allocation.
//
//   update_kinematics(model, q, qd, data);
//   const FrameRef tool = find_frame(model, "tool0");
//   frame_jacobian(model, data, tool, FrameAxes::kWorld, jacobian);      // 6 x dofs, J qd = v
//   update_accelerations(model, data, qdd);                               // alpha(k), no gravity
//   const Vector6d a = frame_acceleration(model, data, tool, FrameAxes::kWorld);
//
// Spatial vectors are [angular; linear] like the rest of skograph. kWorld: the world's axes,
// about the frame's origin (J qd is the frame's angular velocity and the velocity of its origin in
// world coordinates; Pinocchio's LOCAL_WORLD_ALIGNED). kLocal: the same vectors in the frame's
// own axes. Accelerations are classical: the angular acceleration and the acceleration of the
// frame's origin, d/dt (J qd) = J qdd + Jdot qd in world axes. Columns follow qd, which for
// spherical and floating joints is the body-frame velocity, not dq/dt (rigid/mechanism.hpp).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "skograph/rigid/frames.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

enum class FrameAxes { kWorld, kLocal };

// The frame's spatial velocity at the state of the last update_kinematics.
Vector6d frame_velocity(const RigidBodyModel& model, const RigidBodyData& data,
                        const FrameRef& frame, FrameAxes axes);

// alpha(k) = phi*(p, k) alpha(p) + H*(k) qdd(k) + a(k) for every node, without gravity, into
// data.acceleration (part I section 7; rigid/spatial.hpp), after update_kinematics at the same
// (q, qd). O(N).
void update_accelerations(const RigidBodyModel& model, RigidBodyData& data,
                          const Eigen::Ref<const Eigen::VectorXd>& qdd);

// The frame's classical acceleration from data.acceleration (update_accelerations): the angular
// acceleration and the acceleration of the frame's origin, a = J qdd + Jdot qd.
Vector6d frame_acceleration(const RigidBodyModel& model, const RigidBodyData& data,
                            const FrameRef& frame, FrameAxes axes);

// The 6 x dofs geometric Jacobian of the frame at the configuration of the last update_positions:
// the columns of the joints between the world and the frame's link, H*(j) carried to the frame
// (part I Eq. for V(k) unrolled over the path: J = sum over ancestors j of phi*(frame, j) H*(j)),
// zero elsewhere. `jacobian` must be 6 x dof_count.
void frame_jacobian(const RigidBodyModel& model, const RigidBodyData& data, const FrameRef& frame,
                    FrameAxes axes, Eigen::Ref<Eigen::MatrixXd> jacobian);

// Jdot qd of frame_jacobian: the frame's classical acceleration at qdd = 0, from the Coriolis
// terms of the last update_kinematics. Walks the path from the frame's link to the world only:
// O(depth). kLocal is d/dt (J_local qd) at qdd = 0.
Vector6d frame_jacobian_bias(const RigidBodyModel& model, const RigidBodyData& data,
                             const FrameRef& frame, FrameAxes axes);

// The mass of the model (with the bodies fused into the world: Mechanism::static_mass), or of the
// subtree below and including `link` (-1: the whole model).
double subtree_mass(const RigidBodyModel& model, int link = -1);

// The centre of mass, its velocity and its 3 x dofs Jacobian (c' = J_c qd), of the whole model
// (link -1, static bodies included) or of the subtree of `link`, in world coordinates, at the state
// of the last update_positions (position, Jacobian) or update_kinematics (velocity). The Jacobian's
// column of joint j moves the mass below j: (m_j v_s + omega_s x m_j (c_j - o_j)) / m for the
// subtree's mass m_j and centre c_j below j, o_j its origin. A massless model has its centre at the
// origin and a zero Jacobian.
Eigen::Vector3d center_of_mass(const RigidBodyModel& model, RigidBodyData& data, int link = -1);
Eigen::Vector3d center_of_mass_velocity(const RigidBodyModel& model, const RigidBodyData& data,
                                        int link = -1);
void center_of_mass_jacobian(const RigidBodyModel& model, RigidBodyData& data,
                             Eigen::Ref<Eigen::MatrixXd> jacobian, int link = -1);

}  // namespace skograph

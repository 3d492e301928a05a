// Kinematics of a loaded model (docs/kinematics.md) in the file's dof order: frame poses,
// velocities, accelerations and Jacobians, the centre of mass, the energies, and for closed chains
// the Jacobians in the independent coordinates, the singularity measures and inverse kinematics.
// What `skograph kinematics` prints and the Python module returns; rigid/kinematics.hpp holds the
// kernels. Closed chains are assembled first, as every call of model/model.hpp is (close_state):
// q and qd are taken at the closed state.
//
//   ModelData data(model);
//   const Eigen::MatrixXd J = frame_jacobian(model, data, q, "tool0", FrameAxes::kWorld);
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "skograph/model/dynamics.hpp"
#include "skograph/rigid/kinematics.hpp"

namespace skograph {

// Every frame of the model by name: its links (the file's links that were not fused), then the
// named frames (links fused into their body, MJCF sites, SDF frames), in that order. URDF joint
// names are accepted wherever a frame is named (their child link's frame) but not listed.
std::vector<std::string> frame_names(const Model& model);
// The frame of that name; InputError naming the model file when there is none.
FrameRef model_frame(const Model& model, const std::string& name);

// Poses, velocities and classical accelerations of several frames at one closed state: one
// assembly and one sweep for all (what `skograph kinematics` reports). Closed chains take qdd as
// X qdd_R + Xdot qd_R from its independent entries (a consistent qdd).
struct FrameMotion {
  Eigen::Isometry3d pose;
  Vector6d velocity, acceleration;
};
std::vector<FrameMotion> frame_motions(const Model& model, ModelData& data,
                                       const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                       const Eigen::VectorXd& qdd,
                                       const std::vector<std::string>& frames, FrameAxes axes);
// The 6 x dofs Jacobians of several frames at one closed q.
std::vector<Eigen::MatrixXd> frame_jacobians(const Model& model, ModelData& data,
                                             const Eigen::VectorXd& q,
                                             const std::vector<std::string>& frames,
                                             FrameAxes axes);

// The frame's pose in the world at q.
Eigen::Isometry3d frame_pose(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                             const std::string& frame);
// [angular; linear] of the frame's origin, in world or frame axes.
Vector6d frame_velocity(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd, const std::string& frame, FrameAxes axes);
// The classical acceleration (angular acceleration, acceleration of the origin) for qdd. Closed
// chains: qdd is taken as X qdd_R + Xdot qd_R from its independent entries (a consistent qdd).
Vector6d frame_acceleration(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                            const std::string& frame, FrameAxes axes);
// 6 x dofs; Jdot qd.
Eigen::MatrixXd frame_jacobian(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                               const std::string& frame, FrameAxes axes);
Vector6d frame_jacobian_bias(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& qd, const std::string& frame, FrameAxes axes);
// Closed chains: J_R = J X (6 x independent, the independent coordinates in file order, named in
// data.independent) and its bias Jdot qd + J Xdot qd_R, so that the frame's acceleration is
// J_R qdd_R + bias. Trees: J and Jdot qd.
Eigen::MatrixXd reduced_frame_jacobian(const Model& model, ModelData& data,
                                       const Eigen::VectorXd& q, const std::string& frame,
                                       FrameAxes axes);
Vector6d reduced_jacobian_bias(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd, const std::string& frame, FrameAxes axes);

// The centre of mass of the model, or of the subtree of the link `subtree` names ("" = all).
Eigen::Vector3d center_of_mass(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                               const std::string& subtree = "");
Eigen::Vector3d center_of_mass_velocity(const Model& model, ModelData& data,
                                        const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                        const std::string& subtree = "");
Eigen::MatrixXd center_of_mass_jacobian(const Model& model, ModelData& data,
                                        const Eigen::VectorXd& q, const std::string& subtree = "");
double total_mass(const Model& model, const std::string& subtree = "");
// 1/2 qd* M qd by the velocities of the recursion, and -sum m g . c.
double kinetic_energy(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& qd);
double potential_energy(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::Vector3d& gravity = kStandardGravity);

// Closed chains at q: per aggregate the condition number of its constraint rows restricted to
// the dependent coordinates (infinite where the embedding breaks: a type II singularity; the
// condition_number of `dynamics --json`), and per frame of `frames` that of J_R (sigma_max /
// sigma_min over min(6, independent) singular values: infinite where the frame loses a
// direction, type I), with the smallest singular values beside them.
struct SingularityMeasures {
  std::vector<double> constraint_condition;
  std::vector<double> constraint_smallest_value;  // one per aggregate
  std::vector<double> jacobian_condition;         // one per frame asked
  std::vector<double> jacobian_smallest_value;    // one per frame asked
};
SingularityMeasures singularity_measures(const Model& model, ModelData& data,
                                         const Eigen::VectorXd& q,
                                         const std::vector<std::string>& frames);

// The closed configuration (file order) in which `frame` has `pose`, nearest q0
// (rigid/inverse_kinematics.hpp); the independent coordinates of the model at it land in
// data.independent. InputError naming the model file: an unknown frame, or "frame 'F' cannot
// reach the pose: ..." when it is unreachable.
Eigen::VectorXd inverse_kinematics(const Model& model, ModelData& data, const std::string& frame,
                                   const Eigen::Isometry3d& pose, const Eigen::VectorXd& q0);

}  // namespace skograph

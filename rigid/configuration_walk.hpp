// The walk over a configuration that both tree recursions' sources share (rigid_body_dynamics.cpp:
// kinematics, inverse and forward dynamics; rigid_body_mass_matrix.cpp: the composite-inertia
// mass matrix), in a header so that each inlines it as one source did.
#pragma once

#include <cmath>
#include <stdexcept>

#include "axis_turn.hpp"
#include "kinematics_detail.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph::rigid_detail {

// The one writer of what the configuration moves: the joint transforms (data.rotation,
// translation, link_pose) and the planar joints' H*. Every walk over a new q starts by making one,
// which invalidates what is derived from them (data.phi and data.sko: rigid_body_transforms and
// synchronize_sko_model rebuild them on demand), so that no path can leave them stale.
class ConfigurationWalk {
 public:
  ConfigurationWalk(const RigidBodyModel& model, RigidBodyData& data, bool poses = true)
      : model_(model), data_(data), poses_(poses) {
    // Rigid nodes only: a model with flexible links takes the generic operators' paths.
    if (model.has_flexible_links())
      throw std::invalid_argument(
          "this algorithm does not take flexible links yet (docs/flexible-bodies.md lists those "
          "that do)");
    data.phi_valid = false;
    data.sko_synchronized = false;
    data.poses_valid = poses;  // once the walk is through
  }
  // X_parent_child(q) = origin * joint_motion(q) of node k into data.rotation / translation, the
  // link's world pose, and a planar joint's H*(q). A revolute joint about a coordinate axis turns
  // two columns of R0; one whose origin has no rotation (turn_axis) turns two columns of the
  // parent's pose.
  void transform(int k, const double* qk) {
    switch (model_.turn_axis(k)) {
      case 0:
        return turn<0>(k, qk[0]);
      case 1:
        return turn<1>(k, qk[0]);
      case 2:
        return turn<2>(k, qk[0]);
      default:
        break;
    }
    Eigen::Matrix3d& R = data_.rotation[k];
    Eigen::Vector3d& l = data_.translation[k];
    const Eigen::Matrix3d& R0 = model_.origin_rotation(k);
    const int axis = model_.coordinate_axis(k);
    if (axis != 0) {
      const double angle = axis > 0 ? qk[0] : -qk[0];
      const double c = std::cos(angle), s = std::sin(angle);
      const int i = std::abs(axis) - 1, a = (i + 1) % 3, b = (i + 2) % 3;
      R.col(i) = R0.col(i);
      R.col(a) = c * R0.col(a) + s * R0.col(b);
      R.col(b) = c * R0.col(b) - s * R0.col(a);
      l = model_.origin_translation(k);
    } else {
      const JointGeometry& geometry = model_.joint_geometry(k);
      if (geometry.type == JointType::kFixed) {
        R = R0;
        l = model_.origin_translation(k);
      } else {
        const Eigen::Isometry3d motion = joint_motion(geometry, qk);
        // H* depends on q only for planar joints (set once in RigidBodyData otherwise).
        if (geometry.type == JointType::kPlanar)
          data_.hinge[k] = joint_hinge_transpose(geometry, qk);
        R.noalias() = R0 * motion.linear();
        l = model_.origin_translation(k);
        l.noalias() += R0 * motion.translation();
      }
    }
    if (poses_) compose_link_pose(model_, data_, k);
  }

 private:
  // transform() of a joint that only turns about axis I: R = R_I(angle) (rigid/axis_turn.hpp);
  // inlined into transform() in every source that walks (GCC otherwise kept it out of line in the
  // mass matrix's).
  template <int I>
  [[gnu::always_inline]] void turn(int k, double q) {
    constexpr int A = (I + 1) % 3, B = (I + 2) % 3;
    const double angle = model_.coordinate_axis(k) > 0 ? q : -q;
    const double c = std::cos(angle), s = std::sin(angle);
    Eigen::Matrix3d& R = data_.rotation[k];
    R.setZero();
    R(I, I) = 1.0;
    R(A, A) = c;
    R(B, A) = s;
    R(A, B) = -s;
    R(B, B) = c;
    const Eigen::Vector3d& l = data_.translation[k] = model_.origin_translation(k);
    if (!poses_) return;
    Eigen::Isometry3d& pose = data_.link_pose[k];
    const int p = model_.parents()[k];
    if (p < 0) {
      pose.linear() = R;
      pose.translation() = l;
      return;
    }
    const Eigen::Isometry3d& parent = data_.link_pose[p];
    const auto P = parent.linear();
    pose.linear().col(I) = P.col(I);
    pose.linear().col(A) = c * P.col(A) + s * P.col(B);
    pose.linear().col(B) = c * P.col(B) - s * P.col(A);
    pose.translation().noalias() = P * l;
    pose.translation() += parent.translation();
  }

 private:
  const RigidBodyModel& model_;
  RigidBodyData& data_;
  bool poses_;
};

// phi*(p, k) V(p) and f(p) += phi(p, k) f(k) across node k's joint
// (rigid_kernels.hpp), by 2 x 2 turns where the joint only turns about a coordinate axis
// (RigidBodyModel::turn_axis, rigid/axis_turn.hpp).
[[gnu::always_inline]] inline Vector6d to_child(const RigidBodyModel& model,
                                                const RigidBodyData& data, int k,
                                                const Vector6d& parent) {
  const Eigen::Matrix3d& R = data.rotation[k];
  const Eigen::Vector3d& l = data.translation[k];
  switch (model.turn_axis(k)) {
    case 0:
      return kernels::turned_motion_to_child(kernels::AxisTurn<0>(R), l, parent);
    case 1:
      return kernels::turned_motion_to_child(kernels::AxisTurn<1>(R), l, parent);
    case 2:
      return kernels::turned_motion_to_child(kernels::AxisTurn<2>(R), l, parent);
    default:
      return kernels::motion_to_child(R, l, parent);
  }
}

[[gnu::always_inline]] inline void force_to_parent(const RigidBodyModel& model,
                                                   const RigidBodyData& data, int k,
                                                   const Vector6d& force, Vector6d& parent) {
  const Eigen::Matrix3d& R = data.rotation[k];
  const Eigen::Vector3d& l = data.translation[k];
  switch (model.turn_axis(k)) {
    case 0:
      return kernels::add_turned_force_to_parent(kernels::AxisTurn<0>(R), l, force, parent);
    case 1:
      return kernels::add_turned_force_to_parent(kernels::AxisTurn<1>(R), l, force, parent);
    case 2:
      return kernels::add_turned_force_to_parent(kernels::AxisTurn<2>(R), l, force, parent);
    default:
      return kernels::add_force_to_parent(R, l, force, parent);
  }
}

// Floating and spherical joints: H*(k) is the first r columns of the 6 x 6 identity.
inline bool unit_hinge(const RigidBodyModel& model, int k) {
  const JointType type = model.joint_geometry(k).type;
  return type == JointType::kFloating || type == JointType::kSpherical;
}

}  // namespace skograph::rigid_detail

// Transforms through a joint that only turns about a coordinate axis (not installed): a revolute
// joint about x, y or z whose origin has no rotation (origin rpy 0, the common case: every joint
// of solo12, z1, the humanoid of bench/models, 38 of TALOS's 44) has X_parent_child = (R, l0)
// with R = R_i(q) a plane rotation. Moving a spatial quantity to the parent frame then turns two
// of its three coordinates, so the 3 x 3 products of rigid_kernels.hpp shrink to 2 x 2 ones:
//   R v: 4 multiplications instead of 9; R S R^T of a symmetric S: 11 instead of 54.
// The axis is a template parameter (the coordinates stay in registers); the recursions dispatch
// per node on RigidBodyModel::turn_axis(k).
#pragma once

#include <Eigen/Core>

#include "skograph/rigid/rigid_kernels.hpp"

namespace skograph::kernels {

// R = R_I(theta), the rotation by theta about coordinate axis I, read off R itself: with
// (I, A, B) cyclic, R e_A = c e_A + s e_B and R e_B = -s e_A + c e_B.
template <int I>
struct AxisTurn {
  static constexpr int A = (I + 1) % 3, B = (I + 2) % 3;
  explicit AxisTurn(const Eigen::Matrix3d& R) : c(R(A, A)), s(R(B, A)) {}

  // R v.
  [[gnu::always_inline]] Eigen::Vector3d apply(const Eigen::Vector3d& v) const {
    Eigen::Vector3d out;
    out(I) = v(I);
    out(A) = c * v(A) - s * v(B);
    out(B) = s * v(A) + c * v(B);
    return out;
  }
  // R^T v.
  [[gnu::always_inline]] Eigen::Vector3d apply_transpose(const Eigen::Vector3d& v) const {
    Eigen::Vector3d out;
    out(I) = v(I);
    out(A) = c * v(A) + s * v(B);
    out(B) = c * v(B) - s * v(A);
    return out;
  }
  // R S R^T of a symmetric S: S_II stays, (S_AI, S_BI) turns as a vector, and the (A, B) block
  // by the double angle: with m = (S_AA + S_BB) / 2, d = (S_AA - S_BB) / 2, c2 = c^2 - s^2 and
  // s2 = 2 c s, S_AA' = m + c2 d - s2 S_AB, S_BB' = m - c2 d + s2 S_AB, S_AB' = s2 d + c2 S_AB.
  // Written into all nine entries of `out` (symmetric).
  template <class Matrix>
  [[gnu::always_inline]] void sandwich_symmetric(const Matrix& S, Eigen::Matrix3d& out) const {
    const double c2 = c * c - s * s, s2 = 2.0 * c * s;
    const double mean = 0.5 * (S(A, A) + S(B, B)), half_difference = 0.5 * (S(A, A) - S(B, B));
    const double ab = S(A, B);
    out(I, I) = S(I, I);
    out(A, A) = mean + c2 * half_difference - s2 * ab;
    out(B, B) = mean - c2 * half_difference + s2 * ab;
    out(A, B) = out(B, A) = s2 * half_difference + c2 * ab;
    out(A, I) = out(I, A) = c * S(A, I) - s * S(B, I);
    out(B, I) = out(I, B) = s * S(A, I) + c * S(B, I);
  }

  double c, s;
};

// RigidInertia::add_to_parent through a turn about axis I.
template <int I>
[[gnu::always_inline]] inline void add_turned_inertia_to_parent(const AxisTurn<I>& turn,
                                                                const Eigen::Vector3d& l,
                                                                const RigidInertia& child,
                                                                RigidInertia& parent) {
  Eigen::Matrix3d turned;
  turn.sandwich_symmetric(child.rotational, turned);
  add_moved_inertia(l, child.mass, turn.apply(child.first_moment), turned, parent);
}

// V(k) = phi*(p, k) V(p) = [R^T w; R^T (v + w x l)] (motion_to_child) through a turn.
template <int I>
[[gnu::always_inline]] inline Vector6d turned_motion_to_child(const AxisTurn<I>& turn,
                                                              const Eigen::Vector3d& l,
                                                              const Vector6d& parent) {
  Vector6d child;
  const Eigen::Vector3d w = parent.head<3>();
  child.head<3>() = turn.apply_transpose(w);
  child.tail<3>() = turn.apply_transpose(parent.tail<3>() + w.cross(l));
  return child;
}

// f(p) += phi(p, k) f(k) (add_force_to_parent) through a turn.
template <int I>
[[gnu::always_inline]] inline void add_turned_force_to_parent(const AxisTurn<I>& turn,
                                                              const Eigen::Vector3d& l,
                                                              const Vector6d& child,
                                                              Vector6d& parent) {
  const Eigen::Vector3d force = turn.apply(child.tail<3>());
  parent.head<3>() += turn.apply(child.head<3>()) + l.cross(force);
  parent.tail<3>() += force;
}

}  // namespace skograph::kernels

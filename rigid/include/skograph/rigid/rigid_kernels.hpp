// Fixed-size kernels of the rigid-body recursions (part I section 6; conventions.md), written on
// the structure of each quantity instead of dense 6 x 6 products (issue 13):
//   - a rigid transform phi(p, k) is kept as (R, l): R the orientation of frame k in frame p, l the
//     vector from O_p to O_k in frame p; phi = [[R, l~ R], [0, R]];
//   - a rigid-body spatial inertia about the frame origin is kept as (m, h, J): mass, first moment
//     h = m c (c the center of mass) and rotational inertia J about the origin, so that
//     M = [[J, h~], [-h~, m 1]] (conventions.md, paper 002 Eq. 10); composite inertias are sums
//     of these and keep the form.
#pragma once

#include <Eigen/Core>

#include "skograph/rigid/spatial.hpp"

namespace skograph::kernels {

// V(k) = phi*(p, k) V(p): [R^T w; R^T (v + w x l)].
inline Vector6d motion_to_child(const Eigen::Matrix3d& R, const Eigen::Vector3d& l,
                                const Vector6d& parent) {
  Vector6d child;
  const Eigen::Vector3d w = parent.head<3>();
  child.head<3>().noalias() = R.transpose() * w;
  child.tail<3>().noalias() = R.transpose() * (parent.tail<3>() + w.cross(l));
  return child;
}

// f(p) += phi(p, k) f(k): [R N + l x (R F); R F].
inline void add_force_to_parent(const Eigen::Matrix3d& R, const Eigen::Vector3d& l,
                                const Vector6d& child, Vector6d& parent) {
  const Eigen::Vector3d force = R * child.tail<3>();
  parent.head<3>().noalias() += R * child.head<3>();
  parent.head<3>() += l.cross(force);
  parent.tail<3>() += force;
}

// A rigid-body spatial inertia (m, h, J) about the frame origin.
struct RigidInertia {
  double mass = 0.0;
  Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();  // h = m c
  Eigen::Matrix3d rotational = Eigen::Matrix3d::Zero();    // J about the origin

  // M V = [J w + h x v; m v - h x w].
  Vector6d times(const Vector6d& motion) const {
    Vector6d f;
    const Eigen::Vector3d w = motion.head<3>(), v = motion.tail<3>();
    f.head<3>().noalias() = rotational * w;
    f.head<3>() += first_moment.cross(v);
    f.tail<3>() = mass * v - first_moment.cross(w);
    return f;
  }
  Matrix6d matrix() const {
    Matrix6d m;
    const Eigen::Matrix3d h = cross_matrix(first_moment);
    m << rotational, h, -h, mass * Eigen::Matrix3d::Identity();
    return m;
  }
  // The same inertia in the frame in which this one's frame has orientation R and origin l.
  RigidInertia moved(const Eigen::Matrix3d& R, const Eigen::Vector3d& l) const {
    RigidInertia result;
    add_to_parent(R, l, result);
    return result;
  }
  RigidInertia& operator+=(const RigidInertia& other) {
    mass += other.mass;
    first_moment += other.first_moment;
    rotational += other.rotational;
    return *this;
  }
  // The same inertia seen from the parent frame: phi M phi* = (m, R h + m l, R J R^T -
  // (l g^T + g l^T) + 2 (g . l) 1 - m (l l^T - |l|^2 1)) with g = R h (parallel-axis theorem with
  // a~ b~ = b a^T - (a . b) 1).
  void add_to_parent(const Eigen::Matrix3d& R, const Eigen::Vector3d& l,
                     RigidInertia& parent) const {
    const Eigen::Vector3d g = R * first_moment;
    Eigen::Matrix3d turned;
    turned.noalias() = R * rotational * R.transpose();
    const Eigen::Matrix3d lg = l * g.transpose();
    turned -= lg + lg.transpose();
    turned -= mass * (l * l.transpose());
    turned.diagonal().array() += 2.0 * g.dot(l) + mass * l.squaredNorm();
    parent.mass += mass;
    parent.first_moment += g + mass * l;
    parent.rotational += turned;
  }
};

// P(p) += phi(p, k) P phi*(p, k) for a symmetric 6 x 6 P = [[A, B], [B^T, C]]: rotate the blocks
// (A' = R A R^T, ...), then shift by T = [[1, l~], [0, 1]]:
// [[A' + l~ B'^T - B' l~ - l~ C' l~, B' + l~ C'], [., C']].
inline void add_articulated_inertia_to_parent(const Eigen::Matrix3d& R, const Eigen::Vector3d& l,
                                              const Matrix6d& inertia, Matrix6d& parent) {
  Eigen::Matrix3d a, b, c;
  a.noalias() = R * inertia.topLeftCorner<3, 3>() * R.transpose();
  b.noalias() = R * inertia.topRightCorner<3, 3>() * R.transpose();
  c.noalias() = R * inertia.bottomRightCorner<3, 3>() * R.transpose();
  const Eigen::Matrix3d lx = cross_matrix(l);
  Eigen::Matrix3d lc;
  lc.noalias() = lx * c;  // l~ C'
  Eigen::Matrix3d lb;
  lb.noalias() = lx * b.transpose();  // l~ B'^T
  Eigen::Matrix3d top_left = a + lb + lb.transpose();
  top_left.noalias() -= lc * lx;  // l~ C' l~ (and (l~ B'^T)^T = -B' l~)
  parent.topLeftCorner<3, 3>() += top_left;
  const Eigen::Matrix3d top_right = b + lc;
  parent.topRightCorner<3, 3>() += top_right;
  parent.bottomLeftCorner<3, 3>() += top_right.transpose();
  parent.bottomRightCorner<3, 3>() += c;
}

// A motion vector [w; v] given in a frame with orientation R and origin l (v the velocity of
// that origin) as seen in the outer frame about its origin: [R w; R v + l x R w].
inline Vector6d motion_to_outer(const Eigen::Matrix3d& R, const Eigen::Vector3d& l,
                                const Vector6d& motion) {
  Vector6d outer;
  outer.head<3>().noalias() = R * motion.head<3>();
  outer.tail<3>().noalias() = R * motion.tail<3>();
  outer.tail<3>() += l.cross(outer.head<3>());
  return outer;
}

// V x m (motion cross product) and V x* f (force cross product), rigid/spatial.hpp.
inline Vector6d cross_motion(const Vector6d& velocity, const Vector6d& motion) {
  const Eigen::Vector3d w = velocity.head<3>(), v = velocity.tail<3>();
  Vector6d result;
  result.head<3>() = w.cross(motion.head<3>());
  result.tail<3>() = w.cross(motion.tail<3>()) + v.cross(motion.head<3>());
  return result;
}
inline Vector6d cross_force(const Vector6d& velocity, const Vector6d& force) {
  const Eigen::Vector3d w = velocity.head<3>(), v = velocity.tail<3>();
  Vector6d result;
  result.head<3>() = w.cross(force.head<3>()) + v.cross(force.tail<3>());
  result.tail<3>() = w.cross(force.tail<3>());
  return result;
}

}  // namespace skograph::kernels

// Fixed-size kernels of the rigid-body recursions (part I section 6; conventions.md), written on
// the structure of each quantity instead of dense 6 x 6 products:
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

// a x b written out: the same arithmetic as Eigen's cross(), which the compiler leaves out of line
// in the largest recursions (a call per product in the derivatives' passes).
template <class A, class B>
[[gnu::always_inline]] inline Eigen::Vector3d cross3(const A& a, const B& b) {
  return {a(1) * b(2) - a(2) * b(1), a(2) * b(0) - a(0) * b(2), a(0) * b(1) - a(1) * b(0)};
}

// V(k) = phi*(p, k) V(p): [R^T w; R^T (v + w x l)].
[[gnu::always_inline]] inline Vector6d motion_to_child(const Eigen::Matrix3d& R,
                                                       const Eigen::Vector3d& l,
                                                       const Vector6d& parent) {
  Vector6d child;
  const Eigen::Vector3d w = parent.head<3>();
  child.head<3>().noalias() = R.transpose() * w;
  child.tail<3>().noalias() = R.transpose() * (parent.tail<3>() + cross3(w, l));
  return child;
}

// f(p) += phi(p, k) f(k): [R N + l x (R F); R F].
[[gnu::always_inline]] inline void add_force_to_parent(const Eigen::Matrix3d& R,
                                                       const Eigen::Vector3d& l,
                                                       const Vector6d& child, Vector6d& parent) {
  const Eigen::Vector3d force = R * child.tail<3>();
  parent.head<3>().noalias() += R * child.head<3>();
  parent.head<3>() += cross3(l, force);
  parent.tail<3>() += force;
}

// R S R^T of a symmetric S (R orthonormal) in 35 multiplications instead of 54: with d = S_22,
// S - d 1 = e0 x^T + x e0^T + e1 y^T + y e1^T for x = ((S_00 - d) / 2, S_01, S_02) and
// y = (0, (S_11 - d) / 2, S_12), and R 1 R^T = 1, so
// R S R^T = r0 X^T + X r0^T + r1 Y^T + Y r1^T + d 1 with X = R x, Y = R y, r_i = R e_i.
// Written into all nine entries of `out` (symmetric). Only S's upper triangle is read, so an S
// symmetric to rounding (an articulated inertia's block) comes out symmetrized.
template <class Symmetric>
[[gnu::always_inline]] inline void rotate_symmetric(const Eigen::Matrix3d& R, const Symmetric& S,
                                                    Eigen::Matrix3d& out) {
  static_assert(Symmetric::RowsAtCompileTime == 3 && Symmetric::ColsAtCompileTime == 3);
  const double d = S(2, 2);
  const Eigen::Vector3d x(0.5 * (S(0, 0) - d), S(0, 1), S(0, 2));
  const Eigen::Vector3d X = R * x;
  const Eigen::Vector3d Y = 0.5 * (S(1, 1) - d) * R.col(1) + S(1, 2) * R.col(2);
  const auto r0 = R.col(0), r1 = R.col(1);
  out(0, 0) = 2.0 * (r0(0) * X(0) + r1(0) * Y(0)) + d;
  out(1, 1) = 2.0 * (r0(1) * X(1) + r1(1) * Y(1)) + d;
  out(2, 2) = 2.0 * (r0(2) * X(2) + r1(2) * Y(2)) + d;
  out(0, 1) = out(1, 0) = r0(0) * X(1) + X(0) * r0(1) + r1(0) * Y(1) + Y(0) * r1(1);
  out(0, 2) = out(2, 0) = r0(0) * X(2) + X(0) * r0(2) + r1(0) * Y(2) + Y(0) * r1(2);
  out(1, 2) = out(2, 1) = r0(1) * X(2) + X(1) * r0(2) + r1(1) * Y(2) + Y(1) * r1(2);
}

// A rigid-body spatial inertia (m, h, J) about the frame origin.
struct RigidInertia {
  double mass = 0.0;
  Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();  // h = m c
  Eigen::Matrix3d rotational = Eigen::Matrix3d::Zero();    // J about the origin

  // M V = [J w + h x v; m v - h x w].
  [[gnu::always_inline]] Vector6d times(const Vector6d& motion) const {
    Vector6d f;
    const Eigen::Vector3d w = motion.head<3>(), v = motion.tail<3>();
    f.head<3>().noalias() = rotational * w;
    f.head<3>() += cross3(first_moment, v);
    f.tail<3>() = mass * v - cross3(first_moment, w);
    return f;
  }
  // [[J, h~], [-h~, m 1]], entry by entry.
  [[gnu::always_inline]] Matrix6d matrix() const {
    Matrix6d m;
    const double x = first_moment.x(), y = first_moment.y(), z = first_moment.z();
    m.topLeftCorner<3, 3>() = rotational;
    m.col(3) << 0.0, z, -y, mass, 0.0, 0.0;
    m.col(4) << -z, 0.0, x, 0.0, mass, 0.0;
    m.col(5) << y, -x, 0.0, 0.0, 0.0, mass;
    m.block<3, 3>(3, 0) << 0.0, z, -y, -z, 0.0, x, y, -x, 0.0;
    return m;
  }
  // The same inertia in the frame in which this one's frame has orientation R and origin l.
  [[gnu::always_inline]] RigidInertia moved(const Eigen::Matrix3d& R,
                                            const Eigen::Vector3d& l) const {
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
  // The same inertia seen from the parent frame, added to `parent`: phi M phi* = (m, g + m l,
  // R J R^T - (l g^T + g l^T) + 2 (g . l) 1 - m (l l^T - |l|^2 1)) with g = R h (parallel-axis
  // theorem with a~ b~ = b a^T - (a . b) 1).
  [[gnu::always_inline]] void add_to_parent(const Eigen::Matrix3d& R, const Eigen::Vector3d& l,
                                            RigidInertia& parent) const;
};

// The parallel-axis part of add_to_parent: an inertia (m, g, turned) already in the parent's axes
// (g = R h, turned = R J R^T) moved to the parent's origin at l and added to `parent`:
//   J_p += turned - (l u^T + u l^T) + 2 (u . l) 1 with u = g + m l / 2,  h_p += g + m l,
// the formula of add_to_parent (l g^T + g l^T + m l l^T = l u^T + u l^T and
// 2 g.l + m |l|^2 = 2 u.l) in 15 multiplications.
[[gnu::always_inline]] inline void add_moved_inertia(const Eigen::Vector3d& l, double mass,
                                                     const Eigen::Vector3d& g,
                                                     const Eigen::Matrix3d& turned,
                                                     RigidInertia& parent) {
  const Eigen::Vector3d ml = mass * l;
  const Eigen::Vector3d u = g + 0.5 * ml;
  const double xx = l.x() * u.x(), yy = l.y() * u.y(), zz = l.z() * u.z();
  const double xy = l.x() * u.y() + u.x() * l.y();
  const double xz = l.x() * u.z() + u.x() * l.z();
  const double yz = l.y() * u.z() + u.y() * l.z();
  Eigen::Matrix3d& J = parent.rotational;
  J(0, 0) += turned(0, 0) + 2.0 * (yy + zz);
  J(1, 1) += turned(1, 1) + 2.0 * (xx + zz);
  J(2, 2) += turned(2, 2) + 2.0 * (xx + yy);
  J(0, 1) += turned(0, 1) - xy;
  J(1, 0) += turned(1, 0) - xy;
  J(0, 2) += turned(0, 2) - xz;
  J(2, 0) += turned(2, 0) - xz;
  J(1, 2) += turned(1, 2) - yz;
  J(2, 1) += turned(2, 1) - yz;
  parent.first_moment += g + ml;
  parent.mass += mass;
}

[[gnu::always_inline]] inline void RigidInertia::add_to_parent(const Eigen::Matrix3d& R,
                                                               const Eigen::Vector3d& l,
                                                               RigidInertia& parent) const {
  Eigen::Matrix3d turned;
  rotate_symmetric(R, rotational, turned);
  add_moved_inertia(l, mass, R * first_moment, turned, parent);
}

// The shift of add_articulated_inertia_to_parent: the blocks A', B', C' of P already in the
// parent's axes, moved to the parent's origin at l by T = [[1, l~], [0, 1]] and added to `parent`:
// [[A' + l~ B'^T - B' l~ - l~ C' l~, B' + l~ C'], [., C']].
[[gnu::always_inline]] inline void add_shifted_articulated_inertia(const Eigen::Vector3d& l,
                                                                   const Eigen::Matrix3d& a,
                                                                   const Eigen::Matrix3d& b,
                                                                   const Eigen::Matrix3d& c,
                                                                   Matrix6d& parent) {
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

// P(p) += phi(p, k) P phi*(p, k) for a symmetric 6 x 6 P = [[A, B], [B^T, C]]: rotate the blocks
// (A' = R A R^T, ...), then shift by T (add_shifted_articulated_inertia).
[[gnu::always_inline]] inline void add_articulated_inertia_to_parent(const Eigen::Matrix3d& R,
                                                                     const Eigen::Vector3d& l,
                                                                     const Matrix6d& inertia,
                                                                     Matrix6d& parent) {
  Eigen::Matrix3d a, b, c;
  rotate_symmetric(R, inertia.topLeftCorner<3, 3>(), a);
  b.noalias() = R * inertia.topRightCorner<3, 3>() * R.transpose();
  rotate_symmetric(R, inertia.bottomRightCorner<3, 3>(), c);
  add_shifted_articulated_inertia(l, a, b, c, parent);
}

// A motion vector [w; v] given in a frame with orientation R and origin l (v the velocity of
// that origin) as seen in the outer frame about its origin: [R w; R v + l x R w].
[[gnu::always_inline]] inline Vector6d motion_to_outer(const Eigen::Matrix3d& R,
                                                       const Eigen::Vector3d& l,
                                                       const Vector6d& motion) {
  Vector6d outer;
  outer.head<3>().noalias() = R * motion.head<3>();
  outer.tail<3>().noalias() = R * motion.tail<3>();
  outer.tail<3>() += cross3(l, outer.head<3>());
  return outer;
}

// V x m (motion cross product) and V x* f (force cross product), rigid/spatial.hpp.
[[gnu::always_inline]] inline Vector6d cross_motion(const Vector6d& velocity,
                                                    const Vector6d& motion) {
  const Eigen::Vector3d w = velocity.head<3>(), v = velocity.tail<3>();
  Vector6d result;
  result.head<3>() = cross3(w, motion.head<3>());
  result.tail<3>() = cross3(w, motion.tail<3>()) + cross3(v, motion.head<3>());
  return result;
}
[[gnu::always_inline]] inline Vector6d cross_force(const Vector6d& velocity,
                                                   const Vector6d& force) {
  const Eigen::Vector3d w = velocity.head<3>(), v = velocity.tail<3>();
  Vector6d result;
  result.head<3>() = cross3(w, force.head<3>()) + cross3(v, force.tail<3>());
  result.tail<3>() = cross3(w, force.tail<3>());
  return result;
}

}  // namespace skograph::kernels

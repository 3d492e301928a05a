// The rigid-body recursions over W states at once, one state per lane of a SIMD register, written
// once over the lane type L (xsimd::batch<double, arch>) and compiled once per instruction set
// (lanes_avx2.cpp, lanes_avx512.cpp): the lane types and spatial algebra, the joint transforms
// from the states' q (the trigonometry by xsimd's sincos over the lanes), and inverse dynamics as
// rigid_body_dynamics.cpp's single-state recursion in the link frames (rigid/rigid_kernels.hpp).
// Control flow depends only on the model, never on the state: the lanes never diverge.
//
// Included only by those translation units, after defining SKOGRAPH_LANE_NS (the namespace that
// names the instruction set) and SKOGRAPH_LANE_ARCH (xsimd's architecture), which then define the
// exported table (lane_abi.hpp). Everything here has internal linkage.
#pragma once

#if !defined(SKOGRAPH_LANE_NS) || !defined(SKOGRAPH_LANE_ARCH)
#error "define SKOGRAPH_LANE_NS and SKOGRAPH_LANE_ARCH before including lane_kernels.hpp"
#endif
#ifdef EIGEN_CORE_H
#error "lane kernels must not see Eigen: its layout follows the instruction-set flags"
#endif

// xsimd's scalar reduction of large angles for sincos (xsimd/math/xsimd_rem_pio2.hpp) is two
// plain inline functions of the same names in every translation unit; where the compiler does not
// inline them (the sanitizers' builds) the linker would keep one instruction set's copy for both
// sets' callers. Renamed per instruction set, each unit has its own.
#define SKOGRAPH_LANE_JOIN_NAMES(a, b) a##_##b
#define SKOGRAPH_LANE_NAME(a, b) SKOGRAPH_LANE_JOIN_NAMES(a, b)
#define __ieee754_rem_pio2 SKOGRAPH_LANE_NAME(skograph_ieee754_rem_pio2, SKOGRAPH_LANE_NS)
#define __kernel_rem_pio2 SKOGRAPH_LANE_NAME(skograph_kernel_rem_pio2, SKOGRAPH_LANE_NS)
#include <xsimd/xsimd.hpp>
#undef __ieee754_rem_pio2
#undef __kernel_rem_pio2

#include "lane_abi.hpp"

namespace skograph::lanes::SKOGRAPH_LANE_NS {
namespace {

using L = xsimd::batch<double, SKOGRAPH_LANE_ARCH>;
constexpr int W = static_cast<int>(L::size);

struct V3 {
  L x, y, z;
};
// A motion or force vector [angular; linear].
struct Six {
  V3 top, bottom;
};
// R column by column: c0 = R e0, ...
struct Rotation {
  V3 c0, c1, c2;
};

[[gnu::always_inline]] inline L load(const double* p) {
  return L::load_unaligned(p);
}
[[gnu::always_inline]] inline V3 load3(const double* p) {
  return {load(p), load(p + W), load(p + 2 * W)};
}
[[gnu::always_inline]] inline void store3(const V3& v, double* p) {
  v.x.store_unaligned(p);
  v.y.store_unaligned(p + W);
  v.z.store_unaligned(p + 2 * W);
}
[[gnu::always_inline]] inline Six load6(const double* p) {
  return {load3(p), load3(p + 3 * W)};
}
[[gnu::always_inline]] inline void store6(const Six& s, double* p) {
  store3(s.top, p);
  store3(s.bottom, p + 3 * W);
}

[[gnu::always_inline]] inline V3 operator+(const V3& a, const V3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
[[gnu::always_inline]] inline V3 operator-(const V3& a, const V3& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
[[gnu::always_inline]] inline V3 operator*(const V3& a, const L& s) {
  return {a.x * s, a.y * s, a.z * s};
}
[[gnu::always_inline]] inline Six operator+(const Six& a, const Six& b) {
  return {a.top + b.top, a.bottom + b.bottom};
}
// a x b, in rigid_kernels.hpp's cross3 order.
[[gnu::always_inline]] inline V3 cross(const V3& a, const V3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
// R v and R^T v.
[[gnu::always_inline]] inline V3 times(const Rotation& R, const V3& v) {
  return {R.c0.x * v.x + R.c1.x * v.y + R.c2.x * v.z, R.c0.y * v.x + R.c1.y * v.y + R.c2.y * v.z,
          R.c0.z * v.x + R.c1.z * v.y + R.c2.z * v.z};
}
[[gnu::always_inline]] inline V3 transposed_times(const Rotation& R, const V3& v) {
  return {R.c0.x * v.x + R.c0.y * v.y + R.c0.z * v.z, R.c1.x * v.x + R.c1.y * v.y + R.c1.z * v.z,
          R.c2.x * v.x + R.c2.y * v.y + R.c2.z * v.z};
}

// V(k) = phi*(p, k) V(p) = [R^T w; R^T (v + w x l)] (rigid_kernels.hpp: motion_to_child).
[[gnu::always_inline]] inline Six motion_to_child(const Rotation& R, const V3& l, const Six& m) {
  return {transposed_times(R, m.top), transposed_times(R, m.bottom + cross(m.top, l))};
}
// f(p) += phi(p, k) f(k) = [R N + l x (R F); R F] (add_force_to_parent).
[[gnu::always_inline]] inline void add_force_to_parent(const Rotation& R, const V3& l, const Six& f,
                                                       Six& parent) {
  const V3 force = times(R, f.bottom);
  parent.top = parent.top + times(R, f.top) + cross(l, force);
  parent.bottom = parent.bottom + force;
}
// V x m and V x* f (rigid/spatial.hpp).
[[gnu::always_inline]] inline Six cross_motion(const Six& V, const Six& m) {
  return {cross(V.top, m.top), cross(V.top, m.bottom) + cross(V.bottom, m.top)};
}
[[gnu::always_inline]] inline Six cross_force(const Six& V, const Six& f) {
  return {cross(V.top, f.top) + cross(V.bottom, f.bottom), cross(V.top, f.bottom)};
}

// An inertia (m, h, J), J column by column; in memory 13 entries (m, h, J) per lane.
struct Inertia {
  L mass;
  V3 first_moment;
  Rotation rotational;
};
[[gnu::always_inline]] inline Inertia load_inertia(const double* p) {
  return {load(p), load3(p + W), {load3(p + 4 * W), load3(p + 7 * W), load3(p + 10 * W)}};
}
[[gnu::always_inline]] inline void store_inertia(const Inertia& I, double* p) {
  I.mass.store_unaligned(p);
  store3(I.first_moment, p + W);
  store3(I.rotational.c0, p + 4 * W);
  store3(I.rotational.c1, p + 7 * W);
  store3(I.rotational.c2, p + 10 * W);
}
// A link's inertia from the model's 13 numbers, the same in every lane.
[[gnu::always_inline]] inline Inertia inertia_of(const double* p) {
  return {
      L(p[0]),
      {L(p[1]), L(p[2]), L(p[3])},
      {{L(p[4]), L(p[5]), L(p[6])}, {L(p[7]), L(p[8]), L(p[9])}, {L(p[10]), L(p[11]), L(p[12])}}};
}
// M V = [J w + h x v; m v - h x w] (RigidInertia::times).
[[gnu::always_inline]] inline Six times(const Inertia& I, const Six& m) {
  return {times(I.rotational, m.top) + cross(I.first_moment, m.bottom),
          m.bottom * I.mass - cross(I.first_moment, m.top)};
}

// H*(k) qd(k) of a joint with `dofs` coordinates at `rates` (dof-major lanes): a 1-dof joint's
// column times its rate; a spherical or floating joint's H* is the first dofs columns of the
// identity.
[[gnu::always_inline]] inline Six hinge_times(int dofs, const double* column, const double* rates) {
  const L zero(0.0);
  if (dofs == 1) {
    const L r = load(rates);
    return {{L(column[0]) * r, L(column[1]) * r, L(column[2]) * r},
            {L(column[3]) * r, L(column[4]) * r, L(column[5]) * r}};
  }
  Six s{{zero, zero, zero}, {zero, zero, zero}};
  if (dofs >= 3) s.top = load3(rates);
  if (dofs == 6) s.bottom = load3(rates + 3 * W);
  return s;
}
// Column c of H*(k): a 1-dof joint's column, or the unit vector e_c (spherical, floating).
[[gnu::always_inline]] inline Six hinge_column(int dofs, const double* column, int c) {
  const L zero(0.0), one(1.0);
  if (dofs == 1)
    return {{L(column[0]), L(column[1]), L(column[2])}, {L(column[3]), L(column[4]), L(column[5])}};
  Six s{{zero, zero, zero}, {zero, zero, zero}};
  L* entries[6] = {&s.top.x, &s.top.y, &s.top.z, &s.bottom.x, &s.bottom.y, &s.bottom.z};
  *entries[c] = one;
  return s;
}
// H(k) column c of f: the force's component along hinge column c.
[[gnu::always_inline]] inline L hinge_component(int dofs, const double* column, int c,
                                                const Six& f) {
  if (dofs == 1)
    return L(column[0]) * f.top.x + L(column[1]) * f.top.y + L(column[2]) * f.top.z +
           L(column[3]) * f.bottom.x + L(column[4]) * f.bottom.y + L(column[5]) * f.bottom.z;
  const L* entries[6] = {&f.top.x, &f.top.y, &f.top.z, &f.bottom.x, &f.bottom.y, &f.bottom.z};
  return *entries[c];
}

// Node k's R of X_parent_child(q) in the block.
[[gnu::always_inline]] inline Rotation rotation_at(const Block& block, int k) {
  const double* R = block.rotation + 9 * W * k;
  return {load3(R), load3(R + 3 * W), load3(R + 6 * W)};
}

// The turn by `angle` about the unit `axis`, in the order of Eigen's
// AngleAxis::toRotationMatrix (rigid/spatial.cpp's joint_motion): c I + s [axis]x + (1 - c) axis
// axis^T, c and s by xsimd's sincos (to the last bit or so of std::cos and std::sin).
[[gnu::always_inline]] inline Rotation axis_angle(const V3& axis, const L& angle) {
  const auto [s, c] = xsimd::sincos(angle);
  const V3 sin_axis = axis * s, cos1_axis = axis * (L(1.0) - c);
  const L xy = cos1_axis.x * axis.y, xz = cos1_axis.x * axis.z, yz = cos1_axis.y * axis.z;
  return {{cos1_axis.x * axis.x + c, xy + sin_axis.z, xz - sin_axis.y},
          {xy - sin_axis.z, cos1_axis.y * axis.y + c, yz + sin_axis.x},
          {xz + sin_axis.y, yz - sin_axis.x, cos1_axis.z * axis.z + c}};
}
// The turn of a rotation vector v (rigid/spatial.cpp's rotation_from_vector): by |v| about v/|v|,
// none where |v| < 1e-300.
[[gnu::always_inline]] inline Rotation rotation_vector_turn(const V3& v) {
  const L zero(0.0);
  const L length = xsimd::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  const auto none = length < L(1e-300);
  const L angle = xsimd::select(none, zero, length), divisor = xsimd::select(none, L(1.0), length);
  const V3 axis{xsimd::select(none, zero, v.x / divisor), xsimd::select(none, zero, v.y / divisor),
                xsimd::select(none, zero, v.z / divisor)};
  return axis_angle(axis, angle);
}

// The joint transforms X_parent_child(q) = origin * joint_motion(q) of every node from its q in
// block.q, as configuration_walk.hpp's transform computes them: a turn about axis i of the joint
// frame by (c, s) of its signed angle keeps R0's column i and turns columns a, b = i + 1, i + 2
// (mod 3), c R0_a + s R0_b and c R0_b - s R0_a, with l = l0; a slide keeps R = R0 and moves l = l0
// + R0 (axis q); a turn about another axis, a ball joint's rotation vector and a free joint's
// (with its translation t: l = l0 + R0 t) give R = R0 R(q); a fixed joint R = R0, l = l0.
void joint_transforms(const TreeView& tree, const Block& block) noexcept {
  for (int k = 0; k < tree.nodes; ++k) {
    const int kind = tree.joint_kind[k];
    const double* origin = tree.origin + 15 * k;
    const auto column = [&](int c) {
      return V3{L(origin[3 * c]), L(origin[3 * c + 1]), L(origin[3 * c + 2])};
    };
    const V3 l0{L(origin[9]), L(origin[10]), L(origin[11])};
    const V3 axis{L(origin[12]), L(origin[13]), L(origin[14])};
    double* R = block.rotation + 9 * W * k;
    double* l = block.translation + 3 * W * k;
    const double* q = block.q + W * tree.offset[k];
    const Rotation R0{column(0), column(1), column(2)};
    const auto store_rotation = [&](const Rotation& rotation) {
      store3(rotation.c0, R);
      store3(rotation.c1, R + 3 * W);
      store3(rotation.c2, R + 6 * W);
    };
    const auto store_turned = [&](const Rotation& turn) {  // R = R0 turn
      store_rotation({times(R0, turn.c0), times(R0, turn.c1), times(R0, turn.c2)});
    };
    switch (kind) {
      case kJointTurn: {  // the axis is +-e_i: the signed angle is q axis_i
        const int i = tree.joint_axis[k], a = (i + 1) % 3, b = (i + 2) % 3;
        const auto [s, c] = xsimd::sincos(load(q) * L(origin[12 + i]));
        const V3 column_a = column(a), column_b = column(b);
        store3(column(i), R + 3 * W * i);
        store3(column_a * c + column_b * s, R + 3 * W * a);
        store3(column_b * c - column_a * s, R + 3 * W * b);
        store3(l0, l);
        break;
      }
      case kJointSlide: {
        const L value = load(q);
        store_rotation(R0);
        store3(l0 + times(R0, axis * value), l);
        break;
      }
      case kJointTurnAbout:
        store_turned(axis_angle(axis, load(q)));
        store3(l0, l);
        break;
      case kJointBall:
        store_turned(rotation_vector_turn(load3(q)));
        store3(l0, l);
        break;
      case kJointFree:
        store_turned(rotation_vector_turn(load3(q)));
        store3(l0 + times(R0, load3(q + 3 * W)), l);
        break;
      default:  // kJointFixed
        store_rotation(R0);
        store3(l0, l);
        break;
    }
  }
}

// Inverse dynamics, part II Algorithm 3.1 as rigid_body_dynamics.cpp's newton_euler: one walk
// parents first for V, alpha = phi* alpha(p) + V x H* qd + H* qdd (the world's -g at a base) and
// f = M alpha + V x* M V; one back for tau = H f and f(p) += phi f(k).
void inverse_dynamics(const TreeView& tree, const Block& block) noexcept {
  const L zero(0.0);
  const V3 gravity{L(block.gravity[0]), L(block.gravity[1]), L(block.gravity[2])};
  for (int i = 0; i < tree.nodes; ++i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    const Rotation R = rotation_at(block, k);
    const V3 l = load3(block.translation + 3 * W * k);
    const double* column = tree.hinge + 6 * k;
    const Six relative = hinge_times(dofs, column, block.qd + W * tree.offset[k]);
    double* work = block.work + 18 * W * k;
    Six velocity = relative, acceleration;
    if (p < 0) {
      acceleration = {{zero, zero, zero}, transposed_times(R, gravity) * L(-1.0)};
    } else {
      const double* parent = block.work + 18 * W * p;
      velocity = velocity + motion_to_child(R, l, load6(parent));
      acceleration = motion_to_child(R, l, load6(parent + 6 * W));
    }
    acceleration = acceleration + cross_motion(velocity, relative);
    if (dofs > 0)
      acceleration = acceleration + hinge_times(dofs, column, block.qdd + W * tree.offset[k]);
    const Inertia I = inertia_of(tree.inertia + 13 * k);
    const Six force = times(I, acceleration) + cross_force(velocity, times(I, velocity));
    store6(velocity, work);
    store6(acceleration, work + 6 * W);
    store6(force, work + 12 * W);
  }
  for (int i = tree.nodes - 1; i >= 0; --i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    const Six force = load6(block.work + 18 * W * k + 12 * W);
    for (int c = 0; c < dofs; ++c)  // tau(k) = H(k) f(k)
      hinge_component(dofs, tree.hinge + 6 * k, c, force)
          .store_unaligned(block.tau + W * (tree.offset[k] + c));
    if (p < 0) continue;
    double* parent_force = block.work + 18 * W * p + 12 * W;
    Six parent = load6(parent_force);
    add_force_to_parent(rotation_at(block, k), load3(block.translation + 3 * W * k), force, parent);
    store6(parent, parent_force);
  }
}

// R S R^T of a symmetric S (R orthonormal) in rigid_kernels.hpp's 35 multiplications
// (rotate_symmetric): with d = S_22, x = ((S_00 - d) / 2, S_01, S_02) and y = (0, (S_11 - d) / 2,
// S_12), R S R^T = r0 X^T + X r0^T + r1 Y^T + Y r1^T + d 1 for X = R x, Y = R y. S and the result
// column by column.
[[gnu::always_inline]] inline Rotation rotate_symmetric(const Rotation& R, const Rotation& S) {
  const L d = S.c2.z;
  const L half(0.5), two(2.0);
  const V3 X = times(R, V3{half * (S.c0.x - d), S.c1.x, S.c2.x});
  const V3 Y = R.c1 * (half * (S.c1.y - d)) + R.c2 * S.c2.y;
  const V3 &r0 = R.c0, &r1 = R.c1;
  const L xx = two * (r0.x * X.x + r1.x * Y.x) + d;
  const L yy = two * (r0.y * X.y + r1.y * Y.y) + d;
  const L zz = two * (r0.z * X.z + r1.z * Y.z) + d;
  const L xy = r0.x * X.y + X.x * r0.y + r1.x * Y.y + Y.x * r1.y;
  const L xz = r0.x * X.z + X.x * r0.z + r1.x * Y.z + Y.x * r1.z;
  const L yz = r0.y * X.z + X.y * r0.z + r1.y * Y.z + Y.y * r1.z;
  return {{xx, xy, xz}, {xy, yy, yz}, {xz, yz, zz}};
}

// phi M phi* added to the parent's (RigidInertia::add_to_parent): with g = R h, turned = R J R^T
// and u = g + m l / 2, J_p += turned - (l u^T + u l^T) + 2 (u . l) 1, h_p += g + m l, m_p += m.
[[gnu::always_inline]] inline void add_inertia_to_parent(const Rotation& R, const V3& l,
                                                         const Inertia& I, Inertia& parent) {
  const Rotation turned = rotate_symmetric(R, I.rotational);
  const V3 g = times(R, I.first_moment);
  const V3 ml = l * I.mass;
  const V3 u = g + ml * L(0.5);
  const L two(2.0);
  const L xx = l.x * u.x, yy = l.y * u.y, zz = l.z * u.z;
  const L xy = l.x * u.y + u.x * l.y, xz = l.x * u.z + u.x * l.z, yz = l.y * u.z + u.y * l.z;
  Rotation& J = parent.rotational;
  J.c0.x = J.c0.x + (turned.c0.x + two * (yy + zz));
  J.c1.y = J.c1.y + (turned.c1.y + two * (xx + zz));
  J.c2.z = J.c2.z + (turned.c2.z + two * (xx + yy));
  J.c1.x = J.c1.x + (turned.c1.x - xy);
  J.c0.y = J.c0.y + (turned.c0.y - xy);
  J.c2.x = J.c2.x + (turned.c2.x - xz);
  J.c0.z = J.c0.z + (turned.c0.z - xz);
  J.c2.y = J.c2.y + (turned.c2.y - yz);
  J.c1.z = J.c1.z + (turned.c1.z - yz);
  parent.first_moment = parent.first_moment + (g + ml);
  parent.mass = parent.mass + I.mass;
}
}  // namespace
}  // namespace skograph::lanes::SKOGRAPH_LANE_NS

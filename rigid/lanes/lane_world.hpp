// Spatial quantities in world axes about the origin of each tree's base link, shared by the
// lane recursions that work there (lane_articulated.hpp: forward dynamics; lane_composite.hpp:
// the mass matrix): a link's pose, its inertia and its joint's H* columns moved out. There
// spatial vectors and inertias of one tree add without transforms. Built on lane_kernels.hpp's
// lane types; included by the per-instruction-set translation units only.
#pragma once

#include "lane_kernels.hpp"

namespace skograph::lanes::SKOGRAPH_LANE_NS {
namespace {

// A six-vector as six entries, [angular; linear].
struct Column {
  L at[6];
};
[[gnu::always_inline]] inline Column column_of(const Six& s) {
  return {{s.top.x, s.top.y, s.top.z, s.bottom.x, s.bottom.y, s.bottom.z}};
}
[[gnu::always_inline]] inline Six six_of(const Column& c) {
  return {{c.at[0], c.at[1], c.at[2]}, {c.at[3], c.at[4], c.at[5]}};
}
[[gnu::always_inline]] inline Column load_column(const double* p) {
  Column c;
#pragma GCC unroll 21
  for (int i = 0; i < 6; ++i) c.at[i] = load(p + i * W);
  return c;
}
[[gnu::always_inline]] inline void store_column(const Column& c, double* p) {
#pragma GCC unroll 21
  for (int i = 0; i < 6; ++i) c.at[i].store_unaligned(p + i * W);
}
[[gnu::always_inline]] inline L dot(const Column& a, const Column& b) {
  L sum = a.at[0] * b.at[0];
#pragma GCC unroll 21
  for (int i = 1; i < 6; ++i) sum = sum + a.at[i] * b.at[i];
  return sum;
}
// Column c of a joint's H* in world axes about the tree's origin, the link at (R, l): a 1-dof
// joint's column moved out (rigid_kernels.hpp: motion_to_outer), or the unit vector e_c of a
// spherical or floating joint's child frame moved out.
[[gnu::always_inline]] inline Column world_hinge_column(int dofs, const double* column, int c,
                                                        const Rotation& R, const V3& l) {
  const L zero(0.0);
  if (dofs == 1) {
    const V3 top = times(R, V3{L(column[0]), L(column[1]), L(column[2])});
    const V3 bottom = times(R, V3{L(column[3]), L(column[4]), L(column[5])}) + cross(l, top);
    return column_of({top, bottom});
  }
  const V3* axes[3] = {&R.c0, &R.c1, &R.c2};
  if (c < 3) return column_of({*axes[c], cross(l, *axes[c])});
  return column_of({{zero, zero, zero}, *axes[c - 3]});
}

// Node k's pose (R, l) in world axes about its tree's base link origin, from its joint transform
// and its parent's pose at `parent_pose` (R 9 entries column by column, l 3; null at a base, whose
// own origin is its tree's: R = R_joint, l = 0): R = R_p R_joint, l = l_p + R_p l_joint.
[[gnu::always_inline]] inline void world_pose(const Block& block, int k, const double* parent_pose,
                                              Rotation& R, V3& l) {
  const Rotation joint = rotation_at(block, k);
  if (parent_pose == nullptr) {
    const L zero(0.0);
    R = joint;
    l = {zero, zero, zero};
    return;
  }
  const Rotation Rp{load3(parent_pose), load3(parent_pose + 3 * W), load3(parent_pose + 6 * W)};
  R = {times(Rp, joint.c0), times(Rp, joint.c1), times(Rp, joint.c2)};
  l = load3(parent_pose + 9 * W) + times(Rp, load3(block.translation + 3 * W * k));
}
[[gnu::always_inline]] inline void store_pose(const Rotation& R, const V3& l, double* p) {
  store3(R.c0, p);
  store3(R.c1, p + 3 * W);
  store3(R.c2, p + 6 * W);
  store3(l, p + 9 * W);
}

// Link k's inertia in world axes about its tree's origin, the link at (R, l).
[[gnu::always_inline]] inline Inertia world_inertia(const TreeView& tree, int k, const Rotation& R,
                                                    const V3& l) {
  const L zero(0.0);
  Inertia moved{
      zero, {zero, zero, zero}, {{zero, zero, zero}, {zero, zero, zero}, {zero, zero, zero}}};
  add_inertia_to_parent(R, l, inertia_of(tree.inertia + 13 * k), moved);
  return moved;
}

}  // namespace
}  // namespace skograph::lanes::SKOGRAPH_LANE_NS

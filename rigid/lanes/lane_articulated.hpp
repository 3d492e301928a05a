// Forward dynamics over W states at once by articulated-body inertias (part II Algorithm 6.1), as
// rigid_body_dynamics.cpp's forward_dynamics computes it for one state: in world axes about the
// origin of each tree's base link, where a child's P+ and z+ join its parent's without a
// transform. Built on lane_kernels.hpp's lane types; included after it by the per-instruction-set
// translation units.
//
// Control flow depends only on the model. Where a lane's D = H P H* fails the single-state
// singularity test (a pivot at most 1e-13 of max |diag P|, or not a number), the lane is marked
// in block.singular and its numbers are left to be discarded: the caller recomputes that state by
// the single-state call, which reports the joint or takes an indefinite D by LU.
#pragma once

#include "lane_world.hpp"

namespace skograph::lanes::SKOGRAPH_LANE_NS {
namespace {

// A symmetric 6 x 6 matrix, its upper triangle row by row: entry (i, j), i <= j, at
// packed_index(i, j).
constexpr int kPacked = 21;
constexpr int packed_index(int i, int j) {
  return i <= j ? i * 6 - i * (i - 1) / 2 + (j - i) : packed_index(j, i);
}
struct Symmetric6 {
  L entry[kPacked];
  [[gnu::always_inline]] const L& operator()(int i, int j) const {
    return entry[packed_index(i, j)];
  }
  [[gnu::always_inline]] L& operator()(int i, int j) { return entry[packed_index(i, j)]; }
};
[[gnu::always_inline]] inline Symmetric6 load_symmetric(const double* p) {
  Symmetric6 s;
#pragma GCC unroll 21
  for (int i = 0; i < kPacked; ++i) s.entry[i] = load(p + i * W);
  return s;
}
[[gnu::always_inline]] inline void store_symmetric(const Symmetric6& s, double* p) {
#pragma GCC unroll 21
  for (int i = 0; i < kPacked; ++i) s.entry[i].store_unaligned(p + i * W);
}

[[gnu::always_inline]] inline Column times(const Symmetric6& P, const Column& v) {
  Column out;
#pragma GCC unroll 21
  for (int i = 0; i < 6; ++i) {
    L sum = P(i, 0) * v.at[0];
#pragma GCC unroll 21
    for (int j = 1; j < 6; ++j) sum = sum + P(i, j) * v.at[j];
    out.at[i] = sum;
  }
  return out;
}

// The rigid inertia (m, h, J) as the 6 x 6 [[J, h~], [h~*, m 1]] (M V = [J w + h x v; m v - h x
// w]).
[[gnu::always_inline]] inline Symmetric6 matrix_of(const Inertia& I) {
  const L zero(0.0);
  Symmetric6 P;
  const Rotation& J = I.rotational;
  const V3& h = I.first_moment;
  P(0, 0) = J.c0.x, P(0, 1) = J.c1.x, P(0, 2) = J.c2.x;
  P(1, 1) = J.c1.y, P(1, 2) = J.c2.y, P(2, 2) = J.c2.z;
  // h~ row by row: [0, -h_z, h_y; h_z, 0, -h_x; -h_y, h_x, 0].
  P(0, 3) = zero, P(0, 4) = zero - h.z, P(0, 5) = h.y;
  P(1, 3) = h.z, P(1, 4) = zero, P(1, 5) = zero - h.x;
  P(2, 3) = zero - h.y, P(2, 4) = h.x, P(2, 5) = zero;
  P(3, 3) = I.mass, P(3, 4) = zero, P(3, 5) = zero;
  P(4, 4) = I.mass, P(4, 5) = zero, P(5, 5) = I.mass;
  return P;
}

// The per-lane state of the recursion, node k at articulated + kNodeEntries W k: its world pose
// (R 9, l 3), V, a = V x H* qd, P (packed), z and alpha; dof i at articulated + kNodeEntries W
// nodes + kDofEntries W i: its column of H*, of P H*, its row of D's factor and its innovation.
constexpr int kNodeEntries = 12 + 6 + 6 + kPacked + 6 + 6;
constexpr int kPose = 0, kVelocity = 12, kCoriolis = 18, kInertia = 24, kResidual = 24 + kPacked,
              kAcceleration = 30 + kPacked;
constexpr int kDofEntries = 6 + 6 + 6 + 1;
static_assert(forward_dynamics_entries(1, 0) == kNodeEntries &&
              forward_dynamics_entries(0, 1) == kDofEntries);
constexpr int kHinge = 0, kProjected = 6, kFactor = 12, kInnovation = 18;

struct Articulated {
  const TreeView& tree;
  double* base;
  double* node(int k) const { return base + kNodeEntries * W * k; }
  double* dof(int i) const { return base + kNodeEntries * W * tree.nodes + kDofEntries * W * i; }
};

// Parents first: the pose, H*, V = V(p) + H* qd, a = V x H* qd, P = M and z = V x* M V of every
// node in world axes about its tree's base link origin.
[[gnu::always_inline]] inline void world_motion(const Articulated& at, const Block& block) {
  const TreeView& tree = at.tree;
  const L zero(0.0);
  for (int i = 0; i < tree.nodes; ++i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    double* node = at.node(k);
    Rotation R;
    V3 l;
    world_pose(block, k, p < 0 ? nullptr : at.node(p) + kPose * W, R, l);
    Six velocity{{zero, zero, zero}, {zero, zero, zero}};
    if (p >= 0) velocity = load6(at.node(p) + kVelocity * W);
    Column relative{{zero, zero, zero, zero, zero, zero}};
    for (int c = 0; c < dofs; ++c) {
      const Column h = world_hinge_column(dofs, tree.hinge + 6 * k, c, R, l);
      store_column(h, at.dof(tree.offset[k] + c) + kHinge * W);
      const L rate = load(block.qd + W * (tree.offset[k] + c));
#pragma GCC unroll 21
      for (int e = 0; e < 6; ++e) relative.at[e] = relative.at[e] + h.at[e] * rate;
    }
    velocity = velocity + six_of(relative);
    const Inertia moved = world_inertia(tree, k, R, l);
    store_pose(R, l, node + kPose * W);
    store6(velocity, node + kVelocity * W);
    store6(cross_motion(velocity, six_of(relative)), node + kCoriolis * W);
    store_symmetric(matrix_of(moved), node + kInertia * W);
    store6(cross_force(velocity, times(moved, velocity)), node + kResidual * W);
  }
}

// Lanes whose test failed are marked in `singular` (1.0).
[[gnu::always_inline]] inline void mark(const xsimd::batch_bool<double, SKOGRAPH_LANE_ARCH>& passes,
                                        L& singular) {
  singular = xsimd::select(passes, singular, L(1.0));
}

// The gather at node k with r >= 1 hinge columns (Eq. 33 with Algorithm 6.1's innovation): U = P
// H*, D = H U; r = 1: D^-1 and nu = D^-1 (T - H z) kept, P+ = P - U D^-1 U*; r > 1: D = L L* by
// Cholesky, L's rows (their diagonal as 1 / L_cc) and epsilon = T - H z kept, P+ = P - G G* with
// G = U L^-*; then z+ = z + P+ a + U D^-1 epsilon. P and z become P+ and z+ only `to_parent`.
[[gnu::always_inline]] inline void gather_hinge(const Articulated& at, const Block& block, int k,
                                                bool to_parent, Symmetric6& P, Column& z,
                                                L& singular) {
  const TreeView& tree = at.tree;
  const int r = tree.dofs[k], first = tree.offset[k];
  L scale = xsimd::abs(P(0, 0));
#pragma GCC unroll 21
  for (int i = 1; i < 6; ++i) scale = xsimd::max(scale, xsimd::abs(P(i, i)));
  scale = scale * L(1e-13);
  Column H[6], U[6];
  L residual[6];
  for (int c = 0; c < r; ++c) {
    H[c] = load_column(at.dof(first + c) + kHinge * W);
    U[c] = times(P, H[c]);
    store_column(U[c], at.dof(first + c) + kProjected * W);
    residual[c] = load(block.tau + W * (first + c)) - dot(H[c], z);
  }
  const Column a = load_column(at.node(k) + kCoriolis * W);
  if (r == 1) {
    const L d = dot(H[0], U[0]);
    mark(xsimd::abs(d) > scale, singular);
    const L inverse = L(1.0) / d;
    const L innovation = inverse * residual[0];
    inverse.store_unaligned(at.dof(first) + kFactor * W);
    innovation.store_unaligned(at.dof(first) + kInnovation * W);
    if (!to_parent) return;
    Column scaled;
#pragma GCC unroll 21
    for (int e = 0; e < 6; ++e) scaled.at[e] = inverse * U[0].at[e];
#pragma GCC unroll 21
    for (int i = 0; i < 6; ++i)
#pragma GCC unroll 21
      for (int j = i; j < 6; ++j) P(i, j) = P(i, j) - scaled.at[i] * U[0].at[j];
    const Column Pa = times(P, a);
#pragma GCC unroll 21
    for (int e = 0; e < 6; ++e) z.at[e] = z.at[e] + Pa.at[e] + U[0].at[e] * innovation;
    return;
  }
  // D = L L*, row by row; factor[c][j] = L_cj (j < c), 1 / L_cc at j = c.
  L factor[6][6];
  for (int c = 0; c < r; ++c) {
    for (int j = 0; j <= c; ++j) {
      L sum = dot(H[c], U[j]);
      for (int m = 0; m < j; ++m) sum = sum - factor[c][m] * factor[j][m];
      if (j < c) {
        factor[c][j] = sum * factor[j][j];
      } else {
        mark(sum > scale, singular);
        factor[c][c] = L(1.0) / xsimd::sqrt(sum);
      }
    }
    for (int j = 0; j <= c; ++j)
      factor[c][j].store_unaligned(at.dof(first + c) + (kFactor + j) * W);
    residual[c].store_unaligned(at.dof(first + c) + kInnovation * W);
  }
  if (!to_parent) return;
  // G = U L^-* (row e of G solves L g = row e of U) and w = L^-1 epsilon.
  Column G[6];
  L w[6];
  for (int c = 0; c < r; ++c) {
    Column g = U[c];
    L value = residual[c];
    for (int m = 0; m < c; ++m) {
#pragma GCC unroll 21
      for (int e = 0; e < 6; ++e) g.at[e] = g.at[e] - G[m].at[e] * factor[c][m];
      value = value - w[m] * factor[c][m];
    }
#pragma GCC unroll 21
    for (int e = 0; e < 6; ++e) g.at[e] = g.at[e] * factor[c][c];
    G[c] = g;
    w[c] = value * factor[c][c];
  }
  for (int c = 0; c < r; ++c)
#pragma GCC unroll 21
    for (int i = 0; i < 6; ++i)
#pragma GCC unroll 21
      for (int j = i; j < 6; ++j) P(i, j) = P(i, j) - G[c].at[i] * G[c].at[j];
  const Column Pa = times(P, a);
#pragma GCC unroll 21
  for (int e = 0; e < 6; ++e) {
    L sum = z.at[e] + Pa.at[e];
    for (int c = 0; c < r; ++c) sum = sum + G[c].at[e] * w[c];
    z.at[e] = sum;
  }
}

// The scatter at node k (Eq. 58e-g): qdd = nu - D^-1 U* alpha (r = 1), or D qdd = epsilon - U*
// alpha solved with D's factor (r > 1), into block.qdd; alpha += H* qdd.
[[gnu::always_inline]] inline void scatter_hinge(const Articulated& at, const Block& block, int k,
                                                 Column& alpha) {
  const int r = at.tree.dofs[k], first = at.tree.offset[k];
  L x[6];
  Column H[6];
  for (int c = 0; c < r; ++c) {
    const double* dof = at.dof(first + c);
    H[c] = load_column(dof + kHinge * W);
    x[c] = load(dof + kInnovation * W);
    const L projected = dot(load_column(dof + kProjected * W), alpha);
    x[c] = r == 1 ? x[c] - load(dof + kFactor * W) * projected : x[c] - projected;
  }
  if (r > 1) {
    L factor[6][6];
    for (int c = 0; c < r; ++c)
      for (int j = 0; j <= c; ++j) factor[c][j] = load(at.dof(first + c) + (kFactor + j) * W);
    for (int c = 0; c < r; ++c) {  // L y = x
      for (int m = 0; m < c; ++m) x[c] = x[c] - factor[c][m] * x[m];
      x[c] = x[c] * factor[c][c];
    }
    for (int c = r - 1; c >= 0; --c) {  // L* qdd = y
      for (int m = c + 1; m < r; ++m) x[c] = x[c] - factor[m][c] * x[m];
      x[c] = x[c] * factor[c][c];
    }
  }
  for (int c = 0; c < r; ++c) {
    x[c].store_unaligned(block.qdd + W * (first + c));
#pragma GCC unroll 21
    for (int e = 0; e < 6; ++e) alpha.at[e] = alpha.at[e] + H[c].at[e] * x[c];
  }
}

// Forward dynamics, part II Algorithm 6.1 (rigid_body_dynamics.cpp: forward_dynamics): qdd of the
// W states from block.qd, block.tau and the joint transforms, into block.qdd; block.singular[lane]
// = 1 where a D failed its test, else 0. A massless subtree keeps qdd = 0.
void forward_dynamics(const TreeView& tree, const Block& block) noexcept {
  const Articulated at{tree, block.work};
  const L zero(0.0);
  world_motion(at, block);
  L singular = zero;
  for (int i = tree.nodes - 1; i >= 0; --i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    if (dofs > 0 && tree.massless[k]) continue;  // no force on the parent, no D
    double* node = at.node(k);
    Symmetric6 P = load_symmetric(node + kInertia * W);
    Column z = load_column(node + kResidual * W);
    if (dofs > 0) {
      gather_hinge(at, block, k, p >= 0, P, z, singular);
    } else if (p >= 0) {
      const Column Pa = times(P, load_column(node + kCoriolis * W));
#pragma GCC unroll 21
      for (int e = 0; e < 6; ++e) z.at[e] = z.at[e] + Pa.at[e];
    }
    if (p < 0) continue;
    double* parent = at.node(p);
    Symmetric6 parent_inertia = load_symmetric(parent + kInertia * W);
    Column parent_residual = load_column(parent + kResidual * W);
#pragma GCC unroll 21
    for (int e = 0; e < kPacked; ++e)
      parent_inertia.entry[e] = parent_inertia.entry[e] + P.entry[e];
#pragma GCC unroll 21
    for (int e = 0; e < 6; ++e) parent_residual.at[e] = parent_residual.at[e] + z.at[e];
    store_symmetric(parent_inertia, parent + kInertia * W);
    store_column(parent_residual, parent + kResidual * W);
  }
  singular.store_unaligned(block.singular);
  const Column fall{
      {zero, zero, zero, L(-block.gravity[0]), L(-block.gravity[1]), L(-block.gravity[2])}};
  for (int i = 0; i < tree.nodes; ++i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    Column alpha = p < 0 ? fall : load_column(at.node(p) + kAcceleration * W);
    const Column a = load_column(at.node(k) + kCoriolis * W);
#pragma GCC unroll 21
    for (int e = 0; e < 6; ++e) alpha.at[e] = alpha.at[e] + a.at[e];
    if (dofs > 0 && tree.massless[k]) {
      for (int c = 0; c < dofs; ++c) zero.store_unaligned(block.qdd + W * (tree.offset[k] + c));
    } else if (dofs > 0) {
      scatter_hinge(at, block, k, alpha);
    }
    store_column(alpha, at.node(k) + kAcceleration * W);
  }
}

}  // namespace
}  // namespace skograph::lanes::SKOGRAPH_LANE_NS

// Inverse dynamics' derivatives over W states at once (dtau/dq, dtau/dqd and M = dtau/dqdd), as
// rigid_body_derivatives.cpp computes them for one state (docs/derivatives.md, "The passes"): in
// world axes about the origin of each tree's base link, where a subtree's composites are plain
// sums (part II Lemma 3-4, Eq. 11-17) and every pair of dofs on one root path costs five dot
// products of six-vectors. Built on lane_world.hpp; included after lane_kernels.hpp by the
// per-instruction-set translation units. Control flow depends only on the model.
#pragma once

#include "lane_world.hpp"

namespace skograph::lanes::SKOGRAPH_LANE_NS {
namespace {

// The per-lane state of the passes. Node k at work + kDerivativeNode W k: its pose (R 9, l 3), V
// and A in world axes (A with the world's -g), its composite inertia Y (13: m, h, J), composite
// B = Idot + lbar(l) (P 9 column by column, f 3) and composite force F. Dof at preorder position
// a at work + kDerivativeNode W nodes + kDerivativeDof W a: s, dV, dA, dW, t1 = Y s, t2 = Y dW +
// B s, t3 = Y dA + B dV (+ s x* F) and the angular half of t4 = B* s.
constexpr int kDerivativeNode = 12 + 6 + 6 + 13 + 12 + 6;
constexpr int kNodeV = 12, kNodeA = 18, kNodeY = 24, kNodeB = 37, kNodeF = 49;
constexpr int kDerivativeDof = 7 * 6 + 3;
constexpr int kDofS = 0, kDofV = 6, kDofA = 12, kDofW = 18, kDofT1 = 24, kDofT2 = 30, kDofT3 = 36,
              kDofT4 = 42;
static_assert(inverse_dynamics_derivatives_entries(1, 0) == kDerivativeNode &&
              inverse_dynamics_derivatives_entries(0, 1) == kDerivativeDof);

// B of the composite derivation: P (column by column) and f.
struct Rate {
  Rotation angular;
  V3 force;
};
[[gnu::always_inline]] inline Rate load_rate(const double* p) {
  return {{load3(p), load3(p + 3 * W), load3(p + 6 * W)}, load3(p + 9 * W)};
}
[[gnu::always_inline]] inline void store_rate(const Rate& B, double* p) {
  store3(B.angular.c0, p);
  store3(B.angular.c1, p + 3 * W);
  store3(B.angular.c2, p + 6 * W);
  store3(B.force, p + 9 * W);
}
// B x = [P x_w; -2 f x x_w] and the angular half of B* s = P* s_w + 2 f x s_v (RateTerm).
[[gnu::always_inline]] inline Six times(const Rate& B, const Six& x) {
  return {times(B.angular, x.top), cross(B.force, x.top) * L(-2.0)};
}
[[gnu::always_inline]] inline V3 transposed_times(const Rate& B, const Six& s) {
  return transposed_times(B.angular, s.top) + cross(B.force, s.bottom) * L(2.0);
}

// B(k) of a link of world inertia I moving with V, momentum (n, f) = I V
// (rigid_body_derivatives.cpp: rate_composite): P = [w] J - J [w] + 2 (h . v) 1 - v h* - h v* -
// [n], the force f.
[[gnu::always_inline]] inline Rate rate_of(const Inertia& I, const Six& V, const Six& momentum) {
  const V3 &w = V.top, &v = V.bottom, &h = I.first_moment, &n = momentum.top;
  const V3 turn0 = cross(w, I.rotational.c0), turn1 = cross(w, I.rotational.c1),
           turn2 = cross(w, I.rotational.c2);  // the columns of [w] J; J [w] = -([w] J)*
  const L twice_hv = L(2.0) * (h.x * v.x + h.y * v.y + h.z * v.z);
  // Entry (i, j) = turn_j[i] + turn_i[j] - v_i h_j - h_i v_j (+ 2 h.v on the diagonal) - [n](i, j),
  // [n](i, j) = -epsilon_ijk n_k.
  Rate B;
  B.angular.c0 = {turn0.x + turn0.x - v.x * h.x - h.x * v.x + twice_hv,
                  turn0.y + turn1.x - v.y * h.x - h.y * v.x - n.z,
                  turn0.z + turn2.x - v.z * h.x - h.z * v.x + n.y};
  B.angular.c1 = {turn1.x + turn0.y - v.x * h.y - h.x * v.y + n.z,
                  turn1.y + turn1.y - v.y * h.y - h.y * v.y + twice_hv,
                  turn1.z + turn2.y - v.z * h.y - h.z * v.y - n.x};
  B.angular.c2 = {turn2.x + turn0.z - v.x * h.z - h.x * v.z - n.y,
                  turn2.y + turn1.z - v.y * h.z - h.y * v.z + n.x,
                  turn2.z + turn2.z - v.z * h.z - h.z * v.z + twice_hv};
  B.force = momentum.bottom;
  return B;
}

[[gnu::always_inline]] inline L dot3(const V3& a, const V3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
[[gnu::always_inline]] inline L dot6(const Six& a, const Six& b) {
  return dot3(a.top, b.top) + dot3(a.bottom, b.bottom);
}

// Forward, parents first: pose, V = V(p) + H* qd, A = A(p) + V x H* qd + H* qdd (A(p) the world's
// -g at a base), per column s, dV = V(p) x s, dW = (V + V(p)) x s (2 dV for one dof), dA = A(p) x
// s + V(p) x dV; per node Y = I, B and F = I A + V x* I V. Backward, children first: per own
// column t1..t4 and tau = s . F, then t3 += s x* F; every pair of the node's own columns and of
// an own column a with a descendant's column b (b's node the deeper one):
//   dtau_a/dq_b = s_a . t3_b       dtau_b/dq_a = dA_a . t1_b + dV_a . t4_b
//   dtau_a/dqd_b = s_a . t2_b      dtau_b/dqd_a = dW_a . t1_b + s_a . t4_b
//   M_ab = M_ba = s_a . t1_b (also within a joint, for a <= b: M exactly symmetric)
// (within a joint dtau_a/dq_b = t1_a . dA_b + t4_a . dV_b, dtau_a/dqd_b = t1_a . dW_b + t4_a . s_b,
// every column moving the others); then Y, B and F join the parent's. A lane with a result that
// is not a finite number (an overflow) is marked in block.singular.
void inverse_dynamics_derivatives(const TreeView& tree, const Block& block) noexcept {
  const long n = tree.dof_count;
  const L zero(0.0);
  double* const nodes = block.work;
  double* const columns = block.work + static_cast<long>(kDerivativeNode) * W * tree.nodes;
  const auto node = [&](int k) { return nodes + static_cast<long>(kDerivativeNode) * W * k; };
  const auto dof = [&](int a) { return columns + static_cast<long>(kDerivativeDof) * W * a; };
  const Six world_acceleration{{zero, zero, zero},
                               {L(-block.gravity[0]), L(-block.gravity[1]), L(-block.gravity[2])}};
  const Six still{{zero, zero, zero}, {zero, zero, zero}};
  for (int i = 0; i < tree.nodes; ++i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    const int first = tree.position[k], offset = tree.offset[k];
    double* here = node(k);
    Rotation R;
    V3 l;
    world_pose(block, k, p < 0 ? nullptr : node(p), R, l);
    store_pose(R, l, here);
    const Six parent_velocity = p < 0 ? still : load6(node(p) + kNodeV * W);
    const Six parent_acceleration = p < 0 ? world_acceleration : load6(node(p) + kNodeA * W);
    Six relative = still, driven = still;
    for (int c = 0; c < dofs; ++c) {
      const Six s = six_of(world_hinge_column(dofs, tree.hinge + 6 * k, c, R, l));
      store6(s, dof(first + c) + kDofS * W);
      const L rate = load(block.qd + W * (offset + c)),
              acceleration = load(block.qdd + W * (offset + c));
      relative = relative + Six{s.top * rate, s.bottom * rate};
      driven = driven + Six{s.top * acceleration, s.bottom * acceleration};
    }
    const Six velocity = parent_velocity + relative;
    const Six acceleration = parent_acceleration + cross_motion(velocity, relative) + driven;
    store6(velocity, here + kNodeV * W);
    store6(acceleration, here + kNodeA * W);
    for (int c = 0; c < dofs; ++c) {
      double* at = dof(first + c);
      const Six s = load6(at + kDofS * W);
      const Six velocity_by_q = cross_motion(parent_velocity, s);
      const Six by_qd = dofs == 1 ? Six{velocity_by_q.top * L(2.0), velocity_by_q.bottom * L(2.0)}
                                  : cross_motion(velocity + parent_velocity, s);
      store6(velocity_by_q, at + kDofV * W);
      store6(cross_motion(parent_acceleration, s) + cross_motion(parent_velocity, velocity_by_q),
             at + kDofA * W);
      store6(by_qd, at + kDofW * W);
    }
    const Inertia I = world_inertia(tree, k, R, l);
    const Six momentum = times(I, velocity);
    store_inertia(I, here + kNodeY * W);
    store_rate(rate_of(I, velocity, momentum), here + kNodeB * W);
    store6(times(I, acceleration) + cross_force(velocity, momentum), here + kNodeF * W);
  }
  double* const dtau_dq = block.derivatives;
  double* const dtau_dqd = block.derivatives + n * n * W;
  double* const mass = block.derivatives + 2 * n * n * W;
  const auto entry = [&](double* matrix, int row, int column) {
    return matrix + (row * n + column) * W;
  };
  for (int i = tree.nodes - 1; i >= 0; --i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    const int first = tree.position[k], end = tree.subtree_end[k];
    double* here = node(k);
    const Inertia Y = load_inertia(here + kNodeY * W);
    const Rate B = load_rate(here + kNodeB * W);
    const Six F = load6(here + kNodeF * W);
    for (int a = first; a < first + dofs; ++a) {
      double* at = dof(a);
      const Six s = load6(at + kDofS * W);
      store6(times(Y, s), at + kDofT1 * W);
      store3(transposed_times(B, s), at + kDofT4 * W);
      store6(times(Y, load6(at + kDofW * W)) + times(B, s), at + kDofT2 * W);
      store6(times(Y, load6(at + kDofA * W)) + times(B, load6(at + kDofV * W)) + cross_force(s, F),
             at + kDofT3 * W);
      dot6(s, F).store_unaligned(block.tau + W * tree.dof_at[a]);
    }
    for (int a = first; a < first + dofs; ++a) {
      const double* at = dof(a);
      const int row = tree.dof_at[a];
      const Six s = load6(at + kDofS * W), dV = load6(at + kDofV * W), dA = load6(at + kDofA * W),
                dW = load6(at + kDofW * W), t1 = load6(at + kDofT1 * W);
      const V3 t4 = load3(at + kDofT4 * W);
      for (int b = first; b < first + dofs; ++b) {
        const double* other = dof(b);
        const int column = tree.dof_at[b];
        (dot6(t1, load6(other + kDofA * W)) + dot3(t4, load3(other + kDofV * W)))
            .store_unaligned(entry(dtau_dq, row, column));
        (dot6(t1, load6(other + kDofW * W)) + dot3(t4, load3(other + kDofS * W)))
            .store_unaligned(entry(dtau_dqd, row, column));
        if (b < a) continue;  // M(a, b) = M(b, a) = s_a . t1_b, exactly symmetric
        const L m = dot6(s, load6(other + kDofT1 * W));
        m.store_unaligned(entry(mass, row, column));
        m.store_unaligned(entry(mass, column, row));
      }
      for (int b = first + dofs; b < end; ++b) {
        const double* other = dof(b);
        const int column = tree.dof_at[b];
        const Six t1_b = load6(other + kDofT1 * W);
        const V3 t4_b = load3(other + kDofT4 * W);
        dot6(s, load6(other + kDofT3 * W)).store_unaligned(entry(dtau_dq, row, column));
        dot6(s, load6(other + kDofT2 * W)).store_unaligned(entry(dtau_dqd, row, column));
        const L m = dot6(s, t1_b);
        m.store_unaligned(entry(mass, row, column));
        m.store_unaligned(entry(mass, column, row));
        (dot6(dA, t1_b) + dot3(dV.top, t4_b)).store_unaligned(entry(dtau_dq, column, row));
        (dot6(dW, t1_b) + dot3(s.top, t4_b)).store_unaligned(entry(dtau_dqd, column, row));
      }
    }
    if (p < 0) continue;
    double* parent = node(p);
    Inertia parent_inertia = load_inertia(parent + kNodeY * W);
    parent_inertia.mass = parent_inertia.mass + Y.mass;
    parent_inertia.first_moment = parent_inertia.first_moment + Y.first_moment;
    parent_inertia.rotational = {parent_inertia.rotational.c0 + Y.rotational.c0,
                                 parent_inertia.rotational.c1 + Y.rotational.c1,
                                 parent_inertia.rotational.c2 + Y.rotational.c2};
    store_inertia(parent_inertia, parent + kNodeY * W);
    const Rate parent_rate = load_rate(parent + kNodeB * W);
    store_rate({{parent_rate.angular.c0 + B.angular.c0, parent_rate.angular.c1 + B.angular.c1,
                 parent_rate.angular.c2 + B.angular.c2},
                parent_rate.force + B.force},
               parent + kNodeB * W);
    store6(load6(parent + kNodeF * W) + F, parent + kNodeF * W);
  }
  // block.singular: 1 for a lane with an entry that is not a finite number (x - x is 0 for a
  // finite x, NaN otherwise, and a sum of them NaN once one is).
  L inexact(0.0);
  for (long e = 0; e < 3 * n * n; ++e) {
    const L value = load(block.derivatives + e * W);
    inexact = inexact + (value - value);
  }
  xsimd::select(xsimd::isnan(inexact), L(1.0), L(0.0)).store_unaligned(block.singular);
}

}  // namespace
}  // namespace skograph::lanes::SKOGRAPH_LANE_NS

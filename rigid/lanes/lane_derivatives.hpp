// Inverse dynamics' derivatives over W states at once (dtau/dq, dtau/dqd and M = dtau/dqdd), as
// rigid_body_derivatives.cpp computes them for one state (docs/derivatives.md, "The passes"): in
// world axes about the origin of each tree's base link, where a subtree's composites are plain
// sums (part II Lemma 3-4, Eq. 11-17) and every pair of dofs on one root path costs five dot
// products of six-vectors. Built on lane_world.hpp; included by the per-instruction-set
// translation units. Control flow depends only on the model.
#pragma once

#include "lane_world.hpp"

namespace skograph::lanes::SKOGRAPH_LANE_NS {
namespace {

// The per-lane state of the passes. Node k at work + kDerivativeNode W k: its pose (R 9, l 3), V,
// the bias acceleration A0 (qdd = 0; the world's -g at a base), V x H* qd, the acceleration A at
// qdd, its composite inertia Y (13: m, h, J), composite B = Idot + lbar(l) (P 9 column by column,
// f 3), composite force F and the gathered Y s qdd of its subtree. Dof at preorder position a at
// work + kDerivativeNode W nodes + kDerivativeDof W a: s, dV, dA, dW, t1 = Y s, t2 = Y dW + B s,
// t3 = Y dA + B dV (+ s x* F) and the angular half of t4 = B* s; after the dofs, two numbers per
// dof in the model's order: the bias forces C = ID(q, qd, 0) and the tau that forward dynamics'
// qdd gives back.
constexpr int kDerivativeNode = 12 + 6 + 6 + 6 + 6 + 13 + 12 + 6 + 6;
constexpr int kNodeV = 12, kNodeA0 = 18, kNodeC = 24, kNodeA = 30, kNodeY = 36, kNodeB = 49,
              kNodeF = 61, kNodeG = 67;
constexpr int kDofColumns = 7 * 6 + 3, kDerivativeDof = kDofColumns + 2;
constexpr int kDofS = 0, kDofV = 6, kDofA = 12, kDofW = 18, kDofT1 = 24, kDofT2 = 30, kDofT3 = 36,
              kDofT4 = 42;
static_assert(derivatives_entries(1, 0) == kDerivativeNode &&
              derivatives_entries(0, 1) == kDerivativeDof);

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
[[gnu::always_inline]] inline Six scaled(const Six& a, const L& s) {
  return {a.top * s, a.bottom * s};
}

// What a pass computes (rigid_body_derivatives.cpp's Part): everything at a known qdd (inverse
// dynamics' derivatives), or in two halves around the solve for qdd (forward dynamics'
// derivatives): M, dtau/dqd and C first, dtau/dq and tau at qdd second.
enum class Part { kAll, kVelocity, kAcceleration };

// Where the passes keep their numbers (the layout above) and write their three matrices, each
// entry (i, j) at [(i * dofs + j) W]: dtau/dq, dtau/dqd, M.
struct DerivativeAt {
  double* nodes;
  double* columns;
  double* by_dof;  // C, then the tau given back, per dof in the model's order
  double* dtau_dq;
  double* dtau_dqd;
  double* mass;
  long n;
  double* node(int k) const { return nodes + static_cast<long>(kDerivativeNode) * W * k; }
  double* column(int a) const { return columns + static_cast<long>(kDofColumns) * W * a; }
  double* entry(double* matrix, int row, int col) const { return matrix + (row * n + col) * W; }
};

DerivativeAt derivative_layout(const TreeView& tree, const Block& block) {
  const long n = tree.dof_count;
  double* columns = block.work + static_cast<long>(kDerivativeNode) * W * tree.nodes;
  double* by_dof = columns + static_cast<long>(kDofColumns) * W * n;
  return {block.work,
          columns,
          by_dof,
          block.derivatives,
          block.derivatives + n * n * W,
          block.derivatives + 2 * n * n * W,
          n};
}

// Forward, parents first: pose, V = V(p) + H* qd, V x H* qd, A = A(p) + V x H* qd + H* qdd (A(p)
// the world's -g at a base; kVelocity: A0 without the qdd term), per column s, dV = V(p) x s,
// dW = (V + V(p)) x s (2 dV for one dof), dA = A(p) x s + V(p) x dV; per node Y = I, B and
// F = I A + V x* I V (kVelocity: the bias force). kAcceleration reads the rest from the first
// half and computes only A and dA.
template <Part Which>
[[gnu::always_inline]] inline void forward_pass(const TreeView& tree, const Block& block,
                                                const DerivativeAt& at) {
  constexpr bool velocity_half = Which != Part::kAcceleration;
  constexpr bool acceleration_half = Which != Part::kVelocity;
  constexpr int acceleration_slot = Which == Part::kVelocity ? kNodeA0 : kNodeA;
  const L zero(0.0);
  const Six world_acceleration{{zero, zero, zero},
                               {L(-block.gravity[0]), L(-block.gravity[1]), L(-block.gravity[2])}};
  const Six still{{zero, zero, zero}, {zero, zero, zero}};
  for (int i = 0; i < tree.nodes; ++i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    const int first = tree.position[k], offset = tree.offset[k];
    double* here = at.node(k);
    const Six parent_velocity = p < 0 ? still : load6(at.node(p) + kNodeV * W);
    const Six parent_acceleration =
        p < 0 ? world_acceleration : load6(at.node(p) + acceleration_slot * W);
    Six velocity, coriolis;
    if constexpr (velocity_half) {
      Rotation R;
      V3 l;
      world_pose(block, k, p < 0 ? nullptr : at.node(p), R, l);
      store_pose(R, l, here);
      Six relative = still;
      for (int c = 0; c < dofs; ++c) {
        const Six s = six_of(world_hinge_column(dofs, tree.hinge + 6 * k, c, R, l));
        store6(s, at.column(first + c) + kDofS * W);
        relative = relative + scaled(s, load(block.qd + W * (offset + c)));
      }
      velocity = parent_velocity + relative;
      coriolis = cross_motion(velocity, relative);
      store6(velocity, here + kNodeV * W);
      store6(coriolis, here + kNodeC * W);
    } else {
      coriolis = load6(here + kNodeC * W);
    }
    Six acceleration = parent_acceleration + coriolis;
    if constexpr (acceleration_half)
      for (int c = 0; c < dofs; ++c)
        acceleration = acceleration + scaled(load6(at.column(first + c) + kDofS * W),
                                             load(block.qdd + W * (offset + c)));
    store6(acceleration, here + acceleration_slot * W);
    if constexpr (Which == Part::kAcceleration) store6(still, here + kNodeG * W);
    for (int c = 0; c < dofs; ++c) {
      double* column = at.column(first + c);
      const Six s = load6(column + kDofS * W);
      Six velocity_by_q;
      if constexpr (velocity_half) {
        velocity_by_q = cross_motion(parent_velocity, s);
        store6(velocity_by_q, column + kDofV * W);
        store6(
            dofs == 1 ? scaled(velocity_by_q, L(2.0)) : cross_motion(velocity + parent_velocity, s),
            column + kDofW * W);
      } else {
        velocity_by_q = load6(column + kDofV * W);
      }
      if constexpr (acceleration_half)
        store6(cross_motion(parent_acceleration, s) + cross_motion(parent_velocity, velocity_by_q),
               column + kDofA * W);
    }
    if constexpr (velocity_half) {
      Rotation R{load3(here), load3(here + 3 * W), load3(here + 6 * W)};
      const Inertia I = world_inertia(tree, k, R, load3(here + 9 * W));
      const Six momentum = times(I, velocity);
      store_inertia(I, here + kNodeY * W);
      store_rate(rate_of(I, velocity, momentum), here + kNodeB * W);
      store6(times(I, acceleration) + cross_force(velocity, momentum), here + kNodeF * W);
    }
  }
}

// Backward, children first, the composites Y, B, F summed over the subtree, per own column t1..t4
// and tau = s . F (kVelocity: C), then t3 += s x* F; every pair of the node's own columns and of an
// own column a with a descendant's column b (b's node the deeper one):
//   dtau_a/dq_b = s_a . t3_b       dtau_b/dq_a = dA_a . t1_b + dV_a . t4_b
//   dtau_a/dqd_b = s_a . t2_b      dtau_b/dqd_a = dW_a . t1_b + s_a . t4_b
//   M_ab = M_ba = s_a . t1_b (also within a joint, for a <= b: M exactly symmetric)
// (within a joint dtau_a/dq_b = t1_a . dA_b + t4_a . dV_b, dtau_a/dqd_b = t1_a . dW_b + t4_a . s_b,
// every column moving the others). kVelocity writes M and dtau/dqd, kAcceleration dtau/dq, its F
// the bias one grown by Y (A(p) - A0(p)) and the subtree's gathered Y s qdd.
template <Part Which>
[[gnu::always_inline]] inline void backward_pass(const TreeView& tree, const Block& block,
                                                 const DerivativeAt& at) {
  constexpr bool velocity_half = Which != Part::kAcceleration;
  constexpr bool acceleration_half = Which != Part::kVelocity;
  for (int i = tree.nodes - 1; i >= 0; --i) {
    const int k = tree.order[i], p = tree.parent[k], dofs = tree.dofs[k];
    const int first = tree.position[k], end = tree.subtree_end[k];
    double* here = at.node(k);
    const Inertia Y = load_inertia(here + kNodeY * W);
    const Rate B = load_rate(here + kNodeB * W);
    Six F = load6(here + kNodeF * W);
    if constexpr (Which == Part::kAcceleration) {
      Six gathered = load6(here + kNodeG * W);
      for (int a = first; a < first + dofs; ++a)
        gathered = gathered +
                   scaled(load6(at.column(a) + kDofT1 * W), load(block.qdd + W * tree.dof_at[a]));
      if (p >= 0) {
        const Six change = load6(at.node(p) + kNodeA * W), bias = load6(at.node(p) + kNodeA0 * W);
        F = F + times(Y, Six{change.top - bias.top, change.bottom - bias.bottom});
        store6(load6(at.node(p) + kNodeG * W) + gathered, at.node(p) + kNodeG * W);
      }
      F = F + gathered;
    }
    for (int a = first; a < first + dofs; ++a) {
      double* column = at.column(a);
      const Six s = load6(column + kDofS * W);
      if constexpr (velocity_half) {
        store6(times(Y, s), column + kDofT1 * W);
        store3(transposed_times(B, s), column + kDofT4 * W);
        store6(times(Y, load6(column + kDofW * W)) + times(B, s), column + kDofT2 * W);
      }
      if constexpr (acceleration_half)
        store6(times(Y, load6(column + kDofA * W)) + times(B, load6(column + kDofV * W)) +
                   cross_force(s, F),
               column + kDofT3 * W);
      double* tau = Which == Part::kAll        ? block.tau
                    : Which == Part::kVelocity ? at.by_dof
                                               : at.by_dof + at.n * W;
      dot6(s, F).store_unaligned(tau + W * tree.dof_at[a]);
    }
    for (int a = first; a < first + dofs; ++a) {
      const double* column = at.column(a);
      const int row = tree.dof_at[a];
      const Six s = load6(column + kDofS * W), dV = load6(column + kDofV * W),
                dW = load6(column + kDofW * W), t1 = load6(column + kDofT1 * W);
      const V3 t4 = load3(column + kDofT4 * W);
      Six dA;
      if constexpr (acceleration_half) dA = load6(column + kDofA * W);
      for (int b = first; b < first + dofs; ++b) {
        const double* other = at.column(b);
        const int col = tree.dof_at[b];
        if constexpr (acceleration_half)
          (dot6(t1, load6(other + kDofA * W)) + dot3(t4, load3(other + kDofV * W)))
              .store_unaligned(at.entry(at.dtau_dq, row, col));
        if constexpr (velocity_half) {
          (dot6(t1, load6(other + kDofW * W)) + dot3(t4, load3(other + kDofS * W)))
              .store_unaligned(at.entry(at.dtau_dqd, row, col));
          if (b < a) continue;  // M(a, b) = M(b, a) = s_a . t1_b, exactly symmetric
          const L m = dot6(s, load6(other + kDofT1 * W));
          m.store_unaligned(at.entry(at.mass, row, col));
          m.store_unaligned(at.entry(at.mass, col, row));
        }
      }
      for (int b = first + dofs; b < end; ++b) {
        const double* other = at.column(b);
        const int col = tree.dof_at[b];
        const Six t1_b = load6(other + kDofT1 * W);
        const V3 t4_b = load3(other + kDofT4 * W);
        if constexpr (acceleration_half) {
          dot6(s, load6(other + kDofT3 * W)).store_unaligned(at.entry(at.dtau_dq, row, col));
          (dot6(dA, t1_b) + dot3(dV.top, t4_b)).store_unaligned(at.entry(at.dtau_dq, col, row));
        }
        if constexpr (velocity_half) {
          dot6(s, load6(other + kDofT2 * W)).store_unaligned(at.entry(at.dtau_dqd, row, col));
          const L m = dot6(s, t1_b);
          m.store_unaligned(at.entry(at.mass, row, col));
          m.store_unaligned(at.entry(at.mass, col, row));
          (dot6(dW, t1_b) + dot3(s.top, t4_b)).store_unaligned(at.entry(at.dtau_dqd, col, row));
        }
      }
    }
    if (!velocity_half || p < 0) continue;
    double* parent = at.node(p);
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
}

// 1 in `flags` for a lane where one of `count` lane entries from `values` is not a finite number
// (x - x is 0 for a finite x, NaN otherwise, and a sum of them NaN once one is), kept where set.
void mark_non_finite(const double* values, long count, double* flags) {
  L inexact(0.0);
  for (long e = 0; e < count; ++e) {
    const L value = load(values + e * W);
    inexact = inexact + (value - value);
  }
  const L marked = load(flags);
  xsimd::select(xsimd::isnan(inexact), L(1.0), marked).store_unaligned(flags);
}

// Inverse dynamics' derivatives (the single pass at qdd): dtau/dq, dtau/dqd and M into
// block.derivatives, tau into block.tau. A lane with a result that is not a finite number (an
// overflow) is marked in block.singular.
void inverse_dynamics_derivatives(const TreeView& tree, const Block& block) noexcept {
  const DerivativeAt at = derivative_layout(tree, block);
  forward_pass<Part::kAll>(tree, block, at);
  backward_pass<Part::kAll>(tree, block, at);
  L(0.0).store_unaligned(block.singular);
  mark_non_finite(block.derivatives, 3 * at.n * at.n, block.singular);
  mark_non_finite(block.tau, at.n, block.singular);
}

}  // namespace
}  // namespace skograph::lanes::SKOGRAPH_LANE_NS

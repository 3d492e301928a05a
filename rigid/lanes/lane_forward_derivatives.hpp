// Forward dynamics' derivatives over W states at once, as forward_dynamics_derivatives.cpp
// computes them for a tree whose dofs all move mass, numbered parents first (docs/derivatives.md,
// "Forward dynamics"): the passes' first half (M, dtau/dqd, C), M = L* D L factored along the
// tree in place (no fill), qdd = M^-1 (tau - C), the second half at qdd (dtau/dq), then M^-1 from
// the factor and -M^-1 dtau/dq, -M^-1 dtau/dqd on dtau's tree pattern. Control flow depends only
// on the model; a lane whose D has a pivot that is not positive, whose qdd misses tau by more
// than the single call accepts, or whose results are not finite is marked in block.singular for
// the single call. Included after lane_derivatives.hpp by the per-instruction-set translation
// units.
#pragma once

#include <type_traits>

#include "lane_derivatives.hpp"

namespace skograph::lanes::SKOGRAPH_LANE_NS {
namespace {

// block.derivatives holds six dofs x dofs matrices, entry (i, j) at [(i * dofs + j) W]: the
// passes' dtau/dq, dtau/dqd and M (its lower triangle and diagonal overwritten by the factor:
// L(k, i) at (k, i) for each ancestor dof i of k, 1 / D(k) at (k, k)), then the results dqdd/dq
// and dqdd/dqd transposed (entry (i, j) at [(j * dofs + i) W]) and dqdd/dtau = M^-1.
void forward_dynamics_derivatives(const TreeView& tree, const Block& block) noexcept {
  const DerivativeAt at = derivative_layout(tree, block);
  const long n = at.n;
  const int* parent = tree.dof_parent;
  const auto entry = [&](double* matrix, long row, long col) {
    return matrix + (row * n + col) * W;
  };
  double* const factor = at.mass;
  double* const by_q = block.derivatives + 3 * n * n * W;
  double* const by_qd = block.derivatives + 4 * n * n * W;
  double* const inverse = block.derivatives + 5 * n * n * W;
  L flag(0.0);
  forward_pass<Part::kVelocity>(tree, block, at);
  backward_pass<Part::kVelocity>(tree, block, at);
  // M = L* D L, children before parents (forward_dynamics_derivatives.cpp: factor_along_the_tree).
  for (long k = n - 1; k >= 0; --k) {
    const L pivot = load(entry(factor, k, k));
    flag = xsimd::select(pivot > L(0.0), flag, L(1.0));  // also where the pivot is NaN
    const L inverse_pivot = L(1.0) / pivot;
    inverse_pivot.store_unaligned(entry(factor, k, k));
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      const L lower = load(entry(factor, k, i)), a = lower * inverse_pivot;
      (load(entry(factor, i, i)) - a * lower).store_unaligned(entry(factor, i, i));
      for (int u = parent[i]; u >= 0; u = parent[u])
        (load(entry(factor, i, u)) - a * load(entry(factor, k, u)))
            .store_unaligned(entry(factor, i, u));
      a.store_unaligned(entry(factor, k, i));
    }
  }
  // qdd = M^-1 (tau - C): L* v = tau - C children first, D w = v, L qdd = w parents first.
  for (long i = 0; i < n; ++i)
    (load(block.tau + i * W) - load(at.by_dof + i * W)).store_unaligned(block.qdd + i * W);
  for (long i = n - 1; i >= 0; --i) {
    const L x = load(block.qdd + i * W);
    for (int p = parent[i]; p >= 0; p = parent[p])
      (load(block.qdd + p * W) - load(entry(factor, i, p)) * x).store_unaligned(block.qdd + p * W);
  }
  for (long i = 0; i < n; ++i) {
    L value = load(block.qdd + i * W) * load(entry(factor, i, i));
    for (int p = parent[i]; p >= 0; p = parent[p])
      value = value - load(entry(factor, i, p)) * load(block.qdd + p * W);
    value.store_unaligned(block.qdd + i * W);
  }
  forward_pass<Part::kAcceleration>(tree, block, at);
  backward_pass<Part::kAcceleration>(tree, block, at);
  // The tau this qdd gives back must match the given one as the single call requires
  // (kForwardDerivativeResidual), else the lane is the single call's.
  L missed(0.0), given(0.0);
  for (long i = 0; i < n; ++i) {
    const L tau = load(block.tau + i * W), miss = tau - load(at.by_dof + (n + i) * W);
    missed = missed + miss * miss;
    given = given + tau * tau;
  }
  flag = xsimd::select(
      xsimd::sqrt(missed) <= L(kForwardDerivativeResidual) * (L(1.0) + xsimd::sqrt(given)), flag,
      L(1.0));
  // M^-1 from the factor (invert_along_the_tree): its upper triangle row by row, L* V = 1 children
  // first (row i's columns from i to its last descendant), then D W = V and L X = W parents
  // first, then the lower triangle mirrored.
  for (long i = 0; i < n; ++i)
    for (long c = i; c < n; ++c) L(c == i ? 1.0 : 0.0).store_unaligned(entry(inverse, i, c));
  for (long i = n - 1; i >= 0; --i) {
    const long last = tree.dof_last_descendant[i];
    for (int p = parent[i]; p >= 0; p = parent[p]) {
      const L lower = load(entry(factor, i, p));
      for (long c = i; c <= last; ++c)
        (load(entry(inverse, p, c)) - lower * load(entry(inverse, i, c)))
            .store_unaligned(entry(inverse, p, c));
    }
  }
  for (long i = 0; i < n; ++i) {
    const L inverse_pivot = load(entry(factor, i, i));
    // Columns c of row i, Chunk at a time held in registers while the ancestors' rows stream past.
    const auto combine = [&]<int Chunk>(std::integral_constant<int, Chunk>, long c) {
      L value[Chunk];
      for (int u = 0; u < Chunk; ++u) value[u] = inverse_pivot * load(entry(inverse, i, c + u));
      for (int p = parent[i]; p >= 0; p = parent[p]) {
        const L lower = load(entry(factor, i, p));
        for (int u = 0; u < Chunk; ++u)
          value[u] = value[u] - lower * load(entry(inverse, p, c + u));
      }
      for (int u = 0; u < Chunk; ++u) value[u].store_unaligned(entry(inverse, i, c + u));
    };
    long c = i;
    for (; c + 4 <= n; c += 4) combine(std::integral_constant<int, 4>{}, c);
    for (; c < n; ++c) combine(std::integral_constant<int, 1>{}, c);
  }
  for (long c = 1; c < n; ++c)
    for (long r = 0; r < c; ++r) load(entry(inverse, r, c)).store_unaligned(entry(inverse, c, r));
  // dqdd/dq = -M^-1 dtau/dq and dqdd/dqd = -M^-1 dtau/dqd (multiply_on_the_pattern): column j
  // sums over its nonzeros k, j's ancestors then j to its last descendant, row k of M^-1 (its
  // column: M^-1 is symmetric) streamed into column j, kept as a row (transposed) so that both
  // run in memory order.
  for (long j = 0; j < n; ++j) {
    const long last = tree.dof_last_descendant[j];
    // Rows r of column j, Chunk at a time: both sums in registers while M^-1's rows stream past.
    const auto multiply = [&]<int Chunk>(std::integral_constant<int, Chunk>, long r) {
      L sum_q[Chunk], sum_qd[Chunk];
      for (int u = 0; u < Chunk; ++u) sum_q[u] = sum_qd[u] = L(0.0);
      const auto add = [&](long k) {
        const L coefficient_q = load(entry(at.dtau_dq, k, j)),
                coefficient_qd = load(entry(at.dtau_dqd, k, j));
        for (int u = 0; u < Chunk; ++u) {
          const L m = load(entry(inverse, k, r + u));
          sum_q[u] = sum_q[u] - coefficient_q * m;
          sum_qd[u] = sum_qd[u] - coefficient_qd * m;
        }
      };
      for (int k = parent[j]; k >= 0; k = parent[k]) add(k);
      for (long k = j; k <= last; ++k) add(k);
      for (int u = 0; u < Chunk; ++u) {
        sum_q[u].store_unaligned(entry(by_q, j, r + u));
        sum_qd[u].store_unaligned(entry(by_qd, j, r + u));
      }
    };
    long r = 0;
    for (; r + 4 <= n; r += 4) multiply(std::integral_constant<int, 4>{}, r);
    for (; r < n; ++r) multiply(std::integral_constant<int, 1>{}, r);
  }
  flag.store_unaligned(block.singular);
  mark_non_finite(by_q, 3 * n * n, block.singular);
  mark_non_finite(block.qdd, n, block.singular);
}

}  // namespace
}  // namespace skograph::lanes::SKOGRAPH_LANE_NS

// A tree's forward-dynamics derivatives (rigid/derivatives.hpp; docs/derivatives.md, "Forward
// dynamics"): qdd and M^-1 from M's factor along the tree (no fill: M's own pattern), between the
// two halves of the derivative passes of rigid_body_derivatives.cpp, and -M^-1 dtau/dq,
// -M^-1 dtau/dqd on dtau's tree pattern; a dense Cholesky factorization where some dof moves no
// mass.
#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "derivatives_detail.hpp"
#include "flexible_derivatives.hpp"
#include "kinematics_detail.hpp"
#include "lanes/lane_abi.hpp"
#include "size_checks.hpp"
#include "skograph/operators/articulated_body.hpp"  // SingularMassMatrixError
#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

using rigid_detail::check_size;

namespace {

SingularMassMatrixError not_positive_definite() {
  return SingularMassMatrixError(-1,
                                 "the mass matrix is not positive definite at this configuration");
}

// The ancestor dofs of dof i, parent first (DerivativeWorkspace::ancestors).
std::span<const int> ancestors_of(const DerivativeWorkspace& work, int i) {
  const auto at = static_cast<std::size_t>(i);
  return std::span<const int>(work.ancestors)
      .subspan(static_cast<std::size_t>(work.ancestor_offsets[at]),
               static_cast<std::size_t>(work.ancestor_offsets[at + 1] - work.ancestor_offsets[at]));
}

// L(i, j) for the ancestors j of dof i, in the order of ancestors_of(work, i).
double* lower_of(DerivativeWorkspace& work, int i) {
  return work.lower.data() + work.ancestor_offsets[static_cast<std::size_t>(i)];
}
const double* lower_of(const DerivativeWorkspace& work, int i) {
  return work.lower.data() + work.ancestor_offsets[static_cast<std::size_t>(i)];
}

// target[c] -= factor source[c] for c in [0, count): one row's update by a multiple of another
// (the compiler vectorizes the plain loop; the rows never overlap).
void subtract_multiple(double* __restrict target, const double* __restrict source, double factor,
                       int count) {
  for (int c = 0; c < count; ++c) target[c] -= factor * source[c];
}

// row[c] <- pivot row[c] - sum_t lower[t] rows[path[t]][c] for the Width columns from c (rows of
// length stride), held in registers while the ancestors' rows stream past; the sum in the same
// order as one row operation per ancestor.
template <int Width>
void combine_chunk(double* row, double pivot, const double* rows, Eigen::Index stride,
                   std::span<const int> path, const double* lower, int c) {
  using Chunk = Eigen::Array<double, Width, 1>;
  Chunk sum = pivot * Eigen::Map<const Chunk>(row + c);
  for (std::size_t t = 0; t < path.size(); ++t)
    sum -= lower[t] * Eigen::Map<const Chunk>(rows + path[t] * stride + c);
  Eigen::Map<Chunk>(row + c) = sum;
}

// combine_chunk over the columns [begin, end): eight at a time, then four, two and one.
void combine_with_ancestors(double* row, double pivot, const double* rows, Eigen::Index stride,
                            std::span<const int> path, const double* lower, int begin, int end) {
  int c = begin;
  for (; c + 8 <= end; c += 8) combine_chunk<8>(row, pivot, rows, stride, path, lower, c);
  if (c + 4 <= end) {
    combine_chunk<4>(row, pivot, rows, stride, path, lower, c);
    c += 4;
  }
  if (c + 2 <= end) {
    combine_chunk<2>(row, pivot, rows, stride, path, lower, c);
    c += 2;
  }
  if (c < end) combine_chunk<1>(row, pivot, rows, stride, path, lower, c);
}

// M = L* D L, L unit lower triangular with nonzeros only at (k, i), i an ancestor dof of k: M's
// own pattern, so no fill (RBDA section 6.5, the LTDL factorization, children before parents).
// L is kept packed along the ancestor lists (work.lower), D in work.diagonal and 1 / D in
// work.inverse_pivot. The ancestors of path[t] are the rest of k's list after t, so L(i, path[u])
// for u > t sits at u - t - 1 in i's list.
void factor_along_the_tree(DerivativeWorkspace& work, const Eigen::MatrixXd& mass) {
  const auto n = static_cast<int>(mass.rows());
  for (int k = 0; k < n; ++k) {
    work.diagonal[k] = mass(k, k);
    const std::span<const int> path = ancestors_of(work, k);
    double* row = lower_of(work, k);
    for (std::size_t t = 0; t < path.size(); ++t) row[t] = mass(k, path[t]);
  }
  for (int k = n - 1; k >= 0; --k) {
    if (!(work.diagonal[k] > 0.0)) throw not_positive_definite();
    const double inverse_pivot = 1.0 / work.diagonal[k];
    work.inverse_pivot[k] = inverse_pivot;
    const std::span<const int> path = ancestors_of(work, k);
    double* row = lower_of(work, k);
    for (std::size_t t = 0; t < path.size(); ++t) {
      const int i = path[t];
      const double a = row[t] * inverse_pivot;
      work.diagonal[i] -= a * row[t];
      double* above = lower_of(work, i);
      for (std::size_t u = t + 1; u < path.size(); ++u) above[u - t - 1] -= a * row[u];
      row[t] = a;
    }
  }
}

// M^-1 into inverse (n x n, column-major), from the factor of factor_along_the_tree: L* V = 1
// children first, D W = V, L X = W parents first, reading only what can be nonzero. L* v = e_i
// leaves v nonzero at i's descendants only (i to its last descendant), and row i of X from
// column i on needs only the rows above it from column i on; so the solve runs on the upper
// triangle, kept row by row, which is the lower triangle of the column-major storage, and the
// upper one is mirrored from it at the end.
void invert_along_the_tree(const DerivativeWorkspace& work, double* inverse, int n) {
  for (int i = 0; i < n; ++i) {
    double* row = inverse + Eigen::Index{i} * n;
    std::fill(row + i, row + n, 0.0);
    row[i] = 1.0;
  }
  for (int i = n - 1; i >= 0; --i) {
    const int width = work.dof_last_descendant[static_cast<std::size_t>(i)] - i + 1;
    const std::span<const int> path = ancestors_of(work, i);
    const double* lower = lower_of(work, i);
    for (std::size_t t = 0; t < path.size(); ++t)
      subtract_multiple(inverse + Eigen::Index{path[t]} * n + i, inverse + Eigen::Index{i} * n + i,
                        lower[t], width);
  }
  for (int i = 0; i < n; ++i)
    combine_with_ancestors(inverse + Eigen::Index{i} * n, work.inverse_pivot[i], inverse, n,
                           ancestors_of(work, i), lower_of(work, i), i, n);
  for (int c = 1; c < n; ++c)
    for (int r = 0; r < c; ++r) inverse[Eigen::Index{c} * n + r] = inverse[Eigen::Index{r} * n + c];
}

// Rows [r, r + Width) of column j of -M^-1 dtau/dq and -M^-1 dtau/dqd: sum over the column's
// nonzeros k (j's ancestors, then j to its last descendant) of -dtau(k, j) M^-1(:, k), both
// sums held in registers while the columns of M^-1 (contiguous, M^-1 being symmetric) stream
// past once for the two.
template <int Width>
void multiply_chunk(const double* inverse, Eigen::Index n, std::span<const int> path, int first,
                    int last, const double* by_q, const double* by_qd, double* out_q,
                    double* out_qd, int r) {
  using Chunk = Eigen::Array<double, Width, 1>;
  Chunk sum_q = Chunk::Zero(), sum_qd = Chunk::Zero();
  const auto add = [&](int k) {
    const Chunk column = Eigen::Map<const Chunk>(inverse + k * n + r);
    sum_q -= by_q[k] * column;
    sum_qd -= by_qd[k] * column;
  };
  for (const int k : path) add(k);
  for (int k = first; k <= last; ++k) add(k);
  Eigen::Map<Chunk>(out_q + r) = sum_q;
  Eigen::Map<Chunk>(out_qd + r) = sum_qd;
}

// dqdd/dq = -M^-1 dtau/dq and dqdd/dqd = -M^-1 dtau/dqd column by column over dtau's tree
// pattern: entry (k, j) is zero unless one of k, j is the other's ancestor, so column j needs
// M^-1's columns at j's ancestors and at j to its last descendant (exactly its descendants when
// the dofs are numbered depth first, a superset holding zeros otherwise); each output column
// written once, eight rows at a time, then four, two and one.
void multiply_on_the_pattern(const DerivativeWorkspace& work, const Eigen::MatrixXd& inverse,
                             const Eigen::MatrixXd& dtau_dq, const Eigen::MatrixXd& dtau_dqd,
                             Eigen::MatrixXd& dqdd_dq, Eigen::MatrixXd& dqdd_dqd) {
  const auto n = static_cast<int>(inverse.rows());
  for (int j = 0; j < n; ++j) {
    const std::span<const int> path = ancestors_of(work, j);
    const int last = work.dof_last_descendant[static_cast<std::size_t>(j)];
    const double* by_q = dtau_dq.col(j).data();
    const double* by_qd = dtau_dqd.col(j).data();
    double* out_q = dqdd_dq.col(j).data();
    double* out_qd = dqdd_dqd.col(j).data();
    const double* m = inverse.data();
    int r = 0;
    for (; r + 8 <= n; r += 8)
      multiply_chunk<8>(m, n, path, j, last, by_q, by_qd, out_q, out_qd, r);
    if (r + 4 <= n) {
      multiply_chunk<4>(m, n, path, j, last, by_q, by_qd, out_q, out_qd, r);
      r += 4;
    }
    if (r + 2 <= n) {
      multiply_chunk<2>(m, n, path, j, last, by_q, by_qd, out_q, out_qd, r);
      r += 2;
    }
    if (r < n) multiply_chunk<1>(m, n, path, j, last, by_q, by_qd, out_q, out_qd, r);
  }
}

// x <- M^-1 x with M's factor (factor_along_the_tree): L* v = x children first, D w = v, L x = w
// parents first.
void solve_along_the_tree(const DerivativeWorkspace& work, Eigen::VectorXd& x) {
  const auto n = static_cast<int>(x.size());
  for (int i = n - 1; i >= 0; --i) {
    const std::span<const int> path = ancestors_of(work, i);
    const double* lower = lower_of(work, i);
    for (std::size_t t = 0; t < path.size(); ++t) x[path[t]] -= lower[t] * x[i];
  }
  for (int i = 0; i < n; ++i) {
    const std::span<const int> path = ancestors_of(work, i);
    const double* lower = lower_of(work, i);
    double value = x[i] * work.inverse_pivot[i];
    for (std::size_t t = 0; t < path.size(); ++t) value -= lower[t] * x[path[t]];
    x[i] = value;
  }
}

// How far inverse dynamics at the factor's qdd may miss tau (relative) before the articulated-body
// recursion is asked instead (lanes/lane_abi.hpp, shared with the lanes).
constexpr double kResidual = lanes::kForwardDerivativeResidual;

// qdd = M^-1 (tau - C) and the inverse dynamics' derivatives at it, for one tree whose dofs all
// move mass, numbered parents first: the passes' first half gives M, dtau/dqd and the bias forces
// C; M's tree factor (factor_along_the_tree) gives qdd by L* v = tau - C children first, D w = v,
// L qdd = w parents first; the second half gives dtau/dq and tau at that qdd. The articulated-body
// recursion is not run: the factor serves qdd and M^-1 alike. False when the tau this qdd gives
// back misses the given one by more than kResidual.
bool accelerations_and_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                   const Eigen::Ref<const Eigen::VectorXd>& q,
                                   const Eigen::Ref<const Eigen::VectorXd>& qd,
                                   const Eigen::Ref<const Eigen::VectorXd>& tau,
                                   const Eigen::Vector3d& gravity, DerivativeWorkspace& work,
                                   ForwardDynamicsDerivatives& result) {
  const int n = model.dof_count();
  rigid_detail::world_motion(model, q, qd, data);
  check_size(tau, n, "tau");
  InverseDynamicsDerivatives& inverse = result.inverse;
  rigid_detail::inverse_dynamics_derivatives_velocity_half(model, data, qd, gravity, inverse);
  try {
    factor_along_the_tree(work, inverse.mass);
  } catch (const SingularMassMatrixError&) {
    forward_dynamics(model, data, q, qd, tau, gravity);  // names the joint where it fails
    throw;
  }
  Eigen::VectorXd& qdd = result.qdd;
  qdd = tau - inverse.tau;
  solve_along_the_tree(work, qdd);
  rigid_detail::inverse_dynamics_derivatives_acceleration_half(model, data, qd, qdd, gravity,
                                                               inverse);
  double missed = 0.0, given = 0.0;  // squared norms, summed without a temporary
  for (int i = 0; i < n; ++i) {
    missed += (tau[i] - inverse.tau[i]) * (tau[i] - inverse.tau[i]);
    given += tau[i] * tau[i];
  }
  return std::sqrt(missed) <= kResidual * (1.0 + std::sqrt(given));
}

}  // namespace

// ID(q, qd, FD(q, qd, tau)) = tau for every argument: differentiating gives M dqdd/dq + dtau/dq =
// 0, M dqdd/dqd + dtau/dqd = 0 and M dqdd/dtau = 1, solved by a Cholesky factorization of M on the
// dofs that move mass: along the tree when every dof does and the dofs are numbered parents
// first (factor_along_the_tree; the model layer always numbers them so), otherwise a dense
// Cholesky factorization on them.
void forward_dynamics_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity,
                                  ForwardDynamicsDerivatives& result) {
  if (model.has_flexible_links())
    return rigid_detail::flexible_forward_dynamics_derivatives(model, data, q, qd, tau, gravity,
                                                               result);
  const int n = model.dof_count();
  InverseDynamicsDerivatives& inverse = result.inverse;
  DerivativeWorkspace& work = derivative_workspace(model, data);
  int massive = 0;
  result.massive.resize(n);
  for (int k = 0; k < model.node_count(); ++k)
    if (!model.carries_no_mass(k))
      for (int c = 0; c < model.joint_dofs(k); ++c)
        result.massive[massive++] = model.joint_dof_offset(k) + c;
  if (n > 0 && massive == n && work.parents_first) {
    // Every dof moves mass: qdd from M's tree-sparse factor between the two halves of the
    // derivatives' passes, M^-1 through the same factor (O(n x the dofs' summed depths) instead of
    // O(n^3)), then its products with dtau/dq and dtau/dqd on their tree pattern.
    if (!accelerations_and_derivatives(model, data, q, qd, tau, gravity, work, result)) {
      result.qdd = forward_dynamics(model, data, q, qd, tau, gravity);
      inverse_dynamics_derivatives(model, data, q, qd, result.qdd, gravity, inverse);
      factor_along_the_tree(work, inverse.mass);
    }
    result.dqdd_dtau.resize(n, n);
    result.dqdd_dq.resize(n, n);
    result.dqdd_dqd.resize(n, n);
    invert_along_the_tree(work, result.dqdd_dtau.data(), n);
    multiply_on_the_pattern(work, result.dqdd_dtau, inverse.dtau_dq, inverse.dtau_dqd,
                            result.dqdd_dq, result.dqdd_dqd);
    return;
  }
  result.qdd = forward_dynamics(model, data, q, qd, tau, gravity);
  // Forward dynamics leaves the world motion about each tree's base origin: with one tree that is
  // the one point the derivatives take, so its kinematics serve them as they are.
  const std::vector<int>& parents = model.parents();
  if (std::count_if(parents.begin(), parents.end(), [](int p) { return p < 0; }) == 1)
    rigid_detail::inverse_dynamics_derivatives_at_world_motion(model, data, qd, result.qdd, gravity,
                                                               inverse);
  else
    inverse_dynamics_derivatives(model, data, q, qd, result.qdd, gravity, inverse);
  if (n == 0) {  // nothing moves (and an empty buffer has no storage to map)
    result.dqdd_dq.resize(0, 0);
    result.dqdd_dqd.resize(0, 0);
    result.dqdd_dtau.resize(0, 0);
    return;
  }
  result.reduced.resize(massive, massive);
  for (int i = 0; i < massive; ++i)
    for (int j = 0; j < massive; ++j)
      result.reduced(i, j) = inverse.mass(result.massive[i], result.massive[j]);
  result.factor.compute(result.reduced);
  if (result.factor.info() != Eigen::Success) throw not_positive_definite();
  result.dqdd_dq.setZero(n, n);
  result.dqdd_dqd.setZero(n, n);
  result.dqdd_dtau.setZero(n, n);
  // Three right sides through the same factor, on the dofs that move mass.
  const auto solve = [&](const Eigen::MatrixXd* right, Eigen::MatrixXd& out) {
    result.solved.resize(massive, n);
    for (int i = 0; i < massive; ++i)
      for (int j = 0; j < n; ++j)
        result.solved(i, j) = right != nullptr ? -(*right)(result.massive[i], j)
                                               : (result.massive[i] == j ? 1.0 : 0.0);
    result.factor.solveInPlace(result.solved);
    for (int i = 0; i < massive; ++i) out.row(result.massive[i]) = result.solved.row(i);
  };
  solve(&inverse.dtau_dq, result.dqdd_dq);
  solve(&inverse.dtau_dqd, result.dqdd_dqd);
  solve(nullptr, result.dqdd_dtau);
}

}  // namespace skograph

#include "skograph/operators/forward_dynamics_alternatives.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace skograph {
namespace {

// T - C into workspace.bias_free_force, C = H A (M A* a + b) by Newton-Euler (part II Eq. 3).
void compute_bias_free_force(const SkoModel& model,
                             const Eigen::Ref<const Eigen::VectorXd>& thetadot,
                             const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
                             const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
                             const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
                             AlternativeForwardDynamicsWorkspace& workspace) {
  const int dofs = model.structure().hinge.total();
  if (thetadot.size() != dofs || generalized_force.size() != dofs)
    throw std::invalid_argument("forward dynamics: thetadot and T need " + std::to_string(dofs) +
                                " entries");
  workspace.bias_free_force = generalized_force;
  workspace.bias_free_force -=
      generalized_bias(model, coriolis_acceleration, gyroscopic_force, workspace.inverse_dynamics);
}

}  // namespace

AlternativeForwardDynamicsWorkspace::AlternativeForwardDynamicsWorkspace(
    std::shared_ptr<const SkoStructure> structure)
    : inverse_dynamics(*structure),
      composite(*structure),
      articulated(structure),
      mass(Eigen::MatrixXd::Zero(structure->hinge.total(), structure->hinge.total())),
      mass_cholesky(structure->hinge.total()),
      preconditioner_cholesky(structure->hinge.dims(), structure->hinge.dims()),
      bias_free_force(Eigen::VectorXd::Zero(structure->hinge.total())),
      residual(Eigen::VectorXd::Zero(structure->hinge.total())),
      preconditioned_residual(Eigen::VectorXd::Zero(structure->hinge.total())),
      direction(Eigen::VectorXd::Zero(structure->hinge.total())),
      mass_times_direction(Eigen::VectorXd::Zero(structure->hinge.total())),
      zero_dofs(Eigen::VectorXd::Zero(structure->hinge.total())),
      zero_nodes(Eigen::VectorXd::Zero(structure->node.total())),
      generalized_acceleration(Eigen::VectorXd::Zero(structure->hinge.total())) {
  const int dofs = structure->hinge.total();
  for (Eigen::MatrixXd* matrix : {&innovations.newton_euler_factor,
                                  &innovations.innovations_inertia, &innovations.inverse_factor})
    matrix->setZero(dofs, dofs);
}

// serial-chain-unified-formulation section 3 (O(N^3)); M by part II Algorithm 4.2.
const Eigen::VectorXd& forward_dynamics_cholesky(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
    AlternativeForwardDynamicsWorkspace& workspace) {
  compute_bias_free_force(model, thetadot, generalized_force, coriolis_acceleration,
                          gyroscopic_force, workspace);
  mass_matrix(model, workspace.composite, workspace.mass);
  workspace.mass_cholesky.compute(workspace.mass);
  if (workspace.mass_cholesky.info() != Eigen::Success)
    throw std::runtime_error("forward_dynamics_cholesky: mass matrix is not positive definite");
  workspace.generalized_acceleration = workspace.bias_free_force;
  workspace.mass_cholesky.solveInPlace(workspace.generalized_acceleration);
  return workspace.generalized_acceleration;
}

// serial-chain-unified-formulation section 4, triangularized equations, with the factors of
// part II Lemma 11, Eq. 49.
const Eigen::VectorXd& forward_dynamics_innovations(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
    AlternativeForwardDynamicsWorkspace& workspace) {
  compute_bias_free_force(model, thetadot, generalized_force, coriolis_acceleration,
                          gyroscopic_force, workspace);
  innovations_factors(model, workspace.articulated, workspace.innovations);
  const Eigen::MatrixXd& factor = workspace.innovations.newton_euler_factor;
  const BlockLayout& hinge = model.structure().hinge;
  const Forest& forest = model.forest();
  const auto post_order = forest.post_order();
  Eigen::VectorXd& y = workspace.generalized_acceleration;  // holds y, then x, then thetaddot
  y = workspace.bias_free_force;
  // (a) F y = T - C: block row i couples y(i) to the y(k) of i's descendants, which occupy the
  // post-order positions just before i's own (a sub-tree is a contiguous post-order range).
  for (int position = 0; position < forest.size(); ++position) {
    const int i = post_order[position], ri = hinge.dim(i);
    if (ri == 0) continue;
    auto y_i = y.segment(hinge.offset(i), ri);
    for (int d = position - forest.subtree_size(i) + 1; d < position; ++d) {
      const int k = post_order[d], rk = hinge.dim(k);
      if (rk == 0) continue;
      y_i.noalias() -=
          factor.block(hinge.offset(i), hinge.offset(k), ri, rk) * y.segment(hinge.offset(k), rk);
    }
  }
  // x = D^-1 y, blockwise with the Cholesky factors of D(k).
  for (int k = 0; k < model.size(); ++k)
    solve_innovations_inertia(
        workspace.articulated, k,
        Eigen::Map<Eigen::MatrixXd>(y.data() + hinge.offset(k), hinge.dim(k), 1));
  // (b) F* thetaddot = x: block row k of F* couples thetaddot(k) to its ancestors' (base first).
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    const int k = *it, rk = hinge.dim(k);
    if (rk == 0) continue;
    auto thetaddot_k = y.segment(hinge.offset(k), rk);
    for (int i = forest.parent(k); i != Forest::kNone; i = forest.parent(i)) {
      const int ri = hinge.dim(i);
      if (ri == 0) continue;
      thetaddot_k.noalias() -= factor.block(hinge.offset(i), hinge.offset(k), ri, rk).transpose() *
                               y.segment(hinge.offset(i), ri);
    }
  }
  return y;
}

// serial-chain-unified-formulation section 4, conjugate gradients (preconditioner H R H* of its
// Ref. 5); M p by part II Algorithm 3.1.
ConjugateGradientReport forward_dynamics_conjugate_gradient(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
    const ConjugateGradientOptions& options, AlternativeForwardDynamicsWorkspace& workspace) {
  compute_bias_free_force(model, thetadot, generalized_force, coriolis_acceleration,
                          gyroscopic_force, workspace);
  const BlockLayout& hinge = model.structure().hinge;
  const bool preconditioned =
      options.preconditioner == ConjugateGradientPreconditioner::kCompositeBodyInertia;
  if (preconditioned) {
    // Lambda(k) = H(k) R(k) H*(k), the diagonal blocks of M (Lemma 4, Eq. 17).
    composite_body_inertias(model, workspace.composite);
    for (int k = 0; k < model.size(); ++k) {
      const int rk = hinge.dim(k);
      if (rk == 0) continue;
      // H R H* into a scratch block (H R first), then its Cholesky factor into the workspace.
      Eigen::Map<Eigen::MatrixXd> hinge_inertia(workspace.composite.product_scratch.data(), rk,
                                                model.node_dim(k));
      hinge_inertia.noalias() = model.hinge_map(k) * workspace.composite.composite_inertia[k];
      Eigen::Map<Eigen::MatrixXd> block(workspace.composite.column_scratch.data(), rk, rk);
      block.noalias() = hinge_inertia * model.hinge_map(k).transpose();
      if (!cholesky_lower(block, workspace.preconditioner_cholesky[k]))
        throw std::runtime_error("conjugate gradient: H R H* block is not positive definite");
    }
  }
  // z = Lambda^-1 r.
  auto apply_preconditioner = [&]() {
    workspace.preconditioned_residual = workspace.residual;
    if (!preconditioned) return;
    for (int k = 0; k < model.size(); ++k)
      if (hinge.dim(k) > 0) {
        const auto lower = workspace.preconditioner_cholesky[k];
        auto z = workspace.preconditioned_residual.segment(hinge.offset(k), hinge.dim(k));
        lower.triangularView<Eigen::Lower>().solveInPlace(z);
        lower.transpose().triangularView<Eigen::Upper>().solveInPlace(z);
      }
  };
  Eigen::VectorXd& x = workspace.generalized_acceleration;
  x.setZero();
  workspace.residual = workspace.bias_free_force;
  const double target = options.relative_tolerance * workspace.bias_free_force.norm();
  const int max_iterations =
      options.max_iterations > 0 ? options.max_iterations : 10 * std::max(1, hinge.total());
  ConjugateGradientReport report;
  apply_preconditioner();
  workspace.direction = workspace.preconditioned_residual;
  double residual_dot = workspace.residual.dot(workspace.preconditioned_residual);
  while (workspace.residual.norm() > target && report.iterations < max_iterations) {
    // M p by Newton-Euler inverse dynamics: thetadot = 0, thetaddot = p, a = b = 0 (Eq. 10).
    workspace.mass_times_direction =
        inverse_dynamics(model, workspace.zero_dofs, workspace.direction, workspace.zero_nodes,
                         workspace.zero_nodes, workspace.inverse_dynamics);
    ++report.iterations;
    const double curvature = workspace.direction.dot(workspace.mass_times_direction);
    if (!(curvature > 0.0)) break;  // p = 0 (exact solution) or loss of positivity
    const double step = residual_dot / curvature;
    x.noalias() += step * workspace.direction;
    workspace.residual.noalias() -= step * workspace.mass_times_direction;
    apply_preconditioner();
    const double next_residual_dot = workspace.residual.dot(workspace.preconditioned_residual);
    const double gamma = next_residual_dot / residual_dot;
    residual_dot = next_residual_dot;
    workspace.direction *= gamma;
    workspace.direction += workspace.preconditioned_residual;
  }
  const double norm = workspace.bias_free_force.norm();
  report.relative_residual = norm > 0.0 ? workspace.residual.norm() / norm : 0.0;
  report.converged = workspace.residual.norm() <= target;
  return report;
}

}  // namespace skograph

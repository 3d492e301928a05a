#include "skograph/operators/mass_matrix.hpp"

#include <span>
#include <stdexcept>
#include <utility>

namespace skograph {

CompositeInertiaWorkspace::CompositeInertiaWorkspace(const SkoStructure& structure)
    : composite_inertia(structure.node.dims(), structure.node.dims()) {
  const std::size_t max_dim = structure.node.max_dim(), max_hinge = structure.hinge.max_dim();
  product_scratch.assign(max_dim * max_dim, 0.0);
  column_scratch.assign(max_dim * max_hinge, 0.0);
  next_column_scratch.assign(max_dim * max_hinge, 0.0);
}

// Part II Algorithm 4.1, Eq. 20 (forward Lyapunov gather of Lemma 3-4, Eq. 13-14 and 18).
void composite_body_inertias(const SkoModel& model, CompositeInertiaWorkspace& workspace) {
  const Forest& forest = model.forest();
  for (const int k : forest.post_order()) {  // children before parents: tips-to-base gather
    auto r = workspace.composite_inertia[k];
    r = model.inertia(k);
    for (const int j : forest.children(k)) {
      const auto weight = model.weight(j);  // A(k, j), m_k x m_j
      Eigen::Map<Eigen::MatrixXd> weighted(workspace.product_scratch.data(), weight.rows(),
                                           weight.cols());
      weighted.noalias() = weight * workspace.composite_inertia[j];
      r.noalias() += weighted * weight.transpose();
    }
  }
}

// Part II Algorithm 4.2 (the decomposition of Lemma 4, Eq. 17; off-diagonal blocks by Eq. 15).
void mass_matrix(const SkoModel& model, CompositeInertiaWorkspace& workspace,
                 Eigen::MatrixXd& mass) {
  const SkoStructure& structure = model.structure();
  const Forest& forest = model.forest();
  const int dofs = structure.hinge.total();
  if (mass.rows() != dofs || mass.cols() != dofs) mass.resize(dofs, dofs);
  mass.setZero();
  composite_body_inertias(model, workspace);
  for (const int k : forest.post_order()) {
    const int rk = model.hinge_dim(k), ck = structure.hinge.offset(k);
    if (rk == 0) continue;  // a 0-dof hinge owns no mass matrix rows or columns
    double* column = workspace.column_scratch.data();
    double* next_column = workspace.next_column_scratch.data();
    {
      Eigen::Map<Eigen::MatrixXd> x(column, model.node_dim(k), rk);
      x.noalias() = workspace.composite_inertia[k] * model.hinge_map(k).transpose();
      mass.block(ck, ck, rk, rk).noalias() = model.hinge_map(k) * x;
    }
    // Carry X = A(l, k) R(k) H*(k) up the path to the base: M(l, k) = H(l) X (Eq. 17).
    for (int j = k, l = forest.parent(k); l != Forest::kNone; j = l, l = forest.parent(l)) {
      Eigen::Map<const Eigen::MatrixXd> x(column, model.node_dim(j), rk);
      Eigen::Map<Eigen::MatrixXd> x_parent(next_column, model.node_dim(l), rk);
      x_parent.noalias() = model.weight(j) * x;
      const int rl = model.hinge_dim(l), cl = structure.hinge.offset(l);
      if (rl > 0) {
        mass.block(cl, ck, rl, rk).noalias() = model.hinge_map(l) * x_parent;
        mass.block(ck, cl, rk, rl) = mass.block(cl, ck, rl, rk).transpose();
      }
      std::swap(column, next_column);
    }
  }
}

MassMatrixMethodsWorkspace::MassMatrixMethodsWorkspace(const SkoStructure& structure)
    : zero_hinge(Eigen::VectorXd::Zero(structure.hinge.total())),
      unit_hinge(Eigen::VectorXd::Zero(structure.hinge.total())),
      zero_node(Eigen::VectorXd::Zero(structure.node.total())),
      acceleration(Eigen::VectorXd::Zero(structure.node.total())),
      force(Eigen::VectorXd::Zero(structure.node.total())),
      inverse_dynamics(structure) {}

// Serial-chain paper section 3, "Direct Method" (Eq. 23): column j = inverse dynamics of e_j.
void mass_matrix_direct(const SkoModel& model, MassMatrixMethodsWorkspace& workspace,
                        Eigen::MatrixXd& mass) {
  const int dofs = model.structure().hinge.total();
  if (mass.rows() != dofs || mass.cols() != dofs) mass.resize(dofs, dofs);
  for (int j = 0; j < dofs; ++j) {
    workspace.unit_hinge(j) = 1.0;
    mass.col(j) =
        inverse_dynamics(model, workspace.zero_hinge, workspace.unit_hinge, workspace.zero_node,
                         workspace.zero_node, workspace.inverse_dynamics);
    workspace.unit_hinge(j) = 0.0;
  }
}

// Serial-chain paper section 3, "Symmetry Based Method", on a tree: the column of dof d of node k
// from the Newton-Euler sweeps over k's subtree (post-order positions post_index(k) - size + 1 ..
// post_index(k), so walking them backwards visits parents before children).
void mass_matrix_symmetry(const SkoModel& model, MassMatrixMethodsWorkspace& workspace,
                          Eigen::MatrixXd& mass) {
  const SkoStructure& s = model.structure();
  const Forest& forest = model.forest();
  const int dofs = s.hinge.total();
  if (mass.rows() != dofs || mass.cols() != dofs) mass.resize(dofs, dofs);
  mass.setZero();
  const std::span<const int> order = forest.post_order();
  for (int k = 0; k < model.size(); ++k) {
    const int last = forest.post_index(k), first = last - forest.subtree_size(k) + 1;
    for (int d = 0; d < model.hinge_dim(k); ++d) {
      const int column = s.hinge.offset(k) + d;
      // alpha = A* H* e_column over the subtree (zero at k's ancestors: they are at rest).
      for (int position = last; position >= first; --position) {
        const int i = order[static_cast<std::size_t>(position)];
        auto alpha = workspace.acceleration.segment(s.node.offset(i), s.node.dim(i));
        if (i == k)
          alpha = model.hinge_map(k).row(d).transpose();
        else
          alpha.noalias() = model.weight(i).transpose() *
                            workspace.acceleration.segment(s.node.offset(forest.parent(i)),
                                                           s.node.dim(forest.parent(i)));
      }
      // f = A M alpha gathered over the subtree; M(i, column) = H(i) f(i).
      for (int position = first; position <= last; ++position) {
        const int i = order[static_cast<std::size_t>(position)];
        auto force = workspace.force.segment(s.node.offset(i), s.node.dim(i));
        force.noalias() =
            model.inertia(i) * workspace.acceleration.segment(s.node.offset(i), s.node.dim(i));
        for (const int child : forest.children(i))
          force.noalias() += model.weight(child) *
                             workspace.force.segment(s.node.offset(child), s.node.dim(child));
        const int rows = s.hinge.dim(i), row = s.hinge.offset(i);
        if (rows == 0) continue;
        mass.col(column).segment(row, rows).noalias() = model.hinge_map(i) * force;
        if (i != k) mass.row(column).segment(row, rows) = mass.col(column).segment(row, rows);
      }
    }
  }
}

CompositeInverseDynamicsWorkspace::CompositeInverseDynamicsWorkspace(const SkoStructure& structure)
    : composite(structure),
      motion(Eigen::VectorXd::Zero(structure.node.total())),
      acceleration(Eigen::VectorXd::Zero(structure.node.total())),
      correction(Eigen::VectorXd::Zero(structure.node.total())),
      force(Eigen::VectorXd::Zero(structure.node.total())),
      generalized_force(Eigen::VectorXd::Zero(structure.hinge.total())),
      base_offset(base_acceleration_offsets(structure, base_acceleration_size)) {}

// Serial-chain paper Lemma 3.2 and its recursions, on a tree with the bias terms a and b.
const Eigen::VectorXd& inverse_dynamics_by_composite_inertias(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetaddot,
    const Eigen::Ref<const Eigen::VectorXd>& a, const Eigen::Ref<const Eigen::VectorXd>& b,
    const Eigen::Ref<const Eigen::VectorXd>& base_acceleration,
    CompositeInverseDynamicsWorkspace& workspace) {
  const SkoStructure& s = model.structure();
  const Forest& forest = model.forest();
  if (thetaddot.size() != s.hinge.total() || a.size() != s.node.total() ||
      b.size() != s.node.total() || base_acceleration.size() != workspace.base_acceleration_size ||
      workspace.motion.size() != s.node.total())
    throw std::invalid_argument(
        "inverse_dynamics_by_composite_inertias: sizes do not match the model");
  composite_body_inertias(model, workspace.composite);
  for (int k = 0; k < model.size(); ++k) {
    auto x = workspace.motion.segment(s.node.offset(k), s.node.dim(k));
    x = a.segment(s.node.offset(k), s.node.dim(k));
    x.noalias() +=
        model.hinge_map(k).transpose() * thetaddot.segment(s.hinge.offset(k), s.hinge.dim(k));
    if (forest.is_base(k)) x += base_acceleration.segment(workspace.base_offset[k], s.node.dim(k));
  }
  // Tips to base: z(k) = b(k) + sum_c A(k, c) [z(c) + R(c) x(c)].
  for (const int k : forest.post_order()) {
    auto z = workspace.correction.segment(s.node.offset(k), s.node.dim(k));
    z = b.segment(s.node.offset(k), s.node.dim(k));
    for (const int c : forest.children(k)) {
      auto carried = workspace.force.segment(s.node.offset(c), s.node.dim(c));  // scratch
      carried = workspace.correction.segment(s.node.offset(c), s.node.dim(c));
      carried.noalias() += workspace.composite.composite_inertia[c] *
                           workspace.motion.segment(s.node.offset(c), s.node.dim(c));
      z.noalias() += model.weight(c) * carried;
    }
  }
  // Base to tips: alpha(k) = A*(parent, k) alpha(parent) + x(k); f = R alpha + z; T = H f.
  const std::span<const int> order = forest.post_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = forest.parent(k);
    auto alpha = workspace.acceleration.segment(s.node.offset(k), s.node.dim(k));
    alpha = workspace.motion.segment(s.node.offset(k), s.node.dim(k));
    if (p != Forest::kNone)
      alpha.noalias() += model.weight(k).transpose() *
                         workspace.acceleration.segment(s.node.offset(p), s.node.dim(p));
    auto force = workspace.force.segment(s.node.offset(k), s.node.dim(k));
    force = workspace.correction.segment(s.node.offset(k), s.node.dim(k));
    force.noalias() += workspace.composite.composite_inertia[k] * alpha;
    workspace.generalized_force.segment(s.hinge.offset(k), s.hinge.dim(k)).noalias() =
        model.hinge_map(k) * force;
  }
  return workspace.generalized_force;
}

}  // namespace skograph

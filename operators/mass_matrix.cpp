#include "skograph/operators/mass_matrix.hpp"

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

}  // namespace skograph

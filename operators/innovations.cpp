#include "skograph/operators/innovations.hpp"

#include <limits>

#include <Eigen/SparseCore>
#include <cmath>
#include <utility>
#include <vector>

namespace skograph {
namespace {

// Emits every non-zero block of the innovations factors, given the Riccati quantities:
// emit(factor, row node, column node, block) with factor 0 = [I + H A K], 1 = [I - H psi K]
// (off-diagonal blocks only; the diagonal blocks are identities).
template <typename Emit>
void walk_innovations_factors(const SkoModel& model, ArticulatedBodyWorkspace& workspace,
                              Emit&& emit) {
  const Forest& forest = model.forest();
  for (int factor = 0; factor < 2; ++factor) {
    // psi(l, j) = A(l, j) tau-bar(j) carries [I - H psi K]; A(l, j) carries [I + H A K].
    const BwaMatrix& carrier = factor == 0 ? model.kernel() : workspace.psi_kernel;
    for (const int k : forest.post_order()) {
      const int rk = model.hinge_dim(k), parent = forest.parent(k);
      if (rk == 0 || parent == Forest::kNone) continue;
      double* column = workspace.column_scratch.data();
      double* next_column = workspace.next_column_scratch.data();
      // X = K(parent, k) = A(parent, k) G(k), the first block below the diagonal (Eq. 37, 43).
      Eigen::Map<Eigen::MatrixXd>(column, model.node_dim(parent), rk).noalias() =
          model.weight(k) * workspace.kalman_gain[k];
      for (int j = parent;;) {
        Eigen::Map<const Eigen::MatrixXd> x(column, model.node_dim(j), rk);
        if (model.hinge_dim(j) > 0) emit(factor, j, k, x);
        const int l = forest.parent(j);
        if (l == Forest::kNone) break;
        Eigen::Map<Eigen::MatrixXd>(next_column, model.node_dim(l), rk).noalias() =
            carrier.weight(j) * x;
        std::swap(column, next_column);
        j = l;
      }
    }
  }
}

}  // namespace

// Part II Lemma 11, Eq. 49-50.
void innovations_factors(const SkoModel& model, ArticulatedBodyWorkspace& workspace,
                         InnovationsFactors& factors) {
  articulated_body_inertias(model, workspace);
  const BlockLayout& hinge = model.structure().hinge;
  const int dofs = hinge.total();
  for (Eigen::MatrixXd* matrix :
       {&factors.newton_euler_factor, &factors.innovations_inertia, &factors.inverse_factor}) {
    if (matrix->rows() != dofs || matrix->cols() != dofs) matrix->resize(dofs, dofs);
    matrix->setZero();
  }
  factors.newton_euler_factor.setIdentity();
  factors.inverse_factor.setIdentity();
  for (int k = 0; k < model.size(); ++k)
    factors.innovations_inertia.block(hinge.offset(k), hinge.offset(k), hinge.dim(k),
                                      hinge.dim(k)) = workspace.innovations_inertia[k];
  walk_innovations_factors(
      model, workspace, [&](int factor, int i, int k, const Eigen::Map<const Eigen::MatrixXd>& x) {
        auto block = (factor == 0 ? factors.newton_euler_factor : factors.inverse_factor)
                         .block(hinge.offset(i), hinge.offset(k), hinge.dim(i), hinge.dim(k));
        block.noalias() = model.hinge_map(i) * x;
        if (factor == 1) block = -block;
      });
}

// Part II Lemma 11, Eq. 49-50 (sparse; sparsity per Corollary 6.1 part 1).
void innovations_factors(const SkoModel& model, ArticulatedBodyWorkspace& workspace,
                         SparseInnovationsFactors& factors) {
  articulated_body_inertias(model, workspace);
  const BlockLayout& hinge = model.structure().hinge;
  const int dofs = hinge.total();
  std::vector<Eigen::Triplet<double>> triplets[3];
  for (int i = 0; i < dofs; ++i) {
    triplets[0].emplace_back(i, i, 1.0);
    triplets[2].emplace_back(i, i, 1.0);
  }
  for (int k = 0; k < model.size(); ++k) {
    const auto d = workspace.innovations_inertia[k];
    for (int col = 0; col < d.cols(); ++col)
      for (int row = 0; row < d.rows(); ++row)
        triplets[1].emplace_back(hinge.offset(k) + row, hinge.offset(k) + col, d(row, col));
  }
  Eigen::MatrixXd block;
  walk_innovations_factors(
      model, workspace, [&](int factor, int i, int k, const Eigen::Map<const Eigen::MatrixXd>& x) {
        block.noalias() = model.hinge_map(i) * x;
        const double sign = factor == 0 ? 1.0 : -1.0;
        for (int col = 0; col < block.cols(); ++col)
          for (int row = 0; row < block.rows(); ++row)
            triplets[factor == 0 ? 0 : 2].emplace_back(hinge.offset(i) + row, hinge.offset(k) + col,
                                                       sign * block(row, col));
      });
  Eigen::SparseMatrix<double>* outputs[3] = {&factors.newton_euler_factor,
                                             &factors.innovations_inertia, &factors.inverse_factor};
  for (int f = 0; f < 3; ++f) {
    outputs[f]->resize(dofs, dofs);
    outputs[f]->setFromTriplets(triplets[f].begin(), triplets[f].end());
  }
}

// Part II Lemma 11, Eq. 51, one column at a time.
void mass_matrix_inverse(const SkoModel& model, ForwardDynamicsWorkspace& workspace,
                         Eigen::MatrixXd& inverse) {
  articulated_body_inertias(model, workspace.articulated);
  require_no_massless_nodes(workspace.articulated, "mass_matrix_inverse");
  const int dofs = model.structure().hinge.total();
  if (inverse.rows() != dofs || inverse.cols() != dofs) inverse.resize(dofs, dofs);
  inverse.setZero();
  for (int j = 0; j < dofs; ++j) {
    inverse(j, j) = 1.0;  // column j holds e_j as the input, then M^-1 e_j
    inverse.col(j) = apply_mass_matrix_inverse(model, inverse.col(j), workspace);
  }
}

// Part II Corollary 6.1, Eq. 53.
double mass_matrix_log_determinant(const SkoModel& model, ArticulatedBodyWorkspace& workspace) {
  articulated_body_inertias(model, workspace);
  if (workspace.any_massless) return -std::numeric_limits<double>::infinity();  // det M = 0
  double sum = 0.0;
  for (int k = 0; k < model.size(); ++k) sum += innovations_log_determinant(workspace, k);
  return sum;
}

// Part II Corollary 6.1, Eq. 53.
double mass_matrix_determinant(const SkoModel& model, ArticulatedBodyWorkspace& workspace) {
  return std::exp(mass_matrix_log_determinant(model, workspace));
}

}  // namespace skograph

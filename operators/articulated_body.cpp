#include "skograph/operators/articulated_body.hpp"

#include <Eigen/Core>
#include <cmath>
#include <stdexcept>
#include <string>

namespace skograph {

// Plain loops: the blocks are small and this must not allocate.
bool cholesky_lower(const Eigen::Ref<const Eigen::MatrixXd>& matrix,
                    Eigen::Ref<Eigen::MatrixXd> lower) {
  const int n = static_cast<int>(matrix.rows());
  lower.setZero();
  for (int j = 0; j < n; ++j) {
    double diagonal = matrix(j, j);
    for (int p = 0; p < j; ++p) diagonal -= lower(j, p) * lower(j, p);
    if (!(diagonal > 0.0)) return false;
    const double pivot = std::sqrt(diagonal);
    lower(j, j) = pivot;
    for (int i = j + 1; i < n; ++i) {
      double value = matrix(i, j);
      for (int p = 0; p < j; ++p) value -= lower(i, p) * lower(j, p);
      lower(i, j) = value / pivot;
    }
  }
  return true;
}

ArticulatedBodyWorkspace::ArticulatedBodyWorkspace(std::shared_ptr<const SkoStructure> structure)
    : articulated_inertia(structure->node.dims(), structure->node.dims()),
      innovations_inertia(structure->hinge.dims(), structure->hinge.dims()),
      innovations_cholesky(structure->hinge.dims(), structure->hinge.dims()),
      kalman_gain(structure->node.dims(), structure->hinge.dims()),
      complement_projector(structure->node.dims(), structure->node.dims()),
      articulated_inertia_plus(structure->node.dims(), structure->node.dims()),
      psi_kernel(structure),
      massless(static_cast<std::size_t>(structure->forest.size()), 0) {
  const std::size_t max_dim = structure->node.max_dim(), max_hinge = structure->hinge.max_dim();
  product_scratch.assign(max_dim * max_dim, 0.0);
  row_scratch.assign(max_hinge * max_dim, 0.0);
  column_scratch.assign(max_dim * max_hinge, 0.0);
  next_column_scratch.assign(max_dim * max_hinge, 0.0);
}

void require_no_massless_nodes(const ArticulatedBodyWorkspace& workspace, const char* what) {
  if (!workspace.any_massless) return;
  for (std::size_t k = 0; k < workspace.massless.size(); ++k)
    if (workspace.massless[k])
      throw std::runtime_error(std::string(what) + ": the mass matrix is singular (node " +
                               std::to_string(k + 1) + " moves no mass)");
}

// D(k)^-1 rhs = L*^-1 L^-1 rhs (D(k) of part II Eq. 32).
void solve_innovations_inertia(const ArticulatedBodyWorkspace& workspace, int k,
                               Eigen::Map<Eigen::MatrixXd> rhs) {
  const auto lower = workspace.innovations_cholesky[k];
  lower.triangularView<Eigen::Lower>().solveInPlace(rhs);
  lower.transpose().triangularView<Eigen::Upper>().solveInPlace(rhs);
}

// Factor of part II Corollary 6.1, Eq. 53: log det D(k) = 2 sum log L(i, i).
double innovations_log_determinant(const ArticulatedBodyWorkspace& workspace, int k) {
  const auto lower = workspace.innovations_cholesky[k];
  double sum = 0.0;
  for (int i = 0; i < lower.rows(); ++i) sum += std::log(lower(i, i));
  return 2.0 * sum;
}

// Part II Lemma 7, Eq. 31-33 (Riccati gather) and Lemma 8, Eq. 34-35 (E_psi weights).
void articulated_body_inertias(const SkoModel& model, ArticulatedBodyWorkspace& workspace) {
  const Forest& forest = model.forest();
  workspace.any_massless = false;
  for (const int k : forest.post_order()) {  // tips-to-base gather (Eq. 33)
    const int m = model.node_dim(k), r = model.hinge_dim(k);
    auto p = workspace.articulated_inertia[k];
    p = model.inertia(k);
    for (const int j : forest.children(k)) {
      const auto weight = model.weight(j);  // A(k, j)
      Eigen::Map<Eigen::MatrixXd> weighted(workspace.product_scratch.data(), weight.rows(),
                                           weight.cols());
      weighted.noalias() = weight * workspace.articulated_inertia_plus[j];
      p.noalias() += weighted * weight.transpose();
    }
    const auto hinge = model.hinge_map(k);
    // H P (r x m): D = (H P) H*, and G* = D^-1 (H P) because P is symmetric.
    Eigen::Map<Eigen::MatrixXd> hinge_inertia(workspace.row_scratch.data(), r, m);
    hinge_inertia.noalias() = hinge * p;
    auto d = workspace.innovations_inertia[k];
    d.noalias() = hinge_inertia * hinge.transpose();
    auto gain = workspace.kalman_gain[k];
    workspace.massless[k] = 0;
    if (!cholesky_lower(workspace.innovations_inertia[k], workspace.innovations_cholesky[k])) {
      if (!p.isZero(0.0))
        throw SingularHingeError(k, "articulated_body_inertias: D(" + std::to_string(k + 1) +
                                        ") = H P H* is not positive definite");
      // A massless node: zero gain; the unit factor keeps the solves defined (the sweeps zero
      // its innovation).
      workspace.massless[k] = 1;
      workspace.any_massless = true;
      workspace.innovations_cholesky[k].setIdentity();
      gain.setZero();
    } else {
      solve_innovations_inertia(workspace, k, hinge_inertia);  // now D^-1 H P = G*
      gain = hinge_inertia.transpose();
    }
    auto tau_bar = workspace.complement_projector[k];
    tau_bar.setIdentity();
    tau_bar.noalias() -= gain * hinge;
    workspace.articulated_inertia_plus[k].noalias() = tau_bar * p;
    const int parent = forest.parent(k);
    if (parent != Forest::kNone)
      workspace.psi_kernel.weight(k).noalias() = model.weight(k) * tau_bar;
  }
}

}  // namespace skograph

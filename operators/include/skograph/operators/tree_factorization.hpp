// The joint-space mass matrix factorized in the tree's own sparsity: M = L* D L with L unit lower
// triangular in a parents-first numbering, L(k, i) nonzero only for i an ancestor dof of k. This
// is the symmetric elimination of M in the canonical order (children before parents, part I
// section 2): eliminating a dof leaves only its ancestors as neighbours, already pairwise related,
// so L fills nothing outside M's pattern (part II section 7.4) and a solve costs O(sum of depths).
//
//   TreeMassFactorization factor(structure);   // dof parents once
//   factor.factorize(mass);                    // per configuration (dense M in, no allocation)
//   factor.solve(x);                           // M^-1 x in place
//
// The dofs of a multi-dof hinge form a chain (the first one's parent is the last dof of the
// parent node), as MuJoCo's dof_parentid.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "skograph/operators/bwa_matrix.hpp"

namespace skograph {

class TreeMassFactorization {
 public:
  explicit TreeMassFactorization(const SkoStructure& structure);
  int size() const { return static_cast<int>(parent_.size()); }
  // Per dof: its parent dof, -1 for the first dof of a base node.
  const std::vector<int>& dof_parents() const { return parent_; }
  // Dofs in the order of the elimination: children before parents.
  const std::vector<int>& elimination_order() const { return order_; }

  // Factorizes M (size x size, symmetric; only the entries (k, i) with i an ancestor-or-self dof
  // of k are read). SingularMassMatrixError naming the node when a pivot is not positive: a
  // subtree that moves no mass.
  void factorize(const Eigen::Ref<const Eigen::MatrixXd>& mass);
  // x <- M^-1 x by L^-1 D^-1 L^-*, each a walk of the ancestor chains.
  void solve(Eigen::Ref<Eigen::VectorXd> x) const;
  // D and L of the last factorize(): L(k, i) for i an ancestor of k (unit diagonal).
  double pivot(int dof) const { return factor_(dof, dof); }
  double factor_entry(int dof, int ancestor) const { return factor_(dof, ancestor); }

 private:
  std::vector<int> parent_, order_, node_of_dof_;
  Eigen::MatrixXd factor_;
};

// The fill-controlled elimination order of the KKT system [M G*; G 0] (sparse/kkt_system.hpp,
// rigid/multiplier_dynamics.hpp): M's elimination order `mass_order` (children before parents)
// with each row of G (m x n) placed right after the last-eliminated dof it touches (rows touching
// none first). Entry i is the unknown eliminated i-th: a dof 0..n-1, or n + r for row r of G.
std::vector<int> kkt_elimination_order(const std::vector<int>& mass_order,
                                       const Eigen::SparseMatrix<double>& constraints);

}  // namespace skograph

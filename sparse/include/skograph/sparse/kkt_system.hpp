// The KKT (augmented) system of a closed chain for other solvers:
//
//   K = [M  G*]    K [qdd; mu] = [tau - C; -Gdot qd],   mu = -lambda
//       [G -eI]
//
// (M the spanning tree's mass matrix, G the independent constraint rows, e >= 0 an optional
// regularization; lambda the multipliers of rigid/multiplier_dynamics.hpp, M qdd + C = tau +
// G* lambda) with its rows already in an elimination order that keeps the M block fill-free:
// M's canonical order (children before parents, part I section 2; cholmod_factorization.hpp) with
// each multiplier row placed right after the last-eliminated dof of its row of G. Eliminating a
// dof then joins only its ancestors (already pairwise related in M) and the multiplier rows not
// yet eliminated that touch it, so every fill entry of L lies in a multiplier row or column; and a
// multiplier row is eliminated after every dof it touches, its pivot -(G M^-1 G*)-like, nonzero
// where G has full row rank (LDL* without pivoting exists in this order).
//
//   KktSystem kkt(mass, mass_canonical_order, constraints, epsilon);
//   kkt.matrix();               // K permuted: row i is unknown kkt.order()[i]
//   kkt.factor_nonzeros();      // nnz(L) of LDL* in that order (symbolic, before any numbers)
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "skograph/operators/segment_sparsity.hpp"

namespace skograph {

// nnz(L) (diagonal included) of the symmetric elimination of `pattern` (both triangles or the
// lower one) in its natural order: the column counts of the symbolic factorization by the
// elimination tree (L(:, j) = A(j:, j) united with the columns of j's children minus j).
long symbolic_factor_nonzeros(const SparsityPattern& pattern);
// The same per column: nnz(L(:, j)), diagonal included.
std::vector<long> symbolic_column_counts(const SparsityPattern& pattern);
// The pattern of L itself (lower triangular, diagonal included).
SparsityPattern symbolic_factor_pattern(const SparsityPattern& pattern);

class KktSystem {
 public:
  // mass: n x n, symmetric (both triangles); mass_canonical_order: its canonical elimination order
  // (SparseExport::canonical_order); constraints: m x n. std::invalid_argument on mismatched sizes.
  KktSystem(const Eigen::SparseMatrix<double>& mass, const std::vector<int>& mass_canonical_order,
            const Eigen::SparseMatrix<double>& constraints, double epsilon = 0.0);

  int dof_count() const { return dofs_; }
  int multiplier_count() const { return multipliers_; }
  // The unknown at each row of matrix(): 0..n-1 a dof (qdd), n + i multiplier i (mu_i).
  const std::vector<int>& order() const { return order_; }
  // K in order(), both triangles.
  const Eigen::SparseMatrix<double>& matrix() const { return matrix_; }
  // [tau - C; -Gdot qd] in order().
  Eigen::VectorXd right_side(const Eigen::VectorXd& generalized_force,
                             const Eigen::VectorXd& constraint_bias) const;
  // [qdd; mu] from a solution in order().
  Eigen::VectorXd unpermute(const Eigen::VectorXd& solution) const;
  long lower_nonzeros() const;   // nnz(tril K), diagonal included
  long factor_nonzeros() const;  // nnz(L) of LDL* in order() (symbolic_factor_nonzeros)
  // nnz(L) of the M block alone in M's canonical order: equals nnz(tril M) (no fill there).
  long mass_factor_nonzeros() const { return mass_factor_nonzeros_; }

 private:
  int dofs_ = 0, multipliers_ = 0;
  std::vector<int> order_;
  Eigen::SparseMatrix<double> matrix_;
  long mass_factor_nonzeros_ = 0;
};

}  // namespace skograph

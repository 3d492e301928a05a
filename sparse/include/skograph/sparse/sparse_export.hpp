// The sparse matrices of an SKO model in the order a file or a caller wants them: what `skograph
// export` writes and the Python module returns, made once here. M = H A M A* H* (for a
// constraint-embedded model: the reduced M_R), the canonical elimination order (part I section 2:
// fill-free, part II section 7.4), the CHOLMOD analysis and factor of M in any ordering, E_A and
// A (part I Eq. 12 and 14), each renumbered by an output order.
//
//   SparseExport exported(sko, order);     // M assembled once
//   exported.mass();                       // n x n, rows in the output order
//   CholmodFactorization L = exported.factorization(MassOrdering::kCanonical);
//   L.factorize(exported.mass());          // L L* = P M P*
#pragma once

#include <Eigen/SparseCore>
#include <memory>
#include <vector>

#include "skograph/operators/sko_model.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"

namespace skograph {

// Where the entries of an SKO model go: hinge entry e to row hinge[e]; node k's row r (the scalar
// rows of E_A and A, at the node layout's offset(k) + r) to row node_rows[offset(k) + r]. Empty:
// the model's own order.
struct SparseOrder {
  std::vector<int> hinge;
  std::vector<int> node_rows;
};

class SparseExport {
 public:
  // Assembles M (sparse/sparse_assembly.hpp) and maps the canonical order. `sko` must outlive
  // this object (kernel() and resolvent() read it).
  SparseExport(const SkoModel& sko, SparseOrder order);
  const Eigen::SparseMatrix<double>& mass() const { return mass_; }
  // The canonical dof order (canonical_dof_order) in output rows: order[i] = row eliminated i-th.
  const std::vector<int>& canonical_order() const { return canonical_; }
  // nnz of M's lower triangle (diagonal included): fill = nnz(L) - this.
  long lower_nonzeros() const;
  // The CHOLMOD analysis of M's pattern in `ordering` (kCanonical: the canonical order above);
  // OrderingUnavailable for one this CHOLMOD lacks. factorize(mass()) gives the factor;
  // SingularMassMatrixError when M is not positive definite.
  std::unique_ptr<CholmodFactorization> factorization(MassOrdering ordering) const;
  // E_A and A (6 rows per node), renumbered.
  Eigen::SparseMatrix<double> kernel() const;
  Eigen::SparseMatrix<double> resolvent() const;

 private:
  const SkoModel* sko_;
  SparseOrder order_;
  Eigen::SparseMatrix<double> mass_;
  std::vector<int> canonical_;
};

}  // namespace skograph

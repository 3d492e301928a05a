#include "skograph/sparse/sparse_export.hpp"

#include <utility>

#include "skograph/sparse/sparse_assembly.hpp"

namespace skograph {

SparseExport::SparseExport(const SkoModel& sko, SparseOrder order)
    : sko_(&sko),
      order_(std::move(order)),
      mass_(sparse_mass_matrix(sko)),
      canonical_(canonical_dof_order(sko.structure())) {
  if (order_.hinge.empty()) return;
  mass_ = renumber_symmetric(mass_, order_.hinge);
  for (int& dof : canonical_) dof = order_.hinge[static_cast<std::size_t>(dof)];
}

long SparseExport::lower_nonzeros() const {
  long lower = 0;
  for (int c = 0; c < mass_.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(mass_, c); it; ++it) lower += it.row() >= c;
  return lower;
}

std::unique_ptr<CholmodFactorization> SparseExport::factorization(MassOrdering ordering) const {
  return std::make_unique<CholmodFactorization>(sparsity_pattern(mass_), ordering, canonical_);
}

Eigen::SparseMatrix<double> SparseExport::kernel() const {
  const Eigen::SparseMatrix<double> kernel = sparse_kernel(*sko_);
  return order_.node_rows.empty() ? kernel : renumber_symmetric(kernel, order_.node_rows);
}

Eigen::SparseMatrix<double> SparseExport::resolvent() const {
  const Eigen::SparseMatrix<double> resolvent = sparse_resolvent(*sko_);
  return order_.node_rows.empty() ? resolvent : renumber_symmetric(resolvent, order_.node_rows);
}

}  // namespace skograph

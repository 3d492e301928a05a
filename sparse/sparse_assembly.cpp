#include "skograph/sparse/sparse_assembly.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/bwa.hpp"

namespace skograph {

namespace {

// diag(block(k)) over the given row and column layouts, one dense block per node.
template <class Block>
Eigen::SparseMatrix<double> block_diagonal_matrix(const BlockLayout& rows, const BlockLayout& cols,
                                                  Block block) {
  Eigen::SparseMatrix<double> matrix(rows.total(), cols.total());
  Eigen::VectorXi column_sizes(cols.total());
  for (int k = 0; k < cols.count(); ++k)
    for (int c = 0; c < cols.dim(k); ++c) column_sizes(cols.offset(k) + c) = rows.dim(k);
  matrix.reserve(column_sizes);
  for (int k = 0; k < cols.count(); ++k) {
    const auto b = block(k);
    for (int c = 0; c < cols.dim(k); ++c)
      for (int r = 0; r < rows.dim(k); ++r)
        matrix.insert(rows.offset(k) + r, cols.offset(k) + c) = b(r, c);
  }
  matrix.makeCompressed();
  return matrix;
}

}  // namespace

// Part I Eq. 13.
Eigen::SparseMatrix<double> sparse_kernel(const SkoModel& model) {
  return assemble_kernel(model.kernel());
}

// Part I Lemma 5 (A(i, j) = E_A(i, i+1) ... E_A(j-1, j) along the path).
Eigen::SparseMatrix<double> sparse_resolvent(const SkoModel& model) {
  return assemble_resolvent(model.kernel());
}

// Part II section 2.1: H = diag(H(k)).
Eigen::SparseMatrix<double> sparse_hinge_map(const SkoModel& model) {
  return block_diagonal_matrix(model.structure().hinge, model.structure().node,
                               [&](int k) { return model.hinge_map(k); });
}

// Part II section 2.1: M = diag(M(k)).
Eigen::SparseMatrix<double> sparse_spatial_mass(const SkoModel& model) {
  return block_diagonal_matrix(model.structure().node, model.structure().node,
                               [&](int k) { return model.inertia(k); });
}

// Part II Lemma 4 and section 7.4: related node pairs, expanded by the hinge layout.
SparsityPattern mass_matrix_pattern(const SkoStructure& structure) {
  return mass_scalar_pattern(structure.forest, structure.hinge);
}

Eigen::SparseMatrix<double> pattern_matrix(const SparsityPattern& pattern) {
  Eigen::SparseMatrix<double> matrix(pattern.rows, pattern.cols);
  matrix.resizeNonZeros(pattern.nonzeros());
  std::copy(pattern.column_start.begin(), pattern.column_start.end(), matrix.outerIndexPtr());
  std::copy(pattern.row_index.begin(), pattern.row_index.end(), matrix.innerIndexPtr());
  std::fill(matrix.valuePtr(), matrix.valuePtr() + pattern.nonzeros(), 0.0);
  return matrix;
}

SparsityPattern sparsity_pattern(const Eigen::SparseMatrix<double>& matrix) {
  Eigen::SparseMatrix<double> compressed = matrix;
  compressed.makeCompressed();
  SparsityPattern pattern;
  pattern.rows = static_cast<int>(compressed.rows());
  pattern.cols = static_cast<int>(compressed.cols());
  pattern.column_start.assign(compressed.outerIndexPtr(),
                              compressed.outerIndexPtr() + compressed.cols() + 1);
  pattern.row_index.assign(compressed.innerIndexPtr(),
                           compressed.innerIndexPtr() + compressed.nonZeros());
  return pattern;
}

// Part I section 5.1: T M T* for the permutation matrix T of a renumbering.
Eigen::SparseMatrix<double> renumber_symmetric(const Eigen::SparseMatrix<double>& matrix,
                                               const std::vector<int>& new_index) {
  if (matrix.rows() != matrix.cols() ||
      static_cast<Eigen::Index>(new_index.size()) != matrix.rows())
    throw std::invalid_argument(
        "renumber_symmetric: expected a square matrix and one index per row");
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(matrix.nonZeros()));
  for (int c = 0; c < matrix.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(matrix, c); it; ++it)
      entries.emplace_back(new_index[static_cast<std::size_t>(it.row())],
                           new_index[static_cast<std::size_t>(c)], it.value());
  Eigen::SparseMatrix<double> result(matrix.rows(), matrix.cols());
  result.setFromTriplets(entries.begin(), entries.end());  // keeps explicit zeros
  return result;
}

Eigen::SparseMatrix<double> sparse_mass_matrix(const SkoModel& model) {
  CompositeInertiaWorkspace workspace(model.structure());
  Eigen::SparseMatrix<double> mass;
  sparse_mass_matrix(model, workspace, mass);
  return mass;
}

// Part II Algorithm 4.1-4.2 (Lemma 4, Eq. 17; off-diagonal blocks by Eq. 15), written into the
// related-pair pattern of section 7.4.
void sparse_mass_matrix(const SkoModel& model, CompositeInertiaWorkspace& workspace,
                        Eigen::SparseMatrix<double>& mass) {
  const SkoStructure& structure = model.structure();
  const Forest& forest = model.forest();
  const int dofs = structure.hinge.total();
  if (mass.rows() != dofs || mass.cols() != dofs || !mass.isCompressed()) {
    mass = pattern_matrix(mass_matrix_pattern(structure));
  } else {
    std::fill(mass.valuePtr(), mass.valuePtr() + mass.nonZeros(), 0.0);
  }
  composite_body_inertias(model, workspace);
  // Writes block (row_offset, col_offset) and its transpose into stored entries only.
  auto store = [&](int row_offset, int col_offset, const Eigen::Ref<const Eigen::MatrixXd>& block) {
    for (int c = 0; c < block.cols(); ++c)
      for (int r = 0; r < block.rows(); ++r) {
        mass.coeffRef(row_offset + r, col_offset + c) = block(r, c);
        if (row_offset != col_offset) mass.coeffRef(col_offset + c, row_offset + r) = block(r, c);
      }
  };
  for (const int k : forest.post_order()) {
    const int rk = model.hinge_dim(k), ck = structure.hinge.offset(k);
    if (rk == 0) continue;  // a 0-dof hinge owns no rows or columns
    double* column = workspace.column_scratch.data();
    double* next_column = workspace.next_column_scratch.data();
    Eigen::Map<Eigen::MatrixXd> x(column, model.node_dim(k), rk);
    x.noalias() = workspace.composite_inertia[k] * model.hinge_map(k).transpose();
    Eigen::Map<Eigen::MatrixXd> product(workspace.product_scratch.data(), rk, rk);
    product.noalias() = model.hinge_map(k) * x;
    // H R H* is symmetric up to rounding: keep its lower triangle so that M is exactly symmetric
    // (a symmetric Matrix Market file or CHOLMOD's stype -1 read the lower triangle only).
    product.triangularView<Eigen::StrictlyUpper>() = product.transpose();
    store(ck, ck, product);
    // X = A(l, k) R(k) H*(k) carried up the path: M(l, k) = H(l) X (Eq. 17).
    for (int j = k, l = forest.parent(k); l != Forest::kNone; j = l, l = forest.parent(l)) {
      Eigen::Map<const Eigen::MatrixXd> x_child(column, model.node_dim(j), rk);
      Eigen::Map<Eigen::MatrixXd> x_parent(next_column, model.node_dim(l), rk);
      x_parent.noalias() = model.weight(j) * x_child;
      const int rl = model.hinge_dim(l);
      if (rl > 0) {
        Eigen::Map<Eigen::MatrixXd> block(workspace.product_scratch.data(), rl, rk);
        block.noalias() = model.hinge_map(l) * x_parent;
        store(structure.hinge.offset(l), ck, block);
      }
      std::swap(column, next_column);
    }
  }
  // Entries outside the pattern (a matrix passed in with another pattern) were inserted.
  if (!mass.isCompressed()) mass.makeCompressed();
}

// Part II Lemma 11, Eq. 49-50.
SparseInnovationsFactors sparse_innovations_factors(const SkoModel& model) {
  ArticulatedBodyWorkspace workspace(model.structure_ptr());
  SparseInnovationsFactors factors;
  innovations_factors(model, workspace, factors);
  return factors;
}

}  // namespace skograph

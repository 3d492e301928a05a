#include "viz/factor_pattern.hpp"

#include <Eigen/SparseCore>

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "sparse/cholmod_factorization.hpp"
#include "sparse/sparse_assembly.hpp"

namespace skograph::viz {

namespace {

// The factor of one ordering: pattern in the factor's order, fill, counts.
struct Factorization {
  bool available = false;
  std::string note;
  SparsityPattern factor;  // L, rows and columns in elimination order
  SparsityPattern fill;    // entries of L outside tril(P M P*)
  double flops = 0;
};

// A symmetric positive definite matrix with M's pattern (diagonally dominant: every off-diagonal
// entry 1, the diagonal one more than its row's off-diagonal count), so that the numeric factor
// has exactly the symbolic pattern whatever the model's numbers.
Eigen::SparseMatrix<double> dominant_matrix(const SparsityPattern& mass) {
  Eigen::SparseMatrix<double> matrix = pattern_matrix(mass);
  std::vector<int> off_diagonal(mass.rows, 0);
  for (int c = 0; c < mass.cols; ++c)
    for (int e = mass.column_start[c]; e < mass.column_start[c + 1]; ++e)
      if (mass.row_index[e] != c) ++off_diagonal[c];
  for (int c = 0; c < matrix.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(matrix, c); it; ++it)
      it.valueRef() = it.row() == it.col() ? off_diagonal[c] + 1.0 : 1.0;
  return matrix;
}

// Part II section 7.4: L L* = P M P* (sparse/cholmod_factorization.hpp: CHOLMOD simplicial LL*,
// given orders without postordering). The topology's forest is numbered in post-order already,
// so its canonical dof order is the identity.
Factorization factorize(const SparsityPattern& mass, MassOrdering ordering) {
  Factorization result;
  const int n = mass.rows;
  std::vector<int> canonical_order(n);
  std::iota(canonical_order.begin(), canonical_order.end(), 0);
  if (n == 0) {
    result.available = true;
    result.factor = result.fill = SparsityPattern{0, 0, {0}, {}};
    return result;
  }
  std::optional<CholmodFactorization> cholesky;
  try {
    cholesky.emplace(mass, ordering, canonical_order);
  } catch (const OrderingUnavailable& e) {
    result.note = e.what();
    return result;
  }
  cholesky->factorize(dominant_matrix(mass));
  result.flops = cholesky->flops();
  const Eigen::SparseMatrix<double> lower = cholesky->factor();

  // The pattern of L, and of tril(P M P*) to tell the fill apart.
  result.factor.rows = result.factor.cols = n;
  result.factor.column_start.assign(1, 0);
  for (int c = 0; c < n; ++c) {
    const auto begin = result.factor.row_index.size();
    for (Eigen::SparseMatrix<double>::InnerIterator it(lower, c); it; ++it)
      result.factor.row_index.push_back(static_cast<int>(it.row()));
    std::sort(result.factor.row_index.begin() + static_cast<std::ptrdiff_t>(begin),
              result.factor.row_index.end());
    result.factor.column_start.push_back(static_cast<int>(result.factor.row_index.size()));
  }
  const std::vector<int>& permutation = cholesky->permutation();  // row i of L is dof perm[i]
  std::vector<int> position(n);
  for (int k = 0; k < n; ++k) position[permutation[k]] = k;
  std::vector<std::vector<int>> permuted(n);  // column -> rows of tril(P M P*)
  for (int c = 0; c < n; ++c)
    for (int e = mass.column_start[c]; e < mass.column_start[c + 1]; ++e) {
      const int i = position[mass.row_index[e]], j = position[c];
      if (i >= j) permuted[j].push_back(i);
    }
  result.fill.rows = result.fill.cols = n;
  result.fill.column_start.assign(1, 0);
  for (int c = 0; c < n; ++c) {
    std::sort(permuted[c].begin(), permuted[c].end());
    for (int e = result.factor.column_start[c]; e < result.factor.column_start[c + 1]; ++e) {
      const int r = result.factor.row_index[e];
      if (!std::binary_search(permuted[c].begin(), permuted[c].end(), r))
        result.fill.row_index.push_back(r);
    }
    result.fill.column_start.push_back(static_cast<int>(result.fill.row_index.size()));
  }
  result.available = true;
  return result;
}

MassOrdering ordering_named(const std::string& name) {
  const auto& names = factor_ordering_names();
  const std::optional<MassOrdering> ordering = parse_ordering(name);
  if (!ordering || std::find(names.begin(), names.end(), name) == names.end())
    throw std::invalid_argument("unknown ordering '" + name +
                                "' (expected canonical, root-first or amd)");
  return *ordering;
}

}  // namespace

const std::vector<std::string>& factor_ordering_names() {
  static const std::vector<std::string> names{"canonical", "root-first", "amd"};
  return names;
}

MatrixPicture factor_picture(const SkoTopology& topology, const std::string& ordering) {
  Factorization factorization =
      factorize(matrix_pattern(topology, MatrixKind::kMass), ordering_named(ordering));
  MatrixPicture picture;
  picture.pattern = std::move(factorization.factor);
  picture.fill = std::move(factorization.fill);
  // The canonical order is the SKO forest's own (strictly canonical) numbering: segments are
  // contiguous there and only there.
  if (ordering == "canonical")
    picture.boundaries = segment_boundaries(topology.forest, topology.hinge_layout);
  picture.title = "L, Cholesky factor of M, " + ordering + " ordering";
  picture.summary = std::to_string(picture.pattern.rows) + " x " +
                    std::to_string(picture.pattern.cols) + ", " +
                    std::to_string(picture.pattern.nonzeros()) + " nonzeros, " +
                    std::to_string(picture.fill->nonzeros()) + " fill-in";
  return picture;
}

// Counts from CHOLMOD's symbolic analysis alone (column counts give nnz(L) and the flop count):
// a root-first ordering that fills L densely costs an analysis, not an O(n^3) factorization.
// nnz(tril(P M P*)) = nnz(tril M) for every symmetric permutation, so the fill needs no factor.
std::vector<FactorFill> factor_fill_by_ordering(const SkoTopology& topology) {
  const SparsityPattern mass = matrix_pattern(topology, MatrixKind::kMass);
  long lower_nonzeros = 0;
  for (int c = 0; c < mass.cols; ++c)
    for (int e = mass.column_start[c]; e < mass.column_start[c + 1]; ++e)
      if (mass.row_index[e] >= c) ++lower_nonzeros;
  std::vector<int> canonical_order(static_cast<std::size_t>(mass.rows));
  std::iota(canonical_order.begin(), canonical_order.end(), 0);  // the forest is post-ordered
  std::vector<FactorFill> table;
  for (MassOrdering ordering : {MassOrdering::kCanonical, MassOrdering::kRootFirst,
                                MassOrdering::kAmd, MassOrdering::kMetis}) {
    FactorFill row;
    row.ordering = ordering_name(ordering);
    if (mass.rows == 0) {
      row.available = true;
    } else {
      try {
        const CholmodFactorization analysis(mass, ordering, canonical_order);
        row.available = true;
        row.nonzeros = analysis.factor_nonzeros();
        row.fill = row.nonzeros - lower_nonzeros;
        row.flops = analysis.flops();
      } catch (const OrderingUnavailable& e) {
        row.note = e.what();
      }
    }
    table.push_back(row);
  }
  return table;
}

}  // namespace skograph::viz

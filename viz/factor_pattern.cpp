#include "viz/factor_pattern.hpp"

#include <cholmod.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>

namespace skograph::viz {

namespace {

// The CHOLMOD workspace of one factorization (cholmod_start / cholmod_finish).
class CholmodCommon {
 public:
  CholmodCommon() {
    cholmod_start(&common_);
    common_.print = 0;
    common_.error_handler = nullptr;
  }
  CholmodCommon(const CholmodCommon&) = delete;
  CholmodCommon& operator=(const CholmodCommon&) = delete;
  ~CholmodCommon() { cholmod_finish(&common_); }
  cholmod_common* get() { return &common_; }

 private:
  cholmod_common common_;
};

struct SparseDeleter {
  cholmod_common* common;
  void operator()(cholmod_sparse* matrix) const { cholmod_free_sparse(&matrix, common); }
};
struct FactorDeleter {
  cholmod_common* common;
  void operator()(cholmod_factor* factor) const { cholmod_free_factor(&factor, common); }
};
using CholmodSparse = std::unique_ptr<cholmod_sparse, SparseDeleter>;
using CholmodFactor = std::unique_ptr<cholmod_factor, FactorDeleter>;

// The factor of one ordering: pattern in the factor's order, fill, counts.
struct Factorization {
  bool available = false;
  std::string note;
  SparsityPattern factor;              // L, rows and columns in elimination order
  SparsityPattern fill;                // entries of L outside tril(P M P*)
  std::vector<int> elimination_order;  // position -> row of M
  double flops = 0;
};

// A symmetric positive definite matrix with M's pattern (diagonally dominant: every off-diagonal
// entry 1, the diagonal one more than its row's off-diagonal count), lower triangle stored.
CholmodSparse dominant_matrix(const SparsityPattern& mass, cholmod_common* common) {
  const int n = mass.rows;
  std::vector<int> off_diagonal(n, 0);
  long lower_count = 0;
  for (int c = 0; c < n; ++c)
    for (int e = mass.column_start[c]; e < mass.column_start[c + 1]; ++e) {
      const int r = mass.row_index[e];
      if (r != c) ++off_diagonal[r];
      if (r >= c) ++lower_count;
    }
  CholmodSparse matrix(cholmod_allocate_sparse(n, n, static_cast<size_t>(lower_count), 1, 1, -1,
                                               CHOLMOD_REAL, common),
                       SparseDeleter{common});
  if (!matrix) throw std::runtime_error("CHOLMOD: out of memory for the mass matrix");
  auto* column_start = static_cast<int*>(matrix->p);
  auto* row = static_cast<int*>(matrix->i);
  auto* value = static_cast<double*>(matrix->x);
  int k = 0;
  for (int c = 0; c < n; ++c) {
    column_start[c] = k;
    for (int e = mass.column_start[c]; e < mass.column_start[c + 1]; ++e) {
      const int r = mass.row_index[e];
      if (r < c) continue;
      row[k] = r;
      value[k] = r == c ? off_diagonal[c] + 1.0 : 1.0;
      ++k;
    }
  }
  column_start[n] = k;
  return matrix;
}

// Part II section 7.4: L L* = P M P* by CHOLMOD's simplicial LL* (every structural entry kept,
// pitfalls.md), with the given order (no postordering, so the order is exactly ours) or AMD /
// METIS.
Factorization factorize(const SparsityPattern& mass, const std::string& ordering) {
  Factorization result;
  const int n = mass.rows;
  std::vector<int> given(n);
  std::iota(given.begin(), given.end(), 0);
  if (ordering == "root-first") std::reverse(given.begin(), given.end());
  const bool is_given = ordering == "canonical" || ordering == "root-first";
  if (!is_given && ordering != "amd" && ordering != "metis")
    throw std::invalid_argument("unknown ordering '" + ordering + "'");

  CholmodCommon workspace;
  cholmod_common* common = workspace.get();
  common->nmethods = 1;
  common->method[0].ordering =
      is_given ? CHOLMOD_GIVEN : (ordering == "amd" ? CHOLMOD_AMD : CHOLMOD_METIS);
  common->postorder = is_given ? 0 : 1;
  common->supernodal = CHOLMOD_SIMPLICIAL;
  common->final_ll = 1;
  if (n == 0) {
    result.available = true;
    result.factor = result.fill = SparsityPattern{0, 0, {0}, {}};
    return result;
  }
  const CholmodSparse matrix = dominant_matrix(mass, common);
  const CholmodFactor factor(
      cholmod_analyze_p(matrix.get(), is_given ? given.data() : nullptr, nullptr, 0, common),
      FactorDeleter{common});
  if (!factor || common->status < CHOLMOD_OK) {
    result.note = ordering == "metis" ? "this CHOLMOD has no METIS" : "CHOLMOD analysis failed";
    return result;
  }
  result.flops = common->fl;
  if (!cholmod_factorize(matrix.get(), factor.get(), common) || common->status != CHOLMOD_OK)
    throw std::runtime_error("CHOLMOD could not factor the mass matrix pattern");
  const auto* perm = static_cast<const int*>(factor->Perm);
  result.elimination_order.assign(perm, perm + n);
  const CholmodSparse lower(cholmod_factor_to_sparse(factor.get(), common), SparseDeleter{common});
  if (!lower) throw std::runtime_error("CHOLMOD: out of memory for the factor");

  // The pattern of L, and of tril(P M P*) to tell the fill apart.
  const auto* column_start = static_cast<const int*>(lower->p);
  const auto* row = static_cast<const int*>(lower->i);
  result.factor.rows = result.factor.cols = n;
  result.factor.column_start.assign(column_start, column_start + n + 1);
  result.factor.row_index.assign(row, row + column_start[n]);
  for (int c = 0; c < n; ++c)
    std::sort(result.factor.row_index.begin() + column_start[c],
              result.factor.row_index.begin() + column_start[c + 1]);
  std::vector<int> position(n);
  for (int k = 0; k < n; ++k) position[result.elimination_order[k]] = k;
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

}  // namespace

const std::vector<std::string>& factor_ordering_names() {
  static const std::vector<std::string> names{"canonical", "root-first", "amd"};
  return names;
}

MatrixPicture factor_picture(const SkoTopology& topology, const std::string& ordering) {
  const auto& names = factor_ordering_names();
  if (std::find(names.begin(), names.end(), ordering) == names.end())
    throw std::invalid_argument("unknown ordering '" + ordering +
                                "' (expected canonical, root-first or amd)");
  Factorization factorization = factorize(matrix_pattern(topology, MatrixKind::kMass), ordering);
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

std::vector<FactorFill> factor_fill_by_ordering(const SkoTopology& topology) {
  const SparsityPattern mass = matrix_pattern(topology, MatrixKind::kMass);
  std::vector<FactorFill> table;
  for (const std::string ordering : {"canonical", "root-first", "amd", "metis"}) {
    const Factorization factorization = factorize(mass, ordering);
    FactorFill row;
    row.ordering = ordering;
    row.available = factorization.available;
    row.note = factorization.note;
    row.nonzeros = factorization.factor.nonzeros();
    row.fill = factorization.fill.nonzeros();
    row.flops = factorization.flops;
    table.push_back(row);
  }
  return table;
}

}  // namespace skograph::viz

#include "skograph/viz/factor_pattern.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/sparse_assembly.hpp"

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

// The pattern of L from the pattern of C = P M P* alone, without numbers (so no cancellation and
// no O(n^3) work for a dense factor): the elimination tree by ancestor path compression, then row k
// of L is the set of nodes met walking up the elimination tree from each j < k with C(k, j) != 0
// until k or a node already met for row k (the row subtree of k). O(nnz(L)) after the tree.
SparsityPattern symbolic_factor(const std::vector<std::vector<int>>& upper_rows_of_column) {
  const int n = static_cast<int>(upper_rows_of_column.size());
  std::vector<int> parent(n, -1), ancestor(n, -1);
  for (int k = 0; k < n; ++k)
    for (int i : upper_rows_of_column[k])
      for (int r = i; r != -1 && r < k;) {
        const int next = ancestor[r];
        ancestor[r] = k;
        if (next == -1) parent[r] = k;
        r = next;
      }
  std::vector<std::vector<int>> rows_of_column(n);
  for (int j = 0; j < n; ++j) rows_of_column[j].push_back(j);
  std::vector<int> marked(n, -1);
  for (int k = 0; k < n; ++k) {
    marked[k] = k;
    for (int i : upper_rows_of_column[k])
      for (int j = i; j != -1 && marked[j] != k; j = parent[j]) {
        marked[j] = k;
        rows_of_column[j].push_back(k);  // k increases, so each column stays sorted
      }
  }
  SparsityPattern factor;
  factor.rows = factor.cols = n;
  factor.column_start.assign(1, 0);
  for (int j = 0; j < n; ++j) {
    factor.row_index.insert(factor.row_index.end(), rows_of_column[j].begin(),
                            rows_of_column[j].end());
    std::vector<int>().swap(rows_of_column[j]);
    factor.column_start.push_back(static_cast<int>(factor.row_index.size()));
  }
  return factor;
}

// Part II section 7.4: L L* = P M P* (sparse/cholmod_factorization.hpp: CHOLMOD's analysis gives
// P and the counts). The topology's forest is numbered in post-order already, so its canonical dof
// order is the identity.
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
  if (cholesky->factor_nonzeros() > kMaxFactorPictureNonzeros)
    throw std::invalid_argument(
        "L of M under the " + std::string(ordering_name(ordering)) + " ordering would have " +
        std::to_string(cholesky->factor_nonzeros()) + " nonzeros, more than the " +
        std::to_string(kMaxFactorPictureNonzeros) +
        " a picture of L is made from (the canonical ordering has no fill)");
  result.flops = cholesky->flops();

  // C = P M P*: row i of L is dof perm[i]. Its strictly upper entries by column (for the tree) and
  // its lower triangle by column (to tell the fill apart).
  const std::vector<int>& permutation = cholesky->permutation();
  std::vector<int> position(n);
  for (int k = 0; k < n; ++k) position[permutation[k]] = k;
  std::vector<std::vector<int>> upper(n), lower(n);
  for (int c = 0; c < n; ++c)
    for (int e = mass.column_start[c]; e < mass.column_start[c + 1]; ++e) {
      const int i = position[mass.row_index[e]], j = position[c];
      if (i < j) upper[j].push_back(i);
      if (i >= j) lower[j].push_back(i);
    }
  result.factor = symbolic_factor(upper);
  if (result.factor.nonzeros() != cholesky->factor_nonzeros())
    throw std::logic_error("symbolic factor disagrees with CHOLMOD's column counts");
  result.fill.rows = result.fill.cols = n;
  result.fill.column_start.assign(1, 0);
  for (int c = 0; c < n; ++c) {
    std::sort(lower[c].begin(), lower[c].end());
    for (int e = result.factor.column_start[c]; e < result.factor.column_start[c + 1]; ++e) {
      const int r = result.factor.row_index[e];
      if (!std::binary_search(lower[c].begin(), lower[c].end(), r))
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

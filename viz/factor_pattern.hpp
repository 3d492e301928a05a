// The Cholesky factor L of the mass matrix M under a chosen elimination ordering, as a pattern
// to draw, with its fill-in: the entries of L outside the lower triangle of the permuted M.
// sparse/cholmod_factorization.hpp (CHOLMOD simplicial LL', which keeps every structural entry,
// pitfalls.md) factors a matrix with M's pattern.
//
// Part II section 7.4 and pitfalls.md: under a canonical numbering (parent after child) the
// factor of a tree's M has no fill at all, so pattern(L) = tril(M); the root-first (reversed)
// numbering fills, and AMD finds its own order.
#pragma once

#include <string>
#include <vector>

#include "viz/matrix_patterns.hpp"

namespace skograph::viz {

// The orderings `--ordering` accepts: "canonical", "root-first", "amd".
const std::vector<std::string>& factor_ordering_names();

// L of M (the topology's pattern; numbers from a diagonally dominant matrix with that pattern, so
// nothing cancels) under `ordering`, rows and columns in the factor's order. Segment boundaries
// are drawn only when that order is the strictly canonical one. Throws std::invalid_argument for
// an unknown ordering.
MatrixPicture factor_picture(const SkoTopology& topology, const std::string& ordering);

struct FactorFill {
  std::string ordering;
  bool available = false;  // false when CHOLMOD lacks the ordering (note says why)
  long nonzeros = 0;       // nnz(L)
  long fill = 0;           // nnz(L) - nnz(tril(P M P*))
  double flops = 0;        // of the numeric factorization, counted by the analysis
  std::string note;
};
// nnz(L), fill and flops for every ordering CHOLMOD offers (canonical, root-first, amd, metis),
// from the symbolic analysis: no numeric factorization, so a dense root-first L costs no O(n^3).
std::vector<FactorFill> factor_fill_by_ordering(const SkoTopology& topology);

}  // namespace skograph::viz

// The Cholesky factor L of the mass matrix M under a chosen elimination ordering, as a pattern
// to draw, with its fill-in: the entries of L outside the lower triangle of the permuted M.
// sparse/cholmod_factorization.hpp (CHOLMOD's analysis) gives the ordering and the counts; the
// pattern of L is symbolic (elimination tree and row subtrees), so nothing cancels and a dense
// factor costs O(nnz(L)), not O(n^3).
//
// Part II section 7.4 and pitfalls.md: under a canonical numbering (parent after child) the
// factor of a tree's M has no fill at all, so pattern(L) = tril(M); the root-first (reversed)
// numbering fills, and AMD finds its own order.
#pragma once

#include <string>
#include <vector>

#include "skograph/viz/matrix_patterns.hpp"

namespace skograph::viz {

// The orderings `--ordering` accepts: "canonical", "root-first", "amd".
const std::vector<std::string>& factor_ordering_names();

// Pictures of L stop at this many nonzeros (400 MB of row indices): a root-first ordering of a
// branched 10^5-node tree would fill more than 10^9.
inline constexpr long kMaxFactorPictureNonzeros = 100'000'000;

// The pattern of L of M (the topology's pattern) under `ordering`, rows and columns in the
// factor's order. Segment boundaries are drawn only when that order is the strictly canonical one.
// Throws std::invalid_argument for an unknown ordering or an L of more than
// kMaxFactorPictureNonzeros nonzeros (the message says how many).
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

// Sparsity structure of E_A, A and the mass matrix M by serial segments (part II section 7), plus
// node-level and scalar-level nonzero patterns, as plain data for the rendering and sparse layers.
//
// Everything here depends on the forest (and the block layouts) only, never on weight values: a
// pattern entry is a structural nonzero. With generic weights nothing cancels, so these are the
// nonzero patterns of the actual matrices; a particular model can have extra numerical zeros
// (e.g. a zero weight, or a hinge block with r_k = 0, which is empty).
//
// Segments are the forest's serial segments (graph/forest.hpp: segment ids follow post-order, a
// parent segment's id exceeds its children's). A segment pair (i, j) means block row segment i,
// block column segment j.
#pragma once

#include <cstdint>
#include <vector>

#include "skograph/graph/forest.hpp"
#include "skograph/operators/block_layout.hpp"

namespace skograph {

// The kind of the block of one segment pair.
enum class SegmentBlock : std::uint8_t {
  kZero,       // every entry zero (unrelated segments; for E also related non-adjacent ones)
  kSegment,    // the diagonal block of one segment: for E the segment's own SKO operator E_Aj
               // (only the edges inside the segment; zero for a one-node segment, which then
               // reports kZero), for A the segment's SPO A_j (dense lower triangle in canonical
               // order), for M a dense block
  kConnector,  // E only, j a child segment of i: the single block A(1_i, n_j) from the tip of
               // segment i to the base of segment j (part II Eq. 62)
  kRelated,    // A and M, i an ancestor segment of j (and, for M, j of i): a dense block
               // (part II Eq. 63 and section 7.4)
};

// Segment ids i of the forest; O(1) each.
SegmentBlock kernel_segment_block(const Forest& forest, int i, int j);     // part II Eq. 61-62
SegmentBlock resolvent_segment_block(const Forest& forest, int i, int j);  // part II Eq. 63
SegmentBlock mass_segment_block(const Forest& forest, int i, int j);       // part II section 7.4

// The three segment_count() x segment_count() tables, row-major (O(segments^2) memory).
struct SegmentSparsity {
  int segment_count = 0;
  std::vector<SegmentBlock> kernel, resolvent, mass;
  SegmentBlock kernel_block(int i, int j) const { return kernel[index(i, j)]; }
  SegmentBlock resolvent_block(int i, int j) const { return resolvent[index(i, j)]; }
  SegmentBlock mass_block(int i, int j) const { return mass[index(i, j)]; }

 private:
  std::size_t index(int i, int j) const { return static_cast<std::size_t>(i) * segment_count + j; }
};
SegmentSparsity segment_sparsity(const Forest& forest);

// A nonzero pattern in compressed sparse column form (no values): the rows of column c are
// row_index[column_start[c] .. column_start[c + 1]), increasing.
struct SparsityPattern {
  int rows = 0;
  int cols = 0;
  std::vector<int> column_start;  // cols + 1 entries
  std::vector<int> row_index;
  int nonzeros() const { return static_cast<int>(row_index.size()); }
  bool contains(int row, int col) const;  // O(log column length)
};

// Node-level (n x n, one entry per nonzero block, node-id order) patterns.
// E_A: (parent(k), k) for every non-base node k (part I Eq. 13).
SparsityPattern kernel_node_pattern(const Forest& forest);
// A: (i, j) for i an ancestor-or-self of j (part I Lemma 5). O(sum of depths) entries.
SparsityPattern resolvent_node_pattern(const Forest& forest);
// M = H A M A* H*: (i, j) for related nodes i, j (part II Lemma 4 and section 7.4).
SparsityPattern mass_node_pattern(const Forest& forest);

// Scalar-level patterns: the node patterns expanded by a block layout (node layout for E_A and A,
// hinge layout for M; nodes with r_k = 0 contribute nothing). The layout must have one block per
// node (std::invalid_argument otherwise). Off-diagonal blocks are dense; the
// identity diagonal blocks of A contribute their diagonal only, those of M are dense.
SparsityPattern kernel_scalar_pattern(const Forest& forest, const BlockLayout& node);
SparsityPattern resolvent_scalar_pattern(const Forest& forest, const BlockLayout& node);
SparsityPattern mass_scalar_pattern(const Forest& forest, const BlockLayout& hinge);

}  // namespace skograph

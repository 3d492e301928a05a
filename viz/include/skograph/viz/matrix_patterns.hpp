// The matrices of a digraph's SKO model to draw, as nonzero patterns straight from the topology
// (operators/segment_sparsity.hpp): E (the BWA kernel E_A), A (its 1-resolvent) and the
// joint-space mass matrix M, over the SKO forest numbered strictly canonically.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "skograph/graph/analysis.hpp"
#include "skograph/graph/forest.hpp"
#include "skograph/operators/block_layout.hpp"
#include "skograph/operators/bwa_matrix.hpp"
#include "skograph/operators/segment_sparsity.hpp"

namespace skograph::viz {

// M, E, A as in the papers; L is the Cholesky factor of M (drawn from sparse/).
enum class MatrixKind { kMass, kKernel, kResolvent, kFactor };

// "M", "E", "A", "L".
const char* matrix_kind_name(MatrixKind kind);
std::optional<MatrixKind> parse_matrix_kind(const std::string& name);
// One line of plain words for a picture's caption: what the matrix says about the bodies.
const char* matrix_plain_words(MatrixKind kind);
// "joint-space mass matrix", "SKO kernel E_A", "SPO A = (I - E_A)^-1", "Cholesky factor of M".
const char* matrix_description(MatrixKind kind);

// The SKO forest of part I section 2 (the spanning tree without its root, the inertial frame or a
// virtual root), its node k being the body with strictly canonical number k + 1, so that every
// serial segment is a contiguous range of rows (part II section 7).
struct SkoTopology {
  Forest forest;
  std::vector<int> tree_node;  // forest node -> spanning-tree node
  BlockLayout node_layout;     // m_k: rows of node k in E and A
  BlockLayout hinge_layout;    // r_k: rows of node k in M
};

// `node_dims` and `hinge_dims` give m and r per digraph node (entries of the root are ignored);
// empty vectors mean one row per node (a digraph without a model). Throws std::invalid_argument
// when there is no spanning tree or a dimension vector has the wrong size or a negative entry.
SkoTopology sko_topology(const Digraph& graph, const DigraphAnalysis& analysis,
                         const std::vector<int>& node_dims = {},
                         const std::vector<int>& hinge_dims = {});

// The topology of an SKO model's own structure (e.g. a constraint-embedded model: aggregated
// nodes of dimension 6|S|, hinges of dimension n_R), renumbered to its forest's post-order so that
// segments are contiguous (part II section 7.1); tree_node maps back to the structure's node ids.
SkoTopology sko_topology(const SkoStructure& structure);

// The scalar pattern of M (part II section 7.4: related pairs), E (part I Eq. 13) or A (part I
// Lemma 5). Not for L (std::invalid_argument).
SparsityPattern matrix_pattern(const SkoTopology& topology, MatrixKind kind);
// The layout of the matrix's rows: hinges for M and L, nodes for E and A.
const BlockLayout& matrix_layout(const SkoTopology& topology, MatrixKind kind);

// Row offsets where a serial segment of `forest` begins, increasing, without 0 and without
// duplicates (segments of zero rows share an offset). The forest's node ids must be its
// post-order (as in SkoTopology), so that each segment is a contiguous range.
std::vector<int> segment_boundaries(const Forest& forest, const BlockLayout& layout);

// What a spy plot of one matrix shows: its pattern, the fill-in (L only), the segment boundaries
// (when the rows are in the strictly canonical order), a title such as
// "M, joint-space mass matrix" and a summary such as "4 x 4, 16 nonzeros".
struct MatrixPicture {
  SparsityPattern pattern;
  std::optional<SparsityPattern> fill;
  std::vector<int> boundaries;
  std::string title;
  std::string summary;
};

// `ordering` matters for L only (see viz/factor_pattern.hpp).
MatrixPicture matrix_picture(const SkoTopology& topology, MatrixKind kind,
                             const std::string& ordering = "canonical");

// The lower triangle (row >= column) of a pattern.
SparsityPattern lower_triangle(const SparsityPattern& pattern);

}  // namespace skograph::viz

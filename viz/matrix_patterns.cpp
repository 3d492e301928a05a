#include "skograph/viz/matrix_patterns.hpp"

#include <stdexcept>

#include "skograph/graph/numbering.hpp"
#include "skograph/viz/factor_pattern.hpp"

namespace skograph::viz {

const char* matrix_kind_name(MatrixKind kind) {
  switch (kind) {
    case MatrixKind::kMass:
      return "M";
    case MatrixKind::kKernel:
      return "E";
    case MatrixKind::kResolvent:
      return "A";
    case MatrixKind::kFactor:
      return "L";
  }
  return "?";
}

const char* matrix_description(MatrixKind kind) {
  switch (kind) {
    case MatrixKind::kMass:
      return "joint-space mass matrix";
    case MatrixKind::kKernel:
      return "SKO kernel E_A";
    case MatrixKind::kResolvent:
      return "SPO A = (I - E_A)^-1";
    case MatrixKind::kFactor:
      return "Cholesky factor of M";
  }
  return "?";
}

const char* matrix_plain_words(MatrixKind kind) {
  switch (kind) {
    case MatrixKind::kMass:
      return "entry (i, j) is nonzero when joint i is joint j, its ancestor or its descendant";
    case MatrixKind::kKernel:
      return "E_A links each body to its parent: a 6 x 6 block per joint, below the diagonal";
    case MatrixKind::kResolvent:
      return "A = (I - E_A)^-1: each body's row is nonzero at itself and the bodies outboard of it";
    case MatrixKind::kFactor:
      return "M = L L*; red entries are fill-in: zero in M, nonzero in L";
  }
  return "?";
}

std::optional<MatrixKind> parse_matrix_kind(const std::string& name) {
  for (MatrixKind kind :
       {MatrixKind::kMass, MatrixKind::kKernel, MatrixKind::kResolvent, MatrixKind::kFactor})
    if (name == matrix_kind_name(kind)) return kind;
  return std::nullopt;
}

// Part I section 2: removing the inertial root of the spanning tree leaves the SKO forest; its
// strictly canonical numbering (part I Fig. 2d) is the spanning tree's with the root (numbered
// last) dropped.
SkoTopology sko_topology(const Digraph& graph, const DigraphAnalysis& analysis,
                         const std::vector<int>& node_dims, const std::vector<int>& hinge_dims) {
  const SpanningTree& spanning = analysis.spanning;
  if (!spanning.exists)
    throw std::invalid_argument("the digraph has no spanning tree (" + spanning.reason + ")");
  for (const std::vector<int>* dims : {&node_dims, &hinge_dims}) {
    if (!dims->empty() && static_cast<int>(dims->size()) != graph.node_count())
      throw std::invalid_argument("sko_topology: " + std::to_string(dims->size()) +
                                  " dimensions for " + std::to_string(graph.node_count()) +
                                  " nodes");
    for (int d : *dims)
      if (d < 0) throw std::invalid_argument("sko_topology: negative dimension");
  }
  const Forest& tree = spanning.tree;
  const Permutation& number = analysis.strictly_canonical;
  const int bodies = tree.size() - 1;
  SkoTopology topology;
  topology.tree_node.assign(bodies, Forest::kNone);
  std::vector<int> parent(bodies, Forest::kNone), node_dim(bodies, 1), hinge_dim(bodies, 1);
  for (int k = 0; k < tree.size(); ++k) {
    if (k == spanning.root) continue;
    const int id = number[k];
    topology.tree_node[id] = k;
    const int p = tree.parent(k);
    parent[id] = p == spanning.root ? Forest::kNone : number[p];
    if (!node_dims.empty()) node_dim[id] = node_dims[k];
    if (!hinge_dims.empty()) hinge_dim[id] = hinge_dims[k];
  }
  topology.forest = Forest(std::move(parent));
  topology.node_layout = BlockLayout(node_dim);
  topology.hinge_layout = BlockLayout(hinge_dim);
  return topology;
}

// Part I section 2: a forest's depth-first post-order is a strictly canonical numbering.
SkoTopology sko_topology(const SkoStructure& structure) {
  const Forest& forest = structure.forest;
  const int n = forest.size();
  SkoTopology topology;
  topology.tree_node.assign(n, Forest::kNone);
  std::vector<int> parent(n, Forest::kNone), node_dim(n), hinge_dim(n);
  for (int k = 0; k < n; ++k) {
    const int id = forest.post_index(k);
    topology.tree_node[id] = k;
    const int p = forest.parent(k);
    parent[id] = p == Forest::kNone ? Forest::kNone : forest.post_index(p);
    node_dim[id] = structure.node.dim(k);
    hinge_dim[id] = structure.hinge.dim(k);
  }
  topology.forest = Forest(std::move(parent));
  topology.node_layout = BlockLayout(node_dim);
  topology.hinge_layout = BlockLayout(hinge_dim);
  return topology;
}

SparsityPattern matrix_pattern(const SkoTopology& topology, MatrixKind kind) {
  switch (kind) {
    case MatrixKind::kMass:
      return mass_scalar_pattern(topology.forest, topology.hinge_layout);
    case MatrixKind::kKernel:
      return kernel_scalar_pattern(topology.forest, topology.node_layout);
    case MatrixKind::kResolvent:
      return resolvent_scalar_pattern(topology.forest, topology.node_layout);
    case MatrixKind::kFactor:
      break;
  }
  throw std::invalid_argument("matrix_pattern: L comes from a factorization, not the topology");
}

const BlockLayout& matrix_layout(const SkoTopology& topology, MatrixKind kind) {
  return kind == MatrixKind::kKernel || kind == MatrixKind::kResolvent ? topology.node_layout
                                                                       : topology.hinge_layout;
}

// Part II section 7.1: segments are contiguous ranges of a strictly canonical numbering.
std::vector<int> segment_boundaries(const Forest& forest, const BlockLayout& layout) {
  if (layout.count() != forest.size())
    throw std::invalid_argument("segment_boundaries: the layout has " +
                                std::to_string(layout.count()) + " blocks for " +
                                std::to_string(forest.size()) + " nodes");
  for (int k = 0; k < forest.size(); ++k)
    if (forest.post_index(k) != k)
      throw std::invalid_argument(
          "segment_boundaries: the node ids are not the forest's post-order");
  std::vector<int> boundaries;
  for (int s = 0; s < forest.segment_count(); ++s) {
    const int offset = layout.offset(forest.segment_begin(s));
    if (offset > 0 && (boundaries.empty() || boundaries.back() < offset))
      boundaries.push_back(offset);
  }
  if (!boundaries.empty() && boundaries.back() == layout.total()) boundaries.pop_back();
  return boundaries;
}

MatrixPicture matrix_picture(const SkoTopology& topology, MatrixKind kind,
                             const std::string& ordering) {
  MatrixPicture picture;
  if (kind == MatrixKind::kFactor) {
    picture = factor_picture(topology, ordering);
  } else {
    picture.pattern = matrix_pattern(topology, kind);
    picture.boundaries = segment_boundaries(topology.forest, matrix_layout(topology, kind));
    picture.title = std::string(matrix_kind_name(kind)) + ", " + matrix_description(kind);
    picture.summary = std::to_string(picture.pattern.rows) + " x " +
                      std::to_string(picture.pattern.cols) + ", " +
                      std::to_string(picture.pattern.nonzeros()) +
                      " nonzeros, rows in strictly "
                      "canonical order";
  }
  return picture;
}

SparsityPattern lower_triangle(const SparsityPattern& pattern) {
  SparsityPattern lower;
  lower.rows = pattern.rows;
  lower.cols = pattern.cols;
  lower.column_start.assign(1, 0);
  lower.column_start.reserve(pattern.cols + 1);
  for (int c = 0; c < pattern.cols; ++c) {
    for (int e = pattern.column_start[c]; e < pattern.column_start[c + 1]; ++e)
      if (pattern.row_index[e] >= c) lower.row_index.push_back(pattern.row_index[e]);
    lower.column_start.push_back(static_cast<int>(lower.row_index.size()));
  }
  return lower;
}

}  // namespace skograph::viz

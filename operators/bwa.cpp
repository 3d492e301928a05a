#include "skograph/operators/bwa.hpp"

#include <Eigen/LU>
#include <stdexcept>
#include <string>

namespace skograph {
namespace {

using Triplet = Eigen::Triplet<double>;

// Appends the dense block `value` at (row0, col0) to the triplet list.
template <typename Block>
void append_block(const Block& value, int row0, int col0, std::vector<Triplet>& triplets) {
  for (Eigen::Index c = 0; c < value.cols(); ++c)
    for (Eigen::Index r = 0; r < value.rows(); ++r)
      triplets.emplace_back(row0 + static_cast<int>(r), col0 + static_cast<int>(c), value(r, c));
}

void check_permutation(std::span<const int> new_index, int n) {
  if (static_cast<int>(new_index.size()) != n)
    throw std::invalid_argument("renumbering has " + std::to_string(new_index.size()) +
                                " entries for " + std::to_string(n) + " nodes");
  std::vector<char> seen(n, 0);
  for (int k = 0; k < n; ++k) {
    const int target = new_index[k];
    if (target < 0 || target >= n || seen[target])
      throw std::invalid_argument("renumbering is not a permutation (node " +
                                  std::to_string(k + 1) + " -> " + std::to_string(target + 1) +
                                  ")");
    seen[target] = 1;
  }
}

}  // namespace

// Part I Eq. 13.
Eigen::SparseMatrix<double> assemble_kernel(const BwaMatrix& kernel) {
  const BlockLayout& layout = kernel.layout();
  const Forest& forest = kernel.forest();
  std::vector<Triplet> triplets;
  std::size_t count = 0;
  for (int k = 0; k < kernel.size(); ++k) count += kernel.weight(k).size();
  triplets.reserve(count);
  for (int k = 0; k < kernel.size(); ++k) {
    const int p = forest.parent(k);
    if (p != Forest::kNone)
      append_block(kernel.weight(k), layout.offset(p), layout.offset(k), triplets);
  }
  Eigen::SparseMatrix<double> e(layout.total(), layout.total());
  e.setFromTriplets(triplets.begin(), triplets.end());
  return e;
}

// Part I Lemma 5 (Eq. 18) with the semi-group property of Lemma 6 (Eq. 19).
Eigen::SparseMatrix<double> assemble_resolvent(const BwaMatrix& kernel) {
  const BlockLayout& layout = kernel.layout();
  const Forest& forest = kernel.forest();
  std::size_t count = 0;
  for (int j = 0; j < kernel.size(); ++j)
    for (int i = j; i != Forest::kNone; i = forest.parent(i))
      count += static_cast<std::size_t>(layout.dim(i)) * layout.dim(j);
  std::vector<Triplet> triplets;
  triplets.reserve(count);
  // path holds A(i, j) for the current ancestor i; next receives A(parent(i), j).
  Eigen::MatrixXd path, next;
  for (int j = 0; j < kernel.size(); ++j) {
    const int col0 = layout.offset(j);
    for (int r = 0; r < layout.dim(j); ++r) triplets.emplace_back(col0 + r, col0 + r, 1.0);
    int i = forest.parent(j);
    if (i == Forest::kNone) continue;
    path = kernel.weight(j);
    append_block(path, layout.offset(i), col0, triplets);
    for (int p = forest.parent(i); p != Forest::kNone; i = p, p = forest.parent(p)) {
      next.noalias() = kernel.weight(i) * path;
      path.swap(next);
      append_block(path, layout.offset(p), col0, triplets);
    }
  }
  Eigen::SparseMatrix<double> a(layout.total(), layout.total());
  a.setFromTriplets(triplets.begin(), triplets.end());
  return a;
}

// Part I Lemma 5, Eq. 18.
Eigen::MatrixXd resolvent_block(const BwaMatrix& kernel, int i, int j) {
  const BlockLayout& layout = kernel.layout();
  const Forest& forest = kernel.forest();
  if (i == j) return Eigen::MatrixXd::Identity(layout.dim(i), layout.dim(i));
  if (!forest.is_ancestor(i, j)) return Eigen::MatrixXd::Zero(layout.dim(i), layout.dim(j));
  Eigen::MatrixXd path = kernel.weight(j), next;
  for (int k = forest.parent(j); k != i; k = forest.parent(k)) {
    next.noalias() = kernel.weight(k) * path;
    path.swap(next);
  }
  return path;
}

// Part I section 5.1: the renumbered tree (parent(new_index[k]) = new_index[parent(k)]).
std::shared_ptr<const SkoStructure> renumber_structure(const SkoStructure& structure,
                                                       std::span<const int> new_index) {
  const int n = structure.size();
  check_permutation(new_index, n);
  std::vector<int> parent(n), node_dims(n), hinge_dims(n);
  for (int k = 0; k < n; ++k) {
    const int p = structure.forest.parent(k);
    parent[new_index[k]] = p == Forest::kNone ? Forest::kNone : new_index[p];
    node_dims[new_index[k]] = structure.node.dim(k);
    hinge_dims[new_index[k]] = structure.hinge.dim(k);
  }
  return std::make_shared<const SkoStructure>(Forest(std::move(parent)), node_dims, hinge_dims);
}

// Part I section 5.1, Eq. 26.
BwaMatrix renumber(const BwaMatrix& kernel, std::shared_ptr<const SkoStructure> renumbered,
                   std::span<const int> new_index) {
  const int n = kernel.size();
  check_permutation(new_index, n);
  if (renumbered->size() != n)
    throw std::invalid_argument("renumbered structure has a different number of nodes");
  BwaMatrix result(std::move(renumbered));
  for (int k = 0; k < n; ++k) {
    auto target = result.weight(new_index[k]);
    if (target.rows() != kernel.weight(k).rows() || target.cols() != kernel.weight(k).cols())
      throw std::invalid_argument("renumbered structure does not match node " +
                                  std::to_string(k + 1));
    target = kernel.weight(k);
  }
  return result;
}

// Part I section 5.1, Eq. 26.
BwaMatrix renumber(const BwaMatrix& kernel, std::span<const int> new_index) {
  return renumber(kernel, renumber_structure(kernel.structure(), new_index), new_index);
}

// Part I section 5.1: H and M are block-diagonal, so T H T* and T M T* just move blocks.
SkoModel renumber(const SkoModel& model, std::span<const int> new_index) {
  SkoModel result(renumber_structure(model.structure(), new_index));
  result.kernel() = renumber(model.kernel(), result.structure_ptr(), new_index);
  for (int k = 0; k < model.size(); ++k) {
    result.hinge_map(new_index[k]) = model.hinge_map(k);
    result.inertia(new_index[k]) = model.inertia(k);
  }
  return result;
}

// Part I section 3.1 (property 3) and section 5.1: T maps old stacked vectors to new ones.
Eigen::SparseMatrix<double> block_permutation_matrix(const BlockLayout& old_layout,
                                                     std::span<const int> new_index) {
  const int n = old_layout.count();
  check_permutation(new_index, n);
  std::vector<int> new_dims(n);
  for (int k = 0; k < n; ++k) new_dims[new_index[k]] = old_layout.dim(k);
  const BlockLayout new_layout(new_dims);
  std::vector<Triplet> triplets;
  triplets.reserve(old_layout.total());
  for (int k = 0; k < n; ++k)
    for (int r = 0; r < old_layout.dim(k); ++r)
      triplets.emplace_back(new_layout.offset(new_index[k]) + r, old_layout.offset(k) + r, 1.0);
  Eigen::SparseMatrix<double> t(old_layout.total(), old_layout.total());
  t.setFromTriplets(triplets.begin(), triplets.end());
  return t;
}

// Part I section 5.2, Eq. 28 (Lemma 9).
BwaMatrix similarity_shift(const BwaMatrix& kernel, const BlockDiagonal& delta) {
  const int n = kernel.size();
  if (delta.count() != n)
    throw std::invalid_argument("similarity shift: Delta has " + std::to_string(delta.count()) +
                                " blocks for " + std::to_string(n) + " nodes");
  std::vector<Eigen::MatrixXd> inverse(n);
  for (int k = 0; k < n; ++k) {
    if (delta.block(k).rows() != kernel.layout().dim(k))
      throw std::invalid_argument("similarity shift: Delta(" + std::to_string(k + 1) +
                                  ") does not match the node dimension");
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(delta.block(k));
    if (!lu.isInvertible())
      throw std::invalid_argument("similarity shift: Delta(" + std::to_string(k + 1) +
                                  ") is singular");
    inverse[k] = lu.inverse();
  }
  BwaMatrix result(kernel.structure_ptr());
  for (int k = 0; k < n; ++k) {
    const int p = kernel.forest().parent(k);
    if (p != Forest::kNone) result.weight(k) = delta.block(p) * kernel.weight(k) * inverse[k];
  }
  return result;
}

}  // namespace skograph

// A block-weighted adjacency (BWA) matrix over a forest (part I section 4, Eq. 8 and Eq. 13):
// node k has weight dimension m_k and its parent edge a weight w(parent(k), k) of size
// m_parent x m_k, with no other restriction (non-square and singular weights are allowed).
// For an SKO model this is the SKO operator E_A; the derived E_psi of part II Lemma 8 is another
// BwaMatrix over the same structure. The 1-resolvent A = (I - E)^-1 (part I Lemma 4) is applied by
// recursions over the forest and assembled only on request (operators/bwa.hpp).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "skograph/graph/forest.hpp"
#include "skograph/operators/block_layout.hpp"

namespace skograph {

// Immutable topology and dimensions shared by every operator of one SKO model.
struct SkoStructure {
  SkoStructure(Forest forest_in, const std::vector<int>& node_dims,
               const std::vector<int>& hinge_dims);
  Forest forest;
  BlockLayout node;   // m_k: weight dimension of node k (part I Eq. 8)
  BlockLayout hinge;  // r_k: generalized velocities of the hinge of node k
  int size() const { return forest.size(); }
};

class BwaMatrix {
 public:
  using BlockMap = Eigen::Map<Eigen::MatrixXd>;
  using ConstBlockMap = Eigen::Map<const Eigen::MatrixXd>;

  explicit BwaMatrix(std::shared_ptr<const SkoStructure> structure);

  const SkoStructure& structure() const { return *structure_; }
  std::shared_ptr<const SkoStructure> structure_ptr() const { return structure_; }
  const Forest& forest() const { return structure_->forest; }
  const BlockLayout& layout() const { return structure_->node; }
  int size() const { return structure_->size(); }

  // w(parent(k), k), m_parent x m_k; a 0 x m_k block for a base node.
  BlockMap weight(int k) { return {data_.data() + offset_[k], rows(k), layout().dim(k)}; }
  ConstBlockMap weight(int k) const {
    return {data_.data() + offset_[k], rows(k), layout().dim(k)};
  }

 private:
  int rows(int k) const {
    const int p = forest().parent(k);
    return p == Forest::kNone ? 0 : layout().dim(p);
  }
  std::shared_ptr<const SkoStructure> structure_;
  std::vector<double> data_;
  std::vector<std::size_t> offset_;
};

}  // namespace skograph

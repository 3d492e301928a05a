// The SKO model (H, A, M) of part II section 2.1 (conventions.md, "SKO model interface").
//
//   SkoStructure  immutable: the forest (the spanning tree with the inertial root removed; base
//                 nodes are its roots), node weight dimensions m_k and hinge dimensions r_k.
//   SkoModel      the numbers over a structure: edge weights E_A(parent(k), k) (m_parent x m_k,
//                 any values: non-square, singular), hinge maps H(k) (r_k x m_k, full row rank)
//                 and node inertias M(k) (m_k x m_k, symmetric positive definite). Blocks live in
//                 three contiguous column-major buffers and are viewed through Eigen::Map, so a
//                 producer (rigid-body kinematics, aggregation) refills them per configuration
//                 without allocating.
//
// Algorithms are free functions over (const SkoModel&, inputs, workspace) in the other headers of
// operators/; none of them assumes a node is a rigid body.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "graph/forest.hpp"
#include "operators/block_layout.hpp"

namespace skograph {

struct SkoStructure {
  SkoStructure(Forest forest_in, const std::vector<int>& node_dims, const std::vector<int>& hinge_dims);
  Forest forest;
  BlockLayout node;   // m_k: weight dimension of node k (part I Eq. 8)
  BlockLayout hinge;  // r_k: generalized velocities of the hinge of node k
  int size() const { return forest.size(); }
};

class SkoModel {
 public:
  using BlockMap = Eigen::Map<Eigen::MatrixXd>;
  using ConstBlockMap = Eigen::Map<const Eigen::MatrixXd>;

  explicit SkoModel(std::shared_ptr<const SkoStructure> structure);

  const SkoStructure& structure() const { return *structure_; }
  std::shared_ptr<const SkoStructure> structure_ptr() const { return structure_; }
  const Forest& forest() const { return structure_->forest; }
  int size() const { return structure_->size(); }
  int node_dim(int k) const { return structure_->node.dim(k); }
  int hinge_dim(int k) const { return structure_->hinge.dim(k); }

  // E_A(parent(k), k), m_parent x m_k; a 0 x 0 block for a base node.
  BlockMap weight(int k) { return {weights_.data() + weight_offset_[k], weight_rows(k), node_dim(k)}; }
  ConstBlockMap weight(int k) const {
    return {weights_.data() + weight_offset_[k], weight_rows(k), node_dim(k)};
  }
  // H(k), r_k x m_k.
  BlockMap hinge_map(int k) { return {hinges_.data() + hinge_offset_[k], hinge_dim(k), node_dim(k)}; }
  ConstBlockMap hinge_map(int k) const {
    return {hinges_.data() + hinge_offset_[k], hinge_dim(k), node_dim(k)};
  }
  // M(k), m_k x m_k.
  BlockMap inertia(int k) { return {inertias_.data() + inertia_offset_[k], node_dim(k), node_dim(k)}; }
  ConstBlockMap inertia(int k) const {
    return {inertias_.data() + inertia_offset_[k], node_dim(k), node_dim(k)};
  }

 private:
  int weight_rows(int k) const {
    const int p = forest().parent(k);
    return p == Forest::kNone ? 0 : node_dim(p);
  }
  std::shared_ptr<const SkoStructure> structure_;
  std::vector<double> weights_, hinges_, inertias_;
  std::vector<std::size_t> weight_offset_, hinge_offset_, inertia_offset_;
};

}  // namespace skograph

// The SKO model (H, A, M) of part II section 2.1 (conventions.md, "SKO model interface").
//
//   SkoStructure  immutable: the forest (the spanning tree with the inertial root removed; base
//                 nodes are its roots), node weight dimensions m_k and hinge dimensions r_k.
//   SkoModel      the numbers over a structure: the SKO operator E_A as a BwaMatrix (weights
//                 m_parent x m_k, any values: non-square, singular), hinge maps H(k) (r_k x m_k,
//                 full row rank) and node inertias M(k) (m_k x m_k, symmetric positive definite).
//                 Blocks live in contiguous column-major buffers viewed through Eigen::Map, so a
//                 producer (rigid-body kinematics, aggregation) refills them per configuration
//                 without allocating.
//
// The equations of motion (part II Eq. 1-3):
//   V = A* H* thetadot,  alpha = A* (H* thetaddot + a),  f = A (M alpha + b),  T = H f,
//   T = M(theta) thetaddot + C,  M(theta) = H A M A* H*,  C = H A (M A* a + b).
// Algorithms are free functions over (const SkoModel&, inputs, workspace) in the other headers of
// operators/; none of them assumes a node is a rigid body.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "skograph/operators/bwa_matrix.hpp"

namespace skograph {

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

  // The SKO operator E_A and its weights E_A(parent(k), k) (m_parent x m_k).
  const BwaMatrix& kernel() const { return kernel_; }
  BwaMatrix& kernel() { return kernel_; }
  BlockMap weight(int k) { return kernel_.weight(k); }
  ConstBlockMap weight(int k) const { return kernel_.weight(k); }
  // H(k), r_k x m_k.
  BlockMap hinge_map(int k) {
    return {hinges_.data() + hinge_offset_[k], hinge_dim(k), node_dim(k)};
  }
  ConstBlockMap hinge_map(int k) const {
    return {hinges_.data() + hinge_offset_[k], hinge_dim(k), node_dim(k)};
  }
  // M(k), m_k x m_k.
  BlockMap inertia(int k) {
    return {inertias_.data() + inertia_offset_[k], node_dim(k), node_dim(k)};
  }
  ConstBlockMap inertia(int k) const {
    return {inertias_.data() + inertia_offset_[k], node_dim(k), node_dim(k)};
  }

 private:
  std::shared_ptr<const SkoStructure> structure_;
  BwaMatrix kernel_;
  std::vector<double> hinges_, inertias_;
  std::vector<std::size_t> hinge_offset_, inertia_offset_;
};

}  // namespace skograph

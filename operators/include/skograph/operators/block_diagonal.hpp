// A block-diagonal operator diag{X(k)} over a BlockLayout (part I Remark 4.3): node k owns one
// dim(k) x dim(k) block. Used for the inertias M, the Lyapunov inputs X and solutions Y
// (part II section 4) and the similarity-shift Delta (part I section 5.2).
//
// The blocks live in one contiguous column-major buffer allocated by the constructor and are viewed
// through Eigen::Map, so recursions that write into a BlockDiagonal never allocate.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "skograph/operators/block_layout.hpp"

namespace skograph {

class BlockDiagonal {
 public:
  using BlockMap = Eigen::Map<Eigen::MatrixXd>;
  using ConstBlockMap = Eigen::Map<const Eigen::MatrixXd>;

  BlockDiagonal() : offset_(1, 0) {}
  // All blocks zero.
  explicit BlockDiagonal(const BlockLayout& layout);

  const BlockLayout& layout() const { return layout_; }
  int count() const { return layout_.count(); }
  BlockMap block(int k) { return {data_.data() + offset_[k], layout_.dim(k), layout_.dim(k)}; }
  ConstBlockMap block(int k) const {
    return {data_.data() + offset_[k], layout_.dim(k), layout_.dim(k)};
  }
  void set_zero();
  // The dense layout.total() x layout.total() matrix (for tests and small systems).
  Eigen::MatrixXd to_dense() const;

 private:
  BlockLayout layout_;
  std::vector<double> data_;
  std::vector<std::size_t> offset_;
};

}  // namespace skograph

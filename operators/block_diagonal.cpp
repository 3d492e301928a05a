#include "skograph/operators/block_diagonal.hpp"

#include <algorithm>

namespace skograph {

BlockDiagonal::BlockDiagonal(const BlockLayout& layout)
    : layout_(layout), offset_(layout.count() + 1, 0) {
  for (int k = 0; k < layout_.count(); ++k) {
    const std::size_t m = layout_.dim(k);
    offset_[k + 1] = offset_[k] + m * m;
  }
  data_.assign(offset_.back(), 0.0);
}

void BlockDiagonal::set_zero() {
  std::fill(data_.begin(), data_.end(), 0.0);
}

Eigen::MatrixXd BlockDiagonal::to_dense() const {
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(layout_.total(), layout_.total());
  for (int k = 0; k < count(); ++k)
    dense.block(layout_.offset(k), layout_.offset(k), layout_.dim(k), layout_.dim(k)) = block(k);
  return dense;
}

}  // namespace skograph

// Per-node matrix blocks of varying sizes in one contiguous buffer (workspace storage).
//
// Workspaces of the forward-dynamics family (composite inertias, articulated-body inertias,
// operational space) keep one BlockBuffer per per-node quantity: block k has rows(k) x cols(k)
// entries, column-major, viewed through Eigen::Map. The buffer is sized once at construction;
// nothing allocates afterwards, so recursions can write into the blocks freely.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <vector>

namespace skograph {

class BlockBuffer {
 public:
  using BlockMap = Eigen::Map<Eigen::MatrixXd>;
  using ConstBlockMap = Eigen::Map<const Eigen::MatrixXd>;

  BlockBuffer() = default;
  // Block k has row_dims[k] x col_dims[k] entries; both vectors have one entry per node.
  BlockBuffer(const std::vector<int>& row_dims, const std::vector<int>& col_dims)
      : rows_(row_dims), cols_(col_dims), offset_(row_dims.size() + 1, 0) {
    for (std::size_t k = 0; k < rows_.size(); ++k)
      offset_[k + 1] = offset_[k] + static_cast<std::size_t>(rows_[k]) * cols_[k];
    data_.assign(offset_.back(), 0.0);
  }

  int count() const { return static_cast<int>(rows_.size()); }
  int rows(int k) const { return rows_[k]; }
  int cols(int k) const { return cols_[k]; }
  BlockMap operator[](int k) { return {data_.data() + offset_[k], rows_[k], cols_[k]}; }
  ConstBlockMap operator[](int k) const { return {data_.data() + offset_[k], rows_[k], cols_[k]}; }

 private:
  std::vector<int> rows_, cols_;
  std::vector<std::size_t> offset_;
  std::vector<double> data_;
};

}  // namespace skograph

// Block layout of stacked vectors (part I Eq. 9-10): node k owns dim(k) consecutive entries
// starting at offset(k). Dimensions may differ from node to node (rigid bodies 6, aggregated nodes
// 6|S|, flexible bodies 6 + modes, hinges 0..6 dofs); nothing in skograph assumes 6x6 blocks.
#pragma once

#include <vector>

namespace skograph {

class BlockLayout {
 public:
  BlockLayout() : offset_(1, 0) {}
  explicit BlockLayout(const std::vector<int>& dims);

  int count() const { return static_cast<int>(offset_.size()) - 1; }
  int dim(int k) const { return offset_[k + 1] - offset_[k]; }
  int offset(int k) const { return offset_[k]; }
  int total() const { return offset_.back(); }
  int max_dim() const { return max_dim_; }
  std::vector<int> dims() const;

 private:
  std::vector<int> offset_;
  int max_dim_ = 0;
};

}  // namespace skograph

#include "skograph/operators/block_layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace skograph {

BlockLayout::BlockLayout(const std::vector<int>& dims) : offset_(dims.size() + 1, 0) {
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] < 0)
      throw std::invalid_argument("block " + std::to_string(k + 1) + " has negative dimension");
    offset_[k + 1] = offset_[k] + dims[k];
    max_dim_ = std::max(max_dim_, dims[k]);
  }
}

std::vector<int> BlockLayout::dims() const {
  std::vector<int> result(count());
  for (int k = 0; k < count(); ++k) result[k] = dim(k);
  return result;
}

}  // namespace skograph

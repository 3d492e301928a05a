#include "skograph/operators/bwa_matrix.hpp"

#include <stdexcept>
#include <string>

namespace skograph {

SkoStructure::SkoStructure(Forest forest_in, const std::vector<int>& node_dims,
                           const std::vector<int>& hinge_dims)
    : forest(std::move(forest_in)), node(node_dims), hinge(hinge_dims) {
  if (node.count() != forest.size() || hinge.count() != forest.size())
    throw std::invalid_argument("SKO structure: " + std::to_string(forest.size()) + " nodes but " +
                                std::to_string(node.count()) + " node and " +
                                std::to_string(hinge.count()) + " hinge dimensions");
}

BwaMatrix::BwaMatrix(std::shared_ptr<const SkoStructure> structure)
    : structure_(std::move(structure)), offset_(structure_->size() + 1, 0) {
  for (int k = 0; k < size(); ++k)
    offset_[k + 1] = offset_[k] + static_cast<std::size_t>(rows(k)) * layout().dim(k);
  data_.assign(offset_.back(), 0.0);
}

}  // namespace skograph

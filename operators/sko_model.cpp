#include "operators/sko_model.hpp"

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

SkoModel::SkoModel(std::shared_ptr<const SkoStructure> structure) : structure_(std::move(structure)) {
  const int n = size();
  weight_offset_.resize(n + 1);
  hinge_offset_.resize(n + 1);
  inertia_offset_.resize(n + 1);
  weight_offset_[0] = hinge_offset_[0] = inertia_offset_[0] = 0;
  for (int k = 0; k < n; ++k) {
    const std::size_t m = node_dim(k);
    weight_offset_[k + 1] = weight_offset_[k] + weight_rows(k) * m;
    hinge_offset_[k + 1] = hinge_offset_[k] + hinge_dim(k) * m;
    inertia_offset_[k + 1] = inertia_offset_[k] + m * m;
  }
  weights_.assign(weight_offset_[n], 0.0);
  hinges_.assign(hinge_offset_[n], 0.0);
  inertias_.assign(inertia_offset_[n], 0.0);
}

}  // namespace skograph

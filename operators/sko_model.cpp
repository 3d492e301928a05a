#include "skograph/operators/sko_model.hpp"

namespace skograph {

SkoModel::SkoModel(std::shared_ptr<const SkoStructure> structure)
    : structure_(std::move(structure)), kernel_(structure_) {
  const int n = size();
  hinge_offset_.assign(n + 1, 0);
  inertia_offset_.assign(n + 1, 0);
  for (int k = 0; k < n; ++k) {
    const std::size_t m = node_dim(k);
    hinge_offset_[k + 1] = hinge_offset_[k] + hinge_dim(k) * m;
    inertia_offset_[k + 1] = inertia_offset_[k] + m * m;
  }
  hinges_.assign(hinge_offset_[n], 0.0);
  inertias_.assign(inertia_offset_[n], 0.0);
}

}  // namespace skograph

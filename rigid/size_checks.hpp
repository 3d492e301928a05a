// Argument checks shared by the rigid layer's sources (not installed).
#pragma once

#include <Eigen/Core>
#include <stdexcept>
#include <string>

namespace skograph::rigid_detail {

// std::invalid_argument "rigid dynamics: size of WHAT" unless v has `size` entries.
inline void check_size(const Eigen::Ref<const Eigen::VectorXd>& v, int size, const char* what) {
  if (v.size() != size) throw std::invalid_argument(std::string("rigid dynamics: size of ") + what);
}

}  // namespace skograph::rigid_detail

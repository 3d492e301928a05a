#include "viz/factor_pattern.hpp"

#include <stdexcept>

namespace skograph::viz {

const std::vector<std::string>& factor_ordering_names() {
  static const std::vector<std::string> names{"canonical", "root-first", "amd"};
  return names;
}

MatrixPicture factor_picture(const SkoTopology&, const std::string&) {
  throw std::invalid_argument("L pictures need the sparse layer");
}

std::vector<FactorFill> factor_fill_by_ordering(const SkoTopology&) {
  return {};
}

}  // namespace skograph::viz

// The tests' measure of how far a computed matrix is from its reference.
#pragma once

#include <Eigen/Core>

namespace skograph::testing_support {

// max |a - b| over 1 + max |b|: relative where the reference is large, absolute near zero.
inline double difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / (1.0 + b.cwiseAbs().maxCoeff());
}

}  // namespace skograph::testing_support

// Central differences with Richardson extrapolation, column by column: the tests' independent
// reference for derivatives.
#pragma once

#include <Eigen/Dense>
#include <functional>

namespace skograph::testing_support {

// The extrapolated derivative at two step sizes: fine - coarse estimates coarse's own error.
struct RichardsonColumns {
  Eigen::MatrixXd fine, coarse;
};

// Column j: R(h/2) (fine) and R(h) (coarse) with R(h) = (4 D(h/2) - D(h)) / 3 and D(h) =
// (f(x (+) h e_j) - f(x (+) -h e_j)) / 2h, where `at(j, e)` evaluates f at x moved by e along
// e_j (the tangent step of the caller's choosing); R's error is O(h^4).
inline RichardsonColumns richardson_columns(int n,
                                            const std::function<Eigen::VectorXd(int, double)>& at,
                                            double h) {
  RichardsonColumns result;
  for (int j = 0; j < n; ++j) {
    const auto central = [&](double e) -> Eigen::VectorXd {
      return (at(j, e) - at(j, -e)) / (2 * e);
    };
    const Eigen::VectorXd d1 = central(h), d2 = central(h / 2), d4 = central(h / 4);
    if (j == 0) {
      result.fine.resize(d1.size(), n);
      result.coarse.resize(d1.size(), n);
    }
    result.coarse.col(j) = (4.0 * d2 - d1) / 3.0;
    result.fine.col(j) = (4.0 * d4 - d2) / 3.0;
  }
  return result;
}

}  // namespace skograph::testing_support

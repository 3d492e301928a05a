// R's strictly upper part, row by row, of a dependent factorization
// (aggregation/dependent_factorization.hpp): products with R and R* and the triangular solves,
// inline for the factorization's solves and the conditioning's power iterations, which call them
// in their inner loops.
#pragma once

#include "skograph/aggregation/dependent_factorization.hpp"

namespace skograph {

inline void DependentFactorization::SparseUpper::multiply(const double* x, double* y) const {
  for (int k = 0; k < size(); ++k) {
    double value = diagonal(k) * x[k];
    for (int e = offsets[static_cast<std::size_t>(k)]; e < offsets[static_cast<std::size_t>(k) + 1];
         ++e)
      value += values[static_cast<std::size_t>(e)] * x[steps[static_cast<std::size_t>(e)]];
    y[k] = value;
  }
}

inline void DependentFactorization::SparseUpper::multiply_transposed(const double* x,
                                                                     double* y) const {
  for (int k = 0; k < size(); ++k) y[k] = diagonal(k) * x[k];
  for (int k = 0; k < size(); ++k)
    for (int e = offsets[static_cast<std::size_t>(k)]; e < offsets[static_cast<std::size_t>(k) + 1];
         ++e)
      y[steps[static_cast<std::size_t>(e)]] += values[static_cast<std::size_t>(e)] * x[k];
}

inline void DependentFactorization::SparseUpper::solve(double* x) const {
  for (int k = size() - 1; k >= 0; --k) {
    double value = x[k];
    for (int e = offsets[static_cast<std::size_t>(k)]; e < offsets[static_cast<std::size_t>(k) + 1];
         ++e)
      value -= values[static_cast<std::size_t>(e)] * x[steps[static_cast<std::size_t>(e)]];
    if (value != 0.0) value /= diagonal(k);
    x[k] = value;
  }
}

inline void DependentFactorization::SparseUpper::solve_transposed(double* x) const {
  for (int k = 0; k < size(); ++k) {
    if (x[k] != 0.0) x[k] /= diagonal(k);
    for (int e = offsets[static_cast<std::size_t>(k)]; e < offsets[static_cast<std::size_t>(k) + 1];
         ++e)
      x[steps[static_cast<std::size_t>(e)]] -= values[static_cast<std::size_t>(e)] * x[k];
  }
}

}  // namespace skograph

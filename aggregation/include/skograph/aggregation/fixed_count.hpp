// A runtime count made a compile-time one, for the small loops of the closed-chain kernels (the
// right-hand sides of DependentFactorization's substitution, the columns of X in the aggregate
// gather): written once over `count`, they unroll where the count is a constant, and at a
// handful of items the runtime loop's index arithmetic cost more than its products.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace skograph {

// function(std::integral_constant<int, count>{}) for count in 1..Max, otherwise
// function(std::integral_constant<int, 0>{}): 0 stands for "the count known only at run time".
// The small counts are tested first (N counts up from 1). `function` returns one type for every
// count.
template <int Max, int N = 1, class Function>
[[gnu::always_inline]] inline decltype(auto) with_fixed_count(std::ptrdiff_t count,
                                                              Function&& function) {
  if constexpr (N > Max) {
    return std::forward<Function>(function)(std::integral_constant<int, 0>{});
  } else {
    if (count == N) return std::forward<Function>(function)(std::integral_constant<int, N>{});
    return with_fixed_count<Max, N + 1>(count, std::forward<Function>(function));
  }
}

}  // namespace skograph

// The skograph program's exit statuses, which every command returns.
#pragma once

namespace skograph::cli {

// 0 success; 2 bad input or bad usage: any skograph::Error (graph/error.hpp), one line on
// stderr; 1 an internal failure (a broken invariant, memory exhausted), one line on stderr
// starting "internal failure:".
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternalFailure = 1;
inline constexpr int kExitBadInput = 2;

}  // namespace skograph::cli

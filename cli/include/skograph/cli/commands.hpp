// The skograph command line: sub-command dispatch. Each sub-command lives in its own file and
// only consumes the library layers (graph, operators, ...); it never implements an algorithm.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

// Exit statuses: 0 success, 1 internal failure, 2 bad input or bad usage (one line on stderr).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;

int run(int argc, char** argv);
// Same as run(), with explicit streams (used by the tests).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

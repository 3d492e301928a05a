// The base of the exceptions skograph throws for a problem with what a user gave or asked for:
// one type per condition, each derived from skograph::Error.
//
// clang-format off
//   InputError                 bad input: a file, a line of it, a state, a value (graph/digraph.hpp)
//   OutputError                a file cannot be written (graph/output_file.hpp)
//   SingularMassMatrixError    the mass matrix is singular at the configuration (operators/)
//   ClosureError               the loops cannot be closed from the given state (rigid/)
//   SingularConfigurationError the constraints lose rank: the embedding is undefined (rigid/)
//   OrderingUnavailable        a fill-reducing ordering this CHOLMOD lacks (sparse/)
//   UsageError                 a request that does not make sense: an unknown option or value,
//                              options that do not go together (below)
// clang-format on
//
// The program reports any of them as one line with exit status 2; every other exception (a
// broken invariant, an exhausted allocator) is an internal failure, exit status 1. The Python
// module raises skograph.Error (a ValueError) for them.
#pragma once

#include <stdexcept>

namespace skograph {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad usage (a command line, or a library call's option values): the message is the whole line,
// printed as it is.
class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace skograph

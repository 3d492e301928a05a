// The skograph command line: sub-command dispatch. Each sub-command lives in its own file and
// only consumes the library: the model façade (model/), report/ and sparse/; it never implements
// an algorithm.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "skograph/cli/exit_status.hpp"

namespace skograph::cli {

int run(int argc, char** argv);

// Inside a catch block: the one line on `err` for the exception being handled, for command
// `command` with arguments `args` (the input file named when the message does not name it), and
// the exit status above (2 for a skograph::Error, 1 for anything else).
int report_failure(const std::string& command, const std::vector<std::string>& args,
                   std::ostream& err);
// Same as run(), with explicit streams (used by the tests).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

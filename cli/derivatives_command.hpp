// `skograph derivatives MODEL [--state STATE.json] [--json]`: the derivatives of forward and
// inverse dynamics at a state (model/derivatives.hpp), rows and columns in the file's dof order.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

// Bad input throws (skograph::Error): cli::run prints the line (cli/commands.hpp).
int derivatives_command(const std::vector<std::string>& args, std::ostream& out);

}  // namespace skograph::cli

// `skograph assemble MODEL [--state S.json] [--out CLOSED.json] [--json]`: a closed configuration
// of a closed chain from the given (or zero) state, as a state file every command accepts.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int assemble_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

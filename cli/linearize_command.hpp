// `skograph linearize MODEL [--state STATE.json] [--inputs NAME,...] [--dt DT] [--hold | --rest]
// [--json]`: the model linearized at a state (model/linearization.hpp): A, B, the eigenvalues
// and oscillatory modes, A_d and B_d by zero-order hold, the forces that hold the state or the
// nearest rest configuration.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

// Bad input throws (skograph::Error): cli::run prints the line (cli/commands.hpp).
int linearize_command(const std::vector<std::string>& args, std::ostream& out);

}  // namespace skograph::cli

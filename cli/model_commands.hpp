// `skograph dynamics MODEL [--state STATE.json] [--json]` and
// `skograph bench MODEL --algo id|fd|mass|fd-crba [--reps N] [--json]`: rigid-body dynamics of a
// URDF or YAML model through the rigid layer; closed chains (loops, couplings) in minimal
// coordinates through rigid/closed_chain_model.hpp.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

// Bad input throws (skograph::Error): cli::run prints the line (cli/commands.hpp).
int dynamics_command(const std::vector<std::string>& args, std::ostream& out);
int bench_command(const std::vector<std::string>& args, std::ostream& out);

}  // namespace skograph::cli

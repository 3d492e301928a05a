// `skograph dynamics MODEL [--state STATE.json] [--json]` and
// `skograph bench MODEL --algo id|fd|mass|fd-crba [--reps N] [--json]`: rigid-body dynamics of a
// URDF or YAML model through the rigid layer; closed chains (loops, couplings) in minimal
// coordinates through rigid/closed_chain_model.hpp.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int dynamics_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int bench_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

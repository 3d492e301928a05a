// `skograph simulate MODEL [--state STATE.json] --t T --dt H [--out TRAJ.csv] [--json]`: time
// integration in minimal coordinates through rigid/closed_chain_simulation.hpp (tree models too).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int simulate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

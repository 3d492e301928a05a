// `skograph render MODEL|FILE.dot --what digraph|spanning-tree|aggregated|segments|sparsity
//  [--matrix M|E|A|L] [--ordering canonical|root-first|amd] [--format svg|png|pdf|dot]
//  [--size PIXELS] -o OUT`: one picture (viz/).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int render_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

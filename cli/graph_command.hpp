// `skograph graph FILE [--json]`: the graph-layer report of a DOT digraph or of a model's
// standard digraph (report/graph_report.hpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int graph_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

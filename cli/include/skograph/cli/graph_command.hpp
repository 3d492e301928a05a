// `skograph graph FILE [--json]`: the graph-layer report of a DOT digraph or of a model's
// (.urdf, .yaml) standard digraph.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "skograph/graph/analysis.hpp"

namespace skograph::cli {

// The JSON object of the README (key order as documented; 1-based numbers).
nlohmann::ordered_json graph_report_json(const Digraph& graph, const DigraphAnalysis& analysis);
// The same document as format_json(graph_report_json(...)), written directly: O(N) time and
// text-sized memory, where the ordered_json document of a 10^6-node digraph takes gigabytes.
std::string graph_report_json_text(const Digraph& graph, const DigraphAnalysis& analysis);
// The human-readable report.
std::string graph_report_text(const Digraph& graph, const DigraphAnalysis& analysis);

int graph_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

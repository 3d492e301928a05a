// The graph-layer report of a digraph (`skograph graph FILE [--json]`, Python's analyze_graph and
// analyze's report): classification, spanning tree and cut edges, canonical and strictly canonical
// numbers, serial segments, aggregation sub-graphs and the aggregated tree, as the JSON object of
// docs/command-line.md (1-based numbers) or as text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "skograph/graph/analysis.hpp"
#include "skograph/graph/digraph.hpp"

namespace skograph::report {

// The JSON object (key order as documented; 1-based numbers).
nlohmann::ordered_json graph_report_json(const Digraph& graph, const DigraphAnalysis& analysis);
// The same document as format_json(graph_report_json(...)), written directly: O(N) time and
// text-sized memory, where the ordered_json document of a 10^6-node digraph takes gigabytes.
std::string graph_report_json_text(const Digraph& graph, const DigraphAnalysis& analysis);
// The human-readable report.
std::string graph_report_text(const Digraph& graph, const DigraphAnalysis& analysis);

}  // namespace skograph::report

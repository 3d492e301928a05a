// `skograph analyze MODEL|FILE.dot --out DIR [--size PIXELS] [--state S.json]
// [--max-diagram-nodes N]`: the report (report.txt, report.json) and every picture (diagrams as
// SVG, spy plots of M, E, A and L as PNG; for closed chains also M_R of the constraint-embedded
// model) in DIR. Digraphs of more than N nodes (default kDefaultMaxDiagramNodes, 0: no limit) get
// their diagrams as DOT text without layout instead of SVG.
// `skograph demo [--out DIR]` does the same for the built-in geared four-bar (default out/demo).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "picture_input.hpp"

namespace skograph::cli {

// The files of an analysis, made in memory (nothing is written): name -> content, in writing
// order, plus notes for stderr.
struct AnalysisFiles {
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> notes;
  std::string report_text;
};
// Graphviz's dot layout grows about as the square of the node count (README "Performance": 3 s
// at 5000 nodes, 19 s at 10^4), and analyze draws four diagrams.
inline constexpr int kDefaultMaxDiagramNodes = 5000;

struct AnalysisOptions {
  int pixels = 800;        // spy plots: at most this many pixels a side
  std::string state_file;  // closed chains: the state of the embedding (empty: zero, closed)
  int max_diagram_nodes = kDefaultMaxDiagramNodes;  // above: diagrams as DOT text; 0: no limit
  bool strict = false;                   // --strict: refuse physically inconsistent inertias
  std::vector<std::string> independent;  // --independent: closed chains' chosen coordinates
};

// For a MODEL with loops or couplings the report gains the constraint-embedded model at
// `options.state_file` (empty: the zero configuration closed by Newton) and sparsity-M_R.png.
// Throws InputError for a bad state file.
AnalysisFiles analysis_files(const PictureInput& input, const AnalysisOptions& options = {});

int analyze_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int demo_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

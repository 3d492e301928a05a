// `skograph analyze`'s report and pictures (and Python's analyze): the report (report.txt,
// report.json, index.html) and every picture (diagrams as SVG, spy plots of M, E, A and L as PNG;
// for closed chains also M_R of the constraint-embedded model) of a ReportInput, made in memory,
// then written into a folder. Digraphs of more than max_diagram_nodes nodes (0: no limit) get
// their diagrams as DOT text without layout instead of SVG.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "skograph/report/report_input.hpp"

namespace skograph::report {

// The files of an analysis, made in memory (nothing is written): name -> content, in writing
// order, plus notes (for stderr, or Python's warnings) and the model's own warnings (massless
// joints; the reader's are the input's).
struct AnalysisFiles {
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
  std::string report_text;
};
// Graphviz's dot layout grows about as the square of the node count (docs/performance.md: 3 s
// at 5000 nodes, 19 s at 10^4), and analyze draws four diagrams.
inline constexpr int kDefaultMaxDiagramNodes = 5000;

struct AnalysisOptions {
  int pixels = 800;        // spy plots: at most this many pixels a side
  std::string state_file;  // closed chains: the state of the embedding (empty: zero, closed)
  int max_diagram_nodes = kDefaultMaxDiagramNodes;  // above: diagrams as DOT text; 0: no limit
  std::vector<std::string> package_paths;  // view.html's meshes: where package:// names are
};

// For a MODEL with loops or couplings the report gains the constraint-embedded model at
// `options.state_file` (empty: the zero configuration closed by Newton) and sparsity-M_R.png.
// Throws InputError for a bad state file.
AnalysisFiles analysis_files(const ReportInput& input, const AnalysisOptions& options = {});

// Writes the files into `directory` (created when missing), each all or nothing
// (graph/output_file.hpp). OutputError when the folder or a file cannot be written.
void write_analysis(const AnalysisFiles& files, const std::string& directory);

}  // namespace skograph::report

// `skograph analyze MODEL|FILE.dot --out DIR [--size PIXELS] [--state S.json]`: the report
// (report.txt, report.json) and every picture (diagrams as SVG, spy plots of M, E, A and L as PNG;
// for closed chains also M_R of the constraint-embedded model) in DIR.
// `skograph demo [--out DIR]` does the same for the built-in geared four-bar (default out/demo).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/picture_input.hpp"

namespace skograph::cli {

// The files of an analysis, made in memory (nothing is written): name -> content, in writing
// order, plus notes for stderr.
struct AnalysisFiles {
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> notes;
  std::string report_text;
};
// For a MODEL with loops or couplings the report gains the constraint-embedded model at
// `state_file` (empty: the zero configuration closed by Newton) and sparsity-M_R.png. Throws
// InputError for a bad state file.
AnalysisFiles analysis_files(const PictureInput& input, int pixels,
                             const std::string& state_file = "");

int analyze_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int demo_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

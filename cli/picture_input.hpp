// What `skograph render` and `skograph analyze` draw: a DOT digraph, or a mechanism file's standard
// digraph (io/mechanism_graph.hpp: loops and couplings as cut edges) with the block dimensions of
// its SKO model (m = 6 per body, r = the dofs of its joint).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "skograph/graph/analysis.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph::cli {

struct PictureInput {
  std::string source;  // the file (or "built-in example") for messages and reports
  std::string name;    // the model's name or the file's stem: the pictures' titles start with it
  bool is_model = false;
  int loops = 0, couplings = 0;
  Digraph graph;
  DigraphAnalysis analysis;
  std::vector<int> node_dims, hinge_dims;      // per digraph node; empty for a plain digraph
  std::shared_ptr<const Mechanism> mechanism;  // the model as read; null for a plain digraph
};

// The inputs of graph, render and analyze by extension: true for a DOT digraph (.dot, .gv), false
// for a model file (io/mechanism_file.hpp: .urdf, .yaml, .yml, .xml, .mjcf, .sdf); InputError
// naming the extensions for anything else (an MJCF file is never read as DOT).
bool is_digraph_file(const std::string& file);

// Reads FILE (a model or a DOT digraph, is_digraph_file). The model is kept as the file gives it
// (every link a node of the digraph); its reader's warnings go to cli/warnings.hpp. `strict`
// refuses physically inconsistent inertias. Throws InputError.
PictureInput load_picture_input(const std::string& file, bool strict = false);
PictureInput picture_input_of(const Mechanism& mechanism, const std::string& source);

// Runs `make` (reading `file`, making and writing pictures) for `skograph COMMAND`: an InputError
// or other runtime_error becomes one line "skograph COMMAND: message" on err, a
// std::invalid_argument (a model rejecting the file's content) one naming the file; exit status
// 2 (cli/commands.hpp). Otherwise returns what `make` returns.
int run_reporting_input_errors(const char* command, const std::string& file, std::ostream& err,
                               const std::function<int()>& make);

}  // namespace skograph::cli

// What `skograph graph`, `render` and `analyze` (and their Python calls) look at: a DOT digraph, or
// a model file's standard digraph (rigid/mechanism_graph.hpp: loops and couplings as cut edges)
// with the block dimensions of its SKO model (m = 6 per body, r = the dofs of its joint). Models
// come through the library's loading path (model/model.hpp: load_mechanism, every link a node).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skograph/graph/analysis.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/io/read_options.hpp"
#include "skograph/model/model.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph::report {

struct ReportInput {
  std::string source;  // the file (or "built-in example") for messages and reports
  std::string name;    // the model's name or the file's stem: the pictures' titles start with it
  bool is_model = false;
  int loops = 0, couplings = 0;
  Digraph graph;
  DigraphAnalysis analysis;
  std::vector<int> node_dims, hinge_dims;      // per digraph node; empty for a plain digraph
  std::shared_ptr<const Mechanism> mechanism;  // the model as read; null for a plain digraph
  // The mechanism as the file declares it, before the base body (`base`) replaced its own: what
  // input_model builds the dynamics from. The same as `mechanism` without a base body.
  std::shared_ptr<const Mechanism> declared;
  std::string base;
  BuildOptions build;  // how its dynamics model is built (model/model.hpp)
  // The reader's warnings (inconsistent inertias accepted, ...): Mechanism::warnings.
  const std::vector<std::string>& warnings() const;
};

// The inputs by extension: true for a DOT digraph (.dot, .gv), false for a model file
// (io/mechanism_file.hpp: .urdf, .yaml, .yml, .xml, .mjcf, .sdf); InputError naming the
// extensions for anything else (an MJCF file is never read as DOT).
bool is_digraph_file(const std::string& file);

// Reads FILE (a model or a DOT digraph, is_digraph_file); a model with `options` applied
// (model/model.hpp: load_mechanism). Throws InputError.
ReportInput load_report_input(const std::string& file, const ReadOptions& options = {});
// The dynamics model of a model input as load_model builds it: the declared mechanism built, then
// given its base body (model/base_change.hpp: with_base), so that state files are read in the
// file's coordinates (model/state.hpp: read_model_state). InputError naming the source for what
// the model refuses. Built on each call: `graph` and `render` draw mechanisms whose dynamics
// would be refused.
Model input_model(const ReportInput& input);
// The input of a mechanism in hand (the demo's built-in model), named `source`.
ReportInput report_input_of(const Mechanism& mechanism, const std::string& source,
                            const BuildOptions& build = {});

}  // namespace skograph::report

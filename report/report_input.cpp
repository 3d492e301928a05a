#include "skograph/report/report_input.hpp"

#include <cctype>
#include <filesystem>

#include "skograph/io/mechanism_file.hpp"
#include "skograph/model/base_change.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/rigid/mechanism_graph.hpp"

namespace skograph::report {

const std::vector<std::string>& ReportInput::warnings() const {
  static const std::vector<std::string> none;
  return mechanism ? mechanism->warnings : none;
}

ReportInput report_input_of(const Mechanism& mechanism, const std::string& source,
                            const BuildOptions& build) {
  ReportInput input;
  input.source = source;
  input.name =
      mechanism.name.empty() ? std::filesystem::path(source).stem().string() : mechanism.name;
  input.is_model = true;
  input.build = build;
  input.mechanism = std::make_shared<const Mechanism>(mechanism);
  input.declared = input.mechanism;
  input.loops = static_cast<int>(mechanism.loops.size());
  input.couplings = static_cast<int>(mechanism.couplings.size());
  input.graph = mechanism_digraph(mechanism);
  input.analysis = analyze_mechanism(input.graph, mechanism);
  // Node 0 is the inertial frame (the root, dropped from the SKO forest); node k + 1 is link k.
  input.node_dims.assign(input.graph.node_count(), 6);
  input.hinge_dims.assign(input.graph.node_count(), 0);
  // A flexible link's node carries its modal coordinates too (6 + modes; its joint's dofs, then
  // the modes, on its hinge).
  for (std::size_t j = 0; j < mechanism.joints.size(); ++j) {
    const int child = mechanism.joints[j].child,
              modes = child_mode_count(mechanism, static_cast<int>(j));
    input.node_dims[child + 1] += modes;
    input.hinge_dims[child + 1] = joint_coordinate_count(mechanism, static_cast<int>(j));
  }
  return input;
}

Model input_model(const ReportInput& input) {
  if (!input.declared) throw InputError(input.source, 0, "a DOT digraph has no dynamics");
  Model model = build_model(*input.declared, input.source, input.build);
  return input.base.empty() ? model : with_base(model, input.base);
}

bool is_digraph_file(const std::string& file) {
  std::string extension = std::filesystem::path(file).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".dot" || extension == ".gv") return true;
  if (is_mechanism_file(file)) return false;
  throw InputError(file, 0,
                   "unknown file type '" + extension +
                       "' (expected .dot or .gv for a digraph, or a model: .urdf, .yaml, .yml, "
                       ".xml, .mjcf, .sdf)");
}

ReportInput load_report_input(const std::string& file, const ReadOptions& options) {
  if (!is_digraph_file(file)) {
    // The file read once, as declared; the pictures draw it with its base body applied.
    ReadOptions as_declared = options;
    as_declared.base.clear();
    const Mechanism declared = load_mechanism(file, as_declared);
    if (options.base.empty()) return report_input_of(declared, file, build_options(options));
    ReportInput input =
        report_input_of(with_base_body(declared, options.base, file), file, build_options(options));
    input.declared = std::make_shared<const Mechanism>(declared);
    input.base = options.base;
    return input;
  }
  if (!options.base.empty() || !options.loops_file.empty() || !options.independent.empty())
    throw InputError(file, 0,
                     std::string(!options.base.empty()         ? "--base"
                                 : !options.loops_file.empty() ? "--loops"
                                                               : "--independent") +
                         " needs a model file: a DOT digraph has no links or joints");
  ReportInput input;
  input.source = file;
  input.name = std::filesystem::path(file).stem().string();
  input.graph = read_dot_file(file);
  input.analysis = analyze(input.graph);
  return input;
}

}  // namespace skograph::report

// `skograph graph FILE [--json] [--strict]`: the graph-layer report (report/graph_report.hpp).
#include "graph_command.hpp"

#include <ostream>

#include "skograph/cli/commands.hpp"
#include "skograph/report/graph_report.hpp"
#include "skograph/report/report_input.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

int graph_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string file;
  bool json = false, strict = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else if (arg == "--strict") {
      strict = true;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      print_line(err, "graph",
                 "unknown option '" + arg + "' (usage: skograph graph FILE [--json] [--strict])");
      return kExitBadInput;
    } else if (file.empty()) {
      file = arg;
    } else {
      print_line(err, "graph", "more than one FILE given ('" + file + "', '" + arg + "')");
      return kExitBadInput;
    }
  }
  if (file.empty()) {
    err << "skograph graph: no FILE given (usage: skograph graph FILE [--json])\n";
    return kExitBadInput;
  }
  // A model file gives its standard digraph (every link a node), analyzed over the tree joints;
  // a .dot or .gv file is a DOT digraph; the extension decides (report/report_input.hpp).
  ReadOptions options;
  options.strict = strict;
  const report::ReportInput input = report::load_report_input(file, options);
  add_warnings(file, input.warnings());
  // Everything is computed before anything is written: no partial output.
  const std::string text = json ? report::graph_report_json_text(input.graph, input.analysis)
                                : report::graph_report_text(input.graph, input.analysis);
  out << text;
  if (json && !input.analysis.spanning.exists)
    print_line(err, "graph", "note: " + input.analysis.spanning.reason);
  return kExitOk;
}

}  // namespace skograph::cli

// `skograph graph FILE [--json] [--strict] [--adjacency A.mtx]`: the graph-layer report
// (report/graph_report.hpp), and the digraph's adjacency matrix (part I Eq. 2) as Matrix Market.
#include "graph_command.hpp"

#include <ostream>

#include "skograph/cli/exit_status.hpp"
#include "skograph/graph/numbering.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/report/graph_report.hpp"
#include "skograph/report/report_input.hpp"
#include "skograph/sparse/matrix_market.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

int graph_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  constexpr const char* kUsage =
      "usage: skograph graph FILE [--json] [--adjacency A.mtx] [--strict] [--loops LOOPS.yaml] "
      "[--base LINK]";
  std::string file, adjacency;
  bool json = false;
  ReadOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (parse_model_option(args, i, options, kUsage)) continue;
    if (arg == "--json") {
      json = true;
    } else if (arg == "--adjacency") {
      if (i + 1 == args.size())
        throw UsageError("--adjacency needs a file (" + std::string(kUsage) + ")");
      adjacency = args[++i];
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      throw UsageError("unknown option '" + arg + "' (" + kUsage + ")");
    } else if (file.empty()) {
      file = arg;
    } else {
      throw UsageError("more than one FILE given ('" + file + "', '" + arg + "')");
    }
  }
  require_argument(file, kUsage, "FILE");
  // A model file gives its standard digraph (every link a node), analyzed over the tree joints;
  // a .dot or .gv file is a DOT digraph; the extension decides (report/report_input.hpp).
  const report::ReportInput input = report::load_report_input(file, options);
  add_warnings(file, input.warnings());
  // Everything is computed before anything is written: no partial output.
  const std::string text = json ? report::graph_report_json_text(input.graph, input.analysis)
                                : report::graph_report_text(input.graph, input.analysis);
  if (!adjacency.empty()) {
    // Rows and columns in the digraph's node order (a DOT file's input order; a model's nodes as
    // --json lists them); with "-" the matrix alone goes to standard output.
    write_command_output(adjacency, matrix_market_text(adjacency_matrix(input.graph), false), out);
    if (is_standard_output(adjacency)) return kExitOk;
  }
  out << text;
  if (json && !input.analysis.spanning.exists)
    print_line(err, "graph", "note: " + input.analysis.spanning.reason);
  return kExitOk;
}

}  // namespace skograph::cli

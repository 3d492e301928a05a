#include "analyze_command.hpp"

#include <ostream>

#include "skograph/cli/demo_model.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/io/yaml_reader.hpp"
#include "skograph/report/analysis.hpp"
#include "skograph/report/report_input.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

constexpr const char* kAnalyzeUsage =
    "usage: skograph analyze MODEL|FILE.dot --out DIR [--size PIXELS] [--state S.json] "
    "[--max-diagram-nodes N] [--package-path DIR]... [--strict] [--independent JOINT,...] "
    "[--loops LOOPS.yaml] [--base LINK]";
constexpr const char* kDemoUsage = "usage: skograph demo [--out DIR] [--size PIXELS]";

struct AnalyzeRequest {
  std::string file, directory;
  report::AnalysisOptions options;
  ReadOptions read;  // --strict, --independent, --loops
};

AnalyzeRequest parse_analyze_arguments(const std::vector<std::string>& args, bool demo) {
  const char* usage = demo ? kDemoUsage : kAnalyzeUsage;
  AnalyzeRequest request;
  if (demo) request.directory = "out/demo";
  bool directory_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!demo && parse_model_option(args, i, request.read, usage)) continue;
    const std::string& arg = args[i];
    if (arg == "--out" || arg == "-o" || arg == "--size" ||
        ((arg == "--state" || arg == "--max-diagram-nodes" || arg == "--package-path") && !demo)) {
      const std::string& value = require_value(args, i, usage);
      if (arg == "--size") {
        request.options.pixels = parse_integer("--size", value, 16, 8192, "pixels");
      } else if (arg == "--state") {
        request.options.state_file = value;
      } else if (arg == "--package-path") {
        request.options.package_paths.push_back(value);
      } else if (arg == "--max-diagram-nodes") {
        request.options.max_diagram_nodes =
            parse_integer("--max-diagram-nodes", value, 0, 1000000000, "nodes");
      } else {
        request.directory = value;
        directory_given = true;
      }
    } else if ((!arg.empty() && arg[0] == '-') || demo) {
      throw UsageError("unexpected argument '" + arg + "' (" + usage + ")");
    } else if (request.file.empty()) {
      request.file = arg;
    } else {
      throw UsageError("more than one input given ('" + request.file + "', '" + arg + "')");
    }
  }
  if (!demo && request.file.empty())
    throw UsageError(std::string("no input given (") + usage + ")");
  if (!demo && !directory_given)
    throw UsageError(std::string("no --out DIR given (") + usage + ")");
  return request;
}

int run(const AnalyzeRequest& request, const report::ReportInput& input, const char* command,
        std::ostream& out, std::ostream& err) {
  const report::AnalysisFiles made = report::analysis_files(input, request.options);
  report::write_analysis(made, request.directory);
  add_warnings(input.source, made.warnings);
  for (const std::string& note : made.notes) print_line(err, command, "note: " + note);
  out << "wrote " << made.files.size() << " files to " << request.directory << ":";
  for (const auto& file : made.files) out << " " << file.first;
  out << "\n";
  return kExitOk;
}

}  // namespace

int analyze_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const AnalyzeRequest request = parse_analyze_arguments(args, false);
  const report::ReportInput input = report::load_report_input(request.file, request.read);
  add_warnings(request.file, input.warnings());
  return run(request, input, "analyze", out, err);
}

int demo_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const AnalyzeRequest request = parse_analyze_arguments(args, true);
  const report::ReportInput input =
      report::report_input_of(parse_yaml(kDemoModelYaml, kDemoModelSource), kDemoModelSource);
  return run(request, input, "demo", out, err);
}

}  // namespace skograph::cli

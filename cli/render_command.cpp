#include "render_command.hpp"

#include <algorithm>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "skograph/cli/exit_status.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/report/pictures.hpp"
#include "skograph/report/report_input.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

constexpr const char* kRenderUsage =
    "usage: skograph render MODEL|FILE.dot --what "
    "digraph|spanning-tree|aggregated|segments|sparsity [--matrix M|E|A|L|M_R] [--ordering "
    "canonical|root-first|amd] [--state S.json] [--format svg|png|pdf|dot] [--size PIXELS] "
    "[--strict] [--loops LOOPS.yaml] [--base LINK] -o OUT";

struct RenderRequest {
  std::string file, output;
  ReadOptions read;  // --strict, --loops (and --independent)
  report::PictureOptions picture;
};

RenderRequest parse_render_arguments(const std::vector<std::string>& args) {
  RenderRequest request;
  report::PictureOptions& picture = request.picture;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const std::pair<const char*, std::string*> valued[] = {
        {"--what", &picture.what},         {"--matrix", &picture.matrix},
        {"--ordering", &picture.ordering}, {"--format", &picture.format},
        {"--state", &picture.state_file},  {"-o", &request.output},
        {"--out", &request.output}};
    bool matched = false;
    for (const auto& [name, value] : valued)
      if (arg == name) {
        *value = require_value(args, i, kRenderUsage);
        matched = true;
      }
    if (matched || parse_model_option(args, i, request.read, kRenderUsage)) continue;
    if (arg == "--size") {
      picture.pixels =
          parse_integer("--size", require_value(args, i, kRenderUsage), 16, 8192, "pixels");
    } else {
      positional_argument(arg, request.file, kRenderUsage, "input");
    }
  }
  require_argument(request.file, kRenderUsage, "input");
  if (picture.what.empty()) throw UsageError(std::string("no --what given (") + kRenderUsage + ")");
  if (request.output.empty())
    throw UsageError(std::string("no -o OUT given (") + kRenderUsage + ")");
  return request;
}

}  // namespace

int render_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const RenderRequest request = parse_render_arguments(args);
  // The options are checked before the input is read.
  report::picture_request(request.picture, request.output);
  const report::ReportInput input = report::load_report_input(request.file, request.read);
  add_warnings(request.file, input.warnings());
  // The whole picture is made before the file is touched; then temp file + rename.
  const report::Picture picture =
      report::render_picture(input, report::picture_request(request.picture, request.output));
  write_command_output(request.output, picture.bytes, out);
  for (const std::string& note : picture.notes) print_line(err, "render", "note: " + note);
  return kExitOk;
}

}  // namespace skograph::cli

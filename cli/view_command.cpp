#include "view_command.hpp"

#include <filesystem>
#include <optional>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/model/state.hpp"
#include "skograph/report/view_scene.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

constexpr const char* kViewUsage =
    "usage: skograph view MODEL [--state S.json] [--sweep DOF=LO:HI:N | --trajectory T.csv] "
    "[--out view.html] [--package-path DIR]... "
    "[--strict] [--loops LOOPS.yaml] [--independent JOINT,...] [--base LINK]";

struct ViewRequest {
  std::string file, state_file, trajectory_file, output = "view.html";
  std::optional<report::ViewSweep> sweep;
  std::vector<std::string> package_paths;
  ReadOptions read;
};

ViewRequest parse_view_arguments(const std::vector<std::string>& args) {
  ViewRequest request;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--state") {
      request.state_file = require_value(args, i, kViewUsage);
    } else if (arg == "--sweep") {
      request.sweep = report::parse_view_sweep(require_value(args, i, kViewUsage), "--sweep");
    } else if (arg == "--trajectory") {
      request.trajectory_file = require_value(args, i, kViewUsage);
    } else if (arg == "--out" || arg == "-o") {
      request.output = require_value(args, i, kViewUsage);
    } else if (arg == "--package-path") {
      request.package_paths.push_back(require_value(args, i, kViewUsage));
    } else if (!parse_model_option(args, i, request.read, kViewUsage)) {
      positional_argument(arg, request.file, kViewUsage, "input");
    }
  }
  require_argument(request.file, kViewUsage, "input");
  if (!request.state_file.empty() && !request.trajectory_file.empty())
    throw UsageError(std::string("--state and --trajectory do not go together: the page shows "
                                 "one state or the trajectory's (") +
                     kViewUsage + ")");
  if (request.sweep && !request.trajectory_file.empty())
    throw UsageError(std::string("--sweep and --trajectory do not go together (") + kViewUsage +
                     ")");
  return request;
}

}  // namespace

int view_command(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  const ViewRequest request = parse_view_arguments(args);
  const Model model = load_model(request.file, request.read);
  keep_warnings(model);
  report::ViewFrames frames;
  if (!request.trajectory_file.empty()) {
    frames = report::trajectory_frames(model, request.trajectory_file);
  } else {
    const ModelState state = load_state(request.state_file, model);
    frames.times = {0.0};
    frames.q = state.q.transpose();
    frames.open_when_unclosed = !request.sweep;
  }
  std::string page;
  try {
    if (request.sweep)
      frames = report::sweep_frames(model, frames.q.row(0).transpose(), *request.sweep);
    // The whole page is made before the file is touched; then temp file + rename.
    page = report::view_html(model, std::filesystem::path(request.file).filename().string(), frames,
                             request.package_paths);
  } catch (const InputError&) {
    throw;
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {  // the state's loops cannot be closed
    throw closure_failure(request.file, request.state_file, e, model.mechanism());
  }
  write_command_output(request.output, page, out);
  if (!is_standard_output(request.output))
    out << "wrote " << request.output << " (" << frames.times.size()
        << (frames.times.size() == 1 ? " frame)\n" : " frames)\n");
  return kExitOk;
}

}  // namespace skograph::cli

// The module's report calls behind skograph.analyze_graph, render and analyze (report/): the
// graph report, one picture, analyze's folder, as the program makes them.
#include <pybind11/stl.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "py_model.hpp"
#include "skograph/config.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/graph/text_input.hpp"
#include "skograph/report/graph_report.hpp"
#include "skograph/report/report_input.hpp"
#if SKOGRAPH_HAVE_VIZ
#include "skograph/io/trajectory_file.hpp"
#include "skograph/model/state.hpp"
#include "skograph/report/analysis.hpp"
#include "skograph/report/pictures.hpp"
#include "skograph/report/view_scene.hpp"
#endif

namespace skograph::python {
namespace {

ReadOptions read_options(bool strict, const std::optional<std::vector<std::string>>& independent,
                         const std::string& loops) {
  ReadOptions options;
  options.strict = strict;
  if (independent) options.independent = *independent;
  options.loops_file = loops;
  return options;
}

// The reader's warnings and the given notes as lines for Python warnings (skograph.__init__
// issues them).
py::list messages(const std::string& file, const std::vector<std::string>& warnings,
                  const std::vector<std::string>& notes) {
  py::list list;
  if (!warnings.empty()) {
    std::string line = "warning: " + file + ": ";
    for (std::size_t i = 0; i < warnings.size(); ++i) line += (i ? "; " : "") + warnings[i];
    list.append(printable(line));
  }
  for (const std::string& note : notes) list.append(printable("note: " + note));
  return list;
}

// `skograph graph PATH --json`: (the JSON text, messages).
py::tuple graph_report_call(const PathArgument& path, bool strict,
                            const OptionalPathArgument& loops) {
  const std::string file = path_of(path.value, "path");
  const ReadOptions options = read_options(strict, {}, optional_path(loops.value, "loops"));
  std::string json;
  std::vector<std::string> warnings, notes;
  {
    const py::gil_scoped_release release;
    const report::ReportInput input = report::load_report_input(file, options);
    if (!input.analysis.spanning.exists) notes.push_back(input.analysis.spanning.reason);
    json = report::graph_report_json_text(input.graph, input.analysis);
    warnings = input.warnings();
  }
  return py::make_tuple(json, messages(file, warnings, notes));
}

#if SKOGRAPH_HAVE_VIZ
// `skograph render`: the picture written to `output`; returns the messages.
py::list render_call(const PathArgument& path, const PathArgument& output, const std::string& what,
                     const std::string& matrix, const std::string& ordering,
                     const OptionalPathArgument& state, const std::string& format, int size,
                     bool strict, const OptionalPathArgument& loops) {
  const std::string file = path_of(path.value, "path"), out = path_of(output.value, "output");
  report::PictureOptions options{what,   matrix, ordering, optional_path(state.value, "state"),
                                 format, size};
  const report::PictureRequest request = report::picture_request(options, out);
  const ReadOptions reading = read_options(strict, {}, optional_path(loops.value, "loops"));
  report::Picture picture;
  std::vector<std::string> warnings;
  {
    const py::gil_scoped_release release;
    const report::ReportInput input = report::load_report_input(file, reading);
    warnings = input.warnings();
    picture = report::render_picture(input, request);
    write_output_file(out, picture.bytes);
  }
  return messages(file, warnings, picture.notes);
}

// --package-path's folders: None, one str or os.PathLike, or an iterable of them.
std::vector<std::string> package_paths_of(const py::object& value) {
  std::vector<std::string> folders;
  if (value.is_none()) return folders;
  const py::object fspath = py::module_::import("os").attr("fspath");
  if (py::isinstance<py::str>(value) || py::hasattr(value, "__fspath__")) {
    folders.push_back(fspath(value).cast<std::string>());
    return folders;
  }
  try {
    for (const py::handle item : py::iter(value))
      folders.push_back(fspath(item).cast<std::string>());
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    throw UsageError("package_path takes a folder (str or os.PathLike) or a list of folders");
  }
  return folders;
}

// `skograph analyze`: the report and every picture into `out`; returns the messages.
py::list analyze_call(const PathArgument& path, const PathArgument& out,
                      const OptionalPathArgument& state, int size, int max_diagram_nodes,
                      bool strict, const NamesArgument& independent,
                      const OptionalPathArgument& loops, const py::object& package_path) {
  const std::string file = path_of(path.value, "path"), folder = path_of(out.value, "out");
  report::AnalysisOptions options;
  options.state_file = optional_path(state.value, "state");
  options.pixels = size;
  options.max_diagram_nodes = max_diagram_nodes;
  options.package_paths = package_paths_of(package_path);
  const ReadOptions reading = read_options(strict, optional_names(independent.value, "independent"),
                                           optional_path(loops.value, "loops"));
  std::vector<std::string> warnings, notes;
  {
    const py::gil_scoped_release release;
    const report::ReportInput input = report::load_report_input(file, reading);
    const report::AnalysisFiles made = report::analysis_files(input, options);
    report::write_analysis(made, folder);
    warnings = input.warnings();
    warnings.insert(warnings.end(), made.warnings.begin(), made.warnings.end());
    notes = made.notes;
  }
  return messages(file, warnings, notes);
}

// `skograph view`: the page of the model at q (one state, or the zero state when None) or along
// the trajectory file; written to `path` (temp file + rename), or returned when path is None.
py::object view_call(PyModel& self, const OptionalPathArgument& path, const py::object& q,
                     const OptionalPathArgument& trajectory, const py::object& package_path,
                     const py::object& sweep) {
  const std::vector<std::string> package_paths = package_paths_of(package_path);
  const std::string out = optional_path(path.value, "path");
  const std::string trajectory_file = optional_path(trajectory.value, "trajectory");
  if (!trajectory_file.empty() && !q.is_none())
    throw UsageError(
        "q and trajectory do not go together: the page shows one state or the "
        "trajectory's");
  if (!sweep.is_none() && !trajectory_file.empty())
    throw UsageError("sweep and trajectory do not go together");
  if (!sweep.is_none() && !py::isinstance<py::str>(sweep))
    throw UsageError("sweep takes a str 'DOF=LO:HI:N' (e.g. 'crank_joint=0:6.28:60')");
  const std::optional<report::ViewSweep> swept =
      sweep.is_none() ? std::nullopt
                      : std::optional(report::parse_view_sweep(sweep.cast<std::string>(), "sweep"));
  report::ViewFrames frames;
  if (trajectory_file.empty()) {
    frames.times = {0.0};
    frames.q = (q.is_none() ? read_model_state("", self.model).q : state_vector(q, "q", self.model))
                   .transpose();
    frames.open_when_unclosed = !swept;
  }
  std::string page;
  {
    const py::gil_scoped_release release;
    if (!trajectory_file.empty()) frames = report::trajectory_frames(self.model, trajectory_file);
    if (swept) frames = report::sweep_frames(self.model, frames.q.row(0).transpose(), *swept);
    page =
        report::view_html(self.model, std::filesystem::path(self.model.file()).filename().string(),
                          frames, package_paths);
    if (!out.empty()) write_output_file(out, page);
  }
  if (!out.empty()) return py::none();
  return py::str(page);
}

// Model.show: the page in an iframe (its scripts stay in it) as IPython.display.HTML, or without
// IPython as skograph._ViewHTML (the same data and _repr_html_).
py::object show_call(PyModel& self, const py::object& q, const OptionalPathArgument& trajectory,
                     const py::object& package_path, const py::object& sweep) {
  const std::string page =
      view_call(self, OptionalPathArgument{py::none()}, q, trajectory, package_path, sweep)
          .cast<std::string>();
  std::string data = "<iframe srcdoc=\"" + html_escaped(page);
  data += "\" style=\"width: 100%; height: 560px; border: 0\"></iframe>";
  try {
    return py::module_::import("IPython.display").attr("HTML")(data);
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
  }
  return py::module_::import("skograph").attr("_ViewHTML")(data);
}
#endif

}  // namespace

void bind_view(ModelClass& model_class) {
#if SKOGRAPH_HAVE_VIZ
  model_class.def("_view", &view_call, py::arg("path"), py::arg("q"), py::arg("trajectory"),
                  py::arg("package_path"), py::arg("sweep"));
  model_class.def("show", &show_call, py::arg("q") = py::none(), py::arg("trajectory") = py::none(),
                  py::arg("package_path") = py::none(), py::arg("sweep") = py::none(),
                  "The 3D view of the model at q (shape (dofs,); None: the zero state), along "
                  "a trajectory file (as skograph simulate --out writes it) or along a sweep "
                  "'DOF=LO:HI:N' from q (as --sweep), mesh files of "
                  "package:// names looked for in package_path (a folder or a list), for Jupyter: "
                  "IPython.display.HTML holding skograph.view's page in an iframe (without "
                  "IPython, an object with the same .data and _repr_html_). Raises "
                  "skograph.Error for bad input.");
#else
  auto without_viz = [](const char* call) {
    return [call](PyModel&, const py::object&, const py::object&, const py::object&,
                  const py::object&, const py::object&) -> py::object {
      throw UsageError(std::string("this skograph was built without its viz layer, so it has no ") +
                       call);
    };
  };
  model_class.def("_view", without_viz("view"), py::arg("path"), py::arg("q"),
                  py::arg("trajectory"), py::arg("package_path"), py::arg("sweep"));
  model_class.def(
      "show",
      [](PyModel&, const py::object&, const py::object&, const py::object&,
         const py::object&) -> py::object {
        throw UsageError("this skograph was built without its viz layer, so it has no show");
      },
      py::arg("q") = py::none(), py::arg("trajectory") = py::none(),
      py::arg("package_path") = py::none(), py::arg("sweep") = py::none());
#endif
}

void bind_pictures(py::module_& module) {
  module.def("_graph_report", &graph_report_call, py::arg("path"), py::arg("strict"),
             py::arg("loops"));
#if SKOGRAPH_HAVE_VIZ
  module.def("_render", &render_call, py::arg("path"), py::arg("output"), py::arg("what"),
             py::arg("matrix"), py::arg("ordering"), py::arg("state"), py::arg("format"),
             py::arg("size"), py::arg("strict"), py::arg("loops"));
  module.def("_analyze", &analyze_call, py::arg("path"), py::arg("out"), py::arg("state"),
             py::arg("size"), py::arg("max_diagram_nodes"), py::arg("strict"),
             py::arg("independent"), py::arg("loops"), py::arg("package_path"));
#endif
}

}  // namespace skograph::python

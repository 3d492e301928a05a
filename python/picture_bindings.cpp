// The module's report calls behind skograph.analyze_graph, render and analyze (report/): the
// graph report, one picture, analyze's folder, as the program makes them.
#include <pybind11/stl.h>

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
#include "skograph/report/analysis.hpp"
#include "skograph/report/pictures.hpp"
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

// `skograph analyze`: the report and every picture into `out`; returns the messages.
py::list analyze_call(const PathArgument& path, const PathArgument& out,
                      const OptionalPathArgument& state, int size, int max_diagram_nodes,
                      bool strict, const NamesArgument& independent,
                      const OptionalPathArgument& loops) {
  const std::string file = path_of(path.value, "path"), folder = path_of(out.value, "out");
  report::AnalysisOptions options;
  options.state_file = optional_path(state.value, "state");
  options.pixels = size;
  options.max_diagram_nodes = max_diagram_nodes;
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
#endif

}  // namespace

void bind_pictures(py::module_& module) {
  module.def("_graph_report", &graph_report_call, py::arg("path"), py::arg("strict"),
             py::arg("loops"));
#if SKOGRAPH_HAVE_VIZ
  module.def("_render", &render_call, py::arg("path"), py::arg("output"), py::arg("what"),
             py::arg("matrix"), py::arg("ordering"), py::arg("state"), py::arg("format"),
             py::arg("size"), py::arg("strict"), py::arg("loops"));
  module.def("_analyze", &analyze_call, py::arg("path"), py::arg("out"), py::arg("state"),
             py::arg("size"), py::arg("max_diagram_nodes"), py::arg("strict"),
             py::arg("independent"), py::arg("loops"));
#endif
}

}  // namespace skograph::python

#include "render_command.hpp"

#include <algorithm>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "skograph/cli/commands.hpp"
#include "embedding_analysis.hpp"
#include "model_loading.hpp"
#include "pictures.hpp"
#include "usage.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/viz/factor_pattern.hpp"

namespace skograph::cli {

namespace {

constexpr const char* kReducedMassName = "M_R";

constexpr const char* kRenderUsage =
    "usage: skograph render MODEL|FILE.dot --what "
    "digraph|spanning-tree|aggregated|segments|sparsity [--matrix M|E|A|L|M_R] [--ordering "
    "canonical|root-first|amd] [--state S.json] [--format svg|png|pdf|dot] [--size PIXELS] "
    "[--strict] -o "
    "OUT";

struct RenderRequest {
  std::string file, output;
  bool strict = false;
  std::optional<viz::DiagramKind> diagram;  // set unless --what sparsity
  bool sparsity = false;
  viz::MatrixKind matrix = viz::MatrixKind::kMass;
  bool matrix_given = false;
  bool reduced_mass = false;  // --matrix M_R: the constraint-embedded model's mass matrix
  std::string state;          // --state, for M_R
  std::string ordering = "canonical";
  bool ordering_given = false;
  viz::ImageFormat format = viz::ImageFormat::kSvg;
  int pixels = 800;
};

RenderRequest parse_render_arguments(const std::vector<std::string>& args) {
  RenderRequest request;
  std::string what, format;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool takes_value = arg == "--what" || arg == "--matrix" || arg == "--ordering" ||
                             arg == "--format" || arg == "--size" || arg == "-o" ||
                             arg == "--out" || arg == "--state";
    if (takes_value) {
      if (i + 1 == args.size()) throw UsageError(arg + " needs a value (" + kRenderUsage + ")");
      const std::string& value = args[++i];
      if (arg == "--what") {
        what = value;
      } else if (arg == "--matrix" && value == kReducedMassName) {
        request.reduced_mass = true;
        request.matrix_given = true;
      } else if (arg == "--state") {
        request.state = value;
      } else if (arg == "--matrix") {
        const auto kind = viz::parse_matrix_kind(value);
        if (!kind)
          throw UsageError("unknown --matrix '" + value + "' (expected M, E, A, L or M_R)");
        request.reduced_mass = false;
        request.matrix = *kind;
        request.matrix_given = true;
      } else if (arg == "--ordering") {
        const auto& names = viz::factor_ordering_names();
        if (std::find(names.begin(), names.end(), value) == names.end())
          throw UsageError("unknown --ordering '" + value +
                           "' (expected canonical, root-first or amd)");
        request.ordering = value;
        request.ordering_given = true;
      } else if (arg == "--format") {
        format = value;
      } else if (arg == "--size") {
        request.pixels = parse_integer("--size", value, 16, 8192, "pixels");
      } else {
        request.output = value;
      }
    } else if (arg == "--strict") {
      request.strict = true;
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError("unknown option '" + arg + "' (" + kRenderUsage + ")");
    } else if (request.file.empty()) {
      request.file = arg;
    } else {
      throw UsageError("more than one input given ('" + request.file + "', '" + arg + "')");
    }
  }
  if (request.file.empty()) throw UsageError(std::string("no input given (") + kRenderUsage + ")");
  if (what.empty()) throw UsageError(std::string("no --what given (") + kRenderUsage + ")");
  if (what == "sparsity") {
    request.sparsity = true;
  } else {
    request.diagram = viz::parse_diagram_kind(what);
    if (!request.diagram)
      throw UsageError("unknown --what '" + what +
                       "' (expected digraph, spanning-tree, aggregated, segments or sparsity)");
    if (request.matrix_given) throw UsageError("--matrix applies to --what sparsity only");
  }
  if (request.ordering_given && !(request.sparsity && request.matrix == viz::MatrixKind::kFactor))
    throw UsageError("--ordering applies to --what sparsity --matrix L only");
  if (!request.state.empty() && !request.reduced_mass)
    throw UsageError("--state applies to --what sparsity --matrix M_R only");
  if (request.output.empty())
    throw UsageError(std::string("no -o OUT given (") + kRenderUsage + ")");
  if (!format.empty()) {
    const auto parsed = viz::parse_image_format(format);
    if (!parsed)
      throw UsageError("unknown --format '" + format + "' (expected svg, png, pdf or dot)");
    request.format = *parsed;
  } else {
    const auto parsed = viz::image_format_of_path(request.output);
    if (!parsed)
      throw UsageError("cannot tell the format from '" + request.output +
                       "': give --format svg, png, pdf or dot");
    request.format = *parsed;
  }
  if (request.sparsity && request.format == viz::ImageFormat::kDot)
    throw UsageError("a spy plot is an image: --format svg, png or pdf, not dot");
  return request;
}

}  // namespace

int render_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  RenderRequest request;
  try {
    request = parse_render_arguments(args);
  } catch (const UsageError& e) {
    print_line(err, "render", e.what());
    return kExitBadInput;
  }
  return run_reporting_input_errors("render", request.file, err, [&] {
    const PictureInput input = load_picture_input(request.file, request.strict);
    // The whole picture is made before the file is touched; then temp file + rename.
    Picture picture;
    if (request.reduced_mass) {
      if (!input.is_model || input.loops + input.couplings == 0)
        throw UsageError(input.source +
                         ": --matrix M_R needs a MODEL with loops or couplings (a closed chain)");
      const EmbeddingAnalysis embedding =
          embedding_analysis(*input.mechanism, input.source, request.state);
      if (!embedding.closed)
        throw UsageError(naming_file(
            request.state.empty() ? input.source : request.state,
            "the loops cannot be closed at " + embedding.state + ": " + embedding.failure));
      picture = reduced_mass_picture(input, embedding, request.format, request.pixels);
    } else {
      picture = request.sparsity ? sparsity_picture(input, request.matrix, request.ordering,
                                                    request.format, request.pixels)
                                 : diagram_picture(input, *request.diagram, request.format);
    }
    write_command_output(request.output, picture.bytes, out);
    for (const std::string& note : picture.notes) print_line(err, "render", "note: " + note);
    return kExitOk;
  });
}

}  // namespace skograph::cli

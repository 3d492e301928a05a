#include "cli/pictures.hpp"

#include <stdexcept>

#include "viz/graphviz_layout.hpp"
#include "viz/spy_plot.hpp"

namespace skograph::cli {

std::string diagram_title(const PictureInput& input, viz::DiagramKind kind) {
  switch (kind) {
    case viz::DiagramKind::kDigraph:
      return input.name + (input.is_model ? ": standard digraph" : ": digraph");
    case viz::DiagramKind::kSpanningTree:
      return input.name + ": spanning tree";
    case viz::DiagramKind::kAggregated:
      return input.name + ": aggregated tree";
    case viz::DiagramKind::kSegments:
      return input.name + ": tree of serial segments";
  }
  return input.name;
}

Picture diagram_picture(const PictureInput& input, viz::DiagramKind kind, viz::ImageFormat format) {
  const std::string dot =
      viz::diagram(kind, input.graph, input.analysis, diagram_title(input, kind));
  return {viz::render_dot(dot, format), {}};
}

Picture sparsity_picture(const PictureInput& input, viz::MatrixKind kind,
                         const std::string& ordering, viz::ImageFormat format, int pixels) {
  const viz::SkoTopology topology =
      viz::sko_topology(input.graph, input.analysis, input.node_dims, input.hinge_dims);
  const viz::MatrixPicture matrix = viz::matrix_picture(topology, kind, ordering);
  viz::SpyPlotOptions options;
  options.format = format;
  options.max_pixels = pixels;
  options.title = input.name + ": " + matrix.title;
  options.subtitle = matrix.summary;
  viz::SpyPlot plot = viz::spy_plot(matrix.pattern, matrix.fill ? &*matrix.fill : nullptr,
                                    matrix.boundaries, options);
  return {std::move(plot.bytes), std::move(plot.notes)};
}

}  // namespace skograph::cli

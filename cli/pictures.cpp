#include "skograph/cli/pictures.hpp"

#include <filesystem>
#include <stdexcept>

#include "skograph/viz/graphviz_layout.hpp"
#include "skograph/viz/spy_plot.hpp"

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

Picture reduced_mass_picture(const PictureInput& input, const EmbeddingAnalysis& embedding,
                             viz::ImageFormat format, int pixels) {
  if (!embedding.topology)
    throw std::invalid_argument("no reduced mass matrix: the closed chain could not be closed at " +
                                embedding.state + " (" + embedding.failure + ")");
  const viz::SkoTopology& topology = *embedding.topology;
  viz::MatrixPicture matrix = viz::matrix_picture(topology, viz::MatrixKind::kMass);
  std::string lines = "serial segment boundary";
  if (topology.forest.size() <= kMaxNodeBoundaries) {
    // Aggregated-node boundaries: each aggregate's n_R rows form one dense diagonal block.
    matrix.boundaries.clear();
    for (int k = 1; k < topology.forest.size(); ++k) {
      const int offset = topology.hinge_layout.offset(k);
      if (offset > 0 && offset < topology.hinge_layout.total() &&
          (matrix.boundaries.empty() || matrix.boundaries.back() < offset))
        matrix.boundaries.push_back(offset);
    }
    lines = "aggregated-node boundary";
  }
  viz::SpyPlotOptions options;
  options.format = format;
  options.max_pixels = pixels;
  options.title = input.name + ": M_R = X* M X, mass matrix of the embedded model";
  options.subtitle = std::to_string(matrix.pattern.rows) + " x " +
                     std::to_string(matrix.pattern.cols) + ", " +
                     std::to_string(matrix.pattern.nonzeros()) + " structural nonzeros (" +
                     std::to_string(embedding.nonzeros) + " at " +
                     std::filesystem::path(embedding.state).filename().string() +
                     "); rows: aggregated forest, strictly canonical";
  options.boundary_label = lines;
  viz::SpyPlot plot = viz::spy_plot(matrix.pattern, nullptr, matrix.boundaries, options);
  return {std::move(plot.bytes), std::move(plot.notes)};
}

}  // namespace skograph::cli

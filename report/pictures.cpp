#include "skograph/report/pictures.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "skograph/model/dynamics.hpp"
#include "skograph/model/state.hpp"
#include "skograph/sparse/kkt_system.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "skograph/viz/factor_pattern.hpp"
#include "skograph/viz/graphviz_layout.hpp"
#include "skograph/viz/spy_plot.hpp"

namespace skograph::report {

std::string diagram_title(const ReportInput& input, viz::DiagramKind kind) {
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

namespace {

// A loop's type in the words of the tree's joint types (a weld is a fixed joint): the diagrams
// name joint types one way.
const char* loop_joint_type_name(LoopType type) {
  return type == LoopType::kWeld ? joint_type_name(JointType::kFixed) : loop_type_name(type);
}

// The standard digraph's edges (rigid/mechanism_graph.hpp: joints in joint order, then loops, then
// couplings): joint names and types, loop and coupling names, and the joints of the independent
// coordinates `independent` (dof names: "joint" or "joint:i") marked, `source` saying whence.
viz::EdgeNotes edge_notes(const Mechanism& mechanism, const std::vector<std::string>& independent,
                          const std::string& source) {
  viz::EdgeNotes notes;
  // Independent dofs per joint: named_dofs gives offsets in the joints' order.
  std::vector<int> independent_dofs(mechanism.joints.size(), 0);
  try {
    std::size_t next = 0;
    int end = 0;  // one past the dofs of the joints before `next`
    for (const int dof : named_dofs(mechanism, independent)) {
      while (dof >= end) end += joint_coordinate_count(mechanism, static_cast<int>(next++));
      ++independent_dofs[next - 1];
    }
  } catch (const std::invalid_argument&) {  // names not of this mechanism: nothing marked
    std::fill(independent_dofs.begin(), independent_dofs.end(), 0);
  }
  bool flexible = false, fixed = false;
  for (std::size_t j = 0; j < mechanism.joints.size(); ++j) {
    const Joint& joint = mechanism.joints[j];
    notes.role.push_back(viz::EdgeRole::kTreeJoint);
    std::vector<std::string> lines{joint.name,
                                   std::string("(") + joint_type_name(joint.type) + ")"};
    const int dofs = joint_dof_count(joint.type), marked = independent_dofs[j];
    if (marked > 0 && marked < dofs)
      lines.push_back(std::to_string(marked) + " of " + std::to_string(dofs) + " independent");
    // The joint into a flexible link: its node carries the link's modal coordinates too.
    if (const int modes = child_mode_count(mechanism, static_cast<int>(j)); modes > 0) {
      lines.push_back("flexible child: " + std::to_string(modes) +
                      (modes == 1 ? " mode" : " modes"));
      flexible = true;
    }
    notes.label.push_back(lines);
    notes.marked.push_back(marked > 0);
    fixed = fixed || joint.type == JointType::kFixed;
  }
  for (const LoopClosure& loop : mechanism.loops) {
    notes.role.push_back(viz::EdgeRole::kLoop);
    notes.label.push_back({loop.name, std::string("(") + loop_joint_type_name(loop.type) + ")"});
    notes.marked.push_back(false);
  }
  for (const Coupling& coupling : mechanism.couplings) {
    notes.role.push_back(viz::EdgeRole::kCoupling);
    notes.label.push_back({coupling.name});
    notes.marked.push_back(false);
  }
  if (!mechanism.joints.empty())
    notes.legend.push_back(
        std::string("tree edges: the joint's name and (type)") +
        (fixed ? "; a fixed joint is welded, fused into its parent body for the dynamics" : ""));
  if (flexible)
    notes.legend.push_back(
        "flexible child: the link the joint carries is flexible, its node 6 + modes wide");
  if (std::any_of(independent_dofs.begin(), independent_dofs.end(), [](int n) { return n > 0; }))
    notes.legend.push_back("blue, bold: joints of the independent coordinates (" + source + ")");
  return notes;
}

// A closed chain's independent coordinates for the diagrams (dof names) and the legend's words:
// the embedding's (which keeps the given ones, Mechanism::independent, and selects the rest),
// at the caller's state or else at the zero configuration closed here; the given names alone when
// the loops cannot be closed (or the model built) there; none otherwise.
std::pair<std::vector<std::string>, std::string> independent_for_diagrams(
    const ReportInput& input, const EmbeddingAnalysis* embedding) {
  const std::vector<std::string>& given = input.mechanism->independent;
  std::optional<EmbeddingAnalysis> zero;
  if (embedding == nullptr) {
    try {
      zero = embedding_analysis(input_model(input), "");
      embedding = &*zero;
    } catch (const Error&) {
    }
  }
  const std::string where = embedding == nullptr || embedding->state == "zero configuration"
                                ? "the zero configuration"
                                : std::filesystem::path(embedding->state).filename().string();
  if (embedding != nullptr && embedding->closed)
    return {embedding->independent,
            given.empty() ? "selected at " + where
                          : "as given; where an aggregate has none given, selected at " + where};
  return {given, "as given"};
}

}  // namespace

Picture diagram_picture(const ReportInput& input, viz::DiagramKind kind, viz::ImageFormat format,
                        const EmbeddingAnalysis* embedding) {
  viz::EdgeNotes notes;
  if (input.mechanism) {
    // Only the digraph and the spanning tree draw joints (and so the marks).
    const bool marks =
        input.loops + input.couplings > 0 &&
        (kind == viz::DiagramKind::kDigraph || kind == viz::DiagramKind::kSpanningTree);
    std::pair<std::vector<std::string>, std::string> independent;
    if (marks) independent = independent_for_diagrams(input, embedding);
    notes = edge_notes(*input.mechanism, independent.first, independent.second);
  }
  const std::string dot = viz::diagram(
      kind, input.graph, input.analysis, diagram_title(input, kind),
      input.mechanism ? &notes : nullptr,
      format == viz::ImageFormat::kDot ? viz::EdgeLabels::kOnEdges : viz::EdgeLabels::kLabelNodes);
  return {viz::render_dot(dot, format), {}};
}

namespace {

// Row labels of a spy plot of the SKO forest's matrices (rows in its strictly canonical order):
// fine per dof ("joint", "joint:i" for several; M and L) or per body (E and A), coarse per serial
// segment, named by its base body.
void axis_labels(const ReportInput& input, const viz::SkoTopology& topology, viz::MatrixKind kind,
                 viz::SpyPlotOptions& options) {
  const BlockLayout& layout = viz::matrix_layout(topology, kind);
  const bool per_dof = kind == viz::MatrixKind::kMass || kind == viz::MatrixKind::kFactor;
  // Each node's dof names (its joint's dofs, then a flexible link's modal coordinates).
  std::vector<std::vector<std::string>> dofs_of(static_cast<std::size_t>(input.graph.node_count()));
  if (input.mechanism) {
    const std::vector<std::string> names = dof_names(*input.mechanism);
    std::size_t next = 0;
    for (std::size_t j = 0; j < input.mechanism->joints.size(); ++j) {
      const int count = joint_coordinate_count(*input.mechanism, static_cast<int>(j));
      auto& dofs = dofs_of[static_cast<std::size_t>(input.mechanism->joints[j].child + 1)];
      dofs.assign(names.begin() + static_cast<std::ptrdiff_t>(next),
                  names.begin() + static_cast<std::ptrdiff_t>(next + count));
      next += static_cast<std::size_t>(count);
    }
  }
  for (int k = 0; k < topology.forest.size(); ++k) {
    const int node = topology.tree_node[static_cast<std::size_t>(k)];
    const int rows = layout.dim(k), offset = layout.offset(k);
    const std::vector<std::string>& dofs = dofs_of[static_cast<std::size_t>(node)];
    if (per_dof && static_cast<int>(dofs.size()) == rows && rows > 0) {
      for (int i = 0; i < rows; ++i)
        options.fine.push_back({offset + i, offset + i + 1, dofs[static_cast<std::size_t>(i)]});
    } else if (rows > 0) {
      options.fine.push_back({offset, offset + rows, input.graph.name(node)});
    }
  }
  for (int s = 0; s < topology.forest.segment_count(); ++s) {
    int begin = layout.total(), end = 0;
    for (const int k : topology.forest.segment_nodes_tip_first(s)) {
      begin = std::min(begin, layout.offset(k));
      end = std::max(end, layout.offset(k) + layout.dim(k));
    }
    if (end > begin)
      options.coarse.push_back(
          {begin, end,
           input.graph.name(
               topology.tree_node[static_cast<std::size_t>(topology.forest.segment_base(s))])});
  }
  std::sort(options.coarse.begin(), options.coarse.end(),
            [](const viz::AxisLabel& a, const viz::AxisLabel& b) { return a.begin < b.begin; });
}

}  // namespace

Picture sparsity_picture(const ReportInput& input, viz::MatrixKind kind,
                         const std::string& ordering, viz::ImageFormat format, int pixels) {
  const viz::SkoTopology topology =
      viz::sko_topology(input.graph, input.analysis, input.node_dims, input.hinge_dims);
  const viz::MatrixPicture matrix = viz::matrix_picture(topology, kind, ordering);
  viz::SpyPlotOptions options;
  options.format = format;
  options.max_pixels = pixels;
  // A closed chain's M, E, A and L are its spanning tree's (loops and couplings cut).
  const bool closed = input.loops + input.couplings > 0;
  options.title = input.name + ": " + matrix.title + (closed ? " of the spanning tree" : "");
  options.subtitle = matrix.summary;
  options.caption = viz::matrix_plain_words(kind);
  if (closed)
    options.caption +=
        kind == viz::MatrixKind::kMass ? " (loops cut; M_R is the closed chain's)" : " (loops cut)";
  // A factor in another ordering has its rows permuted: row numbers only.
  if (kind != viz::MatrixKind::kFactor || ordering == "canonical")
    axis_labels(input, topology, kind, options);
  viz::SpyPlot plot = viz::spy_plot(matrix.pattern, matrix.fill ? &*matrix.fill : nullptr,
                                    matrix.boundaries, options);
  return {std::move(plot.bytes), std::move(plot.notes)};
}

Picture reduced_mass_picture(const ReportInput& input, const EmbeddingAnalysis& embedding,
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
  options.caption =
      "the mass matrix in the independent coordinates, loops embedded: one block per aggregate";
  // Rows by independent coordinate (fine) and by node of the aggregated forest (coarse):
  // "aggregate N" (the number of the diagrams and the report) or "node N" for a joint outside
  // every aggregate.
  for (int k = 0; k < topology.forest.size(); ++k) {
    const int rows = topology.hinge_layout.dim(k), offset = topology.hinge_layout.offset(k);
    if (rows == 0) continue;
    std::string text = "node " + std::to_string(k + 1);
    for (const EmbeddingAnalysis::Aggregate& aggregate : embedding.aggregates)
      if (aggregate.node == k + 1) text = "aggregate " + std::to_string(k + 1);
    options.coarse.push_back({offset, offset + rows, text});
  }
  for (std::size_t row = 0; row < embedding.row_names.size(); ++row)
    options.fine.push_back(
        {static_cast<int>(row), static_cast<int>(row) + 1, embedding.row_names[row]});
  viz::SpyPlot plot = viz::spy_plot(matrix.pattern, nullptr, matrix.boundaries, options);
  return {std::move(plot.bytes), std::move(plot.notes)};
}
Picture kkt_picture(const ReportInput& input, const ModelKkt& kkt, bool factor,
                    viz::ImageFormat format, int pixels) {
  const KktSystem& system = *kkt.system;
  const SparsityPattern pattern = sparsity_pattern(system.matrix());
  viz::SpyPlotOptions options;
  options.format = format;
  options.max_pixels = pixels;
  options.boundary_label = "";
  std::ostringstream subtitle;
  subtitle << system.dof_count() << " dofs + " << system.multiplier_count()
           << " multiplier rows, in the KKT elimination order";
  for (std::size_t i = 0; i < kkt.labels.size(); ++i)
    options.fine.push_back({static_cast<int>(i), static_cast<int>(i) + 1, kkt.labels[i]});
  viz::SpyPlot plot;
  if (!factor) {
    options.title = input.name + ": K = [M G*; G 0], the augmented system";
    subtitle << ", " << pattern.nonzeros() << " nonzeros";
    options.caption =
        "rows in the order a fill-free LDL* of the M block eliminates them; the "
        "multiplier rows sit after their loop's last dof";
    options.subtitle = subtitle.str();
    plot = viz::spy_plot(pattern, nullptr, {}, options);
  } else {
    const SparsityPattern l = symbolic_factor_pattern(pattern);
    // Fill: entries of L that are not in K's lower triangle.
    std::vector<Eigen::Triplet<double>> fill_entries;
    for (int j = 0; j < l.cols; ++j)
      for (int p = l.column_start[static_cast<std::size_t>(j)];
           p < l.column_start[static_cast<std::size_t>(j) + 1]; ++p) {
        const int i = l.row_index[static_cast<std::size_t>(p)];
        if (!pattern.contains(i, j)) fill_entries.emplace_back(i, j, 1.0);
      }
    Eigen::SparseMatrix<double> fill_matrix(l.rows, l.cols);
    fill_matrix.setFromTriplets(fill_entries.begin(), fill_entries.end());
    const SparsityPattern fill = sparsity_pattern(fill_matrix);
    options.title = input.name + ": L of K = L D L*, KKT elimination order";
    subtitle << ", nnz(L) " << l.nonzeros() << " (fill " << fill.nonzeros() << ", none in the M "
             << "block; AMD: nnz(L) " << kkt.amd_factor_nonzeros << ")";
    options.subtitle = subtitle.str();
    options.caption = "fill (second colour) only in multiplier rows and columns";
    plot = viz::spy_plot(l, &fill, {}, options);
  }
  return {std::move(plot.bytes), std::move(plot.notes)};
}

PictureRequest picture_request(const PictureOptions& options, const std::string& output) {
  PictureRequest request;
  request.pixels = options.pixels;
  request.state_file = options.state_file;
  const bool matrix_given = !options.matrix.empty(), ordering_given = !options.ordering.empty();
  if (options.matrix == "M_R") {
    request.reduced_mass = true;
  } else if (options.matrix == "K" || options.matrix == "L_K") {
    request.kkt = true;
    request.kkt_factor = options.matrix == "L_K";
  } else if (matrix_given) {
    const auto kind = viz::parse_matrix_kind(options.matrix);
    if (!kind)
      throw UsageError("unknown --matrix '" + options.matrix +
                       "' (expected M, E, A, L, M_R, K or L_K)");
    request.matrix = *kind;
  }
  if (ordering_given) {
    const auto& names = viz::factor_ordering_names();
    if (std::find(names.begin(), names.end(), options.ordering) == names.end())
      throw UsageError("unknown --ordering '" + options.ordering +
                       "' (expected canonical, root-first or amd)");
    request.ordering = options.ordering;
  }
  if (options.what == "sparsity") {
    request.sparsity = true;
  } else {
    const std::optional<viz::DiagramKind> diagram = viz::parse_diagram_kind(options.what);
    if (!diagram)
      throw UsageError("unknown --what '" + options.what +
                       "' (expected digraph, spanning-tree, aggregated, segments or sparsity)");
    request.diagram = *diagram;
    if (matrix_given) throw UsageError("--matrix applies to --what sparsity only");
  }
  if (ordering_given && !(request.sparsity && !request.reduced_mass && !request.kkt &&
                          request.matrix == viz::MatrixKind::kFactor))
    throw UsageError("--ordering applies to --what sparsity --matrix L only");
  if (!request.state_file.empty() && !request.reduced_mass && !request.kkt)
    throw UsageError("--state applies to --what sparsity --matrix M_R, K or L_K only");
  if (!options.format.empty()) {
    const auto parsed = viz::parse_image_format(options.format);
    if (!parsed)
      throw UsageError("unknown --format '" + options.format + "' (expected svg, png, pdf or dot)");
    request.format = *parsed;
  } else {
    const auto parsed = viz::image_format_of_path(output);
    if (!parsed)
      throw UsageError("cannot tell the format from '" + output +
                       "': give --format svg, png, pdf or dot");
    request.format = *parsed;
  }
  if (request.sparsity && request.format == viz::ImageFormat::kDot)
    throw UsageError("a spy plot is an image: --format svg, png or pdf, not dot");
  return request;
}

Picture render_picture(const ReportInput& input, const PictureRequest& request) {
  if ((request.sparsity || request.diagram != viz::DiagramKind::kDigraph) &&
      !input.analysis.spanning.exists)
    throw InputError(input.source, 0,
                     "the digraph has no spanning tree (" + input.analysis.spanning.reason + ")");
  if (request.reduced_mass) {
    if (!input.is_model || input.loops + input.couplings == 0)
      throw InputError(input.source, 0,
                       "--matrix M_R needs a MODEL with loops or couplings (a closed chain)");
    const Model model = input_model(input);
    const EmbeddingAnalysis embedding = embedding_analysis(model, request.state_file);
    if (!embedding.closed)
      throw InputError(request.state_file.empty() ? input.source : request.state_file, 0,
                       embedding.not_built ? embedding.failure
                                           : "the loops cannot be closed at " + embedding.state +
                                                 ": " + embedding.failure);
    return reduced_mass_picture(input, embedding, request.format, request.pixels);
  }
  if (request.kkt) {
    if (!input.is_model || input.loops + input.couplings == 0)
      throw InputError(input.source, 0,
                       std::string("--matrix ") + (request.kkt_factor ? "L_K" : "K") +
                           " needs a MODEL with loops or couplings (a closed chain)");
    const Model model = input_model(input);
    const ModelState state = read_model_state(request.state_file, model);
    ModelData data(model);
    ModelKkt kkt;
    try {
      kkt = model_kkt(model, data, state.q, state.qd, state.tau, state.gravity);
    } catch (const Error& e) {
      throw InputError(request.state_file.empty() ? input.source : request.state_file, 0, e.what());
    }
    return kkt_picture(input, kkt, request.kkt_factor, request.format, request.pixels);
  }
  if (request.sparsity)
    return sparsity_picture(input, request.matrix, request.ordering, request.format,
                            request.pixels);
  return diagram_picture(input, request.diagram, request.format);
}

}  // namespace skograph::report

// analyze's report and pictures (docs/pictures.md), made in memory and written all at once.
#include "skograph/report/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <system_error>

#include "skograph/graph/output_file.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/state.hpp"
#include "skograph/report/embedding_analysis.hpp"
#include "skograph/report/graph_report.hpp"
#include "skograph/report/html_report.hpp"
#include "skograph/report/json_output.hpp"
#include "skograph/report/pictures.hpp"
#include "skograph/report/view_scene.hpp"
#include "skograph/viz/factor_pattern.hpp"

namespace skograph::report {

namespace {

using Json = nlohmann::ordered_json;

Json pattern_json(const SparsityPattern& pattern) {
  return {{"rows", pattern.rows}, {"cols", pattern.cols}, {"nonzeros", pattern.nonzeros()}};
}

// A part of the report, as JSON and as text.
struct SparsityReport {
  Json json;
  std::string text;
};

// nnz(L), fill and flops of the Cholesky factor of the topology's M per ordering (part II
// section 7.4: none for the canonical one) as JSON, and as text lines on `text`.
Json factor_fill_report(const viz::SkoTopology& topology, std::ostream& text) {
  Json factor = Json::object();
  for (const viz::FactorFill& fill : viz::factor_fill_by_ordering(topology)) {
    if (!fill.available) {
      factor[fill.ordering] = {{"available", false}, {"note", fill.note}};
      text << "     " << std::left << std::setw(11) << fill.ordering << std::right
           << " not available (" << fill.note << ")\n";
      continue;
    }
    factor[fill.ordering] = {{"available", true},
                             {"nonzeros", fill.nonzeros},
                             {"fill", fill.fill},
                             // A count: an integer in the JSON, as nonzeros and fill are.
                             {"flops", std::llround(fill.flops)}};
    text << "     " << std::left << std::setw(11) << fill.ordering << std::right << std::setw(10)
         << fill.nonzeros << " nonzeros " << std::setw(8) << fill.fill << " fill   " << fill.flops
         << " flops\n";
  }
  return factor;
}

Json optional_json(const std::optional<int>& value) {
  return value ? Json(*value) : Json(nullptr);
}

// The "embedding" object of report.json (README "Pictures") and its text: the constraint-embedded
// model (constraint-embedding §4-7) and the sparsity of its mass matrix M_R = X* M X.
// "1.2e+03 flops" (modelled, report/solver_strategy.hpp).
std::string flops_text(double flops) {
  std::ostringstream text;
  text << std::setprecision(2) << std::scientific << flops << " flops";
  return text.str();
}

Json solver_json(const std::optional<AggregateCost>& cost) {
  if (!cost) return nullptr;
  return {{"embedding_flops", cost->embedding_flops},
          {"multiplier_flops", cost->multiplier_flops},
          {"multiplier_rows", cost->multiplier_rows},
          {"recommended", cost->recommended}};
}

SparsityReport embedding_report(const EmbeddingAnalysis& embedding) {
  SparsityReport report;
  std::ostringstream text;
  text << "embedding (constraint-embedded model at " << embedding.state
       << "; constraint-embedding sections 4-7):\n";
  Json& json = report.json;
  json["state"] = embedding.state;
  json["closed"] = embedding.closed;
  Json aggregates = Json::array();
  for (const EmbeddingAnalysis::Aggregate& aggregate : embedding.aggregates) {
    aggregates.push_back({{"node", optional_json(aggregate.node)},
                          {"links", aggregate.links},
                          {"loops", aggregate.loops},
                          {"couplings", aggregate.couplings},
                          {"dofs", aggregate.dofs},
                          {"constraint_rows", aggregate.constraint_rows},
                          {"rank", optional_json(aggregate.rank)},
                          {"independent", optional_json(aggregate.independent)},
                          {"solver", solver_json(aggregate.cost)}});
    text << "  aggregate";
    if (aggregate.node) text << " (node " << *aggregate.node << ")";
    text << " {";
    for (size_t i = 0; i < aggregate.links.size(); ++i)
      text << (i ? ", " : "") << aggregate.links[i];
    text << "}:";
    for (const std::string& loop : aggregate.loops) text << " loop " << loop;
    for (const std::string& coupling : aggregate.couplings) text << " coupling " << coupling;
    text << "; " << aggregate.dofs << " dofs, " << aggregate.constraint_rows << " constraint rows";
    if (aggregate.rank)
      text << " of rank " << *aggregate.rank << ", " << *aggregate.independent << " independent";
    text << "\n";
    if (aggregate.cost)
      text << "    solver: embedding " << flops_text(aggregate.cost->embedding_flops)
           << ", multipliers " << flops_text(aggregate.cost->multiplier_flops) << " ("
           << aggregate.cost->multiplier_rows
           << " rows of G) beyond the tree's factor: " << aggregate.cost->recommended << "\n";
  }
  json["aggregates"] = aggregates;
  if (!embedding.closed) {
    json["independent"] = nullptr;
    json["n_R"] = nullptr;
    json["M_R"] = nullptr;
    text << (embedding.not_built ? "  not built: " : "  not closed: ") << embedding.failure << "\n";
    report.text = text.str();
    return report;
  }
  json["independent"] = embedding.independent;
  json["n_R"] = embedding.independent.size();
  text << "  " << embedding.independent.size() << " independent dofs (n_R):";
  for (const std::string& name : embedding.independent) text << " " << name;
  text << "\n";
  const viz::SkoTopology& topology = *embedding.topology;
  const SparsityPattern pattern = viz::matrix_pattern(topology, viz::MatrixKind::kMass);
  Json reduced = {{"rows", pattern.rows},
                  {"cols", pattern.cols},
                  {"nonzeros", embedding.nonzeros},
                  {"structural_nonzeros", pattern.nonzeros()},
                  {"nodes", topology.forest.size()},
                  {"segments", topology.forest.segment_count()}};
  text << "  M_R  " << pattern.rows << " x " << pattern.cols << ", " << embedding.nonzeros
       << " nonzeros at the state (" << pattern.nonzeros() << " structural), "
       << topology.forest.size() << " nodes and " << topology.forest.segment_count()
       << " serial segment(s) in the aggregated forest\n"
       << "  L  Cholesky factor of M_R, per elimination ordering:\n";
  reduced["L"] = factor_fill_report(topology, text);
  json["M_R"] = reduced;
  report.text = text.str();
  return report;
}

// The sparsity part of the report: the topology's patterns (part II section 7) and the factor's
// fill per ordering.

SparsityReport sparsity_report(const ReportInput& input) {
  SparsityReport report;
  const viz::SkoTopology topology =
      viz::sko_topology(input.graph, input.analysis, input.node_dims, input.hinge_dims);
  std::ostringstream text;
  text << "sparsity (structural nonzeros, rows in strictly canonical order; part II section 7):\n"
       << "  serial segments of the SKO forest: " << topology.forest.segment_count() << "\n";
  report.json["segments"] = topology.forest.segment_count();
  for (viz::MatrixKind kind :
       {viz::MatrixKind::kMass, viz::MatrixKind::kKernel, viz::MatrixKind::kResolvent}) {
    const SparsityPattern pattern = viz::matrix_pattern(topology, kind);
    report.json[viz::matrix_kind_name(kind)] = pattern_json(pattern);
    std::ostringstream size;
    size << pattern.rows << " x " << pattern.cols;
    text << "  " << viz::matrix_kind_name(kind) << "  " << std::left << std::setw(12) << size.str()
         << std::right << std::setw(10) << pattern.nonzeros() << " nonzeros   ("
         << viz::matrix_description(kind) << ")\n";
  }
  text << "  L  Cholesky factor of M, per elimination ordering:\n";
  report.json["L"] = factor_fill_report(topology, text);
  report.text = text.str();
  return report;
}

}  // namespace

// A model's 3D view at the state (report/view_scene.hpp), view.html beside the pictures; a state
// whose loops cannot be closed is drawn open; a model the view cannot draw is left out with a
// note.
void add_view(const ReportInput& input, const AnalysisOptions& options, AnalysisFiles& made,
              std::vector<std::pair<std::string, std::string>>& pictures) {
  try {
    const Model model = input_model(input);
    ViewFrames frames;
    frames.times = {0.0};
    frames.q = read_model_state(options.state_file, model).q.transpose();
    frames.open_when_unclosed = true;
    pictures.emplace_back("view.html",
                          view_html(model, std::filesystem::path(input.source).filename().string(),
                                    frames, options.package_paths));
  } catch (const InputError& e) {
    // The state file: as every other part of the report reads it. A mesh file the model names
    // that cannot be read costs the view only.
    if (e.source() == input.source || e.source() == options.state_file) throw;
    made.notes.push_back(input.source + ": no view.html (" + e.what() + ")");
  } catch (const Error& e) {
    made.notes.push_back(input.source + ": no view.html (" + e.what() + ")");
  }
}

AnalysisFiles analysis_files(const ReportInput& input, const AnalysisOptions& options) {
  const std::string& state_file = options.state_file;
  const int pixels = options.pixels;
  AnalysisFiles made;
  // Closed chains (MODEL files with loops or couplings): the constraint-embedded model.
  std::optional<EmbeddingAnalysis> embedding;
  if (!state_file.empty() && !input.is_model)
    throw InputError(input.source, 0, "--state needs a MODEL file (a DOT digraph has no dynamics)");
  if (!state_file.empty() && input.loops + input.couplings == 0) {
    // Tree models: the sparsity does not depend on the state, but a bad file is still reported.
    read_model_state(state_file, input_model(input));
  }
  if (input.is_model && input.mechanism && input.loops + input.couplings > 0) {
    const Model model = input_model(input);
    // The model's own warnings (massless joints), after the reader's.
    made.warnings.assign(
        model.warnings().begin() +
            static_cast<std::ptrdiff_t>(std::min(input.warnings().size(), model.warnings().size())),
        model.warnings().end());
    embedding = embedding_analysis(model, state_file);
    if (embedding->whole_mechanism)
      made.notes.push_back(
          input.source +
          ": one aggregate holds every joint of the mechanism, so the embedded model is a single "
          "node");
    if (embedding->closed && embedding->moved > 0)
      made.notes.push_back(input.source + ": " + std::to_string(embedding->moved) +
                           " independent coordinate(s) of the state had to move to close the "
                           "loops (skograph assemble shows the closed state)");
    if (!embedding->closed)
      made.notes.push_back(
          input.source + ": " +
          (embedding->not_built ? embedding->failure
                                : "the loops cannot be closed at " + embedding->state + " (" +
                                      embedding->failure + ")") +
          ": no embedding sparsity and no sparsity-M_R.png; the tree part is complete");
  }
  std::vector<std::pair<std::string, std::string>> pictures;
  auto add_picture = [&](const std::string& name, Picture picture) {
    for (const std::string& note : picture.notes) made.notes.push_back(name + ": " + note);
    pictures.emplace_back(name, std::move(picture.bytes));
  };
  const bool has_tree = input.analysis.spanning.exists;
  const int nodes = input.graph.node_count();
  const bool lay_out = options.max_diagram_nodes == 0 || nodes <= options.max_diagram_nodes;
  std::string unlaid;  // the diagrams written as DOT text, for the note
  // Without cut edges (a tree) the spanning tree and the aggregated tree are the digraph itself:
  // it is drawn once.
  const bool is_own_tree = has_tree && input.analysis.spanning.cut_edges.empty() &&
                           !input.analysis.spanning.virtual_root;
  for (viz::DiagramKind kind : {viz::DiagramKind::kDigraph, viz::DiagramKind::kSpanningTree,
                                viz::DiagramKind::kAggregated, viz::DiagramKind::kSegments}) {
    if (!has_tree && kind != viz::DiagramKind::kDigraph) continue;
    if (is_own_tree &&
        (kind == viz::DiagramKind::kSpanningTree || kind == viz::DiagramKind::kAggregated))
      continue;
    const std::string name(viz::diagram_kind_name(kind));
    if (lay_out) {
      add_picture(name + ".svg", diagram_picture(input, kind, viz::ImageFormat::kSvg,
                                                 embedding ? &*embedding : nullptr));
    } else {
      add_picture(name + ".dot", diagram_picture(input, kind, viz::ImageFormat::kDot,
                                                 embedding ? &*embedding : nullptr));
      unlaid += (unlaid.empty() ? "" : ", ") + name + ".dot";
    }
  }
  if (!lay_out)
    made.notes.push_back("the digraph has " + std::to_string(nodes) +
                         " nodes, more than --max-diagram-nodes " +
                         std::to_string(options.max_diagram_nodes) +
                         ": the diagrams are written as DOT text without layout (" + unlaid +
                         "; Graphviz's layout would take minutes); `dot -Tsvg digraph.dot -o "
                         "digraph.svg` draws one, --max-diagram-nodes 0 draws them all here");
  if (has_tree) {
    for (viz::MatrixKind kind : {viz::MatrixKind::kMass, viz::MatrixKind::kKernel,
                                 viz::MatrixKind::kResolvent, viz::MatrixKind::kFactor})
      add_picture(std::string("sparsity-") + viz::matrix_kind_name(kind) + ".png",
                  sparsity_picture(input, kind, "canonical", viz::ImageFormat::kPng, pixels));
    if (embedding && embedding->closed)
      add_picture("sparsity-M_R.png",
                  reduced_mass_picture(input, *embedding, viz::ImageFormat::kPng, pixels));
    if (input.mechanism) add_view(input, options, made, pictures);
  } else {
    made.notes.push_back("no spanning tree (" + input.analysis.spanning.reason +
                         "): only the digraph is drawn");
  }

  Json json;
  json["source"] = input.source;
  json["name"] = input.name;
  std::ostringstream text;
  text << "skograph analyze: " << input.name << " (" << input.source << ")\n";
  if (input.is_model) {
    int dofs = 0;
    for (int r : input.hinge_dims) dofs += r;
    const int bodies = input.graph.node_count() - 1;
    json["model"] = {
        {"bodies", bodies}, {"dofs", dofs}, {"loops", input.loops}, {"couplings", input.couplings}};
    text << "model: " << bodies << " bodies, " << dofs << " dofs, " << input.loops << " loop(s), "
         << input.couplings << " coupling(s)";
    if (input.loops + input.couplings > 0)
      text << "; the sparsity below is the spanning tree's (loops and couplings are its cut "
              "edges), the embedding's follows it";
    text << "\n";
  } else {
    json["model"] = nullptr;
    text << "digraph without a model: one row per body in every matrix\n";
  }
  json["graph"] = graph_report_json(input.graph, input.analysis);
  text << graph_report_text(input.graph, input.analysis);
  if (has_tree) {
    const SparsityReport sparsity = sparsity_report(input);
    json["sparsity"] = sparsity.json;
    text << sparsity.text;
  } else {
    json["sparsity"] = nullptr;
  }
  if (embedding) {
    const SparsityReport embedded = embedding_report(*embedding);
    json["embedding"] = embedded.json;
    text << embedded.text;
  } else {
    json["embedding"] = nullptr;
  }
  Json picture_names = Json::array();
  text << "pictures:";
  for (const auto& picture : pictures) {
    picture_names.push_back(picture.first);
    text << " " << picture.first;
  }
  if (is_own_tree)
    text << " (no spanning-tree or aggregated diagram: without cut edges both are the digraph "
            "itself)";
  text << "\n";
  json["pictures"] = picture_names;
  json["notes"] = made.notes;

  made.report_text = text.str();
  made.files.emplace_back("report.txt", made.report_text);
  made.files.emplace_back("report.json", format_json(json));
  made.files.emplace_back("index.html", html_report(made.report_text, json, pictures));
  for (auto& picture : pictures) made.files.push_back(std::move(picture));
  return made;
}

void write_analysis(const AnalysisFiles& files, const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error || !std::filesystem::is_directory(directory))
    throw OutputError(
        directory, "cannot create the folder (" +
                       (error ? error.message() : std::string("a file of that name exists")) + ")");
  for (const auto& [name, content] : files.files)
    write_output_file((std::filesystem::path(directory) / name).string(), content);
}

}  // namespace skograph::report

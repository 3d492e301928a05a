// The pictures of `skograph render` and `skograph analyze`, made from a ReportInput.
#pragma once

#include <string>
#include <vector>

#include "skograph/report/embedding_analysis.hpp"
#include "skograph/report/kkt_export.hpp"
#include "skograph/report/report_input.hpp"
#include "skograph/viz/diagrams.hpp"
#include "skograph/viz/image_format.hpp"
#include "skograph/viz/matrix_patterns.hpp"

namespace skograph::report {

struct Picture {
  std::string bytes;
  std::vector<std::string> notes;  // for stderr (density shading, ...)
};

// The caption title of a diagram: "NAME: standard digraph", ...
std::string diagram_title(const ReportInput& input, viz::DiagramKind kind);

// A diagram as DOT text or rendered by Graphviz. A model's edges carry joint names and types;
// a closed chain's independent coordinates are marked: the given ones, else those `embedding`
// selected (null: selected at the zero configuration here). Throws std::invalid_argument when the
// diagram needs a spanning tree the digraph does not have.
Picture diagram_picture(const ReportInput& input, viz::DiagramKind kind, viz::ImageFormat format,
                        const EmbeddingAnalysis* embedding = nullptr);

// A spy plot of M, E, A (patterns from the topology) or L (see viz/factor_pattern.hpp), at most
// `pixels` pixels a side. Throws std::invalid_argument for format dot.
Picture sparsity_picture(const ReportInput& input, viz::MatrixKind kind,
                         const std::string& ordering, viz::ImageFormat format, int pixels);

// A spy plot of the reduced mass matrix M_R of the constraint-embedded model (its structural
// pattern, part II section 7.4 on the aggregated forest), rows in the aggregated forest's strictly
// canonical order, lines at the aggregated nodes' boundaries (at its serial segments' when the
// forest has more than kMaxNodeBoundaries nodes). Throws std::invalid_argument when the
// embedding was not closed or for format dot.
inline constexpr int kMaxNodeBoundaries = 64;
Picture reduced_mass_picture(const ReportInput& input, const EmbeddingAnalysis& embedding,
                             viz::ImageFormat format, int pixels);

// A spy plot of the KKT system K of a closed chain (report/kkt_export.hpp) in its elimination
// order, or of its LDL* factor's L with the fill in the second colour. Throws
// std::invalid_argument for format dot.
Picture kkt_picture(const ReportInput& input, const ModelKkt& kkt, bool factor,
                    viz::ImageFormat format, int pixels);

// One picture, as `skograph render` asks for it (docs/pictures.md).
struct PictureRequest {
  bool sparsity = false;  // a spy plot; otherwise the diagram `diagram`
  viz::DiagramKind diagram = viz::DiagramKind::kDigraph;
  viz::MatrixKind matrix = viz::MatrixKind::kMass;
  bool reduced_mass = false;             // the spy plot of M_R of the constraint-embedded model
  bool kkt = false, kkt_factor = false;  // the spy plot of the KKT system K or of its LDL* factor
  std::string state_file;              // M_R, K: the state (empty: the zero configuration, closed)
  std::string ordering = "canonical";  // for L
  viz::ImageFormat format = viz::ImageFormat::kSvg;
  int pixels = 800;
};
// The options of `skograph render` (and Python's render) as given: --what digraph|spanning-tree|
// aggregated|segments|sparsity, --matrix M|E|A|L|M_R|K|L_K, --ordering canonical|root-first|amd
// (L only), --state S.json (M_R, K, L_K), --format svg|png|pdf|dot (empty: from the output's
// extension), --size.
struct PictureOptions {
  std::string what, matrix, ordering, state_file, format;
  int pixels = 800;
};
// The request they make, for the picture to be written to `output`: UsageError naming the first
// option that is unknown or does not go with the others.
PictureRequest picture_request(const PictureOptions& options, const std::string& output);

// The picture's bytes (nothing is written). InputError when the input cannot give it (M_R of a
// tree, a state that cannot be closed), std::invalid_argument for a diagram that needs the
// spanning tree the digraph does not have.
Picture render_picture(const ReportInput& input, const PictureRequest& request);

}  // namespace skograph::report

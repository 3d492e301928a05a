// The pictures of `skograph render` and `skograph analyze`, made from a PictureInput.
#pragma once

#include <string>
#include <vector>

#include "embedding_analysis.hpp"
#include "picture_input.hpp"
#include "skograph/viz/diagrams.hpp"
#include "skograph/viz/image_format.hpp"
#include "skograph/viz/matrix_patterns.hpp"

namespace skograph::cli {

struct Picture {
  std::string bytes;
  std::vector<std::string> notes;  // for stderr (density shading, ...)
};

// The caption title of a diagram: "NAME: standard digraph", ...
std::string diagram_title(const PictureInput& input, viz::DiagramKind kind);

// A diagram as DOT text or rendered by Graphviz. Throws std::invalid_argument when the diagram
// needs a spanning tree the digraph does not have.
Picture diagram_picture(const PictureInput& input, viz::DiagramKind kind, viz::ImageFormat format);

// A spy plot of M, E, A (patterns from the topology) or L (see viz/factor_pattern.hpp), at most
// `pixels` pixels a side. Throws std::invalid_argument for format dot.
Picture sparsity_picture(const PictureInput& input, viz::MatrixKind kind,
                         const std::string& ordering, viz::ImageFormat format, int pixels);

// A spy plot of the reduced mass matrix M_R of the constraint-embedded model (its structural
// pattern, part II section 7.4 on the aggregated forest), rows in the aggregated forest's strictly
// canonical order, lines at the aggregated nodes' boundaries (at its serial segments' when the
// forest has more than kMaxNodeBoundaries nodes). Throws std::invalid_argument when the
// embedding was not closed or for format dot.
inline constexpr int kMaxNodeBoundaries = 64;
Picture reduced_mass_picture(const PictureInput& input, const EmbeddingAnalysis& embedding,
                             viz::ImageFormat format, int pixels);

}  // namespace skograph::cli

#include "graph/analysis.hpp"

namespace skograph {

DigraphAnalysis analyze(const Digraph& graph) {
  DigraphAnalysis result;
  result.classification = classify(graph);
  result.spanning = spanning_tree(graph);
  if (!result.spanning.exists) return result;
  const Forest& tree = result.spanning.tree;
  result.canonical = canonical_numbering(tree);
  result.strictly_canonical = strictly_canonical_numbering(tree);
  result.aggregates = aggregation_subgraphs(tree, result.spanning.cut_edges);
  result.aggregated = aggregated_tree(tree, result.aggregates);
  return result;
}

}  // namespace skograph

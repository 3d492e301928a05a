#include "graph/analysis.hpp"

namespace skograph {

DigraphAnalysis analyze(const Digraph& graph) {
  DigraphAnalysis result;
  const DigraphArrays arrays(graph);  // one pass over the edges; everything after runs on arrays
  result.classification = classify(arrays);
  result.spanning = spanning_tree(graph, arrays);
  if (!result.spanning.exists) return result;
  const Forest& tree = result.spanning.tree;
  result.canonical = canonical_numbering(tree);
  result.strictly_canonical = strictly_canonical_numbering(tree);
  result.aggregates = aggregation_subgraphs(tree, result.spanning.cut_edges);
  result.aggregated = aggregated_tree(tree, result.aggregates);
  return result;
}

DigraphAnalysis analyze(const Digraph& graph, SpanningTree spanning) {
  DigraphAnalysis result;
  result.classification = classify(DigraphArrays(graph));
  result.spanning = std::move(spanning);
  if (!result.spanning.exists) return result;
  const Forest& tree = result.spanning.tree;
  result.canonical = canonical_numbering(tree);
  result.strictly_canonical = strictly_canonical_numbering(tree);
  result.aggregates = aggregation_subgraphs(tree, result.spanning.cut_edges);
  result.aggregated = aggregated_tree(tree, result.aggregates);
  return result;
}

}  // namespace skograph

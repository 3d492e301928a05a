#include "skograph/graph/analysis.hpp"

namespace skograph {

namespace {

// Everything that follows from the classification and a chosen spanning tree.
DigraphAnalysis analyze_over(Classification classification, SpanningTree spanning) {
  DigraphAnalysis result;
  result.classification = std::move(classification);
  result.spanning = std::move(spanning);
  if (!result.spanning.exists) return result;
  const Forest& tree = result.spanning.tree;
  result.canonical = canonical_numbering(tree);
  result.strictly_canonical = strictly_canonical_numbering(tree);
  result.aggregates = aggregation_subgraphs(tree, result.spanning.cut_edges);
  result.aggregated = aggregated_tree(tree, result.aggregates);
  return result;
}

}  // namespace

DigraphAnalysis analyze(const Digraph& graph) {
  const DigraphArrays arrays(graph);  // one pass over the edges; everything after runs on arrays
  return analyze_over(classify(arrays), spanning_tree(graph, arrays));
}

DigraphAnalysis analyze(const Digraph& graph, SpanningTree spanning) {
  return analyze_over(classify(DigraphArrays(graph)), std::move(spanning));
}

}  // namespace skograph

// Everything the graph layer says about one digraph, computed in one call (the `skograph graph`
// report): classification, spanning tree and cut edges, canonical and strictly canonical
// numbering, serial segments, aggregation sub-graphs and the aggregated tree.
#pragma once

#include <vector>

#include "skograph/graph/aggregation_subgraphs.hpp"
#include "skograph/graph/classification.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/graph/numbering.hpp"
#include "skograph/graph/spanning_tree.hpp"

namespace skograph {

struct DigraphAnalysis {
  Classification classification;
  SpanningTree spanning;  // numbering, segments and aggregates below exist only if spanning.exists
  Permutation canonical;  // over the spanning tree's nodes (virtual root included)
  Permutation strictly_canonical;  // segments of spanning.tree are consecutive in this numbering
  std::vector<AggregationSubgraph> aggregates;
  AggregatedTree aggregated;
};

// O(n + e) plus the cut edges' path lengths.
DigraphAnalysis analyze(const Digraph& graph);
// The same report over a designated spanning tree (e.g. spanning_tree_from_parents() of a
// mechanism's tree joints), so that no loop edge is taken as a tree edge.
DigraphAnalysis analyze(const Digraph& graph, SpanningTree spanning);

}  // namespace skograph

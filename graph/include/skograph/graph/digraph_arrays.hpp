// Compressed (CSR) parent and child lists of a Digraph, built in one pass over its edge list so
// that every analysis after it runs on plain arrays. Build it once and hand it to each analysis
// (classify, spanning_tree) when running several.
#pragma once

#include <vector>

#include "skograph/graph/digraph.hpp"

namespace skograph {

struct DigraphArrays {
  explicit DigraphArrays(const Digraph& graph);
  int n = 0;
  std::vector<int> out_offset, out;  // children of v: out[out_offset[v] .. out_offset[v+1])
  std::vector<int> in_offset, in;    // parents of v, same layout
  int out_degree(int v) const { return out_offset[v + 1] - out_offset[v]; }
  int in_degree(int v) const { return in_offset[v + 1] - in_offset[v]; }
};

}  // namespace skograph

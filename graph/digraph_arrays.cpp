#include "skograph/graph/digraph_arrays.hpp"

namespace skograph {

DigraphArrays::DigraphArrays(const Digraph& graph) : n(graph.node_count()) {
  const auto& edges = graph.edges();
  out_offset.assign(n + 1, 0);
  in_offset.assign(n + 1, 0);
  for (const Edge& e : edges) {
    ++out_offset[e.first + 1];
    ++in_offset[e.second + 1];
  }
  for (int v = 0; v < n; ++v) {
    out_offset[v + 1] += out_offset[v];
    in_offset[v + 1] += in_offset[v];
  }
  out.resize(edges.size());
  in.resize(edges.size());
  std::vector<int> out_fill(out_offset.begin(), out_offset.end() - 1);
  std::vector<int> in_fill(in_offset.begin(), in_offset.end() - 1);
  // Insertion order is kept within each list: children are visited in the order the file gave them.
  for (const Edge& e : edges) {
    out[out_fill[e.first]++] = e.second;
    in[in_fill[e.second]++] = e.first;
  }
}

}  // namespace skograph

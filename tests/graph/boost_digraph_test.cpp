// The Boost.Graph view of a Digraph: the same nodes with their names, the same edges, and
// Boost's own in- and out-degrees equal to the digraph's.
#include "skograph/graph/boost_digraph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace skograph {
namespace {

TEST(BoostDigraph, HasTheDigraphsNodesNamesAndEdges) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    Digraph digraph;
    const int n = 1 + trial;
    for (int v = 0; v < n; ++v) digraph.add_node("node" + std::to_string(v));
    for (int v = 1; v < n; ++v) digraph.add_edge(static_cast<int>(rng() % v), v);
    if (n > 2) digraph.add_edge(0, n - 1);  // a second parent, or a parallel edge
    const BoostDigraph graph = boost_graph(digraph);
    ASSERT_EQ(static_cast<int>(boost::num_vertices(graph)), digraph.node_count());
    ASSERT_EQ(static_cast<int>(boost::num_edges(graph)), digraph.edge_count());
    for (int v = 0; v < n; ++v) {
      EXPECT_EQ(graph[static_cast<std::size_t>(v)].name, digraph.name(v));
      EXPECT_EQ(static_cast<int>(boost::in_degree(static_cast<std::size_t>(v), graph)),
                digraph.in_degree(v));
      EXPECT_EQ(static_cast<int>(boost::out_degree(static_cast<std::size_t>(v), graph)),
                digraph.out_degree(v));
    }
    std::vector<Edge> edges;
    for (auto [edge, end] = boost::edges(graph); edge != end; ++edge)
      edges.emplace_back(static_cast<int>(boost::source(*edge, graph)),
                         static_cast<int>(boost::target(*edge, graph)));
    std::vector<Edge> expected = digraph.edges();
    std::sort(edges.begin(), edges.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(edges, expected);
  }
}

}  // namespace
}  // namespace skograph

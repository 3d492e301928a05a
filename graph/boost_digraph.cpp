#include "skograph/graph/boost_digraph.hpp"

namespace skograph {

BoostDigraph boost_graph(const Digraph& digraph) {
  BoostDigraph graph(static_cast<std::size_t>(digraph.node_count()));
  for (int v = 0; v < digraph.node_count(); ++v)
    graph[static_cast<std::size_t>(v)].name = digraph.name(v);
  for (const Edge& e : digraph.edges()) boost::add_edge(e.first, e.second, graph);
  return graph;
}

}  // namespace skograph

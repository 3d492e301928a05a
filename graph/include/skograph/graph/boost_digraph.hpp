// A Digraph as a Boost.Graph adjacency list, for Boost.Graph's algorithms. Kept out of
// digraph.hpp: Boost.Graph's headers are most of a translation unit's parse, and the layers
// above the graph never need them.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include "skograph/graph/digraph.hpp"

namespace skograph {

struct DigraphNode {
  std::string name;
};

using BoostDigraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, DigraphNode>;

// The digraph's nodes in order, with their names, and its edges in order: O(N + E) time and
// memory on each call.
BoostDigraph boost_graph(const Digraph& digraph);

}  // namespace skograph

// The standard digraph of a mechanism (part I section 2; constraint-embedding §4.2): node 0 is the
// inertial frame "world", node k + 1 is link k. Tree joints give the spanning tree (parent link ->
// child link); each loop closure adds a cut edge parent link -> child link, each coupling a cut
// edge from the child link of its driving joint to the child link of its driven joint.
#pragma once

#include <vector>

#include "skograph/graph/analysis.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// Nodes "world" and the link names (in link order); edges: tree joints (in joint order), then
// loops, then couplings.
Digraph mechanism_digraph(const Mechanism& mechanism);
// The tree joints as a parent array over the digraph's nodes (world has none).
std::vector<int> mechanism_tree_parents(const Mechanism& mechanism);
// analyze() of the standard digraph over the tree joints (never a loop edge as a tree edge).
DigraphAnalysis analyze_mechanism(const Digraph& digraph, const Mechanism& mechanism);

}  // namespace skograph

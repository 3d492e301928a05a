#include "skograph/rigid/mechanism_graph.hpp"

namespace skograph {

Digraph mechanism_digraph(const Mechanism& mechanism) {
  Digraph graph;
  graph.add_node("world");
  for (const Link& link : mechanism.links) graph.add_node(link.name);
  for (const Joint& joint : mechanism.joints) graph.add_edge(joint.parent + 1, joint.child + 1);
  for (const LoopClosure& loop : mechanism.loops) graph.add_edge(loop.parent + 1, loop.child + 1);
  for (const Coupling& coupling : mechanism.couplings)  // one cut edge per other joint
    for (int i = 0; i < coupling.term_count(); ++i)
      graph.add_edge(mechanism.joints[coupling.joint_a].child + 1,
                     mechanism.joints[coupling.term_joint(i)].child + 1);
  return graph;
}

std::vector<int> mechanism_tree_parents(const Mechanism& mechanism) {
  std::vector<int> parent(mechanism.links.size() + 1, Forest::kNone);
  for (const Joint& joint : mechanism.joints) parent[joint.child + 1] = joint.parent + 1;
  return parent;
}

DigraphAnalysis analyze_mechanism(const Digraph& digraph, const Mechanism& mechanism) {
  return analyze(digraph, spanning_tree_from_parents(digraph, mechanism_tree_parents(mechanism)));
}

}  // namespace skograph

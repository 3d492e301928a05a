// The standard digraph of a mechanism: tree joints are the spanning tree even where a breadth-first
// search would take a loop edge; loops and couplings are the cut edges.
#include "skograph/rigid/mechanism_graph.hpp"

#include <gtest/gtest.h>

#include "skograph/io/yaml_reader.hpp"

namespace skograph {
namespace {

// A chain world -> a -> b -> c with a loop world -> c (weld) and a gear coupling between the
// joints into a and d (cut edge a -> d). A breadth-first search from the world would reach c by
// the loop edge first.
const std::string kModel = R"(links:
  - {name: a, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
  - {name: b, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
  - {name: c, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
  - {name: d, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
joints:
  - {name: ja, type: revolute, parent: world, child: a}
  - {name: jb, type: revolute, parent: a, child: b}
  - {name: jc, type: revolute, parent: b, child: c}
  - {name: jd, type: revolute, parent: world, child: d}
loops:
  - {name: wall, type: weld, parent: world, child: c}
couplings:
  - {name: g, type: gear, joints: [ja, jd], ratio: 2}
)";

TEST(MechanismGraph, TreeJointsAreTheSpanningTreeLoopsAndCouplingsTheCutEdges) {
  const Mechanism m = parse_yaml(kModel, "m.yaml");
  const Digraph graph = mechanism_digraph(m);
  ASSERT_EQ(graph.node_count(), 5);
  EXPECT_EQ(graph.name(0), "world");
  EXPECT_EQ(graph.name(2), "b");
  EXPECT_EQ(graph.edges(), (std::vector<Edge>{{0, 1}, {1, 2}, {2, 3}, {0, 4}, {0, 3}, {1, 4}}));

  // The breadth-first tree takes the loop edge world -> c: the reason for the designated tree.
  const SpanningTree breadth_first = spanning_tree(graph);
  EXPECT_EQ(breadth_first.tree.parent(3), 0);

  const DigraphAnalysis analysis = analyze_mechanism(graph, m);
  ASSERT_TRUE(analysis.spanning.exists);
  for (const Joint& joint : m.joints)
    EXPECT_EQ(analysis.spanning.tree.parent(joint.child + 1), joint.parent + 1);
  EXPECT_EQ(analysis.spanning.cut_edges, (std::vector<Edge>{{0, 3}, {1, 4}}));
  // Both cut edges close loops through the world: one aggregate of all links.
  ASSERT_EQ(analysis.aggregates.size(), 1u);
  EXPECT_EQ(analysis.aggregates[0].nodes.size(), 4u);
}

}  // namespace
}  // namespace skograph

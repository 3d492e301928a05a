// The SKO topology of a digraph (its spanning tree without the root, numbered strictly
// canonically) and the patterns and segment boundaries the spy plots draw, checked against
// dense references built from the definitions by walking parent pointers.
#include "skograph/viz/matrix_patterns.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "skograph/io/mechanism_file.hpp"
#include "skograph/rigid/mechanism_graph.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "support/random_graphs.hpp"

namespace skograph::viz {
namespace {

using skograph::testing_support::random_tree_digraph;

// Ancestor-or-self by walking parents (the definition of part I section 2).
bool ancestor_or_self(const Forest& forest, int a, int k) {
  for (int v = k; v != Forest::kNone; v = forest.parent(v))
    if (v == a) return true;
  return false;
}

TEST(MatrixPatterns, SkoForestIsTheSpanningTreeWithoutItsRootNumberedStrictlyCanonically) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + trial;
    const Digraph graph = random_tree_digraph(n, random);
    const DigraphAnalysis analysis = analyze(graph);
    const SkoTopology topology = sko_topology(graph, analysis);
    const Forest& forest = topology.forest;
    ASSERT_EQ(forest.size(), n - 1);
    const Forest& tree = analysis.spanning.tree;
    for (int k = 0; k < forest.size(); ++k) {
      const int t = topology.tree_node[k];
      EXPECT_EQ(analysis.strictly_canonical[t], k);  // body k has strictly canonical number k + 1
      const int tree_parent = tree.parent(t);
      if (tree_parent == analysis.spanning.root)
        EXPECT_EQ(forest.parent(k), Forest::kNone);
      else
        EXPECT_EQ(topology.tree_node[forest.parent(k)], tree_parent);
      if (forest.parent(k) != Forest::kNone) {
        EXPECT_GT(forest.parent(k), k);  // canonical
      }
    }
    // Segment boundaries from the definition: position p starts a new segment unless node p - 1
    // is the only child of node p (tip-first order).
    std::vector<int> expected;
    for (int p = 1; p < forest.size(); ++p)
      if (!(forest.parent(p - 1) == p && forest.child_count(p) == 1)) expected.push_back(p);
    EXPECT_EQ(segment_boundaries(forest, topology.node_layout), expected) << trial;
  }
}

// M has (i, j) for related bodies, A has (i, j) for i an ancestor-or-self of j, E has
// (parent(j), j): checked entry by entry against the definitions with one row per node.
TEST(MatrixPatterns, PatternsMatchTheDefinitionsEntryByEntry) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 20; ++trial) {
    const Digraph graph = random_tree_digraph(3 + 2 * trial, random);
    const SkoTopology topology = sko_topology(graph, analyze(graph));
    const Forest& forest = topology.forest;
    const SparsityPattern mass = matrix_pattern(topology, MatrixKind::kMass);
    const SparsityPattern kernel = matrix_pattern(topology, MatrixKind::kKernel);
    const SparsityPattern resolvent = matrix_pattern(topology, MatrixKind::kResolvent);
    for (int i = 0; i < forest.size(); ++i)
      for (int j = 0; j < forest.size(); ++j) {
        const bool related = ancestor_or_self(forest, i, j) || ancestor_or_self(forest, j, i);
        EXPECT_EQ(mass.contains(i, j), related);
        EXPECT_EQ(resolvent.contains(i, j), ancestor_or_self(forest, i, j));
        EXPECT_EQ(kernel.contains(i, j), forest.parent(j) == i);
      }
  }
}

// The geared four-bar's standard digraph: 4 bodies with 1 dof each (M is 4 x 4), 6 rows per body
// in E and A. Its SKO forest has three bases (crank, rocker, rotor) and crank -> coupler, so the
// segments are {coupler, crank}, {rocker}, {rotor}: every body is related only within its own
// segment.
TEST(MatrixPatterns, MechanismDimensionsExpandTheBlocks) {
  const Mechanism mechanism =
      read_mechanism_file(std::string(SKOGRAPH_SOURCE_DIR) + "/examples/models/fourbar.yaml");
  const Digraph graph = mechanism_digraph(mechanism);
  const DigraphAnalysis analysis = analyze_mechanism(graph, mechanism);
  std::vector<int> node_dims(graph.node_count(), 6), hinge_dims(graph.node_count(), 1);
  const SkoTopology topology = sko_topology(graph, analysis, node_dims, hinge_dims);
  const SparsityPattern mass = matrix_pattern(topology, MatrixKind::kMass);
  EXPECT_EQ(mass.rows, 4);
  EXPECT_EQ(mass.nonzeros(), 4 + 1 + 1);  // the 2 x 2 segment block and two 1 x 1 blocks
  EXPECT_EQ(segment_boundaries(topology.forest, topology.hinge_layout), (std::vector<int>{2, 3}));
  const SparsityPattern kernel = matrix_pattern(topology, MatrixKind::kKernel);
  EXPECT_EQ(kernel.rows, 24);
  EXPECT_EQ(kernel.nonzeros(), 36);  // one 6 x 6 block: crank -> coupler
  EXPECT_EQ(segment_boundaries(topology.forest, topology.node_layout), (std::vector<int>{12, 18}));
  // Zero-dof nodes add no rows and share a boundary.
  hinge_dims.assign(graph.node_count(), 0);
  hinge_dims[graph.find("rotor").value()] = 2;
  const SkoTopology frozen = sko_topology(graph, analysis, node_dims, hinge_dims);
  EXPECT_EQ(matrix_pattern(frozen, MatrixKind::kMass).rows, 2);
  EXPECT_TRUE(segment_boundaries(frozen.forest, frozen.hinge_layout).empty());
}

// The topology of an SKO structure whose node ids are in no particular order (as an aggregated
// structure's are): renumbered to the post-order, with the same parents, block dimensions and,
// row by row, the mass-matrix pattern sparse/ assembles in the structure's own numbering.
TEST(MatrixPatterns, TopologyOfAStructureRenumbersItToPostOrder) {
  std::mt19937 random(23);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 1 + trial;
    // Generation order g: node g hangs under an earlier one or is a base; ids are shuffled.
    std::vector<int> id(n);
    std::iota(id.begin(), id.end(), 0);
    std::shuffle(id.begin(), id.end(), random);
    std::vector<int> parent(n, Forest::kNone), node_dims(n), hinge_dims(n);
    for (int g = 0; g < n; ++g) {
      if (g > 0 && random() % 4 != 0)
        parent[id[g]] = id[std::uniform_int_distribution<int>(0, g - 1)(random)];
      node_dims[id[g]] = 6 * std::uniform_int_distribution<int>(1, 3)(random);
      hinge_dims[id[g]] = std::uniform_int_distribution<int>(0, 3)(random);
    }
    const SkoStructure structure(Forest(parent), node_dims, hinge_dims);
    const SkoTopology topology = sko_topology(structure);
    ASSERT_EQ(topology.forest.size(), n);
    for (int t = 0; t < n; ++t) {
      EXPECT_EQ(topology.forest.post_index(t), t);
      const int k = topology.tree_node[t];
      EXPECT_EQ(topology.node_layout.dim(t), node_dims[k]);
      EXPECT_EQ(topology.hinge_layout.dim(t), hinge_dims[k]);
      const int p = topology.forest.parent(t);
      EXPECT_EQ(p == Forest::kNone ? Forest::kNone : topology.tree_node[p], parent[k]);
    }
    EXPECT_NO_THROW(segment_boundaries(topology.forest, topology.hinge_layout));
    // Scalar row of the topology -> scalar row of the structure.
    std::vector<int> row_of;
    for (int t = 0; t < n; ++t)
      for (int j = 0; j < topology.hinge_layout.dim(t); ++j)
        row_of.push_back(structure.hinge.offset(topology.tree_node[t]) + j);
    const SparsityPattern mine = matrix_pattern(topology, MatrixKind::kMass);
    const SparsityPattern reference = mass_matrix_pattern(structure);
    ASSERT_EQ(mine.rows, reference.rows);
    EXPECT_EQ(mine.nonzeros(), reference.nonzeros());
    for (int r = 0; r < mine.rows; ++r)
      for (int c = 0; c < mine.cols; ++c)
        EXPECT_EQ(mine.contains(r, c), reference.contains(row_of[r], row_of[c]));
  }
}

TEST(MatrixPatterns, LowerTriangleKeepsRowsAtOrBelowTheDiagonal) {
  SparsityPattern full;
  full.rows = full.cols = 3;
  full.column_start = {0, 3, 6, 9};
  full.row_index = {0, 1, 2, 0, 1, 2, 0, 1, 2};
  const SparsityPattern lower = lower_triangle(full);
  EXPECT_EQ(lower.nonzeros(), 6);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(lower.contains(i, j), i >= j);
}

TEST(MatrixPatterns, BadDimensionsAndMissingSpanningTreesThrow) {
  const Digraph tree = parse_dot("digraph { w -> a; a -> b; }", "t.dot");
  const DigraphAnalysis analysis = analyze(tree);
  EXPECT_THROW(sko_topology(tree, analysis, {6, 6}), std::invalid_argument);
  EXPECT_THROW(sko_topology(tree, analysis, {}, {1, -1, 1}), std::invalid_argument);
  const Digraph cycle = parse_dot("digraph { a -> b; b -> a; }", "c.dot");
  EXPECT_THROW(sko_topology(cycle, analyze(cycle)), std::invalid_argument);
  for (MatrixKind kind :
       {MatrixKind::kMass, MatrixKind::kKernel, MatrixKind::kResolvent, MatrixKind::kFactor})
    EXPECT_EQ(parse_matrix_kind(matrix_kind_name(kind)), kind);
  EXPECT_FALSE(parse_matrix_kind("m"));
}

}  // namespace
}  // namespace skograph::viz

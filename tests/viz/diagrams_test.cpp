// Diagrams: golden DOT text for two small examples (worked out by hand from part I's conventions
// and the numbering definitions), DOT that re-reads with read_dot (boost::read_graphviz) to the
// nodes and edges the definitions give, and Graphviz renderings that are valid SVG, PNG and PDF.
#include "skograph/viz/diagrams.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "skograph/viz/graphviz_layout.hpp"
#include "support/picture_checks.hpp"

namespace skograph::viz {
namespace {

const std::string kHeaderStyle =
    "  node [fontname=\"DejaVu Sans\", fontsize=11, shape=ellipse, style=filled, "
    "fillcolor=\"#c6dbef\", color=\"#2171b5\", margin=\"0.06,0.03\"];\n"
    "  edge [color=\"#404040\", arrowsize=0.7, fontname=\"DejaVu Sans\"];\n";

std::string graph_line(const std::string& caption) {
  return "  graph [fontname=\"DejaVu Sans\", fontsize=10, labelloc=b, labeljust=l, nodesep=0.3, "
         "ranksep=0.45, mclimit=4, label=\"" +
         caption + "\"];\n";
}

// The four-bar of examples/graphs/fourbar.dot: breadth-first spanning tree world -> crank,
// world -> rocker, crank -> coupler; cut edge coupler -> rocker; post-order (strictly canonical)
// coupler 1, crank 2, rocker 3, world 4; aggregate {rocker, crank, coupler} (base first) under
// world. The root is unfilled and its edges dashed; the cut edge red, bold, not constraining.
TEST(Diagrams, FourBarDigraphIsTheGoldenText) {
  const Digraph graph =
      read_dot_file(std::string(SKOGRAPH_SOURCE_DIR) + "/examples/graphs/fourbar.dot");
  const std::string expected =
      "digraph \"fourbar\" {\n" +
      graph_line(
          "fourbar\\lunfilled: inertial frame (root), its edges dashed\\lnumber: strictly "
          "canonical index (parent > child)\\lred: cut edges\\lorange boxes: aggregates "
          "(aggregation sub-graphs), numbered as nodes of the aggregated tree\\l") +
      kHeaderStyle +
      "  subgraph \"cluster_aggregate_1\" {\n"
      "    graph [label=\"aggregate 1\", style=\"rounded,dashed\", color=\"#d94801\", "
      "fontcolor=\"#d94801\", labelloc=b, labeljust=l];\n"
      "    \"crank\" [label=\"crank\\n2\"];\n"
      "    \"coupler\" [label=\"coupler\\n1\"];\n"
      "    \"rocker\" [label=\"rocker\\n3\"];\n"
      "  }\n"
      "  \"world\" [label=\"world\\n4\", style=solid];\n"
      "  \"world\" -> \"crank\" [style=dashed];\n"
      "  \"crank\" -> \"coupler\";\n"
      "  \"world\" -> \"rocker\" [style=dashed];\n"
      "  \"coupler\" -> \"rocker\" [color=\"#d62728\", penwidth=2, style=bold, "
      "constraint=false];\n"
      "}\n";
  EXPECT_EQ(digraph_diagram(graph, analyze(graph), "fourbar"), expected);
}

// Cut edges and the layout (tree w -> a -> b, w -> c; the aggregate {a, b, c}): one towards a
// deeper node (c -> b, depth 1 to 2) shapes the layout like a tree edge; one towards a node no
// deeper (b -> c) stays out of it. Drawn, every labelled edge with an end in the aggregate runs
// through a plain-text node holding its label (in the cluster when both ends are), b -> c's below
// both ends with its head's half drawn backwards; as DOT text each label stays on its edge (b ->
// c's external, since Graphviz 2.43 crashes on a labelled flat edge). Marked tree edges are bold
// blue.
TEST(Diagrams, CutEdgesTowardsDeeperNodesShapeTheLayout) {
  const Digraph graph = parse_dot("digraph g { w -> a; a -> b; w -> c; c -> b; b -> c; }", "g.dot");
  const DigraphAnalysis analysis = analyze(graph);
  ASSERT_EQ(analysis.spanning.cut_edges.size(), 2u);  // c -> b and b -> c
  EdgeNotes notes;
  notes.role = {EdgeRole::kTreeJoint, EdgeRole::kTreeJoint, EdgeRole::kTreeJoint, EdgeRole::kLoop,
                EdgeRole::kLoop};
  notes.label = {
      {"j1", "(revolute)"}, {"j2", "(revolute)"}, {"j3", "(revolute)"}, {"down"}, {"u<p>&"}};
  notes.marked = {false, true, false, false, false};
  const std::string table = "<<TABLE BORDER=\"0\" CELLPADDING=\"3\" CELLSPACING=\"0\">";
  const std::string drawn = digraph_diagram(graph, analysis, "g", &notes);
  const std::string cluster = drawn.substr(0, drawn.find("  }\n"));
  const std::string red = "color=\"#d62728\", penwidth=2, style=bold";
  for (const std::string& expected : std::vector<std::string>{
           "  \"c\" -> \"label of edge 4\" [" + red + ", arrowhead=none];\n",
           "  \"label of edge 4\" -> \"b\" [" + red + "];\n",
           "  \"b\" -> \"label of edge 5\" [" + red + ", arrowhead=none];\n",
           "  \"c\" -> \"label of edge 5\" [" + red + ", dir=back];\n",
           "  \"a\" -> \"label of edge 2\" [color=\"#08519c\", penwidth=2, style=bold, "
           "arrowhead=none];\n",
           "  \"w\" -> \"label of edge 3\" [style=dashed, arrowhead=none];\n"})
    EXPECT_NE(drawn.find(expected), std::string::npos) << expected << drawn;
  // Label nodes of edges inside the aggregate in its cluster; w -> c's outside; markup escaped.
  EXPECT_NE(
      cluster.find(
          "    \"label of edge 5\" [shape=plaintext, style=\"\", margin=\"0.05,0.03\", width=0, "
          "height=0, fontsize=9, fontcolor=\"#d62728\", label=" +
          table + "<TR><TD>u&lt;p&gt;&amp;</TD></TR></TABLE>>];\n"),
      std::string::npos)
      << drawn;
  EXPECT_NE(cluster.find(
                "\"label of edge 2\" [shape=plaintext, style=\"\", margin=\"0.05,0.03\", width=0, "
                "height=0, fontsize=9, fontcolor=\"#08519c\", label=" +
                table + "<TR><TD>j2</TD></TR><TR><TD>(revolute)</TD></TR></TABLE>>];\n"),
            std::string::npos)
      << drawn;
  EXPECT_EQ(cluster.find("\"label of edge 3\""), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("\"label of edge 3\" [shape=plaintext"), std::string::npos) << drawn;
  EXPECT_EQ(drawn.find("constraint=false"), std::string::npos) << drawn;

  const std::string text = digraph_diagram(graph, analysis, "g", &notes, EdgeLabels::kOnEdges);
  EXPECT_EQ(text.find("label of edge"), std::string::npos) << text;
  for (const std::string& expected : std::vector<std::string>{
           "  \"c\" -> \"b\" [" + red + ", fontcolor=\"#d62728\", label=" + table +
               "<TR><TD>down</TD></TR></TABLE>>, fontsize=9];\n",
           "  \"b\" -> \"c\" [" + red + ", constraint=false, fontcolor=\"#d62728\", xlabel=" +
               table + "<TR><TD>u&lt;p&gt;&amp;</TD></TR></TABLE>>, fontsize=9];\n",
           "  \"a\" -> \"b\" [color=\"#08519c\", penwidth=2, style=bold, fontcolor=\"#08519c\", "
           "label=" +
               table + "<TR><TD>j2</TD></TR><TR><TD>(revolute)</TD></TR></TABLE>>, fontsize=9];\n"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << text;
  // Both read back as the digraph drawn: its nodes and edges, nothing more in the DOT text.
  EXPECT_EQ(parse_dot(text, "text.dot").node_count(), 4);
  EXPECT_EQ(parse_dot(text, "text.dot").edges().size(), 5u);
}

// Names of any bytes become text Graphviz's HTML-like labels take: valid UTF-8 kept, anything
// else (a lone continuation byte, an overlong form, a control character) one replacement mark.
TEST(Diagrams, EdgeLabelsTakeNamesOfAnyBytes) {
  const Digraph graph = parse_dot("digraph g { w -> a; }", "g.dot");
  const DigraphAnalysis analysis = analyze(graph);
  EdgeNotes notes;
  notes.role = {EdgeRole::kTreeJoint};
  notes.label = {{"h\xc3\xa9\x80\xc0\xaf\x01\"x\"\xef\xbf\xbe\xef\xbf\xbd"}};
  const std::string dot = digraph_diagram(graph, analysis, "g", &notes);
  // U+FFFE is UTF-8 but not XML: replaced too; U+FFFD itself kept.
  EXPECT_NE(dot.find("<TD>h\xc3\xa9&#xFFFD;&#xFFFD;&#xFFFD;&#xFFFD;&quot;x&quot;&#xFFFD;"
                     "\xef\xbf\xbd</TD>"),
            std::string::npos)
      << dot;
  EXPECT_NO_THROW(render_dot(dot, ImageFormat::kSvg));
}

// A 5-node tree world -> a -> {b, c}, c -> d. Post-order b, d, c, a, world gives b 1, d 2, c 3,
// a 4, world 5. Segments (maximal paths whose inner nodes have one child), in post-order:
// {b}, {c, d} (base c), {world, a} (world has the single child a).
TEST(Diagrams, FiveNodeTreeSpanningTreeAndSegmentsAreTheGoldenText) {
  const Digraph graph =
      parse_dot("digraph tree { world -> a; a -> b; a -> c; c -> d; }", "tree.dot");
  const DigraphAnalysis analysis = analyze(graph);
  const std::string tree_expected =
      "digraph \"tree\" {\n" +
      graph_line(
          "tree\\lunfilled: inertial frame (root), its edges dashed\\lnumber: strictly "
          "canonical index (parent > child)\\l") +
      kHeaderStyle +
      "  \"world\" [label=\"world\\n5\", style=solid];\n"
      "  \"a\" [label=\"a\\n4\"];\n"
      "  \"b\" [label=\"b\\n1\"];\n"
      "  \"c\" [label=\"c\\n3\"];\n"
      "  \"d\" [label=\"d\\n2\"];\n"
      "  \"world\" -> \"a\" [style=dashed];\n"
      "  \"a\" -> \"b\";\n"
      "  \"a\" -> \"c\";\n"
      "  \"c\" -> \"d\";\n"
      "}\n";
  EXPECT_EQ(spanning_tree_diagram(graph, analysis, "tree"), tree_expected);

  const std::string segment_style =
      ", shape=box, style=\"rounded,filled\", fillcolor=\"#c7e9c0\", color=\"#238b45\"];\n";
  const std::string segments_expected =
      "digraph \"tree\" {\n" +
      graph_line(
          "tree\\lsegment i: the i-th block of the strictly canonical numbering\\lmembers "
          "listed base first; edges from the root's segment dashed\\l") +
      kHeaderStyle + "  \"segment 3\" [label=\"segment 3\\nworld\\na\"" + segment_style +
      "  \"segment 2\" [label=\"segment 2\\nc\\nd\"" + segment_style +
      "  \"segment 1\" [label=\"segment 1\\nb\"" + segment_style +
      "  \"segment 3\" -> \"segment 2\";\n"
      "  \"segment 3\" -> \"segment 1\";\n"
      "}\n";
  EXPECT_EQ(segment_tree_diagram(graph, analysis, "tree"), segments_expected);
}

using EdgeSet = std::multiset<std::pair<std::string, std::string>>;

struct NodesAndEdges {
  std::set<std::string> nodes;
  EdgeSet edges;
};

NodesAndEdges nodes_and_edges(const Digraph& graph) {
  NodesAndEdges result;
  for (int v = 0; v < graph.node_count(); ++v) result.nodes.insert(graph.name(v));
  for (const auto& [from, to] : graph.edges())
    result.edges.insert({graph.name(from), graph.name(to)});
  return result;
}

// What each diagram must contain, from the definitions: the digraph itself; the spanning tree's
// nodes and tree edges; one node per aggregated node (members joined by '+') with an edge from
// the aggregated node holding a member's tree parent; one node per segment with an edge from the
// segment holding the parent of its base.
NodesAndEdges expected_diagram(DiagramKind kind, const Digraph& graph,
                               const DigraphAnalysis& analysis) {
  NodesAndEdges expected;
  const SpanningTree& spanning = analysis.spanning;
  if (kind == DiagramKind::kDigraph) return nodes_and_edges(graph);
  const std::vector<std::string> names = spanning.names(graph);
  const Forest& tree = spanning.tree;
  if (kind == DiagramKind::kSpanningTree) {
    expected.nodes.insert(names.begin(), names.end());
    for (int k = 0; k < tree.size(); ++k)
      if (tree.parent(k) != Forest::kNone) expected.edges.insert({names[tree.parent(k)], names[k]});
  } else if (kind == DiagramKind::kAggregated) {
    std::map<int, std::string> id_of_node;
    for (const auto& members : analysis.aggregated.members) {
      std::string id;
      for (int k : members) id += (id.empty() ? "" : "+") + names[k];
      expected.nodes.insert(id);
      for (int k : members) id_of_node[k] = id;
    }
    std::set<std::pair<std::string, std::string>> distinct;
    for (int k = 0; k < tree.size(); ++k)
      if (tree.parent(k) != Forest::kNone && id_of_node[tree.parent(k)] != id_of_node[k])
        distinct.insert({id_of_node[tree.parent(k)], id_of_node[k]});
    expected.edges.insert(distinct.begin(), distinct.end());
  } else {
    // Segments from the definition: k starts a new segment below its parent p unless p has k as
    // its only child.
    std::vector<int> segment_of(tree.size(), -1);
    for (int k : tree.post_order()) segment_of[k] = tree.segment_of(k);
    for (int s = 0; s < tree.segment_count(); ++s)
      expected.nodes.insert("segment " + std::to_string(s + 1));
    for (int k = 0; k < tree.size(); ++k) {
      const int p = tree.parent(k);
      if (p == Forest::kNone) continue;
      const bool same_segment = tree.child_count(p) == 1;
      EXPECT_EQ(same_segment, segment_of[p] == segment_of[k]);
      if (!same_segment)
        expected.edges.insert({"segment " + std::to_string(segment_of[p] + 1),
                               "segment " + std::to_string(segment_of[k] + 1)});
    }
  }
  return expected;
}

TEST(Diagrams, EveryDiagramOfEveryExampleReReadsWithTheDefinedNodesAndEdges) {
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SKOGRAPH_SOURCE_DIR) + "/examples/graphs")) {
    if (entry.path().extension() != ".dot") continue;
    const Digraph graph = read_dot_file(entry.path().string());
    const DigraphAnalysis analysis = analyze(graph);
    ASSERT_TRUE(analysis.spanning.exists) << entry.path();
    for (DiagramKind kind : {DiagramKind::kDigraph, DiagramKind::kSpanningTree,
                             DiagramKind::kAggregated, DiagramKind::kSegments}) {
      const std::string dot = diagram(kind, graph, analysis, entry.path().stem().string());
      const NodesAndEdges got = nodes_and_edges(parse_dot(dot, "diagram"));
      const NodesAndEdges expected = expected_diagram(kind, graph, analysis);
      EXPECT_EQ(got.nodes, expected.nodes) << entry.path() << " " << diagram_kind_name(kind);
      EXPECT_EQ(got.edges, expected.edges) << entry.path() << " " << diagram_kind_name(kind);
      ++checked;
    }
  }
  EXPECT_GE(checked, 24);
}

TEST(Diagrams, NamesThatNeedQuotingSurviveTheRoundTrip) {
  Digraph graph;
  const int root = graph.add_node("inertial \"frame\"");
  const int body = graph.add_node("back\\slash body");
  graph.add_edge(root, body);
  const std::string dot = digraph_diagram(graph, analyze(graph), "odd \"names\"");
  EXPECT_EQ(nodes_and_edges(parse_dot(dot, "diagram")).nodes, nodes_and_edges(graph).nodes);
  EXPECT_EQ(test::xml_problem(render_dot(dot, ImageFormat::kSvg)), "");
}

// Graphviz renders the generated text: SVG parses as XML, PNG has its signature and a plausible
// IHDR size, PDF its header and trailer.
TEST(Diagrams, RenderedPicturesAreValidFiles) {
  const Digraph graph = read_dot_file(std::string(SKOGRAPH_SOURCE_DIR) +
                                      "/examples/graphs/two_arms_holding_a_box.dot");
  const DigraphAnalysis analysis = analyze(graph);
  for (DiagramKind kind : {DiagramKind::kDigraph, DiagramKind::kSpanningTree,
                           DiagramKind::kAggregated, DiagramKind::kSegments}) {
    const std::string dot = diagram(kind, graph, analysis, "arms");
    const std::string svg = render_dot(dot, ImageFormat::kSvg);
    EXPECT_EQ(test::xml_problem(svg), "") << diagram_kind_name(kind);
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    const test::PngSize size = test::png_size(render_dot(dot, ImageFormat::kPng));
    EXPECT_GT(size.width, 50) << diagram_kind_name(kind);
    EXPECT_GT(size.height, 50) << diagram_kind_name(kind);
    EXPECT_TRUE(test::is_pdf(render_dot(dot, ImageFormat::kPdf))) << diagram_kind_name(kind);
    EXPECT_EQ(render_dot(dot, ImageFormat::kDot), dot);
  }
}

// cgraph is not thread safe (pitfalls.md); render_dot serializes every call, so renderings from
// several threads at once all come out whole and identical to a lone rendering.
TEST(Diagrams, ConcurrentRenderingsAreSerializedAndIdentical) {
  const Digraph graph =
      read_dot_file(std::string(SKOGRAPH_SOURCE_DIR) + "/examples/graphs/segments_tree.dot");
  const std::string dot = digraph_diagram(graph, analyze(graph), "segments");
  const std::string alone = render_dot(dot, ImageFormat::kSvg);
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] {
      for (int repeat = 0; repeat < 5; ++repeat) results[t] = render_dot(dot, ImageFormat::kSvg);
    });
  for (std::thread& thread : threads) thread.join();
  for (const std::string& svg : results) EXPECT_EQ(svg, alone);
}

TEST(Diagrams, GraphvizErrorsAreExceptionsNotCrashes) {
  EXPECT_THROW(render_dot("digraph { a -> ", ImageFormat::kSvg), std::runtime_error);
  EXPECT_THROW(render_dot("this is not dot", ImageFormat::kPng), std::runtime_error);
  // The context survives a failure.
  EXPECT_EQ(test::xml_problem(render_dot("digraph { a -> b }", ImageFormat::kSvg)), "");
}

TEST(Diagrams, TreeDiagramsNeedASpanningTreeAndSayWhy) {
  // A directed cycle that no root enters has no spanning arborescence.
  const Digraph graph = parse_dot("digraph { a -> b; b -> c; c -> a; }", "cycle.dot");
  const DigraphAnalysis analysis = analyze(graph);
  ASSERT_FALSE(analysis.spanning.exists);
  // The digraph itself is still drawn, unnumbered.
  const std::string dot = digraph_diagram(graph, analysis, "cycle");
  EXPECT_EQ(nodes_and_edges(parse_dot(dot, "diagram")).edges, nodes_and_edges(graph).edges);
  for (DiagramKind kind :
       {DiagramKind::kSpanningTree, DiagramKind::kAggregated, DiagramKind::kSegments}) {
    try {
      diagram(kind, graph, analysis, "cycle");
      ADD_FAILURE() << diagram_kind_name(kind);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("no spanning tree"), std::string::npos);
    }
  }
}

TEST(Diagrams, KindNamesParseBack) {
  for (DiagramKind kind : {DiagramKind::kDigraph, DiagramKind::kSpanningTree,
                           DiagramKind::kAggregated, DiagramKind::kSegments})
    EXPECT_EQ(parse_diagram_kind(diagram_kind_name(kind)), kind);
  EXPECT_FALSE(parse_diagram_kind("tree"));
  EXPECT_FALSE(parse_diagram_kind(""));
}

}  // namespace
}  // namespace skograph::viz

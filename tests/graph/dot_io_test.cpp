#include <gtest/gtest.h>

#include <sstream>

#include "skograph/graph/classification.hpp"
#include "skograph/graph/digraph.hpp"

namespace skograph {
namespace {

TEST(DotIo, KeepsInputOrderAndIgnoresAttributes) {
  const Digraph g = parse_dot(R"(digraph "robot" {
      rankdir = LR; node [shape=box];
      zeta [label="first", color=red];
      zeta -> alpha [weight=2];
      subgraph cluster_arm { "mid" -> beta:port1:n; }
      // a comment naming ghost -> ghost2
      alpha -> mid;  /* block comment gamma */
    })",
                              "robot.dot");
  ASSERT_EQ(g.node_count(), 4);
  EXPECT_EQ(g.name(0), "zeta");
  EXPECT_EQ(g.name(1), "alpha");
  EXPECT_EQ(g.name(2), "mid");
  EXPECT_EQ(g.name(3), "beta");
  ASSERT_EQ(g.edge_count(), 3);
  EXPECT_EQ(g.edges()[0], Edge(0, 1));
  EXPECT_EQ(g.edges()[1], Edge(2, 3));
  EXPECT_EQ(g.edges()[2], Edge(1, 2));
}

// The DOT language beyond node and edge statements: subgraphs as edge operands (each node of the
// subgraph once), edge chains, ports, quoted strings joined by '+', numerals, HTML strings,
// preprocessor lines, strict digraphs merging parallel edges.
TEST(DotIo, SubgraphOperandsChainsPortsAndStrings) {
  const Digraph g = parse_dot(R"(# 1 "generated.gv"
strict digraph G {
  graph [label=<a <b>bold</b> label>]
  root -> {a; b; a} -> "c" + "d"
  -1.5 -> .5 -> root:n
  a -> cd
  subgraph s { edge [color=red] x; }
})",
                              "more.dot");
  ASSERT_EQ(g.node_count(), 7);
  const char* names[] = {"root", "a", "b", "cd", "-1.5", ".5", "x"};
  for (int v = 0; v < 7; ++v) EXPECT_EQ(g.name(v), names[v]);
  // root->a, root->b, a->cd, b->cd, -1.5->.5, .5->root; a->cd again is merged (strict).
  const std::vector<Edge> expected = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {4, 5}, {5, 0}};
  EXPECT_EQ(g.edges(), expected);
}

TEST(DotIo, WriteThenReadGivesTheSameDigraph) {
  const Digraph g = parse_dot(R"(digraph { "a b" -> "c\"d"; "c\"d" -> e; f })", "x.dot");
  std::ostringstream out;
  write_dot(out, g);
  const Digraph h = parse_dot(out.str(), "written.dot");
  ASSERT_EQ(h.node_count(), g.node_count());
  for (int v = 0; v < g.node_count(); ++v) EXPECT_EQ(h.name(v), g.name(v));
  EXPECT_EQ(h.edges(), g.edges());
}

TEST(DotIo, BadInputNamesTheFileAndTheProblem) {
  auto error_of = [](const std::string& text) {
    try {
      parse_dot(text, "bad.dot");
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "bad.dot");
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("digraph {\n a -> b;\n a -> b;\n}"), "bad.dot:3: duplicate edge 'a' -> 'b'");
  EXPECT_EQ(error_of("digraph {\n a;\n b -> b\n}"), "bad.dot:3: self-loop at node 'b'");
  EXPECT_EQ(error_of("\ngraph { a -- b }"),
            "bad.dot:2: undirected graph: skograph needs a DOT 'digraph' (edges '->')");
  EXPECT_EQ(error_of("digraph { }"), "bad.dot: empty graph: the digraph has no nodes");
  EXPECT_EQ(error_of(""), "bad.dot:1: empty graph: the digraph has no nodes");
  EXPECT_EQ(error_of("digraph {\n a -> ; }"),
            "bad.dot:2: malformed DOT: expected a node identifier, found ';'");
  EXPECT_EQ(
      error_of("digraph { a -> b"),
      "bad.dot:1: malformed DOT: expected '}' to close the digraph, found the end of the file");
  EXPECT_EQ(error_of("digraph {\n a -- b }"),
            "bad.dot:2: malformed DOT: undirected edge '--' in a digraph (use '->')");
  EXPECT_EQ(error_of("digraph { a -> b }\ndigraph { c }"),
            "bad.dot:2: malformed DOT: text after the digraph (one graph per file)");
  EXPECT_EQ(error_of("digraph { a /* open"),
            "bad.dot:1: malformed DOT: a /* comment is not closed");
  EXPECT_EQ(error_of("digraph { a -> \"b\n }"),
            "bad.dot:1: malformed DOT: a quoted string is not closed");
  // Unprintable bytes are shown escaped, and the message stays one line.
  EXPECT_EQ(error_of("digraph { a -> \x01 }"),
            "bad.dot:1: malformed DOT: unexpected character '\\x01'");
  EXPECT_EQ(error_of("digraph {\n \"a\nb\" -> \"a\nb\" }"), "bad.dot:3: self-loop at node 'a\\nb'");
  // Nesting is limited (no stack overflow on 10^4 levels).
  std::string deep = "digraph { a -> b ";
  for (int i = 0; i < 10000; ++i) deep += "{ ";
  EXPECT_NE(error_of(deep).find("malformed DOT: subgraphs nested deeper than 1000 levels"),
            std::string::npos);
  EXPECT_THROW(read_dot_file("/nonexistent/skograph.dot"), InputError);
}

}  // namespace
}  // namespace skograph

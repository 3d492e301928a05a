#include <gtest/gtest.h>

#include <sstream>

#include "graph/classification.hpp"
#include "graph/digraph.hpp"

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
  EXPECT_EQ(error_of("graph { a -- b }"),
            "bad.dot: undirected graph: skograph needs a DOT 'digraph' (edges '->')");
  EXPECT_EQ(error_of("digraph { }"), "bad.dot: empty graph: the digraph has no nodes");
  EXPECT_NE(error_of("").find("bad.dot: malformed DOT: "), std::string::npos);
  EXPECT_NE(error_of("digraph { a -> ; }").find("bad.dot: malformed DOT: "), std::string::npos);
  EXPECT_NE(error_of("digraph { a -> b").find("bad.dot: malformed DOT: "), std::string::npos);
  EXPECT_EQ(error_of("digraph { a -> b").find('\n'), std::string::npos);
  EXPECT_THROW(read_dot_file("/nonexistent/skograph.dot"), InputError);
}

}  // namespace
}  // namespace skograph

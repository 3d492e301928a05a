// `skograph graph`: the JSON contract of the README, and bad input (exit status 2, one line naming
// the file, nothing on stdout). Runs the real binary.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/cli_support.hpp"

namespace {

using skograph::io_test::scratch_dir;

using cli_test::CliRun;

CliRun run_graph(const std::string& arguments) {
  return cli_test::run_cli("graph " + arguments);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = scratch_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(GraphCli, JsonReportOfAClosedChainIsExactlyTheDocumentedObject) {
  // Four-bar closed to the ground (b3 has parents b2 and world) plus a branch.
  const std::string file =
      write_temp("fourbar.dot", "digraph { world -> b1 -> b2 -> b3; world -> b3; b1 -> b4 }\n");
  const CliRun run = run_graph(file + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const nlohmann::json expected = nlohmann::json::parse(R"({
    "nodes": ["world", "b1", "b2", "b3", "b4"],
    "class": "dag",
    "is": {"connected": true, "rooted": true, "dag": true, "polytree": false, "tree": false,
           "serial_chain": false, "forest": false},
    "roots": ["world"], "tips": ["b3", "b4"],
    "spanning_tree": {"root": "world", "virtual_root": false,
                      "edges": [["world", "b1"], ["world", "b3"], ["b1", "b2"], ["b1", "b4"]],
                      "cut_edges": [["b2", "b3"]]},
    "canonical": {"world": 5, "b1": 4, "b2": 2, "b3": 3, "b4": 1},
    "strictly_canonical": {"world": 5, "b1": 3, "b2": 1, "b3": 4, "b4": 2},
    "segments": [{"nodes": ["b2"], "parent": 3}, {"nodes": ["b4"], "parent": 3},
                 {"nodes": ["b1"], "parent": 5}, {"nodes": ["b3"], "parent": 5},
                 {"nodes": ["world"], "parent": 0}],
    "aggregates": [{"nodes": ["b3", "b1", "b2"], "parent": "world", "cut_edges": [["b2", "b3"]]}],
    "aggregated_tree": {"nodes": ["world", "b3+b1+b2", "b4"],
                        "edges": [["world", "b3+b1+b2"], ["b3+b1+b2", "b4"]]}
  })");
  const nlohmann::json got = nlohmann::json::parse(run.out);
  EXPECT_EQ(got, expected) << got.dump(2);
  // Key order as documented.
  std::vector<std::string> keys;
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(run.out);
  for (auto it = ordered.begin(); it != ordered.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"nodes", "class", "is", "roots", "tips",
                                            "spanning_tree", "canonical", "strictly_canonical",
                                            "segments", "aggregates", "aggregated_tree"}));
}

TEST(GraphCli, ForestGetsAVirtualRootListedLastInNodes) {
  const std::string file = write_temp("forest.dot", "digraph { a -> b; c -> d }\n");
  const CliRun run = run_graph(file + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const nlohmann::json got = nlohmann::json::parse(run.out);
  EXPECT_EQ(got["class"], "forest");
  EXPECT_EQ(got["nodes"], nlohmann::json::parse(R"(["a", "b", "c", "d", "virtual_root"])"));
  EXPECT_EQ(got["spanning_tree"]["virtual_root"], true);
  EXPECT_EQ(got["spanning_tree"]["root"], "virtual_root");
  EXPECT_EQ(got["canonical"]["virtual_root"], 5);
}

TEST(GraphCli, NoSpanningArborescenceOmitsTreeKeysAndSaysWhy) {
  const std::string file = write_temp("cycle.dot", "digraph { a -> b -> c -> a }\n");
  const CliRun run = run_graph(file + " --json");
  ASSERT_EQ(run.status, 0);
  const nlohmann::json got = nlohmann::json::parse(run.out);
  EXPECT_EQ(got["class"], "connected");
  for (const char* key : {"spanning_tree", "canonical", "strictly_canonical", "segments",
                          "aggregates", "aggregated_tree"})
    EXPECT_FALSE(got.contains(key)) << key;
  EXPECT_NE(run.err.find("no spanning arborescence"), std::string::npos);
  const CliRun text = run_graph(file);
  EXPECT_NE(text.out.find("spanning tree: none (no spanning arborescence"), std::string::npos);
}

// graph --adjacency (part I Eq. 2 for any digraph): the Matrix Market file holds a 1 at (i, j)
// exactly for the edges i -> j, nodes in input order (1-based in the file), here a DAG with two
// parents of one node and a cycle-free loop closure; with "-" the matrix alone on stdout.
TEST(GraphCli, AdjacencyIsTheDigraphsEdgesInInputOrder) {
  const std::string dot =
      write_temp("adjacency.dot", "digraph { w -> a; a -> b; w -> c; b -> c; c -> c2; }");
  const std::string out = (scratch_dir() / "adjacency.mtx").string();
  const CliRun run = run_graph(dot + " --adjacency " + out);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("digraph: 5 nodes, 5 edges"), std::string::npos) << run.out;
  std::ifstream in(out);
  std::string header, comment;
  std::getline(in, header);
  EXPECT_EQ(header, "%%MatrixMarket matrix coordinate real general");
  while (in.peek() == '%') std::getline(in, comment);
  int rows = 0, cols = 0, entries = 0;
  in >> rows >> cols >> entries;
  EXPECT_EQ(rows, 5);
  EXPECT_EQ(cols, 5);
  std::set<std::pair<int, int>> found;
  for (int e = 0; e < entries; ++e) {
    int i = 0, j = 0;
    double value = 0.0;
    in >> i >> j >> value;
    EXPECT_EQ(value, 1.0);
    found.insert({i, j});
  }
  // w=1, a=2, b=3, c=4, c2=5 in input order.
  EXPECT_EQ(found, (std::set<std::pair<int, int>>{{1, 2}, {2, 3}, {1, 4}, {3, 4}, {4, 5}}));
  const CliRun piped = run_graph(dot + " --adjacency -");
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.out.rfind("%%MatrixMarket", 0), 0u) << piped.out;
  EXPECT_EQ(piped.out.find("digraph:"), std::string::npos);
  const CliRun missing = run_graph(dot + " --adjacency");
  EXPECT_EQ(missing.status, 2);
}

// Each kind of bad input: exit status 2, exactly one line on stderr naming the file, no stdout.
TEST(GraphCli, BadInputGetsOneLineAndExitStatus2) {
  struct Case {
    std::string name, text, expected;
  };
  const std::vector<Case> cases = {
      {"malformed.dot", "digraph { a -> ; }", "malformed DOT"},
      {"undirected.dot", "graph { a -- b }", "undirected graph"},
      {"parallel.dot", "digraph {\n a -> b\n a -> b\n}",
       "parallel.dot:3: duplicate edge 'a' -> 'b'"},
      {"selfloop.dot", "digraph {\n a -> a\n}", "selfloop.dot:2: self-loop at node 'a'"},
      {"empty.dot", "digraph { }", "empty graph"},
      {"binary.dot", std::string("\x7f\x45\x4c\x46\x02\x01\x00\x00", 8),
       "binary.dot:1: NUL byte: not a text file"},
  };
  for (const Case& c : cases) {
    const std::string file = write_temp(c.name, c.text);
    for (const std::string& flags : {std::string(" --json"), std::string("")}) {
      const CliRun run = run_graph(file + flags);
      EXPECT_EQ(run.status, 2) << c.name;
      EXPECT_EQ(run.out, "") << c.name;
      EXPECT_NE(run.err.find(file), std::string::npos) << run.err;
      EXPECT_NE(run.err.find(c.expected), std::string::npos) << run.err;
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    }
  }
  const CliRun missing = run_graph("graph_that_does_not_exist.dot --json");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("graph_that_does_not_exist.dot: cannot open the file"),
            std::string::npos);
  EXPECT_EQ(run_graph("").status, 2);
  EXPECT_EQ(run_graph("--bogus x.dot").status, 2);
  EXPECT_EQ(run_graph("a.dot b.dot").status, 2);
}

}  // namespace

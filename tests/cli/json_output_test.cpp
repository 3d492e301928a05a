#include "skograph/report/json_output.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "skograph/cli/commands.hpp"
#include "skograph/graph/analysis.hpp"
#include "skograph/report/graph_report.hpp"

namespace skograph::cli {
namespace {

using report::append_json_string;
using report::format_json;
using report::graph_report_json;
using report::graph_report_json_text;

// The compact layout changes only white space: the text parses back to the same value.
TEST(JsonOutput, RoundTripsToTheSameValue) {
  const auto value = nlohmann::ordered_json::parse(R"({
    "a": [1, 2.5, "x\"y", null, true], "b": {"c": [[1, 2], [3, 4]], "d": {}}, "e": [],
    "f": [{"g": [1]}, [[[1]]]], "h\u00e9": "\n\t"})");
  const std::string text = format_json(value);
  EXPECT_EQ(nlohmann::ordered_json::parse(text), value);
  EXPECT_NE(text.find("\"c\": [[1, 2], [3, 4]]"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

// The graph report written directly (`graph --json`) is the text of the ordered_json document
// (`analyze`'s report.json "graph"), on every example and on random digraphs of every class.
TEST(JsonOutput, TheStreamedGraphReportIsTheDocumentsText) {
  std::vector<Digraph> graphs;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SKOGRAPH_SOURCE_DIR) + "/examples/graphs"))
    graphs.push_back(read_dot_file(entry.path().string()));
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    Digraph g;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int v = 0; v < n; ++v) g.add_node("n\"" + std::to_string(v) + (v % 5 ? "" : "\u00e9\t"));
    for (int v = 1; v < n; ++v)
      if (rng() % 6) g.add_edge(static_cast<int>(rng() % static_cast<unsigned>(v)), v);
    for (int extra = 0; extra < trial % 4; ++extra) {
      const int a = static_cast<int>(rng() % static_cast<unsigned>(n));
      const int b = static_cast<int>(rng() % static_cast<unsigned>(n));
      bool known = a == b;
      for (const Edge& e : g.edges()) known = known || e == Edge(a, b);
      if (!known) g.add_edge(a, b);
    }
    graphs.push_back(g);
  }
  for (const Digraph& g : graphs) {
    const DigraphAnalysis analysis = analyze(g);
    EXPECT_EQ(graph_report_json_text(g, analysis), format_json(graph_report_json(g, analysis)));
  }
  // Bytes that are not UTF-8 become U+FFFD (nlohmann's dump would throw).
  std::string text;
  append_json_string(text, "a\xff\x01\"\u00e9");
  EXPECT_EQ(text, "\"a\xEF\xBF\xBD\\u0001\\\"\u00e9\"");
}

// Every shipped example runs: `skograph graph FILE --json` succeeds and prints valid JSON.
TEST(Examples, EveryExampleDigraphAnalyzes) {
  int count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SKOGRAPH_SOURCE_DIR) + "/examples/graphs")) {
    if (entry.path().extension() != ".dot") continue;
    std::ostringstream out, err;
    ASSERT_EQ(run({"graph", entry.path().string(), "--json"}, out, err), kExitOk) << err.str();
    const auto report = nlohmann::json::parse(out.str());
    EXPECT_TRUE(report.contains("strictly_canonical")) << entry.path();
    ++count;
  }
  EXPECT_GE(count, 6);
  std::ostringstream out, err;
  const auto demo_dir =
      std::filesystem::temp_directory_path() / ("skograph_demo_test_" + std::to_string(getpid()));
  EXPECT_EQ(run({"demo", "--out", demo_dir.string()}, out, err), kExitOk) << err.str();
  std::ifstream report(demo_dir / "report.txt");
  const std::string text((std::istreambuf_iterator<char>(report)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("aggregation sub-graphs"), std::string::npos);
  std::filesystem::remove_all(demo_dir);
}

}  // namespace
}  // namespace skograph::cli

#include "cli/json_output.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cli/commands.hpp"

namespace skograph::cli {
namespace {

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
  EXPECT_NE(out.str().find("aggregation sub-graphs"), std::string::npos);
  std::filesystem::remove_all(demo_dir);
}

}  // namespace
}  // namespace skograph::cli

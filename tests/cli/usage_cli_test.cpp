// `skograph` alone is a one-line hint, `skograph --version` the CMake project version
// (read here from CMakeLists.txt, the one place it is written), `skograph COMMAND --help` and
// `skograph help COMMAND` the command's usage on stdout for every command `skograph help` lists.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_support.hpp"

namespace {

using cli_test::CliRun;
using cli_test::run_cli;

std::string project_version() {
  std::ifstream in(std::string(SKOGRAPH_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << in.rdbuf();
  std::smatch match;
  const std::string s = text.str();
  EXPECT_TRUE(std::regex_search(s, match, std::regex(R"(project\(skograph VERSION ([0-9.]+))")));
  return match[1];
}

// The command names of `skograph help` ("  NAME ..." lines under "commands:").
std::vector<std::string> listed_commands() {
  const CliRun run = run_cli("help");
  EXPECT_EQ(run.status, 0);
  std::vector<std::string> names;
  std::istringstream lines(run.out);
  std::string line;
  const std::regex command_line(R"(^  ([a-z]+) .*)");
  std::smatch match;
  while (std::getline(lines, line))
    if (std::regex_match(line, match, command_line)) names.push_back(match[1]);
  return names;
}

TEST(UsageCli, BareProgramIsOneLineOnStderrWithStatus2) {
  const CliRun run = run_cli("");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.err.rfind("usage: skograph <command>", 0), 0u) << run.err;
}

TEST(UsageCli, VersionIsTheProjectVersion) {
  const CliRun run = run_cli("--version");
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "skograph " + project_version() + "\n");
  EXPECT_EQ(run.err, "");
}

TEST(UsageCli, TheChangelogHasASectionForTheVersion) {
  std::ifstream in(std::string(SKOGRAPH_SOURCE_DIR) + "/CHANGELOG.md");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\n## " + project_version() + " "), std::string::npos);
}

TEST(UsageCli, EveryListedCommandAnswersHelp) {
  const std::vector<std::string> commands = listed_commands();
  ASSERT_GE(commands.size(), 6u);
  for (const std::string& command : commands) {
    std::vector<std::string> asks = {command + " --help", "help " + command};
    if (command != "help") asks.push_back(command + " x -h");  // help x: an unknown command
    for (const std::string& ask : asks) {
      const CliRun run = run_cli(ask);
      EXPECT_EQ(run.status, 0) << ask << ": " << run.err;
      EXPECT_EQ(run.err, "") << ask;
      EXPECT_EQ(run.out.rfind("usage: skograph " + command, 0), 0u) << ask << ": " << run.out;
    }
  }
}

TEST(UsageCli, HelpOfAnUnknownCommandIsOneLine) {
  cli_test::expect_one_line_error(run_cli("help frobnicate"), "frobnicate");
  cli_test::expect_one_line_error(run_cli("frobnicate --help"), "frobnicate");
}

}  // namespace

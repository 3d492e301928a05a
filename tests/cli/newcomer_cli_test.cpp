// What a newcomer met: an empty file of any format says that it is empty, a directory
// given as the model says that it is a directory (with or without a model extension), and
// --independent on a tree is a note (every coordinate is independent) while an unknown name is
// an error. Each problem is one line on stderr, exit status 2.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/cli_support.hpp"

namespace {

using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::run_cli;
namespace fs = std::filesystem;

TEST(NewcomerCli, AnEmptyFileSaysSo) {
  const std::string model = example_model("arm7.urdf");
  for (const char* name :
       {"empty.urdf", "empty.yaml", "empty.xml", "empty.sdf", "empty.dot", "empty.json"}) {
    const std::string path = skograph::io_test::write_file(name, "");
    const std::string command = std::string(name) == "empty.json"
                                    ? "dynamics " + model + " --state " + path
                                    : "graph " + path;
    SCOPED_TRACE(command);
    expect_one_line_error(run_cli(command), path + ": the file is empty");
  }
  const std::string loops = skograph::io_test::write_file("empty_loops.yaml", "");
  expect_one_line_error(run_cli("dynamics " + model + " --loops " + loops),
                        loops + ": the file is empty");
}

TEST(NewcomerCli, ADirectoryIsADirectory) {
  for (const char* name : {"model_directory", "model_directory.urdf"}) {
    const fs::path directory = fs::temp_directory_path() / name;
    fs::create_directories(directory);
    expect_one_line_error(run_cli("dynamics " + directory.string()), "is a directory");
    fs::remove(directory);
  }
}

TEST(NewcomerCli, IndependentOnATreeIsANoteAndUnknownNamesAnError) {
  const auto run = run_cli("dynamics " + example_model("arm7.urdf") + " --independent joint1");
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.err.find("note: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("no loops or gear couplings: every coordinate is independent"),
            std::string::npos)
      << run.err;
  expect_one_line_error(
      run_cli("dynamics " + example_model("arm7.urdf") + " --independent joint99"),
      "'joint99' is not a joint");
}

}  // namespace

// Test support of the io layer and the model commands ("io" prefix): a per-process scratch folder,
// file writing, and the InputError expectation (file, line, problem).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "skograph/graph/digraph.hpp"

namespace skograph::io_test {

// A scratch folder of this test process (ctest runs tests in parallel processes).
inline std::filesystem::path scratch_dir() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("skograph_io_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string write_file(const std::string& name, const std::string& text) {
  const auto path = scratch_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

// Runs `read` and expects an InputError naming `source` at `line` whose message contains `problem`.
template <class Read>
void expect_input_error(Read read, const std::string& source, int line,
                        const std::string& problem) {
  try {
    read();
    ADD_FAILURE() << "no InputError; expected: " << problem;
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), source) << e.what();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "not one line: " << e.what();
  }
}

}  // namespace skograph::io_test

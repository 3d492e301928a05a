// Test support of the io layer and the model commands ("io" prefix): a per-process scratch folder,
// file writing, and the InputError expectation (file, line, problem).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "skograph/graph/digraph.hpp"
#include "support/scratch_folder.hpp"

namespace skograph::io_test {

// The scratch folder of this test process (removed at exit).
inline std::filesystem::path scratch_dir() {
  return testing_support::scratch_folder();
}

inline std::string write_file(const std::string& name, const std::string& text) {
  const auto path = scratch_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

// `text` with the first `from` replaced by `to`; a failure when there is none.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
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

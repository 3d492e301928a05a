// Running the real `skograph` binary from the CLI tests: one runner, shared by every test file.
// Each ctest entry is its own process, so outputs go to this process's scratch folder.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "support/io_support.hpp"

namespace cli_test {

struct CliRun {
  int status;  // exit status, -1 when the program did not exit normally
  std::string out, err;
};

// `skograph ARGUMENTS` through the shell (ARGUMENTS may hold redirections or quotes).
inline CliRun run_cli(const std::string& arguments) {
  const auto dir = skograph::io_test::scratch_dir();
  const std::string out_path = (dir / "cli_stdout.txt").string();
  const std::string err_path = (dir / "cli_stderr.txt").string();
  const std::string command =
      std::string(SKOGRAPH_CLI) + " " + arguments + " > " + out_path + " 2> " + err_path;
  const int raw = std::system(command.c_str());
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  CliRun run{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out_path), slurp(err_path)};
  // Leave the scratch folder as the program left it (tests look for leftover temporaries).
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return run;
}

// Path of a file in examples/models.
inline std::string example_model(const std::string& name) {
  return std::string(SKOGRAPH_SOURCE_DIR) + "/examples/models/" + name;
}

// The bad-input contract: exit status 2, nothing on stdout, one stderr line mentioning `mentions`.
inline void expect_one_line_error(const CliRun& run, const std::string& mentions) {
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(mentions), std::string::npos) << run.err;
}

// `skograph dynamics ARGUMENTS --json`, expected to succeed, parsed ({} when it printed nothing).
inline nlohmann::json dynamics_json(const std::string& arguments) {
  const CliRun run = run_cli("dynamics " + arguments + " --json");
  EXPECT_EQ(run.status, 0) << arguments << ": " << run.err;
  return nlohmann::json::parse(run.out.empty() ? "{}" : run.out);
}

// A JSON list of numbers as a vector, a list of rows as a matrix (the reports' "q", "M", ...);
// nlohmann::json or ordered_json.
template <class JsonValue>
Eigen::VectorXd vector_of(const JsonValue& json) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(json.size()));
  for (std::size_t i = 0; i < json.size(); ++i)
    v(static_cast<Eigen::Index>(i)) = json[i].template get<double>();
  return v;
}
template <class JsonValue>
Eigen::MatrixXd matrix_of(const JsonValue& json) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(json.size()),
                    json.empty() ? 0 : static_cast<Eigen::Index>(json[0].size()));
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      m(r, c) =
          json[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)].template get<double>();
  return m;
}

// The text of a state file giving `vectors` (key "q", "qd", ... -> values in the order of the
// report's `dofs`), joint-keyed; the dofs "joint:k" of a multi-dof joint grouped into an array.
inline std::string state_json(const nlohmann::json& dofs,
                              const std::vector<std::pair<std::string, Eigen::VectorXd>>& vectors) {
  nlohmann::json state;
  for (const auto& [key, v] : vectors)
    for (std::size_t i = 0; i < dofs.size(); ++i) {
      const std::string dof = dofs[i];
      const auto colon = dof.find(':');
      const double value = v(static_cast<Eigen::Index>(i));
      if (colon == std::string::npos)
        state[key][dof] = value;
      else
        state[key][dof.substr(0, colon)].push_back(value);
    }
  return state.dump();
}

}  // namespace cli_test

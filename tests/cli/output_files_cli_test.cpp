// Outputs that are not regular files, through the real binary: devices, FIFOs and
// symbolic links to them are written in place, never replaced; "-" is standard output.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "skograph/sparse/matrix_market.hpp"
#include "support/cli_support.hpp"

namespace {

using cli_test::expect_one_line_error;
using cli_test::run_cli;

namespace fs = std::filesystem;

bool is_character_device(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && S_ISCHR(status.st_mode);
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The mass matrix written by export to a regular file: the reference for the other targets.
std::string reference_mass_text(const fs::path& dir) {
  const fs::path file = dir / "reference.mtx";
  const auto run =
      run_cli("export " + cli_test::example_model("arm7.urdf") + " --mass " + file.string());
  EXPECT_EQ(run.status, 0) << run.err;
  return slurp(file);
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = skograph::io_test::scratch_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(OutputFilesCli, FullDeviceIsReportedAndStaysADevice) {
  ASSERT_TRUE(is_character_device("/dev/full"));
  const auto run = run_cli("export " + cli_test::example_model("arm7.urdf") + " --mass /dev/full");
  expect_one_line_error(run, "/dev/full: cannot write: No space left on device");
  EXPECT_TRUE(is_character_device("/dev/full"));
}

TEST(OutputFilesCli, SymbolicLinkToADeviceIsFollowedNotReplaced) {
  const fs::path dir = fresh_dir("link_to_device");
  const fs::path link = dir / "M.mtx";
  fs::create_symlink("/dev/null", link);
  const auto run =
      run_cli("export " + cli_test::example_model("arm7.urdf") + " --mass " + link.string());
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), "/dev/null");
  EXPECT_TRUE(is_character_device("/dev/null"));
  // Nothing else was left in the folder (no temporary).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(OutputFilesCli, SymbolicLinkToARegularFileReplacesTheFileAndKeepsTheLink) {
  const fs::path dir = fresh_dir("link_to_file");
  const std::string expected = reference_mass_text(dir);
  const fs::path target = dir / "real.mtx";
  std::ofstream(target) << "old";
  const fs::path link = dir / "M.mtx";
  fs::create_symlink("real.mtx", link);
  const auto run =
      run_cli("export " + cli_test::example_model("arm7.urdf") + " --mass " + link.string());
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(target), expected);
}

TEST(OutputFilesCli, FifoIsWrittenInPlace) {
  const fs::path dir = fresh_dir("fifo");
  const std::string expected = reference_mass_text(dir);
  const fs::path fifo = dir / "M.mtx";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader: opening blocks until the writer opens its end.
  auto reader = std::async(std::launch::async, [&] { return slurp(fifo); });
  const auto run =
      run_cli("export " + cli_test::example_model("arm7.urdf") + " --mass " + fifo.string());
  if (reader.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    // The program never opened the FIFO: release the reader before failing.
    const int unblock = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (unblock >= 0) ::close(unblock);
    ADD_FAILURE() << "the FIFO was never written";
  }
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(reader.get(), expected);
  struct stat status {};
  ASSERT_EQ(::lstat(fifo.c_str(), &status), 0);
  EXPECT_TRUE(S_ISFIFO(status.st_mode));
}

TEST(OutputFilesCli, DashAndDevStdoutAreStandardOutput) {
  const fs::path dir = fresh_dir("dash");
  const std::string expected = reference_mass_text(dir);
  for (const std::string name : {"-", "/dev/stdout"}) {
    SCOPED_TRACE(name);
    const auto run = run_cli("export " + cli_test::example_model("arm7.urdf") + " --mass " + name);
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out, expected);
  }
  // Two outputs cannot both be standard output.
  expect_one_line_error(
      run_cli("export " + cli_test::example_model("arm7.urdf") + " --mass - --perm P.txt"), "-");
}

TEST(OutputFilesCli, RenderAndSimulateWriteToStandardOutput) {
  const auto svg = run_cli("render " + cli_test::example_model("arm7.urdf") +
                           " --what digraph --format svg -o -");
  EXPECT_EQ(svg.status, 0) << svg.err;
  EXPECT_EQ(svg.out.rfind("<?xml", 0), 0u) << svg.out.substr(0, 80);
  EXPECT_NE(svg.out.find("</svg>"), std::string::npos);
  // Without --format the format cannot come from "-".
  expect_one_line_error(
      run_cli("render " + cli_test::example_model("arm7.urdf") + " --what digraph -o -"), "-");

  const auto trajectory =
      run_cli("simulate " + cli_test::example_model("fourbar.yaml") + " --t 0.1 --dt 0.05 --out -");
  EXPECT_EQ(trajectory.status, 0) << trajectory.err;
  // The header and one row per output time (t = 0, 0.05, 0.1).
  EXPECT_EQ(std::count(trajectory.out.begin(), trajectory.out.end(), '\n'), 4) << trajectory.out;
  EXPECT_EQ(trajectory.out.rfind("t,", 0), 0u) << trajectory.out;
}

}  // namespace

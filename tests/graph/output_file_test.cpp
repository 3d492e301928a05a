// Output files (graph/output_file.hpp) against what the file system shows afterwards: regular files
// are replaced whole or not at all (no temporary left behind), symbolic links are followed to the
// file they name (the link stays a link), devices and FIFOs are written in place and never
// replaced, and every failure is one OutputError naming the path and the reason.
#include "skograph/graph/output_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "support/scratch_folder.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  return testing_support::scratch_folder();
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int entries(const fs::path& dir) {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++count;
  return count;
}

std::string error_of(const std::function<void()>& write) {
  try {
    write();
  } catch (const OutputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(OutputFile, ReplacesARegularFileWholeAndLeavesNoTemporary) {
  const fs::path dir = scratch() / "regular";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path path = dir / "picture.svg";
  write_output_file(path.string(), std::string(100000, 'a'));
  write_output_file(path.string(), "short");
  EXPECT_EQ(slurp(path), "short");
  EXPECT_EQ(entries(dir), 1);
  // An existing file keeps its permissions.
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_output_file(path.string(), "again");
  EXPECT_EQ(fs::status(path).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  // Not committed: the old content stays and the temporary goes.
  {
    OutputFile file(path.string());
    file.write("never");
  }
  EXPECT_EQ(slurp(path), "again");
  EXPECT_EQ(entries(dir), 1);
  fs::remove_all(dir);
}

TEST(OutputFile, FailuresNameThePathAndLeaveNothingBehind) {
  const fs::path dir = scratch() / "failures";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path plain = dir / "plain_file";
  std::ofstream(plain) << "x";
  const std::string missing = (dir / "missing" / "a.svg").string();
  EXPECT_EQ(error_of([&] { write_output_file(missing, "data"); }),
            missing + ": cannot write: No such file or directory");
  const std::string under_file = (plain / "a.svg").string();
  EXPECT_EQ(error_of([&] { write_output_file(under_file, "data"); }),
            under_file + ": cannot write: Not a directory");
  EXPECT_EQ(error_of([&] { write_output_file(dir.string(), "data"); }),
            dir.string() + ": cannot write: it is a directory");
  // Several files, the second unwritable: neither target nor any temporary exists afterwards.
  const std::string first = (dir / "first.mtx").string();
  EXPECT_NE(error_of([&] { write_output_files({{first, "x"}, {missing, "y"}}); }), "no error");
  EXPECT_EQ(slurp(plain), "x");
  EXPECT_EQ(entries(dir), 1);
  // A name with a newline is escaped in the message: one line.
  const std::string odd = (dir / "no\ndir" / "a").string();
  EXPECT_EQ(error_of([&] { write_output_file(odd, "data"); }).find('\n'), std::string::npos);
  fs::remove_all(dir);
}

TEST(OutputFile, FollowsSymbolicLinksToTheRegularFile) {
  const fs::path dir = scratch() / "links";
  fs::remove_all(dir);
  fs::create_directories(dir / "real");
  std::ofstream(dir / "real" / "target.mtx") << "old";
  fs::create_symlink("real/target.mtx", dir / "link.mtx");         // relative
  fs::create_symlink(dir / "link.mtx", dir / "link_to_link.mtx");  // a chain
  write_output_file((dir / "link_to_link.mtx").string(), "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.mtx"));
  EXPECT_TRUE(fs::is_symlink(dir / "link_to_link.mtx"));
  EXPECT_EQ(slurp(dir / "real" / "target.mtx"), "new");
  // A dangling link creates the file it names.
  fs::create_symlink("real/created.mtx", dir / "dangling.mtx");
  write_output_file((dir / "dangling.mtx").string(), "made");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.mtx"));
  EXPECT_EQ(slurp(dir / "real" / "created.mtx"), "made");
  EXPECT_EQ(entries(dir / "real"), 2);
  // A loop of links is an error, not a hang.
  fs::create_symlink("loop_b", dir / "loop_a");
  fs::create_symlink("loop_a", dir / "loop_b");
  EXPECT_NE(error_of([&] { write_output_file((dir / "loop_a").string(), "x"); }), "no error");
  fs::remove_all(dir);
}

TEST(OutputFile, WritesDevicesAndFifosInPlace) {
  // /dev/null stays a character device.
  write_output_file("/dev/null", "discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // /dev/full: ENOSPC in one line, and the device is still a device.
  if (fs::exists("/dev/full")) {
    EXPECT_EQ(error_of([] { write_output_file("/dev/full", "x"); }),
              "/dev/full: cannot write: No space left on device");
    EXPECT_TRUE(fs::is_character_file("/dev/full"));
  }
  // A FIFO: its reader gets the bytes, and it stays a FIFO.
  const fs::path fifo = scratch() / "pipe";
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  write_output_file(fifo.string(), "through the pipe");
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  // A FIFO whose reader has gone: EPIPE in one line (SIGPIPE ignored, as the command line does).
  std::thread closer([&] {
    const int descriptor = ::open(fifo.c_str(), O_RDONLY);
    ::close(descriptor);
  });
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  const std::string message = error_of([&] {
    OutputFile file(fifo.string());
    closer.join();
    file.write(std::string(1 << 17, 'x'));
    file.commit();
  });
  sigaction(SIGPIPE, &previous, nullptr);
  if (closer.joinable()) closer.join();
  EXPECT_EQ(message, fifo.string() + ": cannot write: Broken pipe");
  fs::remove(fifo);
}

TEST(OutputFile, NamesOfStandardOutput) {
  for (const char* name : {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})
    EXPECT_TRUE(is_standard_output(name)) << name;
  for (const char* name : {"/dev/stderr", "/dev/fd/12", "out.csv", "-x", "/dev/fd/1x"})
    EXPECT_FALSE(is_standard_output(name)) << name;
}

}  // namespace
}  // namespace skograph

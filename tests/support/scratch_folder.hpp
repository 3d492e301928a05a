// A scratch folder per test process (ctest runs each test in a process of its own), removed with
// everything in it when the process exits, so that test runs leave nothing behind in /tmp.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace skograph::testing_support {

// <temp>/skograph_test_<pid>, created on every call (a test may have removed it).
inline std::filesystem::path scratch_folder() {
  struct RemovedAtExit {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("skograph_test_" + std::to_string(getpid()));
    RemovedAtExit() = default;
    RemovedAtExit(const RemovedAtExit&) = delete;
    RemovedAtExit& operator=(const RemovedAtExit&) = delete;
    ~RemovedAtExit() {
      std::error_code ignored;  // nothing to report from an exit
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const RemovedAtExit folder;
  std::filesystem::create_directories(folder.path);
  return folder.path;
}

}  // namespace skograph::testing_support

// Where the tests find their inputs: the project's example models and the shared robot files
// (tests that read ../shared skip when it is absent). One definition, so that test sources compiled
// together in one unit (cmake/skographBuildSpeed.cmake) do not define them twice.
#pragma once

#include <filesystem>

namespace skograph::testing_support {

inline const std::filesystem::path kExamples =
    std::filesystem::path(SKOGRAPH_SOURCE_DIR) / "examples" / "models";
inline const std::filesystem::path kSharedRobots =
    std::filesystem::path(SKOGRAPH_SOURCE_DIR) / ".." / "shared" / "robots";
inline const std::filesystem::path kParallelRobots = kSharedRobots / "example-parallel-robots";

}  // namespace skograph::testing_support

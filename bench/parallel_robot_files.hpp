// Where the parallel robots of example-parallel-robots (../shared/robots/example-parallel-robots)
// keep their files, for the benchmarks that time them (parallel_robots_bench.cpp and
// bench/peers): one folder per robot with its URDF and robot.yaml (the loop file).
#pragma once

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

namespace skograph::bench {

// The robot folders under `collection` (those holding a robot.yaml), sorted; none when the
// collection is absent.
inline std::vector<std::filesystem::path> parallel_robot_folders(
    const std::filesystem::path& collection) {
  std::vector<std::filesystem::path> folders;
  std::error_code error;
  if (!std::filesystem::is_directory(collection, error)) return folders;
  for (const auto& entry : std::filesystem::directory_iterator(collection, error))
    if (std::filesystem::exists(entry.path() / "robot.yaml", error))
      folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

// A robot's URDF: robot.urdf, or talos_full_v2.urdf in true_talos_2_legs.
inline std::filesystem::path parallel_robot_urdf(const std::filesystem::path& folder) {
  const std::filesystem::path urdf = folder / "robot.urdf";
  std::error_code error;
  return std::filesystem::exists(urdf, error) ? urdf : folder / "talos_full_v2.urdf";
}

inline std::filesystem::path parallel_robot_loops(const std::filesystem::path& folder) {
  return folder / "robot.yaml";
}

}  // namespace skograph::bench

// skograph against MuJoCo and DART on the same models, in one run, interleaved. Open
// trees (robots.cpp): forward dynamics, inverse dynamics and the mass matrix; closed chains
// (closed_chains.cpp): forward dynamics against MuJoCo's equality constraints; batches of states
// of the robots (batches.cpp): skograph's batch calls beside MuJoCo's loop. Medians of
// interleaved batches, with the peers' time divided by skograph's. `make bench-peers` builds and
// runs it; it is not part of the normal build (it needs libmujoco-dev; DART, libdart-dev and
// libdart-utils-urdf-dev, is used when CMake finds it).
//
//   skograph_peers [--reps N] [--robots | --closed | --batches] [MODEL ...]
//
// Without models: the robots bench/models/*.urdf, the README's arm and humanoid and
// ../shared/robots/benchmark/*.urdf (when present), and the closed chains examples/models/
// fourbar.xml, delta_robot.xml, stewart_platform.xml, a chain of 64 four-bars (written to the
// temporary directory) and the parallel robots of ../shared/robots/example-parallel-robots (when
// present; MuJoCo reads their twins, mjcf_twin.cpp). A model given on the command line is benched
// as a closed chain when it has loops or couplings; a folder is a parallel robot (robot.urdf and
// robot.yaml).
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/parallel_robot_files.hpp"
#include "peers.hpp"
#include "skograph/graph/error.hpp"
#include "skograph/io/mechanism_file.hpp"

#ifdef SKOGRAPH_PEERS_WITH_DART
#include <dart/config.hpp>
#endif

namespace {

int run(int argc, char** argv) {
  using namespace skograph;
  int rounds = 15;
  bool robots = true, closed = true, batches = true;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--robots") {
      closed = batches = false;
    } else if (arg == "--closed") {
      robots = batches = false;
    } else if (arg == "--batches") {
      robots = closed = false;
    } else {
      files.push_back(arg);
    }
  }
  const std::filesystem::path source = SKOGRAPH_SOURCE_DIR;
  std::vector<std::string> robot_files;
  std::vector<peers::ClosedCase> closed_cases;
  const auto closed_file = [&](const std::string& file) {
    closed_cases.push_back({std::filesystem::path(file).filename().string(), file, ""});
  };
  // A folder of example-parallel-robots: its URDF and robot.yaml.
  const auto parallel_robot = [&](const std::filesystem::path& folder) {
    closed_cases.push_back({folder.filename().string(), bench::parallel_robot_urdf(folder).string(),
                            bench::parallel_robot_loops(folder).string()});
  };
  if (files.empty()) {
    std::vector<std::filesystem::path> found;
    for (const auto& directory :
         {source / "bench" / "models", source / ".." / "shared" / "robots" / "benchmark"})
      if (std::filesystem::exists(directory))
        for (const auto& entry : std::filesystem::directory_iterator(directory))
          if (entry.path().extension() == ".urdf") found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    robot_files.push_back((source / "examples" / "models" / "arm7.urdf").string());
    robot_files.push_back((source / "examples" / "models" / "humanoid.xml").string());
    for (const auto& path : found) robot_files.push_back(path.string());
    for (const char* name : {"fourbar.xml", "delta_robot.xml", "stewart_platform.xml"})
      closed_file((source / "examples" / "models" / name).string());
    const std::filesystem::path chain =
        std::filesystem::temp_directory_path() / "skograph_peers_fourbar_chain64.xml";
    std::ofstream(chain) << peers::four_bar_chain_mjcf(64);
    closed_file(chain.string());
    for (const auto& folder : bench::parallel_robot_folders(source / ".." / "shared" / "robots" /
                                                            "example-parallel-robots"))
      parallel_robot(folder);
  } else {
    for (const std::string& file : files) {
      if (std::filesystem::is_directory(file)) {
        parallel_robot(file);
        continue;
      }
      const Mechanism mechanism = read_mechanism_file(file);
      const bool has_closures = !mechanism.loops.empty() || !mechanism.couplings.empty();
      if (has_closures)
        closed_file(file);
      else
        robot_files.push_back(file);
    }
  }
  std::printf("skograph against MuJoCo %s", mj_versionString());
#ifdef SKOGRAPH_PEERS_WITH_DART
  std::printf(" and DART %s", DART_VERSION);
#endif
  std::printf(": median us per call over %d interleaved rounds; (x) = peer time / skograph time\n",
              rounds);
  if (robots && !robot_files.empty()) peers::bench_robots(robot_files, rounds);
  if (closed && !closed_cases.empty()) peers::bench_closed_chains(closed_cases, rounds);
  if (batches && !robot_files.empty()) peers::bench_batches(robot_files, rounds);
  return 0;
}

}  // namespace

// As in the CLI: an input the library refuses (a file that cannot be read or modelled, named in
// the message) gets one line and exit status 2, any other failure one line and status 1.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const skograph::Error& e) {
    std::fprintf(stderr, "skograph_peers: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "skograph_peers: %s\n", e.what());
    return 1;
  }
}

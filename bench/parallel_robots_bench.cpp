// The robots of the example-parallel-robots collection (../shared/robots/example-parallel-robots),
// registered when the files exist:
//   BM_AssembleFromZero/<robot>    assemble (rigid/closed_chain_model.hpp) from the zero state: the
//                                  closed configuration every command starts from
//   BM_ParallelRobotFd/<robot>     constraint-embedded forward dynamics at that state, per call
//                                  (counter ns_per_dof: the time per tree dof)
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/parallel_robot_files.hpp"
#include "skograph/model/dynamics.hpp"

namespace {

using namespace skograph;
namespace fs = std::filesystem;

struct Robot {
  Model model;
  explicit Robot(const fs::path& folder) : model(load(folder)) {}
  static Model load(const fs::path& folder) {
    ReadOptions options;
    options.loops_file = bench::parallel_robot_loops(folder).string();
    return load_model(bench::parallel_robot_urdf(folder).string(), options);
  }
};

void BM_AssembleFromZero(benchmark::State& state, const fs::path& folder) {
  const Robot robot(folder);
  const ClosedChainModel& model = *robot.model.closed_chain();
  ClosedChainData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());
  Eigen::VectorXd q = zero;
  for (auto _ : state) {
    q = zero;
    try {
      assemble(model, data, q);
    } catch (const ClosureError& e) {
      state.SkipWithError(e.what());
      break;
    }
    benchmark::DoNotOptimize(q.data());
  }
}

void BM_ParallelRobotFd(benchmark::State& state, const fs::path& folder) {
  const Robot robot(folder);
  const ClosedChainModel& model = *robot.model.closed_chain();
  ClosedChainData data(model);
  const int n = model.dof_count();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(n), qd(n), tau(n);
  for (int i = 0; i < n; ++i) {
    qd[i] = 0.3 * std::sin(1.0 + i);
    tau[i] = 0.1 * std::cos(2.0 + i);
  }
  try {
    assemble(model, data, q);
    close_velocities(model, data, q, qd);
  } catch (const Error& e) {
    state.SkipWithError(e.what());
    return;
  }
  const Eigen::Vector3d gravity(0, 0, -9.81);
  for (auto _ : state)
    benchmark::DoNotOptimize(forward_dynamics(model, data, q, qd, tau, gravity).data());
  state.counters["dofs"] = n;
  state.counters["ns_per_dof"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

const bool kRegistered = [] {
  const std::vector<fs::path> folders = bench::parallel_robot_folders(
      fs::path(SKOGRAPH_SOURCE_DIR) / ".." / "shared" / "robots" / "example-parallel-robots");
  for (const fs::path& folder : folders) {
    const std::string name = folder.filename().string();
    benchmark::RegisterBenchmark(("BM_AssembleFromZero/" + name).c_str(), BM_AssembleFromZero,
                                 folder)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_ParallelRobotFd/" + name).c_str(), BM_ParallelRobotFd,
                                 folder);
  }
  return true;
}();

}  // namespace

// A closed chain's forward-dynamics derivatives in its independent coordinates
// (rigid/closed_chain_derivatives.hpp) beside what a user would otherwise do: forward finite
// differences of forward_dynamics, 2 n_R + 1 calls, each perturbed state closed again (along
// q_R: integrate along X e_m, close_positions, close_velocities; along qd_R: close_velocities),
// dqdd/dtau left out of the differences (it is X M_R^-1 X*, one more solve); the analytic call
// without the loop forces' derivatives (differences of forward dynamics do not give them), and
// with them. On the Stewart platform (6 independent) and chains of 4 and 16 four-bars (4 and 16
// independent), under gravity; and, by name, the delta robot of examples/models and the robots of
// the example-parallel-robots collection with 3 or more independent coordinates (assembled from
// the zero state; registered when the files exist).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <string>

#include "bench/parallel_robot_files.hpp"
#include "skograph/model/model.hpp"
#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/tangent.hpp"
#include "tests/support/closed_chain_support.hpp"

namespace {

using namespace skograph;
namespace fs = std::filesystem;

// The mechanism of a case: 0 the Stewart platform, k > 0 a chain of k four-bars.
Mechanism mechanism_of(int which) {
  return which == 0 ? testing_support::stewart_platform() : testing_support::four_bar_chain(which);
}

// One mechanism's closed state: q closed from `start` (assembled first when asked), every rate
// 0.3 made consistent, every force 0.1.
struct DerivativeState {
  DerivativeState(const ClosedChainModel& model, ClosedChainData& data, Eigen::VectorXd start,
                  bool assemble_first)
      : q(std::move(start)),
        qd(Eigen::VectorXd::Constant(model.dof_count(), 0.3)),
        tau(Eigen::VectorXd::Constant(model.dof_count(), 0.1)) {
    if (assemble_first) assemble(model, data, q);
    close_positions(model, data, q);
    close_velocities(model, data, q, qd);
  }
  Eigen::VectorXd q, qd, tau;
  const Eigen::Vector3d gravity = Eigen::Vector3d(0.0, -9.81, -3.0);
};

void time_derivatives(benchmark::State& state, const ClosedChainModel& model, ClosedChainData& data,
                      const DerivativeState& s, LoopForceDerivatives forces) {
  ClosedChainForwardDerivatives result;
  for (auto _ : state) {
    forward_dynamics_derivatives(model, data, s.q, s.qd, s.tau, s.gravity, result, forces);
    benchmark::DoNotOptimize(result.dqdd_dq.data());
  }
  state.counters["independent"] = static_cast<double>(result.independent.size());
}

void time_differences(benchmark::State& state, const ClosedChainModel& model, ClosedChainData& data,
                      const DerivativeState& s) {
  const double h = 1e-6;
  Eigen::VectorXd base, q, qd;
  Eigen::MatrixXd by_q, by_qd;
  for (auto _ : state) {
    base = forward_dynamics(model, data, s.q, s.qd, s.tau, s.gravity);
    const Eigen::MatrixXd X = data.X;
    const std::vector<int> independent = data.independent;
    const auto r = static_cast<Eigen::Index>(independent.size());
    by_q.resize(base.size(), r);
    by_qd.resize(base.size(), r);
    for (Eigen::Index m = 0; m < r; ++m) {
      q = integrate(model.tree(), s.q, X.col(m) * h, 1.0);
      qd = s.qd;
      close_positions(model, data, q);
      close_velocities(model, data, q, qd);
      by_q.col(m) = (forward_dynamics(model, data, q, qd, s.tau, s.gravity) - base) / h;
    }
    for (Eigen::Index m = 0; m < r; ++m) {
      qd = s.qd;
      qd[independent[static_cast<std::size_t>(m)]] += h;
      close_velocities(model, data, s.q, qd);
      by_qd.col(m) = (forward_dynamics(model, data, s.q, qd, s.tau, s.gravity) - base) / h;
    }
    benchmark::DoNotOptimize(by_q.data());
    benchmark::DoNotOptimize(by_qd.data());
  }
}

// The built-in cases by number (mechanism_of).
struct BuiltIn {
  explicit BuiltIn(int which)
      : model(mechanism_of(which)),
        data(model),
        state(model, data,
              which == 0
                  ? Eigen::VectorXd(Eigen::VectorXd::Zero(model.dof_count()))
                  : Eigen::VectorXd(
                        testing_support::four_bar_configuration(true, 0.7).replicate(which, 1)),
              false) {}
  ClosedChainModel model;
  ClosedChainData data;
  DerivativeState state;
};

void BM_ClosedChainForwardDerivatives(benchmark::State& state) {
  BuiltIn c(static_cast<int>(state.range(0)));
  time_derivatives(state, c.model, c.data, c.state, LoopForceDerivatives::kWithout);
}
BENCHMARK(BM_ClosedChainForwardDerivatives)->Arg(0)->Arg(4)->Arg(16);

void BM_ClosedChainForwardAndForceDerivatives(benchmark::State& state) {
  BuiltIn c(static_cast<int>(state.range(0)));
  time_derivatives(state, c.model, c.data, c.state, LoopForceDerivatives::kWith);
}
BENCHMARK(BM_ClosedChainForwardAndForceDerivatives)->Arg(0)->Arg(4)->Arg(16);

void BM_ClosedChainForwardDifferences(benchmark::State& state) {
  BuiltIn c(static_cast<int>(state.range(0)));
  time_differences(state, c.model, c.data, c.state);
}
BENCHMARK(BM_ClosedChainForwardDifferences)->Arg(0)->Arg(4)->Arg(16);

// A mechanism read from files, at the state assembled from zero; null (the benchmark skipped)
// where it does not assemble.
struct FromFile {
  explicit FromFile(const std::string& file, const std::string& loops)
      : loaded(load(file, loops)),
        model(*loaded.closed_chain()),
        data(model),
        state(model, data, Eigen::VectorXd::Zero(model.dof_count()), true) {}
  static Model load(const std::string& file, const std::string& loops) {
    ReadOptions options;
    options.loops_file = loops;
    return load_model(file, options);
  }
  Model loaded;
  const ClosedChainModel& model;
  ClosedChainData data;
  DerivativeState state;
};

std::unique_ptr<FromFile> open(benchmark::State& state, const std::string& file,
                               const std::string& loops) {
  try {
    return std::make_unique<FromFile>(file, loops);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

void BM_FileForwardDerivatives(benchmark::State& state, const std::string& file,
                               const std::string& loops) {
  if (const auto c = open(state, file, loops))
    time_derivatives(state, c->model, c->data, c->state, LoopForceDerivatives::kWithout);
}

void BM_FileForwardDifferences(benchmark::State& state, const std::string& file,
                               const std::string& loops) {
  if (const auto c = open(state, file, loops)) time_differences(state, c->model, c->data, c->state);
}

// Registers a file's pair when it loads with 3 or more independent coordinates (the derivatives
// issue's bar for the factor over differences).
void register_file(const std::string& name, const std::string& file, const std::string& loops) {
  try {
    FromFile probe(file, loops);
    const DerivativeState& at = probe.state;
    forward_dynamics(probe.model, probe.data, at.q, at.qd, at.tau, at.gravity);  // selects
    if (probe.data.independent.size() < 3) return;
  } catch (const std::exception&) {
    return;  // not there, or does not assemble: nothing to time
  }
  benchmark::RegisterBenchmark(("BM_FileForwardDerivatives/" + name).c_str(),
                               BM_FileForwardDerivatives, file, loops);
  benchmark::RegisterBenchmark(("BM_FileForwardDifferences/" + name).c_str(),
                               BM_FileForwardDifferences, file, loops);
}

const bool kRegistered = [] {
  const fs::path source(SKOGRAPH_SOURCE_DIR);
  register_file("delta_robot", (source / "examples" / "models" / "delta_robot.yaml").string(), "");
  for (const fs::path& folder : bench::parallel_robot_folders(source / ".." / "shared" / "robots" /
                                                              "example-parallel-robots"))
    register_file(folder.filename().string(), bench::parallel_robot_urdf(folder).string(),
                  bench::parallel_robot_loops(folder).string());
  return true;
}();

}  // namespace

// The library path at 10^2 .. 10^6 bodies (bench/scaling.sh adds the command-line path
// with file reading): a random tree (tests/support/rigid_support.hpp: floating base, revolute,
// prismatic, spherical and planar joints, joints listed in shuffled order as a file may list
// them), put in depth-first order as the command line does (rigid/tree_order.hpp), then
// - BuildModel: RigidBodyModel + RigidBodyData from the mechanism, per link;
// - InverseDynamics / ForwardDynamics: one call each (kinematics included), per link.
// The counter peak_rss_MB is the process's peak resident memory after the benchmark: meaningful
// when one size runs per process (bench/scaling.sh runs them so, --benchmark_filter='/N$').
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <memory>
#include <random>

#include "bench/rigid_problem.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/rigid/tree_order.hpp"
#include "tests/support/rigid_support.hpp"

namespace {

using namespace skograph;

const Mechanism& scaling_mechanism(int links) {
  static std::unique_ptr<Mechanism> cached;
  static int cached_links = -1;
  if (cached_links != links) {
    testing_support::RandomMechanismOptions options;
    options.links = links;
    std::mt19937 rng(13);
    Mechanism shuffled = testing_support::random_mechanism(options, rng);
    std::shuffle(shuffled.joints.begin(), shuffled.joints.end(), rng);
    cached = std::make_unique<Mechanism>(depth_first_order(shuffled));
    cached_links = links;
  }
  return *cached;
}

void report(benchmark::State& state, int links) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["ns_per_link"] =
      benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
  state.counters["peak_rss_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The random tree of `links` links with a random state (seed 5).
struct ScalingState : bench::RigidProblem {
  explicit ScalingState(int links) : RigidProblem(scaling_mechanism(links), 5) {}
};

const Eigen::Vector3d kGravity(0, 0, -9.81);

void BM_ScalingBuildModel(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  const Mechanism& mechanism = scaling_mechanism(links);
  for (auto _ : state) {
    const RigidBodyModel model(mechanism);
    RigidBodyData data(model);
    benchmark::DoNotOptimize(data.link_pose.data());
  }
  report(state, links);
}

void BM_ScalingInverseDynamics(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  ScalingState s(links);
  inverse_dynamics(s.model, s.data, s.q, s.qd, s.qdd, kGravity);  // first touch outside the timing
  for (auto _ : state)
    benchmark::DoNotOptimize(inverse_dynamics(s.model, s.data, s.q, s.qd, s.qdd, kGravity).data());
  report(state, links);
}

void BM_ScalingForwardDynamics(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  ScalingState s(links);
  forward_dynamics(s.model, s.data, s.q, s.qd, s.tau, kGravity);  // first touch outside the timing
  for (auto _ : state)
    benchmark::DoNotOptimize(forward_dynamics(s.model, s.data, s.q, s.qd, s.tau, kGravity).data());
  report(state, links);
}

}  // namespace

BENCHMARK(BM_ScalingBuildModel)
    ->RangeMultiplier(10)
    ->Range(100, 1000000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScalingInverseDynamics)
    ->RangeMultiplier(10)
    ->Range(100, 1000000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScalingForwardDynamics)
    ->RangeMultiplier(10)
    ->Range(100, 1000000)
    ->Unit(benchmark::kMicrosecond);

// Closed-chain forward dynamics by constraint embedding (rigid/closed_chain_model.hpp) on a chain
// of k planar four-bars (tests/support/closed_chain_support.hpp): one aggregate of three bodies per
// four-bar, so a call (kinematics, constraints, embedded model, AB forward dynamics; constraint-
// embedding §7) costs O(k). Compare the time per four-bar across k: it should stay flat. For
// comparison: the same chains with the loops removed (the tree's own AB forward dynamics), and
// one step of the simulation (rigid/closed_chain_simulation.hpp: four forward dynamics calls and
// the Newton projection).
#include <benchmark/benchmark.h>

#include <cmath>

#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/closed_chain_simulation.hpp"
#include "tests/support/closed_chain_support.hpp"

namespace {

using namespace skograph;

// Every four-bar at the same relative angles (crank 0.7 rad, upper branch), closed by Newton, and
// unit rates made consistent.
struct ChainState {
  ChainState(const ClosedChainModel& model, ClosedChainData& data, int count)
      : q(testing_support::four_bar_configuration(true, 0.7).replicate(count, 1)),
        qd(Eigen::VectorXd::Ones(model.dof_count())),
        tau(Eigen::VectorXd::Zero(model.dof_count())) {
    close_positions(model, data, q);
    close_velocities(model, data, q, qd);
  }
  Eigen::VectorXd q, qd, tau;
};

void per_four_bar(benchmark::State& state, int count) {
  state.SetComplexityN(count);
  state.counters["per_four_bar"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

void BM_ClosedChainForwardDynamics(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const ClosedChainModel model(testing_support::four_bar_chain(count));
  ClosedChainData data(model);
  const ChainState s(model, data, count);
  const Eigen::Vector3d gravity(0, -9.81, 0);
  for (auto _ : state) {
    const Eigen::VectorXd& qdd = forward_dynamics(model, data, s.q, s.qd, s.tau, gravity);
    benchmark::DoNotOptimize(qdd.data());
  }
  per_four_bar(state, count);
}
BENCHMARK(BM_ClosedChainForwardDynamics)
    ->RangeMultiplier(4)
    ->Range(1, 256)
    ->Complexity(benchmark::oN);

void BM_ClosedChainTreeForwardDynamics(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  Mechanism mechanism = testing_support::four_bar_chain(count);
  mechanism.loops.clear();
  const RigidBodyModel model(mechanism);
  RigidBodyData data(model);
  const Eigen::VectorXd q = testing_support::four_bar_configuration(true, 0.7).replicate(count, 1);
  const Eigen::VectorXd qd = Eigen::VectorXd::Ones(model.dof_count());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.dof_count());
  const Eigen::Vector3d gravity(0, -9.81, 0);
  for (auto _ : state) {
    const Eigen::VectorXd& qdd = forward_dynamics(model, data, q, qd, tau, gravity);
    benchmark::DoNotOptimize(qdd.data());
  }
  per_four_bar(state, count);
}
BENCHMARK(BM_ClosedChainTreeForwardDynamics)
    ->RangeMultiplier(4)
    ->Range(1, 256)
    ->Complexity(benchmark::oN);

void BM_ClosedChainSimulationStep(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const ClosedChainModel model(testing_support::four_bar_chain(count));
  ClosedChainData data(model);
  ChainState s(model, data, count);
  SimulationOptions options;
  options.duration = 1e-3;
  options.step = 1e-3;
  options.integrator = Integrator::kRungeKutta4;  // one fixed step: four evaluations + projection
  options.gravity = Eigen::Vector3d(0, -9.81, 0);
  for (auto _ : state) benchmark::DoNotOptimize(simulate(model, data, s.q, s.qd, options).steps);
  per_four_bar(state, count);
}
BENCHMARK(BM_ClosedChainSimulationStep)
    ->RangeMultiplier(4)
    ->Range(1, 256)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oN);

}  // namespace

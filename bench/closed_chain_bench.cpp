// Closed-chain benchmarks: a chain of k four-bars in series (tests/support/
// closed_chain_mechanisms.hpp; the rocker of four-bar i is the ground of four-bar i + 1), k = 1 ..
// 256. Each four-bar is its own aggregate (3 dofs, 1 independent), so the embedded forward
// dynamics (constraint-embedding §7: AB forward dynamics on the aggregated tree) costs O(k) per
// call: the aggregated tree is a serial chain of k nodes of fixed size. Complexity is fitted with
// Google Benchmark's BigO. Also one RK4 step of the simulation (4 forward dynamics calls plus the
// projection). Each call includes the kinematics and the constraint rows at (q, qd).
#include <benchmark/benchmark.h>

#include <cmath>

#include "rigid/closed_chain_model.hpp"
#include "rigid/closed_chain_simulation.hpp"
#include "tests/support/closed_chain_mechanisms.hpp"

namespace {

using namespace skograph;

// A closed generic state of the chain: every crank turned a little, the loops closed, the rates
// of the independent coordinates nonzero.
struct ChainState {
  explicit ChainState(const ClosedChainModel& model, ClosedChainData& data)
      : q(Eigen::VectorXd::Zero(model.dof_count())),
        qd(Eigen::VectorXd::Zero(model.dof_count())),
        tau(Eigen::VectorXd::Zero(model.dof_count())) {
    for (int i = 0; i < model.dof_count(); i += 3) {
      q(i) = 0.05 * std::sin(1.0 + i);
      qd(i) = 0.5 * std::cos(2.0 + i);
      qd(i + 1) = 0.5 * std::cos(3.0 + i);
      tau(i) = 0.1 * std::cos(4.0 + i);
    }
    close_positions(model, data, q);
    close_velocities(model, data, q, qd);
  }
  Eigen::VectorXd q, qd, tau;
};

void BM_FourBarChainForwardDynamics(benchmark::State& state) {
  const ClosedChainModel model(closed_chain_test::fourbar_chain(static_cast<int>(state.range(0))));
  ClosedChainData data(model);
  const ChainState s(model, data);
  const Eigen::Vector3d gravity(0.0, 0.0, -9.81);
  for (auto _ : state)
    benchmark::DoNotOptimize(forward_dynamics(model, data, s.q, s.qd, s.tau, gravity)(0));
  state.SetComplexityN(state.range(0));
  state.counters["dofs"] = model.dof_count();
}
BENCHMARK(BM_FourBarChainForwardDynamics)
    ->RangeMultiplier(4)
    ->Range(1, 256)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oN);

// The same chains with the loops removed: the tree's own articulated-body forward dynamics, for
// the cost of embedding.
void BM_FourBarChainTreeForwardDynamics(benchmark::State& state) {
  Mechanism mechanism = closed_chain_test::fourbar_chain(static_cast<int>(state.range(0)));
  mechanism.loops.clear();
  const RigidBodyModel model(mechanism);
  RigidBodyData data(model);
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(model.dof_count(), 0.1);
  const Eigen::VectorXd qd = Eigen::VectorXd::Constant(model.dof_count(), 0.2);
  const Eigen::VectorXd tau = Eigen::VectorXd::Constant(model.dof_count(), 0.3);
  const Eigen::Vector3d gravity(0.0, 0.0, -9.81);
  for (auto _ : state)
    benchmark::DoNotOptimize(forward_dynamics(model, data, q, qd, tau, gravity)(0));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_FourBarChainTreeForwardDynamics)
    ->RangeMultiplier(4)
    ->Range(1, 256)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oN);

void BM_FourBarChainSimulationStep(benchmark::State& state) {
  const ClosedChainModel model(closed_chain_test::fourbar_chain(static_cast<int>(state.range(0))));
  ClosedChainData data(model);
  ChainState s(model, data);
  SimulationOptions options;
  options.duration = 1e-3;
  options.step = 1e-3;
  options.tau = s.tau;
  for (auto _ : state) {
    benchmark::DoNotOptimize(simulate(model, data, s.q, s.qd, options).steps);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_FourBarChainSimulationStep)
    ->RangeMultiplier(4)
    ->Range(1, 256)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oN);

}  // namespace

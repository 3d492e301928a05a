// Closed-chain forward dynamics by constraint embedding (rigid/closed_chain_model.hpp) on a chain
// of k planar four-bars (tests/support/closed_chain_support.hpp): one aggregate of three bodies per
// four-bar, so a call (kinematics, constraints, embedded model, AB forward dynamics) costs O(k).
// Compare the time per four-bar across k: it should stay flat.
#include <benchmark/benchmark.h>

#include <cmath>

#include "rigid/closed_chain_model.hpp"
#include "tests/support/closed_chain_support.hpp"

namespace {

using namespace skograph;

void BM_ClosedChainForwardDynamics(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const ClosedChainModel model(testing_support::four_bar_chain(count));
  ClosedChainData data(model);
  // Every four-bar at the same relative angles (crank 0.7 rad, upper branch), closed by Newton.
  Eigen::VectorXd q = testing_support::four_bar_configuration(true, 0.7).replicate(count, 1);
  close_positions(model, data, q);
  Eigen::VectorXd qd = Eigen::VectorXd::Ones(model.dof_count());
  close_velocities(model, data, q, qd);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.dof_count());
  const Eigen::Vector3d gravity(0, -9.81, 0);
  for (auto _ : state) {
    const Eigen::VectorXd& qdd = forward_dynamics(model, data, q, qd, tau, gravity);
    benchmark::DoNotOptimize(qdd.data());
  }
  state.SetComplexityN(count);
  state.counters["per_four_bar"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}
BENCHMARK(BM_ClosedChainForwardDynamics)
    ->RangeMultiplier(4)
    ->Range(1, 256)
    ->Complexity(benchmark::oN);

}  // namespace

// A closed chain's forward-dynamics derivatives in its independent coordinates
// (rigid/closed_chain_derivatives.hpp) beside what a user would otherwise do: forward finite
// differences of forward_dynamics, 2 n_R + 1 calls, each perturbed state closed again (along
// q_R: integrate along X e_m, close_positions, close_velocities; along qd_R: close_velocities),
// dqdd/dtau left out of the differences (it is X M_R^-1 X*, one more solve); the analytic call
// without the loop forces' derivatives (differences of forward dynamics do not give them), and
// with them. On the Stewart platform (6 independent) and chains of 4 and 16 four-bars (4 and 16
// independent), under gravity.
#include <benchmark/benchmark.h>

#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/tangent.hpp"
#include "tests/support/closed_chain_support.hpp"

namespace {

using namespace skograph;

// The mechanism of a case: 0 the Stewart platform, k > 0 a chain of k four-bars.
Mechanism mechanism_of(int which) {
  return which == 0 ? testing_support::stewart_platform() : testing_support::four_bar_chain(which);
}

struct DerivativeState {
  DerivativeState(const ClosedChainModel& model, ClosedChainData& data, int which)
      : q(which == 0 ? Eigen::VectorXd(Eigen::VectorXd::Zero(model.dof_count()))
                     : Eigen::VectorXd(
                           testing_support::four_bar_configuration(true, 0.7).replicate(which, 1))),
        qd(Eigen::VectorXd::Constant(model.dof_count(), 0.3)),
        tau(Eigen::VectorXd::Constant(model.dof_count(), 0.1)) {
    close_positions(model, data, q);
    close_velocities(model, data, q, qd);
  }
  Eigen::VectorXd q, qd, tau;
  const Eigen::Vector3d gravity = Eigen::Vector3d(0.0, -9.81, -3.0);
};

void time_derivatives(benchmark::State& state, LoopForceDerivatives forces) {
  const ClosedChainModel model(mechanism_of(static_cast<int>(state.range(0))));
  ClosedChainData data(model);
  const DerivativeState s(model, data, static_cast<int>(state.range(0)));
  ClosedChainForwardDerivatives result;
  for (auto _ : state) {
    forward_dynamics_derivatives(model, data, s.q, s.qd, s.tau, s.gravity, result, forces);
    benchmark::DoNotOptimize(result.dqdd_dq.data());
  }
  state.counters["independent"] = static_cast<double>(result.independent.size());
}

void BM_ClosedChainForwardDerivatives(benchmark::State& state) {
  time_derivatives(state, LoopForceDerivatives::kWithout);
}
BENCHMARK(BM_ClosedChainForwardDerivatives)->Arg(0)->Arg(4)->Arg(16);

void BM_ClosedChainForwardAndForceDerivatives(benchmark::State& state) {
  time_derivatives(state, LoopForceDerivatives::kWith);
}
BENCHMARK(BM_ClosedChainForwardAndForceDerivatives)->Arg(0)->Arg(4)->Arg(16);

void BM_ClosedChainForwardDifferences(benchmark::State& state) {
  const ClosedChainModel model(mechanism_of(static_cast<int>(state.range(0))));
  ClosedChainData data(model);
  const DerivativeState s(model, data, static_cast<int>(state.range(0)));
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
BENCHMARK(BM_ClosedChainForwardDifferences)->Arg(0)->Arg(4)->Arg(16);

}  // namespace

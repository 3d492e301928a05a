// Forward-dynamics family benchmarks: O(N) AB forward dynamics (part II Algorithm 6.1) and
// composite body inertias (Algorithm 4.1) on random trees of 6-dimensional nodes with 1-dof hinges,
// 10^2 .. 10^5 nodes. The per_node counter is the time per node per call; O(N) algorithms should
// keep it flat as N grows.
//
// Models are built in the fixture (outside the timed loop). "Canonical" models number the nodes
// in the forest's post-order, so the per-node blocks are visited sequentially in memory; "Random"
// models keep a random numbering (the recursions then jump through memory).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"

namespace skograph {
namespace {

// A random tree of n nodes (random recursive attachment: each node picks a parent among the
// earlier ones, biased towards recent ones so that both long chains and branches occur).
std::vector<int> random_tree(int n, std::mt19937& rng, bool canonical) {
  std::vector<int> parent(n, Forest::kNone);
  for (int i = 1; i < n; ++i) {
    const int window = std::min(i, 8);
    parent[i] =
        (rng() % 4 == 0) ? static_cast<int>(rng() % i) : i - 1 - static_cast<int>(rng() % window);
  }
  std::vector<int> label(n);
  if (canonical) {
    const Forest forest(parent);
    for (int k = 0; k < n; ++k) label[k] = forest.post_index(k);
  } else {
    std::iota(label.begin(), label.end(), 0);
    std::shuffle(label.begin(), label.end(), rng);
  }
  std::vector<int> relabeled(n, Forest::kNone);
  for (int k = 0; k < n; ++k)
    if (parent[k] != Forest::kNone) relabeled[label[k]] = label[parent[k]];
  return relabeled;
}

std::unique_ptr<SkoModel> random_model(int n, bool canonical) {
  std::mt19937 rng(12345 + n);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const std::vector<int> parent = random_tree(n, rng, canonical);
  auto structure = std::make_shared<const SkoStructure>(Forest(parent), std::vector<int>(n, 6),
                                                        std::vector<int>(n, 1));
  auto model = std::make_unique<SkoModel>(structure);
  for (int k = 0; k < n; ++k) {
    Eigen::Matrix<double, 6, 6> random;
    for (int i = 0; i < 36; ++i) random(i) = uniform(rng);
    if (parent[k] != Forest::kNone)  // a rotation-like weight of norm about one
      model->weight(k) = Eigen::Matrix<double, 6, 6>::Identity() + 0.1 * random;
    model->inertia(k) = random * random.transpose() + Eigen::Matrix<double, 6, 6>::Identity();
    Eigen::Matrix<double, 1, 6> axis;
    for (int i = 0; i < 6; ++i) axis(i) = uniform(rng);
    model->hinge_map(k) = axis.normalized();
  }
  return model;
}

class ForwardFixture : public benchmark::Fixture {
 public:
  void SetUp(const benchmark::State& state) override {
    const int n = static_cast<int>(state.range(0));
    const bool canonical = state.range(1) != 0;
    model = random_model(n, canonical);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    const int dofs = model->structure().hinge.total(), nodes = model->structure().node.total();
    thetadot = Eigen::VectorXd::NullaryExpr(dofs, [&] { return uniform(rng); });
    force = Eigen::VectorXd::NullaryExpr(dofs, [&] { return uniform(rng); });
    a = Eigen::VectorXd::NullaryExpr(nodes, [&] { return uniform(rng); });
    b = Eigen::VectorXd::NullaryExpr(nodes, [&] { return uniform(rng); });
  }
  void TearDown(const benchmark::State&) override { model.reset(); }

  std::unique_ptr<SkoModel> model;
  Eigen::VectorXd thetadot, force, a, b;
};

void set_per_node_counter(benchmark::State& state) {
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetLabel(state.range(1) != 0 ? "canonical" : "random numbering");
}

BENCHMARK_DEFINE_F(ForwardFixture, ArticulatedBodyForwardDynamics)(benchmark::State& state) {
  ForwardDynamicsWorkspace workspace(model->structure_ptr());
  for (auto _ : state) {
    const Eigen::VectorXd& thetaddot = forward_dynamics(*model, thetadot, force, a, b, workspace);
    benchmark::DoNotOptimize(thetaddot.data());
    benchmark::ClobberMemory();
  }
  set_per_node_counter(state);
}

BENCHMARK_DEFINE_F(ForwardFixture, CompositeBodyInertias)(benchmark::State& state) {
  CompositeInertiaWorkspace workspace(model->structure());
  for (auto _ : state) {
    composite_body_inertias(*model, workspace);
    benchmark::DoNotOptimize(workspace.composite_inertia[0].data());
    benchmark::ClobberMemory();
  }
  set_per_node_counter(state);
}

void sizes(benchmark::internal::Benchmark* benchmark) {
  for (const int canonical : {1, 0})
    for (const int n : {100, 1000, 10000, 100000}) benchmark->Args({n, canonical});
  benchmark->Unit(benchmark::kMicrosecond);
}

BENCHMARK_REGISTER_F(ForwardFixture, ArticulatedBodyForwardDynamics)->Apply(sizes);
BENCHMARK_REGISTER_F(ForwardFixture, CompositeBodyInertias)->Apply(sizes);

}  // namespace
}  // namespace skograph

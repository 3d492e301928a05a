// O(N) recursions of the operators layer on random trees with 6-dimensional nodes and 1-dof
// hinges (rigid-body-like sizes, but only through the SKO interface). Reports ns_per_node; the
// goal is a per-node time at 10^5 nodes within 1.5x of the one at 10^2.
//
// Two numberings of the same kind of tree: a random one (node data scattered in memory, each
// recursion step touches a random block) and the strictly canonical one obtained with
// strictly_canonical_numbering (post-order: the recursions stream through memory).
#include <benchmark/benchmark.h>

#include <Eigen/QR>
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "skograph/operators/bwa.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/sko_model.hpp"
#include "skograph/operators/spo_products.hpp"

namespace skograph {
namespace {

constexpr int kNodeDim = 6;

Eigen::MatrixXd random_matrix(int rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = u(rng);
  return m;
}

// A random tree of n nodes in a random numbering: each node hangs below a random earlier node.
std::unique_ptr<SkoModel> random_tree_model(int n, std::mt19937& rng) {
  std::vector<int> order(n), parent(n, Forest::kNone);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (int i = 1; i < n; ++i) parent[order[i]] = order[rng() % i];
  auto structure = std::make_shared<const SkoStructure>(
      Forest(parent), std::vector<int>(n, kNodeDim), std::vector<int>(n, 1));
  auto model = std::make_unique<SkoModel>(structure);
  for (int k = 0; k < n; ++k) {
    if (parent[k] != Forest::kNone) model->weight(k) = random_matrix(kNodeDim, kNodeDim, rng);
    model->hinge_map(k) = random_matrix(1, kNodeDim, rng);
    const Eigen::MatrixXd b = random_matrix(kNodeDim, kNodeDim, rng);
    model->inertia(k) = b * b.transpose() + Eigen::MatrixXd::Identity(kNodeDim, kNodeDim);
  }
  return model;
}

// Models are built once per (size, numbering), outside the timed loops.
const SkoModel& cached_model(int n, bool canonical) {
  static std::map<std::pair<int, bool>, std::unique_ptr<SkoModel>> cache;
  auto& slot = cache[{n, canonical}];
  if (!slot) {
    std::mt19937 rng(1234 + n);
    std::unique_ptr<SkoModel> model = random_tree_model(n, rng);
    if (canonical) {
      const std::vector<int> new_index = strictly_canonical_numbering(model->forest());
      slot = std::make_unique<SkoModel>(renumber(*model, new_index));
    } else {
      slot = std::move(model);
    }
  }
  return *slot;
}

void report_per_node(benchmark::State& state, int n) {
  // Rate counter of n * 1e-9 per iteration, inverted: seconds * 1e9 per node = ns per node.
  state.counters["ns_per_node"] = benchmark::Counter(
      n * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(state.iterations() * n);
}

// The random tree is built (once per size and numbering) in the fixture's SetUp, not timed.
template <bool kCanonical>
class RandomTree : public benchmark::Fixture {
 public:
  void SetUp(const benchmark::State& state) override {
    n = static_cast<int>(state.range(0));
    model = &cached_model(n, kCanonical);
    const SkoStructure& s = model->structure();
    workspace = std::make_unique<InverseDynamicsWorkspace>(s);
    thetadot = Eigen::VectorXd::Random(s.hinge.total());
    thetaddot = Eigen::VectorXd::Random(s.hinge.total());
    a = Eigen::VectorXd::Random(s.node.total());
    b = Eigen::VectorXd::Random(s.node.total());
    y.resize(s.node.total());
  }
  void TearDown(const benchmark::State&) override { workspace.reset(); }

 protected:
  int n = 0;
  const SkoModel* model = nullptr;
  std::unique_ptr<InverseDynamicsWorkspace> workspace;
  Eigen::VectorXd thetadot, thetaddot, a, b, y;
};
using RandomNumbering = RandomTree<false>;
using CanonicalNumbering = RandomTree<true>;

BENCHMARK_DEFINE_F(RandomNumbering, InverseDynamics)(benchmark::State& state) {
  for (auto _ : state) {
    const Eigen::VectorXd& t = inverse_dynamics(*model, thetadot, thetaddot, a, b, *workspace);
    benchmark::DoNotOptimize(t.data());
    benchmark::ClobberMemory();
  }
  report_per_node(state, n);
}

BENCHMARK_DEFINE_F(CanonicalNumbering, InverseDynamics)(benchmark::State& state) {
  for (auto _ : state) {
    const Eigen::VectorXd& t = inverse_dynamics(*model, thetadot, thetaddot, a, b, *workspace);
    benchmark::DoNotOptimize(t.data());
    benchmark::ClobberMemory();
  }
  report_per_node(state, n);
}

BENCHMARK_DEFINE_F(CanonicalNumbering, ResolventAdjointProduct)(benchmark::State& state) {
  for (auto _ : state) {
    resolvent_adjoint_product(model->kernel(), a, y);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  report_per_node(state, n);
}

BENCHMARK_REGISTER_F(RandomNumbering, InverseDynamics)->RangeMultiplier(10)->Range(100, 100000);
BENCHMARK_REGISTER_F(CanonicalNumbering, InverseDynamics)->RangeMultiplier(10)->Range(100, 100000);
BENCHMARK_REGISTER_F(CanonicalNumbering, ResolventAdjointProduct)
    ->RangeMultiplier(10)
    ->Range(100, 100000);

}  // namespace
}  // namespace skograph

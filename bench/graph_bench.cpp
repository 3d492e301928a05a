// Graph layer throughput on random trees of 10^4..10^6 nodes: the full analysis
// (classification + spanning tree + canonical + strictly canonical numbering + serial segments)
// against a bare Boost depth-first search over the same adjacency_list.
#include <benchmark/benchmark.h>

#include <boost/graph/depth_first_search.hpp>
#include <map>
#include <memory>
#include <random>

#include "skograph/graph/analysis.hpp"
#include "skograph/graph/boost_digraph.hpp"

namespace {

using skograph::Digraph;

// Random recursive tree in a shuffled numbering (built once per size, outside the timing).
const Digraph& random_tree(int n) {
  static std::map<int, std::unique_ptr<Digraph>> cache;
  auto& slot = cache[n];
  if (!slot) {
    std::mt19937 rng(12345);
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    slot = std::make_unique<Digraph>();
    for (int v = 0; v < n; ++v) slot->add_node("n" + std::to_string(v));
    for (int i = 1; i < n; ++i) slot->add_edge(order[rng() % i], order[i]);
  }
  return *slot;
}

void BM_BoostDepthFirstSearch(benchmark::State& state) {
  const skograph::BoostDigraph g =
      skograph::boost_graph(random_tree(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    boost::depth_first_search(g, boost::visitor(boost::default_dfs_visitor()));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Classify + canonical + strictly canonical + segments (segments come with the spanning tree's
// Forest); the goal: under 1 s at 10^6 nodes and within 3x of the bare DFS.
void BM_ClassifyNumberSegment(benchmark::State& state) {
  const Digraph& g = random_tree(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const skograph::DigraphArrays arrays(g);
    const skograph::Classification c = skograph::classify(arrays);
    const skograph::SpanningTree t = skograph::spanning_tree(g, arrays);
    const skograph::Permutation canonical = skograph::canonical_numbering(t.tree);
    const skograph::Permutation strict = skograph::strictly_canonical_numbering(t.tree);
    benchmark::DoNotOptimize(c.tree);
    benchmark::DoNotOptimize(canonical.data());
    benchmark::DoNotOptimize(strict.data());
    benchmark::DoNotOptimize(t.tree.segment_count());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The whole `skograph graph` analysis (adds the aggregation pass, empty on a tree).
void BM_FullAnalysis(benchmark::State& state) {
  const Digraph& g = random_tree(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const skograph::DigraphAnalysis analysis = skograph::analyze(g);
    benchmark::DoNotOptimize(analysis.strictly_canonical.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_BoostDepthFirstSearch)
    ->RangeMultiplier(10)
    ->Range(10'000, 1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ClassifyNumberSegment)
    ->RangeMultiplier(10)
    ->Range(10'000, 1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullAnalysis)
    ->RangeMultiplier(10)
    ->Range(10'000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

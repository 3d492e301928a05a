// Pictures: the spy plot of a 10^5-node tree's mass matrix as a 2000 px
// PNG must take under 2 s. Measured twice: the drawing alone (pattern given) and the whole job
// from the analyzed digraph (SKO forest, scalar pattern of M by related pairs, segment boundaries,
// density binning, PNG encoding). Also the Graphviz layout + SVG of digraph diagrams (200 to 5000
// nodes: `analyze --max-diagram-nodes`), the fill table and the symbolic pattern of L.
#include <benchmark/benchmark.h>

#include <map>
#include <random>

#include "skograph/graph/analysis.hpp"
#include "skograph/viz/diagrams.hpp"
#include "skograph/viz/factor_pattern.hpp"
#include "skograph/viz/graphviz_layout.hpp"
#include "skograph/viz/matrix_patterns.hpp"
#include "skograph/viz/spy_plot.hpp"

namespace {

using namespace skograph;

// A random recursive tree (node k under a uniformly chosen earlier node; depth ~ ln n).
Digraph random_tree(int n) {
  std::mt19937 random(2026);
  Digraph graph;
  for (int k = 0; k < n; ++k) graph.add_node("n" + std::to_string(k));
  for (int k = 1; k < n; ++k) graph.add_edge(static_cast<int>(random() % k), k);
  return graph;
}

struct TreeCase {
  Digraph graph;
  DigraphAnalysis analysis;
  viz::SkoTopology topology;
  SparsityPattern mass;
  std::vector<int> boundaries;
};

const TreeCase& tree_case(int n) {
  static std::map<int, TreeCase> cache;
  auto found = cache.find(n);
  if (found == cache.end()) {
    TreeCase c;
    c.graph = random_tree(n);
    c.analysis = analyze(c.graph);
    c.topology = viz::sko_topology(c.graph, c.analysis);
    c.mass = viz::matrix_pattern(c.topology, viz::MatrixKind::kMass);
    c.boundaries = viz::segment_boundaries(c.topology.forest, c.topology.hinge_layout);
    found = cache.emplace(n, std::move(c)).first;
  }
  return found->second;
}

void BM_SpyPlotPng2000(benchmark::State& state) {
  const TreeCase& c = tree_case(static_cast<int>(state.range(0)));
  viz::SpyPlotOptions options;
  options.max_pixels = 2000;
  options.title = "M";
  for (auto _ : state) {
    const viz::SpyPlot plot = viz::spy_plot(c.mass, nullptr, c.boundaries, options);
    benchmark::DoNotOptimize(plot.bytes.data());
  }
  state.counters["nonzeros"] = c.mass.nonzeros();
}
BENCHMARK(BM_SpyPlotPng2000)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_SpyPlotPng2000FromTopology(benchmark::State& state) {
  const TreeCase& c = tree_case(static_cast<int>(state.range(0)));
  viz::SpyPlotOptions options;
  options.max_pixels = 2000;
  options.title = "M";
  for (auto _ : state) {
    const viz::SkoTopology topology = viz::sko_topology(c.graph, c.analysis);
    const viz::MatrixPicture matrix = viz::matrix_picture(topology, viz::MatrixKind::kMass);
    const viz::SpyPlot plot = viz::spy_plot(matrix.pattern, nullptr, matrix.boundaries, options);
    benchmark::DoNotOptimize(plot.bytes.data());
  }
}
BENCHMARK(BM_SpyPlotPng2000FromTopology)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_DigraphDiagramSvg(benchmark::State& state) {
  const TreeCase& c = tree_case(static_cast<int>(state.range(0)));
  const std::string dot = viz::digraph_diagram(c.graph, c.analysis, "tree");
  for (auto _ : state) {
    const std::string svg = viz::render_dot(dot, viz::ImageFormat::kSvg);
    benchmark::DoNotOptimize(svg.data());
  }
}
BENCHMARK(BM_DigraphDiagramSvg)->Arg(200)->Arg(2000)->Arg(5000)->Unit(benchmark::kMillisecond);

// The nnz(L) / fill / flops table of `skograph analyze`: four CHOLMOD analyses, no numeric
// factorization (a dense root-first L would cost O(n^3)).
void BM_FactorFillTable(benchmark::State& state) {
  const TreeCase& c = tree_case(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const std::vector<viz::FactorFill> table = viz::factor_fill_by_ordering(c.topology);
    benchmark::DoNotOptimize(table.data());
    state.counters["nnz_L_root_first"] = static_cast<double>(table[1].nonzeros);
  }
}
BENCHMARK(BM_FactorFillTable)->Arg(10000)->Unit(benchmark::kMillisecond);

// The symbolic pattern of L for a picture (elimination tree and row subtrees, O(nnz(L))), with its
// fill: canonical (no fill) and root-first (dense where the root's branches meet).
void BM_FactorPattern(benchmark::State& state, const char* ordering) {
  const TreeCase& c = tree_case(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const viz::MatrixPicture picture = viz::factor_picture(c.topology, ordering);
    benchmark::DoNotOptimize(picture.pattern.row_index.data());
    state.counters["nnz_L"] = picture.pattern.nonzeros();
  }
}
BENCHMARK_CAPTURE(BM_FactorPattern, canonical, "canonical")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FactorPattern, root_first, "root-first")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

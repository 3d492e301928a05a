// The mass matrix of a 10^4-body branched tree through the sparse layer: the symbolic pattern from
// the topology (part II section 7.4), the sparse numbers (composite inertias), and CHOLMOD's
// analysis and numeric factorization with the canonical ordering (no fill) against AMD and METIS.
// Counters: nnz(L), nnz(tril M) and CHOLMOD's flop count of the factorization.
//
// The tree: 6-dimensional nodes, 1-dof hinges, each body hanging below a uniformly random earlier
// body (a random recursive tree: many branches, depth ~ 2 ln N), built outside the timed loops.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/sparse_assembly.hpp"

namespace skograph {
namespace {

constexpr int kBodies = 10000;
constexpr int kNodeDim = 6;

Eigen::MatrixXd bench_random_matrix(int rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = u(rng);
  return m;
}

const SkoModel& branched_tree() {
  static const std::unique_ptr<SkoModel> model = [] {
    std::mt19937 rng(2024);
    std::vector<int> parent(kBodies, Forest::kNone);
    for (int k = 1; k < kBodies; ++k) parent[k] = static_cast<int>(rng() % k);
    auto structure = std::make_shared<const SkoStructure>(
        Forest(parent), std::vector<int>(kBodies, kNodeDim), std::vector<int>(kBodies, 1));
    auto result = std::make_unique<SkoModel>(structure);
    for (int k = 0; k < kBodies; ++k) {
      // Contractive weights keep M well conditioned (like rigid-body transforms, norm ~ 1).
      if (parent[k] != Forest::kNone)
        result->weight(k) = 0.3 * bench_random_matrix(kNodeDim, kNodeDim, rng);
      result->hinge_map(k) = bench_random_matrix(1, kNodeDim, rng);
      const Eigen::MatrixXd b = bench_random_matrix(kNodeDim, kNodeDim, rng);
      result->inertia(k) = b * b.transpose() + Eigen::MatrixXd::Identity(kNodeDim, kNodeDim);
    }
    return result;
  }();
  return *model;
}

long lower_nonzeros(const SparsityPattern& pattern) {
  long count = 0;
  for (int c = 0; c < pattern.cols; ++c)
    for (int p = pattern.column_start[c]; p < pattern.column_start[c + 1]; ++p)
      count += pattern.row_index[p] >= c;
  return count;
}

void set_counters(benchmark::State& state, const CholmodFactorization& chol,
                  const SparsityPattern& pattern) {
  state.counters["nnz_L"] = static_cast<double>(chol.factor_nonzeros());
  state.counters["nnz_trilM"] = static_cast<double>(lower_nonzeros(pattern));
  state.counters["flops"] = chol.flops();
}

void BM_SparseMassPattern(benchmark::State& state) {
  const SkoModel& model = branched_tree();
  for (auto _ : state) benchmark::DoNotOptimize(mass_matrix_pattern(model.structure()));
  state.counters["nnz_M"] = static_cast<double>(mass_matrix_pattern(model.structure()).nonzeros());
}
BENCHMARK(BM_SparseMassPattern)->Unit(benchmark::kMillisecond);

void BM_SparseMassMatrixNumbers(benchmark::State& state) {
  const SkoModel& model = branched_tree();
  CompositeInertiaWorkspace workspace(model.structure());
  Eigen::SparseMatrix<double> mass;
  sparse_mass_matrix(model, workspace, mass);
  for (auto _ : state) {
    sparse_mass_matrix(model, workspace, mass);  // same pattern: values only
    benchmark::DoNotOptimize(mass.valuePtr());
  }
}
BENCHMARK(BM_SparseMassMatrixNumbers)->Unit(benchmark::kMillisecond);

// Symbolic analysis (ordering + elimination tree + column counts), from the pattern.
void BM_CholmodAnalyze(benchmark::State& state) {
  const auto ordering = static_cast<MassOrdering>(state.range(0));
  const SkoModel& model = branched_tree();
  const SparsityPattern pattern = mass_matrix_pattern(model.structure());
  const std::vector<int> canonical = canonical_dof_order(model.structure());
  state.SetLabel(ordering_name(ordering));
  for (auto _ : state) {
    try {
      CholmodFactorization chol(pattern, ordering, canonical);
      benchmark::DoNotOptimize(chol.factor_nonzeros());
    } catch (const OrderingUnavailable& e) {
      state.SkipWithError(e.what());
      return;
    }
  }
  set_counters(state, CholmodFactorization(pattern, ordering, canonical), pattern);
}
// Root-first is analysed only: its factor is nearly dense (~N^2/2 entries, 400 MB at N = 10^4).
BENCHMARK(BM_CholmodAnalyze)
    ->Arg(static_cast<int>(MassOrdering::kCanonical))
    ->Arg(static_cast<int>(MassOrdering::kRootFirst))
    ->Arg(static_cast<int>(MassOrdering::kAmd))
    ->Arg(static_cast<int>(MassOrdering::kMetis))
    ->Unit(benchmark::kMillisecond);

// Numeric factorization with the analysis reused (one configuration's new numbers).
void BM_CholmodFactorize(benchmark::State& state) {
  const auto ordering = static_cast<MassOrdering>(state.range(0));
  const SkoModel& model = branched_tree();
  const SparsityPattern pattern = mass_matrix_pattern(model.structure());
  const Eigen::SparseMatrix<double> mass = sparse_mass_matrix(model);
  state.SetLabel(ordering_name(ordering));
  std::unique_ptr<CholmodFactorization> chol;
  try {
    chol = std::make_unique<CholmodFactorization>(pattern, ordering,
                                                  canonical_dof_order(model.structure()));
  } catch (const OrderingUnavailable& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) chol->factorize(mass);
  set_counters(state, *chol, pattern);
}
BENCHMARK(BM_CholmodFactorize)
    ->Arg(static_cast<int>(MassOrdering::kCanonical))
    ->Arg(static_cast<int>(MassOrdering::kAmd))
    ->Arg(static_cast<int>(MassOrdering::kMetis))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace skograph

// Aggregation benchmarks: a chain of k aggregates of 3 nodes each (6-dimensional nodes, 1-dof
// hinges), k = 10 .. 1000. One iteration refills the aggregated model (A_S, A_a, H_a; constraint-
// embedding Lemmas 2-4), the aggregated Coriolis term and runs AB forward dynamics on the
// aggregated model (part II Algorithm 6.1 with 18x18 aggregated nodes). The per_aggregate counter
// should stay flat as k grows: the cost is O(k).
//
// "Embedded": each aggregate carries one random velocity constraint of rank 2 (like a four-bar's
// loop: 3 hinges, 1 independent coordinate), so the model has reduced 1-dof aggregated hinges
// H_Ra = X* H_S A_S.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <memory>
#include <random>
#include <vector>

#include "skograph/aggregation/aggregated_model.hpp"
#include "skograph/aggregation/constraint_embedding.hpp"
#include "skograph/operators/forward_dynamics.hpp"

namespace skograph {
namespace {

Eigen::MatrixXd random_block(int rows, int cols, std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = u(rng);
  return m;
}

// A chain of 3k nodes, parent(i) = i - 1, with bounded weights, unit-ish hinges and SPD inertias.
SkoModel chain_model(int nodes, std::mt19937& rng) {
  std::vector<int> parent(nodes);
  for (int i = 0; i < nodes; ++i) parent[i] = i - 1;
  auto structure = std::make_shared<const SkoStructure>(Forest(parent), std::vector<int>(nodes, 6),
                                                        std::vector<int>(nodes, 1));
  SkoModel model(structure);
  for (int k = 0; k < nodes; ++k) {
    if (k > 0) model.weight(k) = Eigen::MatrixXd::Identity(6, 6) + random_block(6, 6, rng, 0.05);
    model.hinge_map(k) = random_block(1, 6, rng) + Eigen::MatrixXd::Ones(1, 6);
    const Eigen::MatrixXd b = random_block(6, 6, rng);
    model.inertia(k) = b * b.transpose() + Eigen::MatrixXd::Identity(6, 6);
  }
  return model;
}

void aggregated_forward_dynamics(benchmark::State& state, bool embedded) {
  const int aggregates = static_cast<int>(state.range(0));
  std::mt19937 rng(7);
  const SkoModel tree = chain_model(3 * aggregates, rng);
  std::vector<std::vector<int>> subgraphs(aggregates);
  for (int i = 0; i < aggregates; ++i) subgraphs[i] = {3 * i, 3 * i + 1, 3 * i + 2};

  std::vector<Eigen::MatrixXd> embedding;
  std::vector<Eigen::VectorXd> embedding_rate;
  std::vector<int> hinge_dims;
  if (embedded) {
    for (int i = 0; i < aggregates; ++i) {
      const Eigen::MatrixXd q = random_block(3, 2, rng) * random_block(2, 3, rng);
      const CoordinateSelection selection = select_coordinates(q);
      Eigen::MatrixXd x;
      Eigen::VectorXd xdot;
      embedding_matrices(q, q * random_block(3, 1, rng), selection, x, xdot);
      embedding.push_back(x);
      embedding_rate.push_back(xdot);
      hinge_dims.push_back(static_cast<int>(x.cols()));
    }
  }
  const AggregatedStructure structure(tree.structure_ptr(), subgraphs, hinge_dims);
  SkoModel aggregated(structure.aggregated());
  AggregationWorkspace workspace(structure);
  ForwardDynamicsWorkspace forward(structure.aggregated());
  const int tree_dofs = tree.structure().hinge.total();
  const int dofs = structure.aggregated()->hinge.total();
  const int nodes = structure.aggregated()->node.total();
  const Eigen::VectorXd a = random_block(nodes, 1, rng);
  const Eigen::VectorXd b = random_block(nodes, 1, rng);
  const Eigen::VectorXd thetadot = random_block(dofs, 1, rng);
  const Eigen::VectorXd force = random_block(dofs, 1, rng);
  Eigen::VectorXd hinge_extra = Eigen::VectorXd::Zero(tree_dofs);
  if (embedded) scatter_subgraph_hinge_vectors(structure, embedding_rate, hinge_extra);
  Eigen::VectorXd a_aggregated(nodes), b_aggregated(nodes);
  aggregate_node_vector(structure, b, b_aggregated);

  for (auto _ : state) {
    aggregate_model(tree, structure, workspace, aggregated);
    if (embedded) embed_hinge_maps(structure, workspace, embedding, aggregated);
    aggregate_coriolis(tree, structure, workspace, a, hinge_extra, a_aggregated);
    benchmark::DoNotOptimize(
        forward_dynamics(aggregated, thetadot, force, a_aggregated, b_aggregated, forward).data());
  }
  state.counters["per_aggregate"] = benchmark::Counter(
      static_cast<double>(aggregates),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_AggregatedChainForwardDynamics(benchmark::State& state) {
  aggregated_forward_dynamics(state, false);
}
void BM_EmbeddedChainForwardDynamics(benchmark::State& state) {
  aggregated_forward_dynamics(state, true);
}

BENCHMARK(BM_AggregatedChainForwardDynamics)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Arg(1000);
BENCHMARK(BM_EmbeddedChainForwardDynamics)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Arg(1000);

}  // namespace
}  // namespace skograph

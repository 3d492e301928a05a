#include "skograph/report/embedding_analysis.hpp"

#include <cmath>
#include <utility>

#include "skograph/model/state.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/sparse/sparse_assembly.hpp"

namespace skograph::report {

namespace {

std::vector<std::string> names_of(const std::vector<int>& indices, const auto& items) {
  std::vector<std::string> names;
  for (int i : indices) names.push_back(items[static_cast<size_t>(i)].name);
  return names;
}

}  // namespace

// Constraint-embedding §4-7: the aggregates are the merged aggregation sub-graphs of the cut edges
// (loops, couplings), X_S comes from a rank-revealing selection of each aggregate's constraints,
// and the embedded model (H_Ra, A_a, M) has the joint-space mass matrix M_R = X* M X.
EmbeddingAnalysis embedding_analysis(const Model& loaded, const std::string& state_file) {
  const ClosedChainModel& model = *loaded.closed_chain();
  const Mechanism& used = model.mechanism();
  EmbeddingAnalysis result;
  result.state = state_file.empty() ? "zero configuration" : state_file;
  result.whole_mechanism = model.swallows_whole_mechanism();
  for (int s = 0; s < model.aggregate_count(); ++s) {
    EmbeddingAnalysis::Aggregate aggregate;
    for (int node : model.aggregate_nodes(s))
      aggregate.links.push_back(
          used.links[static_cast<size_t>(model.tree().link_of_node(node))].name);
    aggregate.loops = names_of(model.aggregate_loops(s), used.loops);
    aggregate.couplings = names_of(model.aggregate_couplings(s), used.couplings);
    aggregate.dofs = static_cast<int>(model.aggregate_dofs(s).size());
    aggregate.constraint_rows = model.constraint_rows(s);
    result.aggregates.push_back(std::move(aggregate));
  }
  // The closed-chain model's own calls below take its (depth-first) dof order.
  const DofOrder& order = loaded.dof_order();
  Eigen::VectorXd q = order.model_vector(read_model_state(state_file, loaded).q);
  ClosedChainData data(model);
  try {
    result.moved = assemble(model, data, q).moved.size();
    if (model.tree().has_flexible_links()) {
      result.not_built = true;
      result.failure =
          "the embedded model of a closed chain with flexible links is not built yet "
          "(docs/flexible-bodies.md)";
      return result;
    }
    update_closed_chain(model, data, q, Eigen::VectorXd::Zero(model.dof_count()));
  } catch (const Error& e) {
    result.failure = e.what();
    return result;
  }
  const Eigen::SparseMatrix<double> reduced_mass = sparse_mass_matrix(*data.embedded);
  for (int c = 0; c < reduced_mass.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(reduced_mass, c); it; ++it)
      if (!std::isfinite(it.value())) {
        result.failure = "the reduced mass matrix is not finite at this state";
        return result;
      } else if (it.value() != 0.0) {
        ++result.nonzeros;
      }
  result.closed = true;
  // In the file's order, as `skograph dynamics` lists them.
  for (const int a : order.file_sorted(data.independent))
    result.independent.push_back(order.names()[static_cast<size_t>(
        order.file_dof(data.independent[static_cast<size_t>(a)]))]);
  const SkoStructure& embedded = *data.structure->aggregated();
  for (int s = 0; s < model.aggregate_count(); ++s) {
    EmbeddingAnalysis::Aggregate& aggregate = result.aggregates[static_cast<size_t>(s)];
    const CoordinateSelection& selection = data.selection[static_cast<size_t>(s)];
    aggregate.node = embedded.forest.post_index(data.structure->aggregated_node_of_subgraph(s)) + 1;
    aggregate.rank = selection.rank;
    aggregate.independent = static_cast<int>(selection.independent.size());
  }
  result.topology = viz::sko_topology(embedded);
  // M_R's rows in the topology's (post-)order: node by node, each node's hinge entries of the
  // embedded model, named by the independent dof each stands for.
  for (const int k : result.topology->tree_node)
    for (int j = 0; j < embedded.hinge.dim(k); ++j) {
      const int column =
          data.embedded_to_independent[static_cast<size_t>(embedded.hinge.offset(k) + j)];
      result.row_names.push_back(order.names()[static_cast<size_t>(
          order.file_dof(data.independent[static_cast<size_t>(column)]))]);
    }
  const std::vector<AggregateCost> costs = solver_costs(model, data, q);
  for (int s = 0; s < model.aggregate_count(); ++s)
    result.aggregates[static_cast<size_t>(s)].cost = costs[static_cast<size_t>(s)];
  return result;
}

}  // namespace skograph::report

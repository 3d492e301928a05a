#include "skograph/aggregation/aggregated_model.hpp"

#include <stdexcept>
#include <string>

#include "skograph/graph/aggregation_subgraphs.hpp"

namespace skograph {
namespace {

// Throws std::invalid_argument with message() when the condition fails; the message is built only
// then, so the checks cost no allocation on the hot path.
template <typename Message>
void require(bool condition, Message&& message) {
  if (!condition) throw std::invalid_argument(std::string(message()));
}

// The same structure object, or an equal one (same parents and dimensions): a producer may keep
// its own copy of the tree structure. O(N) only when the objects differ.
bool same_structure(const SkoStructure& a, const SkoStructure& b) {
  if (&a == &b) return true;
  if (a.size() != b.size()) return false;
  for (int k = 0; k < a.size(); ++k)
    if (a.forest.parent(k) != b.forest.parent(k) || a.node.dim(k) != b.node.dim(k) ||
        a.hinge.dim(k) != b.hinge.dim(k))
      return false;
  return true;
}

void check_models(const SkoModel& tree, const AggregatedStructure& structure,
                  const SkoModel* aggregated, const char* who) {
  require(same_structure(tree.structure(), structure.tree()),
          [&] { return std::string(who) + ": the tree model is not over the structure's tree"; });
  if (aggregated)
    require(same_structure(aggregated->structure(), *structure.aggregated()), [&] {
      return std::string(who) + ": the aggregated model is not over the aggregated structure";
    });
}

void check_size(Eigen::Index actual, Eigen::Index expected, const char* who, const char* what) {
  require(actual == expected, [&] {
    return std::string(who) + ": " + what + " has " + std::to_string(actual) +
           " entries, expected " + std::to_string(expected);
  });
}

// Sum over the aggregated nodes of full_hinge_dim: the unreduced aggregated hinge vector's size.
int full_hinge_total(const AggregatedStructure& structure) {
  return structure.tree().hinge.total();
}

}  // namespace

// The aggregated tree of constraint-embedding Lemma 1 over validated sub-graphs, numbered like
// graph/aggregation_subgraphs.hpp's aggregated_tree (aggregated nodes in the order of their first
// member in tree-node order), with the block dimensions of Lemma 4 (node dims 6|S| for rigid
// bodies: the sum of the members' dims).
AggregatedStructure::AggregatedStructure(std::shared_ptr<const SkoStructure> tree,
                                         const std::vector<std::vector<int>>& subgraphs,
                                         const std::vector<int>& hinge_dims)
    : tree_(std::move(tree)) {
  require(tree_ != nullptr, [&] { return "aggregation: no tree structure"; });
  const Forest& forest = tree_->forest;
  const int n = forest.size();
  const int count = static_cast<int>(subgraphs.size());
  require(hinge_dims.empty() || static_cast<int>(hinge_dims.size()) == count, [&] {
    return "aggregation: " + std::to_string(hinge_dims.size()) + " hinge dimensions for " +
           std::to_string(count) + " sub-graphs";
  });

  std::vector<AggregationSubgraph> validated(count);
  std::vector<int> owner(n, -1);
  partitions_.reserve(count);
  for (int s = 0; s < count; ++s) {
    const AggregationCheck check = check_aggregation_condition(forest, subgraphs[s]);
    require(check.satisfied,
            [&] { return "sub-graph " + std::to_string(s + 1) + ": " + check.reason; });
    for (const int k : subgraphs[s]) {
      require(owner[k] < 0, [&] {
        return "sub-graphs " + std::to_string(owner[k] + 1) + " and " + std::to_string(s + 1) +
               " share node " + std::to_string(k + 1);
      });
      owner[k] = s;
    }
    partitions_.push_back(partition_tree(forest, subgraphs[s]));
    validated[s].nodes = partitions_.back().subgraph;
    validated[s].parent = partitions_.back().parent;
  }

  AggregatedTree aggregated_tree_result = aggregated_tree(forest, validated);
  members_ = std::move(aggregated_tree_result.members);
  node_of_ = std::move(aggregated_tree_result.node_of);
  subgraph_of_ = std::move(aggregated_tree_result.subgraph_of);
  const int size = static_cast<int>(members_.size());
  aggregated_of_subgraph_.assign(count, -1);
  for (int a = 0; a < size; ++a)
    if (subgraph_of_[a] >= 0) aggregated_of_subgraph_[subgraph_of_[a]] = a;

  node_offset_in_aggregate_.assign(n, 0);
  hinge_offset_in_aggregate_.assign(n, 0);
  full_hinge_dim_.assign(size, 0);
  std::vector<int> node_dims(size, 0), aggregated_hinge_dims(size, 0);
  for (int a = 0; a < size; ++a) {
    for (const int k : members_[a]) {
      node_offset_in_aggregate_[k] = node_dims[a];
      hinge_offset_in_aggregate_[k] = full_hinge_dim_[a];
      node_dims[a] += tree_->node.dim(k);
      full_hinge_dim_[a] += tree_->hinge.dim(k);
    }
    aggregated_hinge_dims[a] = full_hinge_dim_[a];
    const int s = subgraph_of_[a];
    if (s >= 0 && !hinge_dims.empty()) {
      require(hinge_dims[s] >= 0 && hinge_dims[s] <= full_hinge_dim_[a], [&] {
        return "sub-graph " + std::to_string(s + 1) + ": hinge dimension " +
               std::to_string(hinge_dims[s]) + " is outside 0.." +
               std::to_string(full_hinge_dim_[a]);
      });
      aggregated_hinge_dims[a] = hinge_dims[s];
    }
  }
  aggregated_ = std::make_shared<const SkoStructure>(std::move(aggregated_tree_result.forest),
                                                     node_dims, aggregated_hinge_dims);
}

AggregationWorkspace::AggregationWorkspace(const AggregatedStructure& structure) {
  resolvent.resize(structure.subgraph_count());
  projected_hinge.resize(structure.subgraph_count());
  for (int s = 0; s < structure.subgraph_count(); ++s) {
    const int a = structure.aggregated_node_of_subgraph(s);
    const int m = structure.aggregated()->node.dim(a);
    resolvent[s] = Eigen::MatrixXd::Zero(m, m);
    projected_hinge[s] = Eigen::MatrixXd::Zero(structure.full_hinge_dim(a), m);
  }
}

// constraint-embedding Lemmas 2-4 (Eq. 5-7) and §3 (Eq. 13-16):
//   A_S = (I - E_S)^-1 per sub-graph, column block j from A_S(j, j) = I and the semi-group
//   property A_S(parent(i), j) = E(parent(i), i) A_S(i, j) (part I Lemma 6) walking up inside S;
//   A_a(p, S) = sum over the bases b of E(p, b) A_S(b, :) at p's rows of p's aggregated node
//   (Eq. 14), A_a(S, c) = B(S, c) = E(parent(c), c) at parent(c)'s rows (Eq. 16);
//   H_a(S) = H_S A_S, M_a(S) = diag(M(k), k in S) (Eq. 7).
// No allocation: every block is written into preallocated storage.
void aggregate_model(const SkoModel& tree, const AggregatedStructure& structure,
                     AggregationWorkspace& workspace, SkoModel& aggregated) {
  check_models(tree, structure, &aggregated, "aggregate_model");
  require(static_cast<int>(workspace.resolvent.size()) == structure.subgraph_count(),
          [&] { return "aggregate_model: workspace was sized for another structure"; });
  const SkoStructure& ts = structure.tree();
  const Forest& forest = ts.forest;
  const SkoStructure& as = *structure.aggregated();

  for (int a = 0; a < structure.size(); ++a) {
    const std::vector<int>& members = structure.members(a);
    const int s = structure.subgraph_of(a);
    const int pa = as.forest.parent(a);
    auto inertia = aggregated.inertia(a);
    auto weight = aggregated.weight(a);

    if (s < 0) {  // a plain tree node: its blocks are unchanged, weight at its parent's rows
      const int k = members.front(), p = forest.parent(k);
      inertia = tree.inertia(k);
      aggregated.hinge_map(a) = tree.hinge_map(k);
      if (p != Forest::kNone) {
        weight.setZero();
        weight.middleRows(structure.node_offset_in_aggregate(p), ts.node.dim(p)) = tree.weight(k);
      }
      continue;
    }

    // A_S, members base first so that parents precede children.
    Eigen::MatrixXd& resolvent = workspace.resolvent[s];
    Eigen::MatrixXd& projected = workspace.projected_hinge[s];
    require(resolvent.rows() == as.node.dim(a) && projected.rows() == structure.full_hinge_dim(a),
            [&] { return "aggregate_model: workspace was sized for another structure"; });
    resolvent.setZero();
    for (const int j : members) {
      const int column = structure.node_offset_in_aggregate(j), mj = ts.node.dim(j);
      resolvent.block(column, column, mj, mj).setIdentity();
      for (int i = j; forest.parent(i) != Forest::kNone && structure.node_of(forest.parent(i)) == a;
           i = forest.parent(i)) {
        const int p = forest.parent(i);
        resolvent.block(structure.node_offset_in_aggregate(p), column, ts.node.dim(p), mj)
            .noalias() = tree.weight(i) * resolvent.block(structure.node_offset_in_aggregate(i),
                                                          column, ts.node.dim(i), mj);
      }
    }

    // M_a(S) and H_S A_S.
    inertia.setZero();
    for (const int k : members) {
      const int offset = structure.node_offset_in_aggregate(k), m = ts.node.dim(k);
      inertia.block(offset, offset, m, m) = tree.inertia(k);
      projected.middleRows(structure.hinge_offset_in_aggregate(k), ts.hinge.dim(k)).noalias() =
          tree.hinge_map(k) * resolvent.middleRows(offset, m);
    }
    if (!structure.reduced(a)) aggregated.hinge_map(a) = projected;

    // A_a(p, S) = E(p, bases) A_S(bases, :), at p's rows inside p's aggregated node.
    if (pa != Forest::kNone) {
      const int p = structure.partition(s).parent;
      auto rows = weight.middleRows(structure.node_offset_in_aggregate(p), ts.node.dim(p));
      weight.setZero();
      for (const int b : structure.partition(s).bases)
        rows.noalias() +=
            tree.weight(b) *
            resolvent.middleRows(structure.node_offset_in_aggregate(b), ts.node.dim(b));
    }
  }
}

// Node-layout stacked vectors: the blocks of each aggregate's members are stacked in member order
// (constraint-embedding Eq. 4), so aggregation is a block permutation.
void aggregate_node_vector(const AggregatedStructure& structure,
                           const Eigen::Ref<const Eigen::VectorXd>& tree_vector,
                           Eigen::Ref<Eigen::VectorXd> aggregated_vector) {
  const BlockLayout& tree_node = structure.tree().node;
  const BlockLayout& aggregated_node = structure.aggregated()->node;
  check_size(tree_vector.size(), tree_node.total(), "aggregate_node_vector", "the tree vector");
  check_size(aggregated_vector.size(), aggregated_node.total(), "aggregate_node_vector",
             "the aggregated vector");
  for (int k = 0; k < tree_node.count(); ++k)
    aggregated_vector.segment(
        aggregated_node.offset(structure.node_of(k)) + structure.node_offset_in_aggregate(k),
        tree_node.dim(k)) = tree_vector.segment(tree_node.offset(k), tree_node.dim(k));
}

void disaggregate_node_vector(const AggregatedStructure& structure,
                              const Eigen::Ref<const Eigen::VectorXd>& aggregated_vector,
                              Eigen::Ref<Eigen::VectorXd> tree_vector) {
  const BlockLayout& tree_node = structure.tree().node;
  const BlockLayout& aggregated_node = structure.aggregated()->node;
  check_size(tree_vector.size(), tree_node.total(), "disaggregate_node_vector", "the tree vector");
  check_size(aggregated_vector.size(), aggregated_node.total(), "disaggregate_node_vector",
             "the aggregated vector");
  for (int k = 0; k < tree_node.count(); ++k)
    tree_vector.segment(tree_node.offset(k), tree_node.dim(k)) = aggregated_vector.segment(
        aggregated_node.offset(structure.node_of(k)) + structure.node_offset_in_aggregate(k),
        tree_node.dim(k));
}

namespace {

// Calls visit(tree offset, aggregated offset, dim) for every tree hinge block, the aggregated
// offsets being those of the unreduced aggregated hinge layout (full_hinge_dim per node).
template <typename Visit>
void for_each_hinge_block(const AggregatedStructure& structure, Visit visit) {
  const BlockLayout& tree_hinge = structure.tree().hinge;
  int aggregated_offset = 0;
  for (int a = 0; a < structure.size(); ++a) {
    for (const int k : structure.members(a))
      visit(tree_hinge.offset(k), aggregated_offset + structure.hinge_offset_in_aggregate(k),
            tree_hinge.dim(k));
    aggregated_offset += structure.full_hinge_dim(a);
  }
}

}  // namespace

void aggregate_hinge_vector(const AggregatedStructure& structure,
                            const Eigen::Ref<const Eigen::VectorXd>& tree_vector,
                            Eigen::Ref<Eigen::VectorXd> aggregated_vector) {
  const int total = full_hinge_total(structure);
  check_size(tree_vector.size(), total, "aggregate_hinge_vector", "the tree vector");
  check_size(aggregated_vector.size(), total, "aggregate_hinge_vector", "the aggregated vector");
  for_each_hinge_block(structure, [&](int tree_offset, int aggregated_offset, int dim) {
    aggregated_vector.segment(aggregated_offset, dim) = tree_vector.segment(tree_offset, dim);
  });
}

void disaggregate_hinge_vector(const AggregatedStructure& structure,
                               const Eigen::Ref<const Eigen::VectorXd>& aggregated_vector,
                               Eigen::Ref<Eigen::VectorXd> tree_vector) {
  const int total = full_hinge_total(structure);
  check_size(tree_vector.size(), total, "disaggregate_hinge_vector", "the tree vector");
  check_size(aggregated_vector.size(), total, "disaggregate_hinge_vector", "the aggregated vector");
  for_each_hinge_block(structure, [&](int tree_offset, int aggregated_offset, int dim) {
    tree_vector.segment(tree_offset, dim) = aggregated_vector.segment(aggregated_offset, dim);
  });
}

// a_a(S) = A_S* (a_S + H_S* extra_S) (constraint-embedding Eq. 20 and Lemma 6). A_S* c is the
// base-to-tips scatter y(j) = c(j) + E*(parent(j), j) y(parent(j)) inside S (the recursion of
// alpha = A* a, part II Eq. 10), done in place in the output with members base first: O(|S|)
// block products, no dense A_S product, no allocation.
void aggregate_coriolis(const SkoModel& tree, const AggregatedStructure& structure,
                        const AggregationWorkspace& workspace,
                        const Eigen::Ref<const Eigen::VectorXd>& tree_coriolis,
                        const Eigen::Ref<const Eigen::VectorXd>& tree_hinge_extra,
                        Eigen::Ref<Eigen::VectorXd> aggregated_coriolis) {
  check_models(tree, structure, nullptr, "aggregate_coriolis");
  require(static_cast<int>(workspace.resolvent.size()) == structure.subgraph_count(),
          [&] { return "aggregate_coriolis: workspace was sized for another structure"; });
  const SkoStructure& ts = structure.tree();
  const BlockLayout& aggregated_node = structure.aggregated()->node;
  check_size(tree_coriolis.size(), ts.node.total(), "aggregate_coriolis",
             "the tree Coriolis vector");
  check_size(tree_hinge_extra.size(), ts.hinge.total(), "aggregate_coriolis",
             "the tree hinge vector");
  check_size(aggregated_coriolis.size(), aggregated_node.total(), "aggregate_coriolis",
             "the aggregated Coriolis vector");
  const Forest& forest = ts.forest;
  for (int a = 0; a < structure.size(); ++a) {
    const int base_offset = aggregated_node.offset(a);
    for (const int j : structure.members(a)) {
      const int m = ts.node.dim(j), p = forest.parent(j);
      auto y = aggregated_coriolis.segment(base_offset + structure.node_offset_in_aggregate(j), m);
      y = tree_coriolis.segment(ts.node.offset(j), m);
      y.noalias() += tree.hinge_map(j).transpose() *
                     tree_hinge_extra.segment(ts.hinge.offset(j), ts.hinge.dim(j));
      if (p != Forest::kNone && structure.node_of(p) == a)
        y.noalias() += tree.weight(j).transpose() *
                       aggregated_coriolis.segment(
                           base_offset + structure.node_offset_in_aggregate(p), ts.node.dim(p));
    }
  }
}

namespace {

void check_embedding(const AggregatedStructure& structure,
                     const std::vector<Eigen::MatrixXd>& embedding, const char* who) {
  require(static_cast<int>(embedding.size()) == structure.subgraph_count(), [&] {
    return std::string(who) + ": " + std::to_string(embedding.size()) + " embedding matrices for " +
           std::to_string(structure.subgraph_count()) + " sub-graphs";
  });
  for (int s = 0; s < structure.subgraph_count(); ++s) {
    const int a = structure.aggregated_node_of_subgraph(s);
    if (!structure.reduced(a)) continue;
    const Eigen::MatrixXd& x = embedding[s];
    require(
        x.rows() == structure.full_hinge_dim(a) && x.cols() == structure.aggregated()->hinge.dim(a),
        [&] {
          return std::string(who) + ": X of sub-graph " + std::to_string(s + 1) + " is " +
                 std::to_string(x.rows()) + " x " + std::to_string(x.cols()) + ", expected " +
                 std::to_string(structure.full_hinge_dim(a)) + " x " +
                 std::to_string(structure.aggregated()->hinge.dim(a));
        });
  }
}

// Calls visit(a, X_S or nullptr) for each aggregated node; nullptr means identity.
template <typename Visit>
void for_each_embedding(const AggregatedStructure& structure,
                        const std::vector<Eigen::MatrixXd>& embedding, Visit visit) {
  for (int a = 0; a < structure.size(); ++a) {
    const int s = structure.subgraph_of(a);
    visit(a, s >= 0 && structure.reduced(a) ? &embedding[s] : nullptr);
  }
}

}  // namespace

// Lemma 6 of constraint-embedding (conventions.md "Constraint embedding"): H_Ra(S) = X_S* H_S A_S.
// No allocation.
void embed_hinge_maps(const AggregatedStructure& structure, const AggregationWorkspace& workspace,
                      const std::vector<Eigen::MatrixXd>& embedding, SkoModel& aggregated) {
  require(same_structure(aggregated.structure(), *structure.aggregated()), [&] {
    return "embed_hinge_maps: the aggregated model is not over the aggregated structure";
  });
  check_embedding(structure, embedding, "embed_hinge_maps");
  for_each_embedding(structure, embedding, [&](int a, const Eigen::MatrixXd* x) {
    if (x)
      aggregated.hinge_map(a).noalias() =
          x->transpose() * workspace.projected_hinge[structure.subgraph_of(a)];
  });
}

// constraint-embedding Lemma 5: thetadot_S = X_S thetadot_R per aggregate. Member hinge blocks of
// an aggregate are contiguous rows of X_S in member order. No allocation.
void expand_reduced_hinge_vector(const AggregatedStructure& structure,
                                 const std::vector<Eigen::MatrixXd>& embedding,
                                 const Eigen::Ref<const Eigen::VectorXd>& reduced_vector,
                                 Eigen::Ref<Eigen::VectorXd> tree_vector) {
  check_embedding(structure, embedding, "expand_reduced_hinge_vector");
  const BlockLayout& tree_hinge = structure.tree().hinge;
  const BlockLayout& reduced_hinge = structure.aggregated()->hinge;
  check_size(reduced_vector.size(), reduced_hinge.total(), "expand_reduced_hinge_vector",
             "the reduced vector");
  check_size(tree_vector.size(), tree_hinge.total(), "expand_reduced_hinge_vector",
             "the tree vector");
  for_each_embedding(structure, embedding, [&](int a, const Eigen::MatrixXd* x) {
    const auto source = reduced_vector.segment(reduced_hinge.offset(a), reduced_hinge.dim(a));
    for (const int k : structure.members(a)) {
      auto target = tree_vector.segment(tree_hinge.offset(k), tree_hinge.dim(k));
      if (x)
        target.noalias() =
            x->middleRows(structure.hinge_offset_in_aggregate(k), tree_hinge.dim(k)) * source;
      else
        target = source.segment(structure.hinge_offset_in_aggregate(k), tree_hinge.dim(k));
    }
  });
}

// T_R(S) = X_S* T_S (conventions.md "Constraint embedding"). No allocation.
void project_hinge_vector(const AggregatedStructure& structure,
                          const std::vector<Eigen::MatrixXd>& embedding,
                          const Eigen::Ref<const Eigen::VectorXd>& tree_vector,
                          Eigen::Ref<Eigen::VectorXd> reduced_vector) {
  check_embedding(structure, embedding, "project_hinge_vector");
  const BlockLayout& tree_hinge = structure.tree().hinge;
  const BlockLayout& reduced_hinge = structure.aggregated()->hinge;
  check_size(reduced_vector.size(), reduced_hinge.total(), "project_hinge_vector",
             "the reduced vector");
  check_size(tree_vector.size(), tree_hinge.total(), "project_hinge_vector", "the tree vector");
  for_each_embedding(structure, embedding, [&](int a, const Eigen::MatrixXd* x) {
    auto target = reduced_vector.segment(reduced_hinge.offset(a), reduced_hinge.dim(a));
    if (x) target.setZero();
    for (const int k : structure.members(a)) {
      const auto source = tree_vector.segment(tree_hinge.offset(k), tree_hinge.dim(k));
      if (x)
        target.noalias() +=
            x->middleRows(structure.hinge_offset_in_aggregate(k), tree_hinge.dim(k)).transpose() *
            source;
      else
        target.segment(structure.hinge_offset_in_aggregate(k), tree_hinge.dim(k)) = source;
    }
  });
}

void scatter_subgraph_hinge_vectors(const AggregatedStructure& structure,
                                    const std::vector<Eigen::VectorXd>& per_subgraph,
                                    Eigen::Ref<Eigen::VectorXd> tree_vector) {
  const BlockLayout& tree_hinge = structure.tree().hinge;
  check_size(tree_vector.size(), tree_hinge.total(), "scatter_subgraph_hinge_vectors",
             "the tree vector");
  require(static_cast<int>(per_subgraph.size()) == structure.subgraph_count(), [&] {
    return "scatter_subgraph_hinge_vectors: " + std::to_string(per_subgraph.size()) +
           " vectors for " + std::to_string(structure.subgraph_count()) + " sub-graphs";
  });
  tree_vector.setZero();
  for (int s = 0; s < structure.subgraph_count(); ++s) {
    const Eigen::VectorXd& v = per_subgraph[s];
    if (v.size() == 0) continue;
    const int a = structure.aggregated_node_of_subgraph(s);
    require(v.size() == structure.full_hinge_dim(a), [&] {
      return "scatter_subgraph_hinge_vectors: the vector of sub-graph " + std::to_string(s + 1) +
             " has " + std::to_string(v.size()) + " entries, expected " +
             std::to_string(structure.full_hinge_dim(a));
    });
    for (const int k : structure.members(a))
      tree_vector.segment(tree_hinge.offset(k), tree_hinge.dim(k)) =
          v.segment(structure.hinge_offset_in_aggregate(k), tree_hinge.dim(k));
  }
}

Eigen::MatrixXd assemble_embedding_matrix(const AggregatedStructure& structure,
                                          const std::vector<Eigen::MatrixXd>& embedding) {
  check_embedding(structure, embedding, "assemble_embedding_matrix");
  const BlockLayout& tree_hinge = structure.tree().hinge;
  const BlockLayout& reduced_hinge = structure.aggregated()->hinge;
  Eigen::MatrixXd result = Eigen::MatrixXd::Zero(tree_hinge.total(), reduced_hinge.total());
  for_each_embedding(structure, embedding, [&](int a, const Eigen::MatrixXd* x) {
    for (const int k : structure.members(a)) {
      auto rows = result.block(tree_hinge.offset(k), reduced_hinge.offset(a), tree_hinge.dim(k),
                               reduced_hinge.dim(a));
      if (x)
        rows = x->middleRows(structure.hinge_offset_in_aggregate(k), tree_hinge.dim(k));
      else
        rows.middleCols(structure.hinge_offset_in_aggregate(k), tree_hinge.dim(k)).setIdentity();
    }
  });
  return result;
}

}  // namespace skograph

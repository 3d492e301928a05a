// Aggregation of sub-graphs of an SKO model into single nodes (constraint-embedding §2-3,
// Lemmas 2-4; conventions.md "Aggregation").
//
//   AggregatedStructure structure(tree_model.structure_ptr(), subgraphs);   // once
//   SkoModel aggregated(structure.aggregated());
//   AggregationWorkspace workspace(structure);
//   aggregate_model(tree_model, structure, workspace, aggregated);          // per configuration
//   aggregate_coriolis(tree_model, structure, workspace, a, zero_hinge, a_aggregated);
//   aggregate_node_vector(structure, b, b_aggregated);
//   ... every operators/ algorithm on `aggregated` ...
//
// For a sub-graph S with outside parent p, base nodes bases(S) and children c, with
// A_S = (I - E_S)^-1 the 1-resolvent of S alone (6|S| x 6|S| for rigid nodes):
//   weight   A_a(p, S) = E(p, S) A_S     (E(p, S): the blocks E_A(p, b), b in bases(S))
//   weight   A_a(S, c) = B(S, c)         (the block E_A(parent(c), c) at parent(c)'s rows)
//   hinge    H_a(S)    = H_S A_S         (H_S = diag of the member hinges)
//   Coriolis a_a(S)    = A_S* a_S
//   inertia  M_a(S)    = diag(M(k), k in S)
// so that V_S = A_a(p, S)* V(p) + H_a(S)* thetadot_S and H A = H_a A_a (up to the ordering).
// When p is itself in an aggregate S', A_a(S', S) holds E(p, S) A_S at p's rows, zeros elsewhere.
//
// Layouts: an aggregated node's node vector stacks its members' node blocks in member order (base
// first, as `members`), and its (unreduced) hinge vector stacks the members' hinge blocks in the
// same order. Aggregated nodes are numbered like graph/aggregation_subgraphs.hpp's aggregated_tree:
// in the order of their first member in tree-node order.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "skograph/aggregation/partition.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

class AggregatedStructure {
 public:
  // `subgraphs`: disjoint node sets of tree->forest, each satisfying the aggregation condition
  // (throws std::invalid_argument "sub-graph 2: <reason>" otherwise, or when two overlap). A
  // sub-graph may hold a single node. `hinge_dims`: per sub-graph, the hinge dimension of its
  // aggregated node; empty means the sum of its members' hinge dimensions (plain aggregation).
  // Constraint embedding passes n_R(S), the number of independent coordinates of S.
  AggregatedStructure(std::shared_ptr<const SkoStructure> tree,
                      const std::vector<std::vector<int>>& subgraphs,
                      const std::vector<int>& hinge_dims = {});

  const SkoStructure& tree() const { return *tree_; }
  const std::shared_ptr<const SkoStructure>& tree_ptr() const { return tree_; }
  // The SKO structure of the aggregated model: aggregated forest, node dims sum of members' node
  // dims, hinge dims as described above.
  const std::shared_ptr<const SkoStructure>& aggregated() const { return aggregated_; }

  int size() const { return static_cast<int>(members_.size()); }  // aggregated nodes
  int subgraph_count() const { return static_cast<int>(partitions_.size()); }
  const std::vector<int>& members(int a) const { return members_[a]; }  // base first
  int node_of(int k) const { return node_of_[k]; }          // tree node -> aggregated node
  int subgraph_of(int a) const { return subgraph_of_[a]; }  // -1 for a plain tree node
  int aggregated_node_of_subgraph(int s) const { return aggregated_of_subgraph_[s]; }
  const TreePartition& partition(int s) const { return partitions_[s]; }
  // Offsets of tree node k's blocks inside its aggregated node's node vector and unreduced hinge
  // vector.
  int node_offset_in_aggregate(int k) const { return node_offset_in_aggregate_[k]; }
  int hinge_offset_in_aggregate(int k) const { return hinge_offset_in_aggregate_[k]; }
  // Sum of the members' hinge dimensions of aggregated node a (n_S).
  int full_hinge_dim(int a) const { return full_hinge_dim_[a]; }
  // True when aggregated node a's hinge dimension differs from full_hinge_dim (embedding).
  bool reduced(int a) const { return aggregated_->hinge.dim(a) != full_hinge_dim_[a]; }

 private:
  std::shared_ptr<const SkoStructure> tree_;
  std::shared_ptr<const SkoStructure> aggregated_;
  std::vector<std::vector<int>> members_;
  std::vector<int> node_of_, subgraph_of_, aggregated_of_subgraph_;
  std::vector<TreePartition> partitions_;
  std::vector<int> node_offset_in_aggregate_, hinge_offset_in_aggregate_, full_hinge_dim_;
};

// Dense per-sub-graph blocks, sized once.
struct AggregationWorkspace {
  explicit AggregationWorkspace(const AggregatedStructure& structure);
  std::vector<Eigen::MatrixXd> resolvent;        // A_S per sub-graph (sum m_k square)
  std::vector<Eigen::MatrixXd> projected_hinge;  // H_S A_S per sub-graph (n_S x sum m_k)
};

// Fills `aggregated` (an SkoModel over structure.aggregated()) from `tree`: weights A_a, inertias
// M_a and, for aggregated nodes that are not reduced, hinge maps H_a = H_S A_S
// (constraint-embedding Lemmas 3-4). Reduced nodes' hinge maps are written by embed_hinge_maps.
// Also fills workspace.resolvent and workspace.projected_hinge.
void aggregate_model(const SkoModel& tree, const AggregatedStructure& structure,
                     AggregationWorkspace& workspace, SkoModel& aggregated);

// Node-layout vectors (V, alpha, b, f, ...) are a permutation of blocks: tree order <-> aggregated.
void aggregate_node_vector(const AggregatedStructure& structure,
                           const Eigen::Ref<const Eigen::VectorXd>& tree_vector,
                           Eigen::Ref<Eigen::VectorXd> aggregated_vector);
void disaggregate_node_vector(const AggregatedStructure& structure,
                              const Eigen::Ref<const Eigen::VectorXd>& aggregated_vector,
                              Eigen::Ref<Eigen::VectorXd> tree_vector);

// Unreduced hinge-layout vectors (thetadot, T, ...): tree order <-> aggregated order. The
// aggregated vector has sum_a full_hinge_dim(a) entries (equal to the aggregated hinge layout when
// nothing is reduced).
void aggregate_hinge_vector(const AggregatedStructure& structure,
                            const Eigen::Ref<const Eigen::VectorXd>& tree_vector,
                            Eigen::Ref<Eigen::VectorXd> aggregated_vector);
void disaggregate_hinge_vector(const AggregatedStructure& structure,
                               const Eigen::Ref<const Eigen::VectorXd>& aggregated_vector,
                               Eigen::Ref<Eigen::VectorXd> tree_vector);

// Aggregated Coriolis accelerations (node layout of the aggregated structure):
//   a_a(S) = A_S* (a_S + H_S* extra_S) for sub-graphs, a(k) + H*(k) extra(k) for plain nodes,
// where `tree_hinge_extra` is a tree hinge-layout vector: zero for plain aggregation, and
// Xdot thetadot_R (scattered to S's hinges) for constraint embedding, giving
// a_Ra(S) = A_S* (a_S + H_S* Xdot_S thetadot_R) (conventions.md "Constraint embedding").
// A_S* is applied by the base-to-tips scatter inside S over the tree weights (no dense product);
// the workspace is only checked to belong to this structure.
void aggregate_coriolis(const SkoModel& tree, const AggregatedStructure& structure,
                        const AggregationWorkspace& workspace,
                        const Eigen::Ref<const Eigen::VectorXd>& tree_coriolis,
                        const Eigen::Ref<const Eigen::VectorXd>& tree_hinge_extra,
                        Eigen::Ref<Eigen::VectorXd> aggregated_coriolis);

// Constraint embedding's hinge maps H_Ra(S) = X_S* H_S A_S for every reduced aggregated node.
// embedding[s] is X_S of sub-graph s (n_S x n_R(S)); entries of plain (unreduced) sub-graphs are
// ignored and may be empty. Uses workspace.projected_hinge from the last aggregate_model.
void embed_hinge_maps(const AggregatedStructure& structure, const AggregationWorkspace& workspace,
                      const std::vector<Eigen::MatrixXd>& embedding, SkoModel& aggregated);

// ---- Minimal coordinates <-> tree coordinates (constraint-embedding Lemma 5) ----
// `embedding` as for embed_hinge_maps: X_S for reduced sub-graphs (others ignored, identity).
// The reduced vector is in the aggregated hinge layout (structure.aggregated()->hinge).

// thetadot = X thetadot_R: the tree hinge-layout vector of a minimal-coordinate vector.
void expand_reduced_hinge_vector(const AggregatedStructure& structure,
                                 const std::vector<Eigen::MatrixXd>& embedding,
                                 const Eigen::Ref<const Eigen::VectorXd>& reduced_vector,
                                 Eigen::Ref<Eigen::VectorXd> tree_vector);

// T_R = X* T: a tree hinge-layout force projected on the minimal coordinates.
void project_hinge_vector(const AggregatedStructure& structure,
                          const std::vector<Eigen::MatrixXd>& embedding,
                          const Eigen::Ref<const Eigen::VectorXd>& tree_vector,
                          Eigen::Ref<Eigen::VectorXd> reduced_vector);

// Per-sub-graph vectors in S's stacked hinge order (e.g. Xdot_S thetadot_R) scattered into a tree
// hinge-layout vector, zero at the hinges of plain nodes (the `tree_hinge_extra` of
// aggregate_coriolis). Empty entries count as zero.
void scatter_subgraph_hinge_vectors(const AggregatedStructure& structure,
                                    const std::vector<Eigen::VectorXd>& per_subgraph,
                                    Eigen::Ref<Eigen::VectorXd> tree_vector);

// The dense X (tree dofs x minimal dofs): X_S at (S's tree hinge rows, the aggregated node's
// columns), identity for plain and unreduced nodes. For reports and tests; allocates.
Eigen::MatrixXd assemble_embedding_matrix(const AggregatedStructure& structure,
                                          const std::vector<Eigen::MatrixXd>& embedding);

}  // namespace skograph

// Test support for the aggregation layer: random valid aggregation sub-graphs and the dense block
// permutations between tree order and aggregated order, built from the definitions (members and
// block layouts), not from the library's vector permutations.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <random>
#include <vector>

#include "skograph/aggregation/aggregated_model.hpp"
#include "skograph/graph/forest.hpp"

namespace skograph::testing_support {

// Up to `count` disjoint sub-graphs satisfying the aggregation condition. Each picks an outside
// parent p (a node, or the inertial frame: kNone), one to three of p's unused children as base
// nodes, and grows downwards by adding unused children of its nodes at random (at most
// `max_size` nodes). Sub-graphs may hang from nodes of earlier ones (nested aggregates), hold a
// single node, several bases, and leave several children outside.
inline std::vector<std::vector<int>> random_aggregation_subgraphs(const Forest& forest, int count,
                                                                  std::mt19937& rng,
                                                                  int max_size = 6) {
  const int n = forest.size();
  std::vector<char> used(n, 0);
  std::vector<std::vector<int>> result;
  for (int attempt = 0; attempt < 20 * count && static_cast<int>(result.size()) < count;
       ++attempt) {
    const int p = static_cast<int>(rng() % (n + 1)) - 1;  // -1: the inertial frame
    std::vector<int> candidates;
    if (p == Forest::kNone) {
      for (const int b : forest.bases())
        if (!used[b]) candidates.push_back(b);
    } else {
      for (const int c : forest.children(p))
        if (!used[c]) candidates.push_back(c);
    }
    if (candidates.empty()) continue;
    std::shuffle(candidates.begin(), candidates.end(), rng);
    const int bases = 1 + static_cast<int>(rng() % std::min<size_t>(3, candidates.size()));
    std::vector<int> subgraph(candidates.begin(), candidates.begin() + bases);
    for (const int k : subgraph) used[k] = 1;
    for (size_t i = 0; i < subgraph.size(); ++i)
      for (const int c : forest.children(subgraph[i]))
        if (!used[c] && static_cast<int>(subgraph.size()) < max_size && rng() % 3 != 0) {
          used[c] = 1;
          subgraph.push_back(c);
        }
    std::shuffle(subgraph.begin(), subgraph.end(), rng);  // the API takes any order
    result.push_back(std::move(subgraph));
  }
  return result;
}

// Offsets of the unreduced aggregated hinge layout (full_hinge_dim per aggregated node).
inline std::vector<int> full_hinge_offsets(const AggregatedStructure& structure) {
  std::vector<int> offsets(structure.size() + 1, 0);
  for (int a = 0; a < structure.size(); ++a)
    offsets[a + 1] = offsets[a] + structure.full_hinge_dim(a);
  return offsets;
}

// P with x_aggregated = P x_tree for node-layout vectors: tree node k's block goes to its
// aggregated node's block at the member's offset.
inline Eigen::MatrixXd dense_node_permutation(const AggregatedStructure& structure) {
  const BlockLayout& tree = structure.tree().node;
  const BlockLayout& aggregated = structure.aggregated()->node;
  Eigen::MatrixXd p = Eigen::MatrixXd::Zero(aggregated.total(), tree.total());
  for (int a = 0; a < structure.size(); ++a) {
    int offset = aggregated.offset(a);
    for (const int k : structure.members(a)) {
      p.block(offset, tree.offset(k), tree.dim(k), tree.dim(k)).setIdentity();
      offset += tree.dim(k);
    }
  }
  return p;
}

// The same for unreduced hinge-layout vectors.
inline Eigen::MatrixXd dense_hinge_permutation(const AggregatedStructure& structure) {
  const BlockLayout& tree = structure.tree().hinge;
  const std::vector<int> offsets = full_hinge_offsets(structure);
  Eigen::MatrixXd p = Eigen::MatrixXd::Zero(offsets.back(), tree.total());
  for (int a = 0; a < structure.size(); ++a) {
    int offset = offsets[a];
    for (const int k : structure.members(a)) {
      p.block(offset, tree.offset(k), tree.dim(k), tree.dim(k)).setIdentity();
      offset += tree.dim(k);
    }
  }
  return p;
}

}  // namespace skograph::testing_support

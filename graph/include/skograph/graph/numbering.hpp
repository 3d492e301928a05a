// Canonical and strictly canonical renumbering of a tree or forest (part I section 2) and the
// permutation matrix T of part I section 5.1.
//
// A numbering is a Permutation: number[k] is the new 0-based index of node k.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/forest.hpp"

namespace skograph {

using Permutation = std::vector<int>;

// Canonical: parent(k) > k for every node. This one numbers breadth-first levels from the tips
// up (the reverse of a breadth-first order from the bases), so nodes at equal depth get
// neighbouring numbers; it is in general not strictly canonical (part I Fig. 2c). O(n).
Permutation canonical_numbering(const Forest& forest);
// Strictly canonical: canonical, and every serial segment numbered consecutively (part I Fig. 2d).
// This is the forest's depth-first post-order. O(n).
Permutation strictly_canonical_numbering(const Forest& forest);

bool is_permutation(const Permutation& number);
bool is_canonical(const Forest& forest, const Permutation& number);
bool is_strictly_canonical(const Forest& forest, const Permutation& number);

// The inverse: node_at[i] is the node that gets number i.
Permutation inverse(const Permutation& number);
// The same forest under the new numbering.
Forest renumber(const Forest& forest, const Permutation& number);
// T with T(number[k], k) = 1, so the renumbered adjacency matrix is T S T* (part I section 3.1 and
// section 5.1).
Eigen::SparseMatrix<double> permutation_matrix(const Permutation& number);
// The adjacency matrix S of part I Eq. 7: S(parent(k), k) = 1.
Eigen::SparseMatrix<double> adjacency_matrix(const Forest& forest);

// The adjacency matrix of any digraph (part I Eq. 2, section 2): entry (i, j) = 1 when node j is a
// child of node i (an edge i -> j), nodes in the digraph's (input) order; parallel edges give one
// entry, a self-loop a diagonal one. Not only trees: loops, DAGs, several roots.
Eigen::SparseMatrix<double> adjacency_matrix(const Digraph& graph);
// The block weighted adjacency (BWA) matrix of any digraph (part I Eq. 12): node i owns a block of
// dims[i] rows and columns, and block (i, j) is weights[e] (dims[i] x dims[j]) for the edge
// e = i -> j of graph.edges() (parallel edges add). std::invalid_argument on mismatched sizes.
Eigen::SparseMatrix<double> bwa_matrix(const Digraph& graph, const std::vector<int>& dims,
                                       const std::vector<Eigen::MatrixXd>& weights);

}  // namespace skograph

// Canonical and strictly canonical renumbering of a tree or forest (part I section 2) and the
// permutation matrix T of part I section 5.1.
//
// A numbering is a Permutation: number[k] is the new 0-based index of node k.
#pragma once

#include <Eigen/SparseCore>
#include <vector>

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

}  // namespace skograph

// Orders in which the tree's dofs are eliminated by a sparse factorization (part I section 2,
// part II section 7.4), shared by the mass matrix's factor (sparse/cholmod_factorization.hpp), the
// KKT system's (sparse/kkt_system.hpp) and the multiplier method (rigid/multiplier_dynamics.hpp).
#pragma once

#include <Eigen/SparseCore>
#include <vector>

#include "skograph/operators/bwa_matrix.hpp"

namespace skograph {

// The canonical dof order of part I section 2: the forest's depth-first post-order (strictly
// canonical, children before parents) expanded to each node's hinge dofs (structure.hinge).
// order[i] = dof eliminated i-th. Eliminating a node leaves only its ancestors as neighbours,
// already pairwise related in M, so the factor of M has no fill in this order.
std::vector<int> canonical_dof_order(const SkoStructure& structure);

// Per dof its parent dof, -1 for the first dof of a base node: a hinge's dofs form a chain (the
// first one's parent is the last dof of the nearest ancestor with dofs), as MuJoCo's
// dof_parentid. The entries (k, i) of M with i an ancestor-or-self dof of k are its lower pattern
// in any parents-first numbering.
std::vector<int> dof_parents(const SkoStructure& structure);

// The fill-controlled elimination order of the KKT system [M G*; G 0]: `mass_order` (the
// canonical order) with each row of G (m x n) placed right after the last-eliminated dof it
// touches (rows touching none first). Entry i is the unknown eliminated i-th: a dof 0..n-1, or
// n + r for row r of G. In a depth-first post-order the M block then fills nothing
// (docs/sparse-export.md gives the argument).
std::vector<int> kkt_elimination_order(const std::vector<int>& mass_order,
                                       const Eigen::SparseMatrix<double>& constraints);

}  // namespace skograph

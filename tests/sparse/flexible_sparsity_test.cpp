// Flexible nodes (6 + nmd rows each) in the sparse operators: the sparse mass matrix against the
// dense reference written from the definitions (support/flexible_reference.hpp), its stored
// pattern exactly the pairs of related nodes (part II Lemma 4), and part II section 7's fill-free
// factorization: in a canonical order (the forest's post order, children before parents) the
// Cholesky factor of M has no entry outside M's lower triangle, symbolically (a dense elimination
// from first principles) and numerically (the factor of the reference's M).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <random>
#include <vector>

#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/sparse/kkt_system.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "sparse_support.hpp"
#include "support/flexible_mechanism.hpp"
#include "support/flexible_reference.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using flexible_reference::Body;
using flexible_reference::Tree;
using namespace testing_support;

int total_modes(const std::vector<Body>& bodies) {
  int modes = 0;
  for (const Body& body : bodies) modes += body.modes();
  return modes;
}

// The node of every dof (hinge layout).
std::vector<int> node_of_dof(const SkoStructure& structure) {
  std::vector<int> node(static_cast<std::size_t>(structure.hinge.total()));
  for (int k = 0; k < structure.size(); ++k)
    for (int i = 0; i < structure.hinge.dim(k); ++i) node[structure.hinge.offset(k) + i] = k;
  return node;
}

TEST(FlexibleSparsity, MassMatrixHasTheRelatedNodesBlocksAndACanonicalOrderDoesNotFill) {
  std::mt19937 rng(73);
  int trees_with_modes = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const std::vector<Body> bodies =
        random_flexible_bodies(3 + trial % 6, trial % 2 == 0, 0.3, rng);
    const int modes = total_modes(bodies);
    if (modes == 0) continue;
    ++trees_with_modes;
    const Tree tree(bodies);
    const RigidBodyModel model(mechanism_of(bodies));
    RigidBodyData data(model);
    const int n = tree.dofs();
    const Eigen::VectorXd q = rigid_random_state(n, rng);
    update_positions(model, q, data);
    synchronize_sko_model(model, data);
    const SkoStructure& structure = data.sko.structure();

    // Node blocks: six rigid rows per node, and one more per mode of its body.
    int extra_rows = 0;
    for (int k = 0; k < structure.size(); ++k) extra_rows += structure.node.dim(k) - 6;
    EXPECT_EQ(extra_rows, modes) << "trial " << trial;
    const Eigen::SparseMatrix<double> kernel = sparse_kernel(data.sko);
    EXPECT_EQ(kernel.rows(), 6 * structure.size() + modes);

    // The values against the reference, the pattern against the ancestor rule.
    const Eigen::SparseMatrix<double> mass = sparse_mass_matrix(data.sko);
    const Eigen::MatrixXd reference = tree.mass_matrix(q);
    ASSERT_EQ(mass.rows(), n);
    EXPECT_LT((Eigen::MatrixXd(mass) - reference).cwiseAbs().maxCoeff(),
              1e-12 * std::max(1.0, reference.cwiseAbs().maxCoeff()))
        << "trial " << trial;
    const SparsityPattern pattern = sparsity_pattern(mass);
    const std::vector<int> node = node_of_dof(structure);
    const Forest& forest = structure.forest;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const bool related = forest.is_ancestor_or_self(node[i], node[j]) ||
                             forest.is_ancestor_or_self(node[j], node[i]);
        EXPECT_EQ(pattern.contains(i, j), related)
            << "trial " << trial << " (" << i << ", " << j << ")";
      }

    // The canonical elimination order: dofs node by node in the forest's post order.
    std::vector<int> order;
    for (int k : forest.post_order())
      for (int i = 0; i < structure.hinge.dim(k); ++i)
        order.push_back(structure.hinge.offset(k) + i);
    const long lower = (pattern.nonzeros() + n) / 2;
    EXPECT_EQ(dense_symbolic_factor_nonzeros(pattern, order), lower) << "trial " << trial;
    std::vector<int> new_index(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) new_index[order[i]] = i;
    const SparsityPattern canonical = sparsity_pattern(renumber_symmetric(mass, new_index));
    EXPECT_EQ(symbolic_factor_nonzeros(canonical), lower) << "trial " << trial;

    // The reference's own factor in that order: zero wherever M is structurally zero.
    Eigen::MatrixXd permuted(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) permuted(i, j) = reference(order[i], order[j]);
    const Eigen::LLT<Eigen::MatrixXd> factor(permuted);
    ASSERT_EQ(factor.info(), Eigen::Success);
    const Eigen::MatrixXd l = factor.matrixL();
    const double scale = l.cwiseAbs().maxCoeff();
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i)
        if (!canonical.contains(i, j)) {
          EXPECT_LT(std::abs(l(i, j)), 1e-13 * scale)
              << "trial " << trial << " fill at (" << i << ", " << j << ")";
        }
  }
  EXPECT_GE(trees_with_modes, 8);
}

}  // namespace
}  // namespace skograph

// Sparse assembly of E_A, A, H, M, the mass matrix and the innovations factors against dense
// matrices built from the definitions (support/random_sko.hpp: block by block, an LU inverse for A
// and the operator product H A M A* H* for the mass matrix).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "skograph/sparse/sparse_assembly.hpp"
#include "sparse_support.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using namespace testing_support;

TEST(SparseAssembly, OperatorsEqualTheDenseDefinitionsOnRandomTreesAndForests) {
  for (int seed = 0; seed < 60; ++seed) {
    std::mt19937 rng(seed);
    const SkoModel model = random_bounded_sko_model(options_for_seed(seed, 25), rng);
    EXPECT_LT(relative_error(Eigen::MatrixXd(sparse_kernel(model)), dense_kernel(model)), 1e-14);
    EXPECT_LT(relative_error(Eigen::MatrixXd(sparse_resolvent(model)), dense_resolvent(model)),
              1e-10);
    EXPECT_LT(relative_error(Eigen::MatrixXd(sparse_hinge_map(model)), dense_hinge_map(model)),
              1e-15);
    EXPECT_LT(
        relative_error(Eigen::MatrixXd(sparse_spatial_mass(model)), dense_node_inertia(model)),
        1e-15);
    EXPECT_LT(relative_error(Eigen::MatrixXd(sparse_mass_matrix(model)), dense_mass_matrix(model)),
              1e-10)
        << "seed " << seed;
  }
}

TEST(SparseAssembly, MassMatrixStoresExactlyTheRelatedNodePairs) {
  for (int seed = 0; seed < 60; ++seed) {
    std::mt19937 rng(100 + seed);
    const SkoModel model = random_bounded_sko_model(options_for_seed(seed, 20), rng);
    const Eigen::SparseMatrix<double> mass = sparse_mass_matrix(model);
    const SparsityPattern pattern = mass_matrix_pattern(model.structure());
    const std::vector<int> node = node_of_dof(model.structure().hinge);
    const int n = static_cast<int>(node.size());
    ASSERT_EQ(mass.rows(), n);
    long related = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const bool is_related = model.forest().related(node[i], node[j]);
        related += is_related;
        // Part II section 7.4: stored exactly when the two nodes are related.
        EXPECT_EQ(pattern.contains(i, j), is_related) << "seed " << seed;
      }
    EXPECT_EQ(mass.nonZeros(), related);
    EXPECT_EQ(pattern.nonzeros(), related);
    // The stored pattern is the topological one, entry by entry.
    for (int c = 0; c < n; ++c) {
      ASSERT_EQ(mass.outerIndexPtr()[c + 1], pattern.column_start[c + 1]);
      for (int p = pattern.column_start[c]; p < pattern.column_start[c + 1]; ++p)
        EXPECT_EQ(mass.innerIndexPtr()[p], pattern.row_index[p]);
    }
  }
}

TEST(SparseAssembly, RefillingKeepsThePatternAndStorage) {
  std::mt19937 rng(7);
  RandomSkoOptions options;
  options.nodes = 30;
  SkoModel model = random_bounded_sko_model(options, rng);
  CompositeInertiaWorkspace workspace(model.structure());
  Eigen::SparseMatrix<double> mass;
  sparse_mass_matrix(model, workspace, mass);
  const double* values = mass.valuePtr();
  for (int configuration = 0; configuration < 3; ++configuration) {
    for (int k = 0; k < model.size(); ++k) {
      if (!model.forest().is_base(k))
        model.weight(k) = 0.5 * random_matrix(static_cast<int>(model.weight(k).rows()),
                                              static_cast<int>(model.weight(k).cols()), rng);
      model.inertia(k) = random_spd(model.node_dim(k), rng);
    }
    sparse_mass_matrix(model, workspace, mass);
    EXPECT_EQ(mass.valuePtr(), values);  // same storage, new numbers
    EXPECT_LT(relative_error(Eigen::MatrixXd(mass), dense_mass_matrix(model)), 1e-10);
  }
}

TEST(SparseAssembly, RenumberingKeepsTheStoredPatternAndMovesEntries) {
  std::mt19937 rng(11);
  RandomSkoOptions options;
  options.nodes = 20;
  const SkoModel model = random_bounded_sko_model(options, rng);
  Eigen::SparseMatrix<double> mass = sparse_mass_matrix(model);
  mass.coeffRef(0, 0) = 0.0;  // an explicit zero must survive
  const int n = static_cast<int>(mass.rows());
  std::vector<int> new_index(static_cast<std::size_t>(n));
  std::iota(new_index.begin(), new_index.end(), 0);
  std::shuffle(new_index.begin(), new_index.end(), rng);
  const Eigen::SparseMatrix<double> renumbered = renumber_symmetric(mass, new_index);
  const Eigen::MatrixXd dense(mass), dense_renumbered(renumbered);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(dense_renumbered(new_index[i], new_index[j]), dense(i, j));
  EXPECT_EQ(renumbered.nonZeros(), mass.nonZeros());
  EXPECT_EQ(sparsity_pattern(renumbered).nonzeros(), mass.nonZeros());
  EXPECT_TRUE(sparsity_pattern(renumbered).contains(new_index[0], new_index[0]));
}

TEST(SparseAssembly, InnovationsFactorsReproduceTheMassMatrix) {
  for (int seed = 0; seed < 40; ++seed) {
    std::mt19937 rng(300 + seed);
    const SkoModel model = random_bounded_sko_model(options_for_seed(seed, 15), rng);
    const SparseInnovationsFactors factors = sparse_innovations_factors(model);
    const Eigen::MatrixXd f(factors.newton_euler_factor), d(factors.innovations_inertia);
    const Eigen::MatrixXd mass = dense_mass_matrix(model);
    // Part II Lemma 11, Eq. 49: M = [I + H A K] D [I + H A K]*; Eq. 50: the inverse factor.
    EXPECT_LT(relative_error(f * d * f.transpose(), mass), 1e-9) << "seed " << seed;
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(mass.rows(), mass.cols());
    EXPECT_LT(relative_error(f * Eigen::MatrixXd(factors.inverse_factor), identity), 1e-9);
    // Corollary 6.1: nonzero blocks only for ancestor-or-self pairs (row node above column node).
    const std::vector<int> node = node_of_dof(model.structure().hinge);
    for (int c = 0; c < factors.newton_euler_factor.outerSize(); ++c)
      for (Eigen::SparseMatrix<double>::InnerIterator it(factors.newton_euler_factor, c); it; ++it)
        EXPECT_TRUE(model.forest().is_ancestor_or_self(node[it.row()], node[c]));
  }
}

}  // namespace
}  // namespace skograph

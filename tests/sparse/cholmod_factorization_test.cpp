// CHOLMOD factorizations of the SKO mass matrix: zero fill with the canonical ordering on random
// trees and forests (part I section 2, part II section 7), fill with the root-first one, counted
// against a dense symbolic elimination; L L' = P M P' against the dense H A M A* H*; one analysis
// reused across configurations.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <random>

#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "sparse_support.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using namespace testing_support;

// The random models of these tests: trees and forests, dims 1..4 (dense references stay small).
SkoModel model_for_seed(int seed, int max_nodes) {
  std::mt19937 rng(seed);
  RandomSkoOptions options = options_for_seed(seed, max_nodes);
  options.max_dim = 4;
  return random_bounded_sko_model(options, rng);
}

void expect_factor_reproduces(const CholmodFactorization& chol, const Eigen::MatrixXd& mass,
                              const std::string& what) {
  const Eigen::MatrixXd l(chol.factor());
  ASSERT_EQ(l.rows(), mass.rows()) << what;
  EXPECT_TRUE(l.isLowerTriangular()) << what;
  EXPECT_LT(relative_error(l * l.transpose(), permuted(mass, chol.permutation())), 1e-10) << what;
}

TEST(CholmodFactorization, CanonicalOrderingHasNoFillOnRandomTreesAndForests) {
  int forests = 0;
  for (int seed = 0; seed < 400; ++seed) {
    const SkoModel model = model_for_seed(seed, 30);
    forests += model.forest().bases().size() > 1;
    const SparsityPattern pattern = mass_matrix_pattern(model.structure());
    if (pattern.rows == 0) continue;
    CholmodFactorization chol(model.structure(), MassOrdering::kCanonical);
    // The given order is kept (no postordering) and puts every node after its descendants.
    EXPECT_EQ(chol.permutation(), canonical_dof_order(model.structure()));
    EXPECT_STREQ(chol.ordering_used(), "given");
    const std::vector<int> node = node_of_dof(model.structure().hinge);
    for (std::size_t i = 0; i < chol.permutation().size(); ++i)
      for (std::size_t j = i + 1; j < chol.permutation().size(); ++j)
        EXPECT_FALSE(
            model.forest().is_ancestor(node[chol.permutation()[i]], node[chol.permutation()[j]]));
    // Zero fill: nnz(L) = nnz(tril M), and the dense symbolic elimination agrees.
    EXPECT_EQ(chol.factor_nonzeros(), lower_nonzeros(pattern)) << "seed " << seed;
    EXPECT_EQ(chol.factor_nonzeros(), dense_symbolic_factor_nonzeros(pattern, chol.permutation()));
    chol.factorize(sparse_mass_matrix(model));
    EXPECT_EQ(chol.factor().nonZeros(), lower_nonzeros(pattern));
    expect_factor_reproduces(chol, dense_mass_matrix(model), "seed " + std::to_string(seed));
  }
  EXPECT_GT(forests, 50);
}

TEST(CholmodFactorization, RootFirstOrderingFillsAsTheDenseEliminationCounts) {
  int filled = 0;
  for (int seed = 0; seed < 300; ++seed) {
    const SkoModel model = model_for_seed(1000 + seed, 30);
    const SparsityPattern pattern = mass_matrix_pattern(model.structure());
    if (pattern.rows == 0) continue;
    CholmodFactorization chol(model.structure(), MassOrdering::kRootFirst);
    std::vector<int> reversed = canonical_dof_order(model.structure());
    std::reverse(reversed.begin(), reversed.end());
    EXPECT_EQ(chol.permutation(), reversed);
    const long reference = dense_symbolic_factor_nonzeros(pattern, reversed);
    EXPECT_EQ(chol.factor_nonzeros(), reference) << "seed " << seed;
    EXPECT_GE(chol.factor_nonzeros(), lower_nonzeros(pattern));
    filled += chol.factor_nonzeros() > lower_nonzeros(pattern);
    chol.factorize(sparse_mass_matrix(model));
    EXPECT_EQ(chol.factor().nonZeros(), reference);
    expect_factor_reproduces(chol, dense_mass_matrix(model), "seed " + std::to_string(seed));
  }
  EXPECT_GT(filled, 150);  // every branched tree fills; only chains (dense M) do not
}

TEST(CholmodFactorization, RootFirstFillOfAStarInClosedForm) {
  // A base with three 1-dof children: M has the base row/column dense and the children mutually
  // unrelated (zero). Children first: no fill, nnz(L) = 4 + 3. Base first: eliminating the base
  // joins the three children, nnz(L) = 4 + 3 + 3.
  auto structure = std::make_shared<const SkoStructure>(
      Forest({-1, 0, 0, 0}), std::vector<int>{2, 2, 2, 2}, std::vector<int>{1, 1, 1, 1});
  EXPECT_EQ(CholmodFactorization(*structure, MassOrdering::kCanonical).factor_nonzeros(), 7);
  EXPECT_EQ(CholmodFactorization(*structure, MassOrdering::kRootFirst).factor_nonzeros(), 10);
}

TEST(CholmodFactorization, AmdAndMetisFactorizeTheSameMatrix) {
  for (int seed = 0; seed < 40; ++seed) {
    const SkoModel model = model_for_seed(2000 + seed, 40);
    const SparsityPattern pattern = mass_matrix_pattern(model.structure());
    if (pattern.rows == 0) continue;
    const Eigen::MatrixXd mass = dense_mass_matrix(model);
    for (MassOrdering ordering : {MassOrdering::kAmd, MassOrdering::kMetis}) {
      try {
        CholmodFactorization chol(model.structure(), ordering);
        EXPECT_STREQ(chol.ordering_used(), ordering_name(ordering));  // no silent substitute
        EXPECT_EQ(chol.factor_nonzeros(),
                  dense_symbolic_factor_nonzeros(pattern, chol.permutation()));
        EXPECT_GE(chol.factor_nonzeros(), lower_nonzeros(pattern));
        chol.factorize(sparse_mass_matrix(model));
        expect_factor_reproduces(chol, mass, ordering_name(ordering));
      } catch (const OrderingUnavailable& e) {
        // Only METIS may be compiled out of a CHOLMOD build.
        EXPECT_EQ(ordering, MassOrdering::kMetis);
        EXPECT_NE(std::string(e.what()).find("not available"), std::string::npos);
      }
    }
  }
}

TEST(CholmodFactorization, AnalyzeOnceFactorizeAtSeveralConfigurations) {
  std::mt19937 rng(99);
  RandomSkoOptions options;
  options.nodes = 40;
  options.trees = 2;
  options.max_dim = 6;
  SkoModel model = random_bounded_sko_model(options, rng);
  CholmodFactorization chol(model.structure(), MassOrdering::kCanonical);
  const long analysed = chol.factor_nonzeros();
  CompositeInertiaWorkspace workspace(model.structure());
  Eigen::SparseMatrix<double> mass;
  for (int configuration = 0; configuration < 5; ++configuration) {
    for (int k = 0; k < model.size(); ++k) {
      if (!model.forest().is_base(k))
        model.weight(k) = 0.5 * random_matrix(static_cast<int>(model.weight(k).rows()),
                                              static_cast<int>(model.weight(k).cols()), rng);
      model.inertia(k) = random_spd(model.node_dim(k), rng);
    }
    sparse_mass_matrix(model, workspace, mass);
    chol.factorize(mass);
    EXPECT_EQ(chol.factor_nonzeros(), analysed);
    const Eigen::MatrixXd dense = dense_mass_matrix(model);
    expect_factor_reproduces(chol, dense, "configuration " + std::to_string(configuration));
    const Eigen::VectorXd b = random_vector(static_cast<int>(dense.rows()), rng);
    const Eigen::VectorXd x = chol.solve(b);
    EXPECT_LT((dense * x - b).norm() / b.norm(), 1e-9);
    EXPECT_LT((x - dense.llt().solve(b)).norm() / x.norm(), 1e-9);
  }
}

TEST(CholmodFactorization, AModelWithoutDofsHasAnEmptyFactor) {
  // Welds only (r_k = 0): M is 0 x 0 and so is L.
  auto structure = std::make_shared<const SkoStructure>(Forest({-1, 0}), std::vector<int>{2, 3},
                                                        std::vector<int>{0, 0});
  SkoModel model(structure);
  CholmodFactorization chol(*structure, MassOrdering::kCanonical);
  EXPECT_EQ(chol.factor_nonzeros(), 0);
  chol.factorize(sparse_mass_matrix(model));
  EXPECT_EQ(chol.factor().rows(), 0);
  EXPECT_EQ(chol.solve(Eigen::VectorXd()).size(), 0);
}

TEST(CholmodFactorization, BadInputIsReportedNotCrashed) {
  auto structure = std::make_shared<const SkoStructure>(
      Forest({-1, 0, 1}), std::vector<int>{1, 1, 1}, std::vector<int>{1, 1, 1});
  const SparsityPattern pattern = mass_matrix_pattern(*structure);
  EXPECT_THROW(CholmodFactorization(pattern, MassOrdering::kCanonical, {0, 1}),
               std::invalid_argument);
  EXPECT_THROW(CholmodFactorization(pattern, MassOrdering::kCanonical, {0, 0, 1}),
               std::invalid_argument);
  CholmodFactorization chol(*structure, MassOrdering::kCanonical);
  EXPECT_THROW(chol.factor(), std::logic_error);
  // A wrong pattern (diagonal only) and an indefinite matrix with the right pattern.
  Eigen::SparseMatrix<double> diagonal(3, 3);
  diagonal.setIdentity();
  EXPECT_THROW(chol.factorize(diagonal), std::invalid_argument);
  Eigen::SparseMatrix<double> indefinite = pattern_matrix(pattern);
  indefinite.coeffRef(0, 0) = 1.0;
  indefinite.coeffRef(1, 1) = -1.0;
  indefinite.coeffRef(2, 2) = 1.0;
  EXPECT_THROW(chol.factorize(indefinite), SingularMassMatrixError);
  EXPECT_FALSE(chol.factorized());
  // Same number of lower entries as the analysed pattern of a star, but another structure.
  auto star = std::make_shared<const SkoStructure>(Forest({-1, 0, 0}), std::vector<int>{1, 1, 1},
                                                   std::vector<int>{1, 1, 1});
  CholmodFactorization star_chol(*star, MassOrdering::kCanonical);
  Eigen::SparseMatrix<double> chain(3, 3);
  const std::vector<Eigen::Triplet<double>> entries = {
      {0, 0, 4.0}, {1, 0, 1.0}, {0, 1, 1.0}, {1, 1, 4.0}, {2, 1, 1.0}, {1, 2, 1.0}, {2, 2, 4.0}};
  chain.setFromTriplets(entries.begin(), entries.end());
  EXPECT_THROW(star_chol.factorize(chain), std::invalid_argument);
  EXPECT_EQ(parse_ordering("root-first"), MassOrdering::kRootFirst);
  EXPECT_EQ(parse_ordering("rcm"), std::nullopt);
}

}  // namespace
}  // namespace skograph

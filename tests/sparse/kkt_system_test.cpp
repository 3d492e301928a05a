// The KKT system of closed chains (sparse/kkt_system.hpp): the symbolic fill count
// against CHOLMOD's analysis and its numeric LDL* factor, the M block fill-free in the canonical
// KKT order, and the factor's solution against a dense solve of the same system and against the
// multiplier method and embedding.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/multiplier_dynamics.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/kkt_system.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "support/closed_chain_support.hpp"

namespace skograph {
namespace {

using namespace testing_support;

const Eigen::Vector3d kGravity(0, 0, -9.81);

long actual_factor_nonzeros(const Eigen::SparseMatrix<double>& factor) {
  long count = 0;
  for (int c = 0; c < factor.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(factor, c); it; ++it) ++count;
  return count;
}

// Random symmetric patterns: the elimination-tree count equals CHOLMOD's analysis in the natural
// order (given as the identity).
TEST(SymbolicFactor, CountsWhatCholmodAnalyses) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 5 + trial;
    std::vector<Eigen::Triplet<double>> entries;
    std::bernoulli_distribution edge(0.15);
    for (int i = 0; i < n; ++i) {
      entries.emplace_back(i, i, n + 1.0);
      for (int j = 0; j < i; ++j)
        if (edge(rng)) {
          entries.emplace_back(i, j, 1.0);
          entries.emplace_back(j, i, 1.0);
        }
    }
    Eigen::SparseMatrix<double> matrix(n, n);
    matrix.setFromTriplets(entries.begin(), entries.end());
    std::vector<int> natural(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) natural[static_cast<std::size_t>(i)] = i;
    const SparsityPattern pattern = sparsity_pattern(matrix);
    const CholmodFactorization analysis(pattern, MassOrdering::kCanonical, natural);
    EXPECT_EQ(symbolic_factor_nonzeros(pattern), analysis.factor_nonzeros()) << trial;
  }
}

// For every closed case: K's LDL* in the KKT order has the predicted nnz(L), leaves the M block
// without fill, and solves to the dense solution, the multiplier method and embedding.
TEST(KktSystem, FactorIsPredictedAndSolvesTheClosedChain) {
  std::mt19937 rng(21);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model), reference(model);
    const int n = model.dof_count();
    const Eigen::VectorXd tau = rigid_random_state(n, rng, 2.0);
    MultiplierWorkspace work(model);
    const Eigen::VectorXd qdd =
        forward_dynamics_by_multipliers(model, data, work, c.q, c.qd, tau, kGravity);
    const Eigen::VectorXd embedded = forward_dynamics(model, reference, c.q, c.qd, tau, kGravity);
    RigidBodyData tree_data(model.tree());
    const Eigen::MatrixXd dense_mass = mass_matrix(model.tree(), tree_data, c.q);
    const Eigen::VectorXd bias = bias_forces(model.tree(), tree_data, c.q, c.qd, kGravity);
    // M with its structural pattern (zeros kept) and its canonical order.
    Eigen::SparseMatrix<double> mass =
        pattern_matrix(mass_matrix_pattern(*model.tree().structure()));
    for (int col = 0; col < mass.outerSize(); ++col)
      for (Eigen::SparseMatrix<double>::InnerIterator it(mass, col); it; ++it)
        it.valueRef() = dense_mass(it.row(), col);
    const std::vector<int> canonical = canonical_dof_order(*model.tree().structure());

    const KktSystem kkt(mass, canonical, work.constraints.jacobian);
    const Eigen::SparseMatrix<double>& k = kkt.matrix();
    std::vector<int> natural(static_cast<std::size_t>(k.rows()));
    for (std::size_t i = 0; i < natural.size(); ++i) natural[i] = static_cast<int>(i);
    CholmodFactorization factor(sparsity_pattern(k), MassOrdering::kCanonical, natural,
                                FactorKind::kLdl);
    EXPECT_EQ(kkt.factor_nonzeros(), factor.factor_nonzeros()) << c.name;
    factor.factorize(k);
    EXPECT_EQ(kkt.factor_nonzeros(), actual_factor_nonzeros(factor.factor())) << c.name;
    // No fill in the M block: L restricted to dof rows and columns has tril(M)'s count.
    const Eigen::SparseMatrix<double> l = factor.factor();
    long mass_block = 0;
    for (int col = 0; col < l.outerSize(); ++col)
      for (Eigen::SparseMatrix<double>::InnerIterator it(l, col); it; ++it)
        mass_block += kkt.order()[static_cast<std::size_t>(it.row())] < n &&
                      kkt.order()[static_cast<std::size_t>(col)] < n;
    EXPECT_EQ(mass_block, kkt.mass_factor_nonzeros()) << c.name;
    long lower_mass = 0;
    for (int col = 0; col < mass.outerSize(); ++col)
      for (Eigen::SparseMatrix<double>::InnerIterator it(mass, col); it; ++it)
        lower_mass += it.row() >= col;
    EXPECT_EQ(kkt.mass_factor_nonzeros(), lower_mass) << c.name;

    const Eigen::VectorXd right = kkt.right_side(tau - bias, work.constraints.bias);
    const Eigen::VectorXd solution = kkt.unpermute(factor.solve(right));
    const Eigen::VectorXd dense = Eigen::MatrixXd(k).fullPivLu().solve(right);
    const Eigen::VectorXd dense_solution = kkt.unpermute(dense);
    const double scale = 1 + qdd.cwiseAbs().maxCoeff();
    EXPECT_LT((solution - dense_solution).cwiseAbs().maxCoeff(),
              1e-12 * (1 + dense_solution.cwiseAbs().maxCoeff()))
        << c.name;
    EXPECT_LT((solution.head(n) - qdd).cwiseAbs().maxCoeff(), 1e-10 * scale) << c.name;
    EXPECT_LT((solution.head(n) - embedded).cwiseAbs().maxCoeff(), 1e-10 * scale) << c.name;
    EXPECT_LT((solution.tail(kkt.multiplier_count()) + work.multipliers).cwiseAbs().maxCoeff(),
              1e-9 * (1 + work.multipliers.cwiseAbs().maxCoeff()))
        << c.name;
  }
}

}  // namespace
}  // namespace skograph

#include "skograph/operators/innovations.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/operator_support.hpp"

namespace skograph {
namespace {

using Eigen::MatrixXd;
using testing_support::relative_error;

TEST(Innovations, FactorizationAndInverseFactorMatchTheDenseMassMatrix) {
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(6000 + seed);
    const SkoModel model = testing_support::random_bounded_sko_model(
        testing_support::options_for_seed(seed, 100), rng);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    ArticulatedBodyWorkspace workspace(model.structure_ptr());
    InnovationsFactors factors;
    innovations_factors(model, workspace, factors);
    const MatrixXd mass = testing_support::dense_mass_matrix(model);
    const int dofs = static_cast<int>(mass.rows());
    const MatrixXd identity = MatrixXd::Identity(dofs, dofs);
    const MatrixXd& f = factors.newton_euler_factor;
    // Eq. 49: M = [I + H A K] D [I + H A K]*.
    EXPECT_LT(relative_error(f * factors.innovations_inertia * f.transpose(), mass), 1e-10);
    // Eq. 50: [I - H psi K] [I + H A K] = I.
    EXPECT_LT(relative_error(factors.inverse_factor * f, identity), 1e-10);
    // The factors against the dense definitions: K = E_A G, psi = (I - E_A tau-bar)^-1.
    const BlockLayout& node = model.structure().node;
    const BlockLayout& hinge = model.structure().hinge;
    const MatrixXd h = testing_support::dense_hinge_map(model);
    const MatrixXd g = testing_support::dense_block_diagonal(workspace.kalman_gain, node, hinge);
    const MatrixXd k = testing_support::dense_kernel(model) * g;
    EXPECT_LT(relative_error(f, identity + h * testing_support::dense_resolvent(model) * k), 1e-10);
    const MatrixXd psi = (MatrixXd::Identity(node.total(), node.total()) -
                          testing_support::dense_bwa(workspace.psi_kernel))
                             .inverse();
    EXPECT_LT(relative_error(factors.inverse_factor, identity - h * psi * k), 1e-10);
    // Corollary 6.1 part 1: identity diagonal blocks, non-zero blocks only for ancestor pairs.
    const Forest& forest = model.forest();
    for (int i = 0; i < model.size(); ++i)
      for (int j = 0; j < model.size(); ++j) {
        if (hinge.dim(i) == 0 || hinge.dim(j) == 0 || forest.is_ancestor(i, j)) continue;
        const MatrixXd expected = i == j ? MatrixXd(MatrixXd::Identity(hinge.dim(i), hinge.dim(j)))
                                         : MatrixXd(MatrixXd::Zero(hinge.dim(i), hinge.dim(j)));
        EXPECT_EQ(f.block(hinge.offset(i), hinge.offset(j), hinge.dim(i), hinge.dim(j)), expected);
        EXPECT_EQ(factors.inverse_factor.block(hinge.offset(i), hinge.offset(j), hinge.dim(i),
                                               hinge.dim(j)),
                  expected);
      }
    // The sparse factors hold the same values.
    SparseInnovationsFactors sparse;
    innovations_factors(model, workspace, sparse);
    EXPECT_LT(relative_error(MatrixXd(sparse.newton_euler_factor), f), 1e-14);
    EXPECT_LT(relative_error(MatrixXd(sparse.innovations_inertia), factors.innovations_inertia),
              1e-14);
    EXPECT_LT(relative_error(MatrixXd(sparse.inverse_factor), factors.inverse_factor), 1e-14);
  }
}

TEST(Innovations, MassMatrixInverseMatchesDenseCholeskyInverse) {
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(7000 + seed);
    const SkoModel model = testing_support::random_bounded_sko_model(
        testing_support::options_for_seed(seed, 100), rng);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    ForwardDynamicsWorkspace workspace(model.structure_ptr());
    MatrixXd inverse;
    mass_matrix_inverse(model, workspace, inverse);
    const MatrixXd mass = testing_support::dense_mass_matrix(model);
    const MatrixXd reference = mass.llt().solve(MatrixXd::Identity(mass.rows(), mass.cols()));
    EXPECT_LT(relative_error(inverse, reference), 1e-10);
    // Eq. 51 with the dense factors: M^-1 = [I - H psi K]* D^-1 [I - H psi K].
    InnovationsFactors factors;
    innovations_factors(model, workspace.articulated, factors);
    EXPECT_LT(relative_error(factors.inverse_factor.transpose() *
                                 factors.innovations_inertia.inverse() * factors.inverse_factor,
                             reference),
              1e-10);
  }
}

TEST(Innovations, DeterminantIsTheProductOfTheDBlockDeterminants) {
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(8000 + seed);
    const SkoModel model =
        testing_support::random_sko_model(testing_support::options_for_seed(seed, 60), rng);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    ArticulatedBodyWorkspace workspace(model.structure_ptr());
    const MatrixXd mass = testing_support::dense_mass_matrix(model);
    const Eigen::LLT<MatrixXd> llt(mass);
    ASSERT_EQ(llt.info(), Eigen::Success);
    double reference_log = 0.0;  // log det M = 2 sum log L(i, i)
    for (int i = 0; i < mass.rows(); ++i) reference_log += 2.0 * std::log(llt.matrixL()(i, i));
    const double log_det = mass_matrix_log_determinant(model, workspace);
    EXPECT_NEAR(log_det, reference_log, 1e-10 * std::max(1.0, std::abs(reference_log)));
    // Eq. 52: det [I + H A K] = 1.
    InnovationsFactors factors;
    innovations_factors(model, workspace, factors);
    if (mass.rows() <= 200) {
      EXPECT_NEAR(factors.newton_euler_factor.determinant(), 1.0, 1e-8);
    }
    if (std::abs(reference_log) < 200.0) {
      const double det = mass_matrix_determinant(model, workspace);
      EXPECT_NEAR(det, mass.determinant(), 1e-10 * std::abs(mass.determinant()));
    }
  }
}

}  // namespace
}  // namespace skograph

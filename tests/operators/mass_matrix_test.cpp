#include "skograph/operators/mass_matrix.hpp"

#include <gtest/gtest.h>

#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::relative_error;

TEST(MassMatrix, EqualsTheDenseOperatorProductOnRandomTreesAndForests) {
  for (int seed = 0; seed < 40; ++seed) {
    std::mt19937 rng(1000 + seed);
    const SkoModel model =
        testing_support::random_sko_model(testing_support::options_for_seed(seed, 120), rng);
    CompositeInertiaWorkspace workspace(model.structure());
    Eigen::MatrixXd mass;
    mass_matrix(model, workspace, mass);
    const Eigen::MatrixXd reference = testing_support::dense_mass_matrix(model);
    EXPECT_LT(relative_error(mass, reference), 1e-10) << "seed " << seed << " n " << model.size();
  }
}

TEST(MassMatrix, CompositeInertiasAreTheDiagonalBlocksOfAMAStar) {
  // Part II Lemma 3-4 (Eq. 11, 19): R(k) = [A M A*](k, k), and R solves M = R - E_A R E_A*.
  for (int seed = 0; seed < 25; ++seed) {
    std::mt19937 rng(2000 + seed);
    const SkoModel model =
        testing_support::random_sko_model(testing_support::options_for_seed(seed, 120), rng);
    CompositeInertiaWorkspace workspace(model.structure());
    composite_body_inertias(model, workspace);
    const Eigen::MatrixXd a = testing_support::dense_resolvent(model);
    const Eigen::MatrixXd ama = a * testing_support::dense_node_inertia(model) * a.transpose();
    const BlockLayout& node = model.structure().node;
    for (int k = 0; k < model.size(); ++k) {
      const Eigen::MatrixXd reference =
          ama.block(node.offset(k), node.offset(k), node.dim(k), node.dim(k));
      EXPECT_LT(relative_error(workspace.composite_inertia[k], reference), 1e-10)
          << "seed " << seed << " node " << k;
    }
    const Eigen::MatrixXd r =
        testing_support::dense_block_diagonal(workspace.composite_inertia, node, node);
    const Eigen::MatrixXd e = testing_support::dense_kernel(model);
    EXPECT_LT(relative_error(r - e * r * e.transpose(), testing_support::dense_node_inertia(model)),
              1e-10);
    // Disjoint decomposition A M A* = R + A~ R + R A~* (Eq. 19), A~ = A - I.
    const Eigen::MatrixXd a_tilde = a - Eigen::MatrixXd::Identity(a.rows(), a.cols());
    EXPECT_LT(relative_error(r + a_tilde * r + r * a_tilde.transpose(), ama), 1e-10);
  }
}

TEST(MassMatrix, UnrelatedNodePairsGiveZeroBlocksAndOutputIsResized) {
  std::mt19937 rng(77);
  testing_support::RandomSkoOptions options;
  options.nodes = 60;
  options.trees = 4;
  const SkoModel model = testing_support::random_sko_model(options, rng);
  CompositeInertiaWorkspace workspace(model.structure());
  Eigen::MatrixXd mass = Eigen::MatrixXd::Constant(3, 5, 7.0);  // wrong size, garbage values
  mass_matrix(model, workspace, mass);
  const BlockLayout& hinge = model.structure().hinge;
  ASSERT_EQ(mass.rows(), hinge.total());
  const Forest& forest = model.forest();
  int unrelated_pairs = 0;
  for (int i = 0; i < model.size(); ++i)
    for (int j = 0; j < model.size(); ++j)
      if (!forest.related(i, j) && hinge.dim(i) > 0 && hinge.dim(j) > 0) {
        ++unrelated_pairs;
        EXPECT_EQ(mass.block(hinge.offset(i), hinge.offset(j), hinge.dim(i), hinge.dim(j)).norm(),
                  0.0);
      }
  EXPECT_GT(unrelated_pairs, 0);
  EXPECT_LT(relative_error(mass, testing_support::dense_mass_matrix(model)), 1e-10);
}

}  // namespace
}  // namespace skograph

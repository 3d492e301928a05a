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

// Part II section 4.2 prints the mass matrix's block pattern for the canonical tree of part I
// Fig. 2c (parent(1) = 3, parent(2) = 4, parent(3) = parent(4) = parent(5) = 6, parent(6) = 7,
// 1-based): zero blocks exactly for the unrelated pairs. Random node dimensions 1..9 with at least
// one hinge dof each, every method of computing M.
TEST(MassMatrix, HasThePatternPartIIPrintsForTheCanonicalTreeOfFigure2c) {
  const std::vector<std::string> printed = testing_support::pattern_rows(
      "X.X..XX"
      ".X.X.XX"
      "X.X..XX"
      ".X.X.XX"
      "....XXX"
      "XXXXXXX"
      "XXXXXXX",
      7);
  const std::vector<int> parent = {2, 3, 5, 5, 5, 6, Forest::kNone};
  for (int trial = 0; trial < 5; ++trial) {
    std::mt19937 rng(2600 + trial);
    std::vector<int> dims(7), hinge(7);
    for (int k = 0; k < 7; ++k) {
      dims[k] = 1 + static_cast<int>(rng() % 9);
      hinge[k] = 1 + static_cast<int>(rng() % dims[k]);
    }
    auto structure = std::make_shared<const SkoStructure>(Forest(parent), dims, hinge);
    SkoModel model(structure);
    for (int k = 0; k < 7; ++k) {
      if (parent[k] != Forest::kNone)
        model.weight(k) = testing_support::random_matrix(dims[parent[k]], dims[k], rng);
      model.hinge_map(k) = testing_support::random_matrix(hinge[k], dims[k], rng);
      model.inertia(k) = testing_support::random_spd(dims[k], rng);
    }
    CompositeInertiaWorkspace workspace(model.structure());
    Eigen::MatrixXd mass;
    mass_matrix(model, workspace, mass);
    EXPECT_EQ(testing_support::block_pattern(mass, structure->hinge, structure->hinge), printed);
    EXPECT_EQ(testing_support::block_pattern(testing_support::dense_mass_matrix(model),
                                             structure->hinge, structure->hinge, 1e-12),
              printed);
  }
}

}  // namespace
}  // namespace skograph

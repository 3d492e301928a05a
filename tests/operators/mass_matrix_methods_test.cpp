// The serial-chain paper's other ways to M and to inverse dynamics (section 3: the direct and
// symmetry-based methods, Lemma 3.2's composite-body inverse dynamics), generalized to SKO trees
// and forests, against the dense operator products of their definitions (M = H A M A* H*,
// T = H A (M A* (H* thetaddot + a) + b)) and against Algorithm 3.1, on random models with node
// dimensions 1..9; none allocates once its workspace exists.
#include <gtest/gtest.h>

#include <random>

#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "support/allocation_counter.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::relative_error;

TEST(MassMatrixMethods, DirectAndSymmetryBasedEqualTheDenseProductOnRandomTreesAndForests) {
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(3100 + seed);
    const SkoModel model =
        testing_support::random_sko_model(testing_support::options_for_seed(seed, 80), rng);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    const Eigen::MatrixXd reference = testing_support::dense_mass_matrix(model);
    MassMatrixMethodsWorkspace workspace(model.structure());
    Eigen::MatrixXd direct, symmetry;
    mass_matrix_direct(model, workspace, direct);
    mass_matrix_symmetry(model, workspace, symmetry);
    EXPECT_LT(relative_error(direct, reference), 1e-10);
    EXPECT_LT(relative_error(symmetry, reference), 1e-10);
  }
}

TEST(CompositeInverseDynamics, EqualsTheDenseDefinitionAndNewtonEulerOnRandomTreesAndForests) {
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(3200 + seed);
    const SkoModel model =
        testing_support::random_sko_model(testing_support::options_for_seed(seed, 80), rng);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    const SkoStructure& s = model.structure();
    const Eigen::VectorXd thetadot = testing_support::random_vector(s.hinge.total(), rng);
    const Eigen::VectorXd thetaddot = testing_support::random_vector(s.hinge.total(), rng);
    const Eigen::VectorXd a = testing_support::random_vector(s.node.total(), rng);
    const Eigen::VectorXd b = testing_support::random_vector(s.node.total(), rng);
    CompositeInverseDynamicsWorkspace workspace(s);
    const Eigen::VectorXd base =
        testing_support::random_vector(workspace.base_acceleration_size, rng);
    // Dense: the base acceleration enters as part of a at the base nodes.
    Eigen::VectorXd a_with_base = a;
    for (const int k : s.forest.bases())
      a_with_base.segment(s.node.offset(k), s.node.dim(k)) +=
          base.segment(workspace.base_offset[k], s.node.dim(k));
    const Eigen::MatrixXd h = testing_support::dense_hinge_map(model);
    const Eigen::MatrixXd resolvent = testing_support::dense_resolvent(model);
    const Eigen::VectorXd reference =
        h * resolvent *
        (testing_support::dense_node_inertia(model) * resolvent.transpose() *
             (h.transpose() * thetaddot + a_with_base) +
         b);
    const Eigen::VectorXd composite =
        inverse_dynamics_by_composite_inertias(model, thetaddot, a, b, base, workspace);
    EXPECT_LT(relative_error(composite, reference), 1e-10);
    InverseDynamicsWorkspace newton_euler(s);
    EXPECT_LT(relative_error(composite, inverse_dynamics(model, thetadot, thetaddot, a, b, base,
                                                         newton_euler)),
              1e-10);
    // Lemma 3.2's force split: f = R alpha + z equals Newton-Euler's inter-node forces.
    EXPECT_LT(relative_error(workspace.force, newton_euler.force), 1e-10);
  }
}

TEST(MassMatrixMethods, NoneAllocatesOnceItsWorkspaceExists) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  std::mt19937 rng(3300);
  testing_support::RandomSkoOptions options;
  options.nodes = 120;
  options.trees = 2;
  const SkoModel model = testing_support::random_sko_model(options, rng);
  const SkoStructure& s = model.structure();
  MassMatrixMethodsWorkspace workspace(s);
  CompositeInverseDynamicsWorkspace composite(s);
  Eigen::MatrixXd mass(s.hinge.total(), s.hinge.total());
  const Eigen::VectorXd thetaddot = testing_support::random_vector(s.hinge.total(), rng);
  const Eigen::VectorXd a = testing_support::random_vector(s.node.total(), rng);
  const Eigen::VectorXd base =
      testing_support::random_vector(composite.base_acceleration_size, rng);
  EXPECT_EQ(testing_support::allocations_in([&] { mass_matrix_direct(model, workspace, mass); }),
            0);
  EXPECT_EQ(testing_support::allocations_in([&] { mass_matrix_symmetry(model, workspace, mass); }),
            0);
  EXPECT_EQ(testing_support::allocations_in([&] {
              inverse_dynamics_by_composite_inertias(model, thetaddot, a, a, base, composite);
            }),
            0);
}

}  // namespace
}  // namespace skograph

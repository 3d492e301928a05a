#include "skograph/operators/forward_dynamics_alternatives.hpp"

#include <gtest/gtest.h>

#include "skograph/operators/forward_dynamics.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::relative_error;

TEST(ForwardDynamicsAlternatives, AllFamiliesEqualTheArticulatedBodyResult) {
  int total_plain = 0, total_preconditioned = 0;
  for (int seed = 0; seed < 24; ++seed) {
    std::mt19937 rng(9000 + seed);
    const SkoModel model =
        testing_support::random_bounded_sko_model(testing_support::options_for_seed(seed, 50), rng);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    const SkoStructure& structure = model.structure();
    const int dofs = structure.hinge.total(), nodes = structure.node.total();
    const Eigen::VectorXd thetadot = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd force = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd a = testing_support::random_vector(nodes, rng);
    const Eigen::VectorXd b = testing_support::random_vector(nodes, rng);

    ForwardDynamicsWorkspace articulated(model.structure_ptr());
    const Eigen::VectorXd reference = forward_dynamics(model, thetadot, force, a, b, articulated);
    // The AB result itself against the dense definition, so that "equal to AB" means correct.
    const Eigen::MatrixXd mass = testing_support::dense_mass_matrix(model);
    const Eigen::MatrixXd h = testing_support::dense_hinge_map(model);
    const Eigen::MatrixXd resolvent = testing_support::dense_resolvent(model);
    const Eigen::VectorXd bias =
        h * resolvent *
        (testing_support::dense_node_inertia(model) * resolvent.transpose() * a + b);
    ASSERT_LT(relative_error(reference, mass.llt().solve(force - bias)), 1e-10);

    AlternativeForwardDynamicsWorkspace workspace(model.structure_ptr());
    EXPECT_LT(relative_error(forward_dynamics_cholesky(model, thetadot, force, a, b, workspace),
                             reference),
              1e-10);
    EXPECT_LT(relative_error(forward_dynamics_innovations(model, thetadot, force, a, b, workspace),
                             reference),
              1e-10);
    ConjugateGradientOptions options;
    const ConjugateGradientReport plain =
        forward_dynamics_conjugate_gradient(model, thetadot, force, a, b, options, workspace);
    EXPECT_TRUE(plain.converged) << "residual " << plain.relative_residual;
    EXPECT_LT(relative_error(workspace.generalized_acceleration, reference), 1e-10);
    options.preconditioner = ConjugateGradientPreconditioner::kCompositeBodyInertia;
    const ConjugateGradientReport preconditioned =
        forward_dynamics_conjugate_gradient(model, thetadot, force, a, b, options, workspace);
    EXPECT_TRUE(preconditioned.converged) << "residual " << preconditioned.relative_residual;
    EXPECT_LT(relative_error(workspace.generalized_acceleration, reference), 1e-10);
    EXPECT_GT(plain.iterations, 0);
    EXPECT_GT(preconditioned.iterations, 0);
    total_plain += plain.iterations;
    total_preconditioned += preconditioned.iterations;
  }
  RecordProperty("cg_iterations_plain", total_plain);
  RecordProperty("cg_iterations_preconditioned", total_preconditioned);
  std::printf("CG iterations over all seeds: plain %d, H R H* preconditioned %d\n", total_plain,
              total_preconditioned);
}

TEST(ForwardDynamicsAlternatives, ConjugateGradientStopsAtTheIterationLimitAndSaysSo) {
  std::mt19937 rng(91);
  testing_support::RandomSkoOptions options;
  options.nodes = 30;
  const SkoModel model = testing_support::random_bounded_sko_model(options, rng);
  const int dofs = model.structure().hinge.total(), nodes = model.structure().node.total();
  AlternativeForwardDynamicsWorkspace workspace(model.structure_ptr());
  ConjugateGradientOptions cg;
  cg.max_iterations = 2;
  const Eigen::VectorXd zero_nodes = Eigen::VectorXd::Zero(nodes);
  const ConjugateGradientReport report = forward_dynamics_conjugate_gradient(
      model, Eigen::VectorXd::Zero(dofs), testing_support::random_vector(dofs, rng), zero_nodes,
      zero_nodes, cg, workspace);
  EXPECT_EQ(report.iterations, 2);
  EXPECT_FALSE(report.converged);
  EXPECT_GT(report.relative_residual, cg.relative_tolerance);
}

}  // namespace
}  // namespace skograph

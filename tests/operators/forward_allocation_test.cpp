// The forward-dynamics family must not allocate once its workspace exists (house rule); malloc
// calls are counted by support/allocation_counter.hpp.
#include <gtest/gtest.h>

#include <random>

#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/forward_dynamics_alternatives.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/operators/operational_space.hpp"
#include "support/allocation_counter.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::allocations_in;

TEST(ForwardAllocation, TheCounterSeesEigenAllocations) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  EXPECT_GT(allocations_in([] {
              Eigen::VectorXd scratch = Eigen::VectorXd::Zero(1000);
              testing_support::keep_alive(scratch.data());
            }),
            0);
}

TEST(ForwardAllocation, RecursionsDoNotAllocateOnceTheWorkspaceExists) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  std::mt19937 rng(21);
  testing_support::RandomSkoOptions options;
  options.nodes = 200;
  options.trees = 3;
  const SkoModel model = testing_support::random_bounded_sko_model(options, rng);
  const int dofs = model.structure().hinge.total(), nodes = model.structure().node.total();
  const Eigen::VectorXd thetadot = testing_support::random_vector(dofs, rng);
  const Eigen::VectorXd force = testing_support::random_vector(dofs, rng);
  const Eigen::VectorXd a = testing_support::random_vector(nodes, rng);
  const Eigen::VectorXd b = testing_support::random_vector(nodes, rng);
  ForwardDynamicsWorkspace forward(model.structure_ptr());
  CompositeInertiaWorkspace composite(model.structure());
  OperationalSpaceWorkspace operational(model.structure_ptr());
  AlternativeForwardDynamicsWorkspace alternatives(model.structure_ptr());
  Eigen::MatrixXd mass(dofs, dofs);
  {
    const long count = allocations_in([&] {
      forward_dynamics(model, thetadot, force, a, b, forward);
      apply_mass_matrix_inverse(model, force, forward);
    });
    EXPECT_EQ(count, 0) << "forward_dynamics";
  }
  {
    const long count = allocations_in([&] {
      composite_body_inertias(model, composite);
      mass_matrix(model, composite, mass);
    });
    EXPECT_EQ(count, 0) << "composite_body_inertias / mass_matrix";
  }
  {
    const long count =
        allocations_in([&] { operational_space_compliance_diagonal(model, operational); });
    EXPECT_EQ(count, 0) << "operational_space_compliance_diagonal";
  }
  // forward_dynamics_cholesky is left out: Eigen's blocked dense LLT takes its GEMM blocking
  // buffers from the heap once N x N exceeds the stack limit (documented in its header).
  {
    const long count = allocations_in(
        [&] { forward_dynamics_innovations(model, thetadot, force, a, b, alternatives); });
    EXPECT_EQ(count, 0) << "innovations";
  }
  {
    const long count = allocations_in([&] {
      ConjugateGradientOptions cg;
      cg.preconditioner = ConjugateGradientPreconditioner::kCompositeBodyInertia;
      forward_dynamics_conjugate_gradient(model, thetadot, force, a, b, cg, alternatives);
    });
    EXPECT_EQ(count, 0) << "cg";
  }
}

}  // namespace
}  // namespace skograph

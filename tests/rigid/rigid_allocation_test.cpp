// Once RigidBodyData exists, the per-step rigid-body functions must not allocate (house rule);
// malloc calls are counted by support/allocation_counter.hpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/free_flying.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/rigid/tangent.hpp"
#include "support/allocation_counter.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using testing_support::allocations_in;

TEST(RigidAllocation, StepFunctionsDoNotAllocate) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  EXPECT_GT(allocations_in([] {
              Eigen::VectorXd scratch = Eigen::VectorXd::Zero(17);
              testing_support::keep_alive(scratch.data());
            }),
            0);  // the counter sees allocations
  std::mt19937 rng(11);
  testing_support::RandomMechanismOptions options;
  options.links = 30;
  const RigidBodyModel model(testing_support::random_mechanism(options, rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = testing_support::rigid_random_state(n, rng);
  const Eigen::VectorXd qd = testing_support::rigid_random_state(n, rng);
  const Eigen::VectorXd qdd = testing_support::rigid_random_state(n, rng);
  const Eigen::Vector3d gravity(0, 0, -9.81);
  mass_matrix(model, data, q);  // sizes data.mass once
  // The generic-operator paths make their workspaces on first use, once.
  forward_dynamics_through_operators(model, data, q, qd, qdd, gravity);
  mass_matrix_through_operators(model, data, q);
  EXPECT_EQ(allocations_in([&] { update_kinematics(model, q, qd, data); }), 0);
  EXPECT_EQ(allocations_in([&] { inverse_dynamics(model, data, q, qd, qdd, gravity); }), 0);
  EXPECT_EQ(allocations_in([&] { forward_dynamics(model, data, q, qd, qdd, gravity); }), 0);
  EXPECT_EQ(
      allocations_in([&] { forward_dynamics_through_operators(model, data, q, qd, qdd, gravity); }),
      0);
  EXPECT_EQ(allocations_in([&] { mass_matrix(model, data, q); }), 0);
  EXPECT_EQ(allocations_in([&] { mass_matrix_through_operators(model, data, q); }), 0);
  EXPECT_EQ(allocations_in([&] { bias_forces(model, data, q, qd, gravity); }), 0);
  // The derivatives size their results and the workspace on the first call.
  InverseDynamicsDerivatives id;
  ForwardDynamicsDerivatives fd;
  inverse_dynamics_derivatives(model, data, q, qd, qdd, gravity, id);
  forward_dynamics_derivatives(model, data, q, qd, qdd, gravity, fd);
  EXPECT_EQ(
      allocations_in([&] { inverse_dynamics_derivatives(model, data, q, qd, qdd, gravity, id); }),
      0);
  EXPECT_EQ(
      allocations_in([&] { forward_dynamics_derivatives(model, data, q, qd, qdd, gravity, fd); }),
      0);
  Eigen::VectorXd moved(n), back(n);
  EXPECT_EQ(allocations_in([&] {
              integrate(model, q, qd, 0.1, moved);
              difference(model, q, moved, back);
            }),
            0);
  FreeFlyingData free_flying(model);  // the random mechanism has a floating base
  EXPECT_EQ(allocations_in([&] {
              base_invariant_forward_dynamics(model, data, free_flying, q, qd, qdd, gravity);
            }),
            0);
  EXPECT_EQ(
      allocations_in([&] { decoupled_operational_space_inertias(model, data, free_flying, q); }),
      0);
  EXPECT_EQ(
      allocations_in([&] { dual_operational_space_compliances(model, data, free_flying, q); }), 0);
}

}  // namespace
}  // namespace skograph

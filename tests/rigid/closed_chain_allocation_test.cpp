// Once ClosedChainData has seen a state, the closed-chain dynamics calls must not allocate again
// (issue 27; house rule: no allocation in a recursion). malloc calls are counted by
// support/allocation_counter.hpp.
#include <gtest/gtest.h>

#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "support/allocation_counter.hpp"
#include "support/closed_chain_support.hpp"

namespace skograph {
namespace {

using testing_support::allocations_in;

TEST(ClosedChainAllocation, InverseDynamicsAndReducedMassDoNotAllocateAfterTheFirstCall) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  for (const testing_support::ClosedCase& c : testing_support::closed_cases()) {
    SCOPED_TRACE(c.name);
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    const Eigen::Vector3d gravity(0, 0, -9.81);
    reduced_mass_matrix(model, data, c.q);  // sizes data.independent
    const Eigen::VectorXd qdd_independent =
        Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(data.independent.size()), -1, 1);
    inverse_dynamics(model, data, c.q, c.qd, qdd_independent, gravity);
    reduced_mass_matrix(model, data, c.q);
    EXPECT_EQ(
        allocations_in([&] { inverse_dynamics(model, data, c.q, c.qd, qdd_independent, gravity); }),
        0);
    EXPECT_EQ(allocations_in([&] { reduced_mass_matrix(model, data, c.q); }), 0);
  }
}

TEST(ClosedChainAllocation, ForwardDynamicsDoesNotAllocateAfterTheFirstCall) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  for (const testing_support::ClosedCase& c : testing_support::closed_cases()) {
    SCOPED_TRACE(c.name);
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    const Eigen::Vector3d gravity(0, 0, -9.81);
    const Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(model.dof_count(), -1, 1);
    forward_dynamics(model, data, c.q, c.qd, tau, gravity);
    forward_dynamics(model, data, c.q, c.qd, tau, gravity);
    EXPECT_EQ(allocations_in([&] { forward_dynamics(model, data, c.q, c.qd, tau, gravity); }), 0);
  }
}

}  // namespace
}  // namespace skograph

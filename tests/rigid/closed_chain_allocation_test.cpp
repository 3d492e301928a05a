// Once ClosedChainData has seen a state, the closed-chain dynamics calls (forward and inverse
// dynamics, M_R, constraint forces, the dynamics' derivatives) must not allocate again (house rule:
// no allocation in a recursion). malloc calls are counted by support/allocation_counter.hpp.
#include <gtest/gtest.h>

#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "support/allocation_counter.hpp"
#include "support/closed_chain_support.hpp"

namespace skograph {
namespace {

using testing_support::allocations_in;

const Eigen::Vector3d gravity(0, 0, -9.81);

// The closed test cases, and the Stewart platform with the user's independent coordinates (leg 1
// and the platform joint: the chosen selection, Y1 in five blocks).
std::vector<testing_support::ClosedCase> allocation_cases() {
  std::vector<testing_support::ClosedCase> cases = testing_support::closed_cases();
  for (const testing_support::ClosedCase& c : testing_support::closed_cases())
    if (c.name == "stewart") {
      testing_support::ClosedCase chosen = c;
      chosen.name = "stewart_chosen";
      chosen.mechanism.independent = {"u1a", "u1b", "leg1", "top1"};
      cases.push_back(chosen);
    }
  return cases;
}

// check(c, model, data) on every allocation case, each with its own model and fresh data.
template <class Check>
void for_each_case(Check check) {
  for (const testing_support::ClosedCase& c : allocation_cases()) {
    SCOPED_TRACE(c.name);
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    check(c, model, data);
  }
}

TEST(ClosedChainAllocation, InverseDynamicsAndReducedMassDoNotAllocateAfterTheFirstCall) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  for_each_case([](const testing_support::ClosedCase& c, const ClosedChainModel& model,
                   ClosedChainData& data) {
    reduced_mass_matrix(model, data, c.q);  // sizes data.independent
    const Eigen::VectorXd qdd_independent =
        Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(data.independent.size()), -1, 1);
    inverse_dynamics(model, data, c.q, c.qd, qdd_independent, gravity);
    reduced_mass_matrix(model, data, c.q);
    EXPECT_EQ(
        allocations_in([&] { inverse_dynamics(model, data, c.q, c.qd, qdd_independent, gravity); }),
        0);
    EXPECT_EQ(allocations_in([&] { reduced_mass_matrix(model, data, c.q); }), 0);
    // M_R is exactly symmetric.
    const Eigen::MatrixXd& reduced = reduced_mass_matrix(model, data, c.q);
    EXPECT_EQ(reduced, reduced.transpose());
  });
}

TEST(ClosedChainAllocation, ForwardDynamicsDoesNotAllocateAfterTheFirstCall) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  for_each_case([](const testing_support::ClosedCase& c, const ClosedChainModel& model,
                   ClosedChainData& data) {
    const Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(model.dof_count(), -1, 1);
    forward_dynamics(model, data, c.q, c.qd, tau, gravity);
    forward_dynamics(model, data, c.q, c.qd, tau, gravity);
    EXPECT_EQ(allocations_in([&] { forward_dynamics(model, data, c.q, c.qd, tau, gravity); }), 0);
  });
}

TEST(ClosedChainAllocation, DerivativesDoNotAllocateAfterTheFirstCall) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  for_each_case([](const testing_support::ClosedCase& c, const ClosedChainModel& model,
                   ClosedChainData& data) {
    const Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(model.dof_count(), -1, 1);
    ClosedChainForwardDerivatives forward;
    ClosedChainInverseDerivatives inverse;
    const auto both = [&] {
      forward_dynamics_derivatives(model, data, c.q, c.qd, tau, gravity, forward);
      inverse_dynamics_derivatives(model, data, c.q, c.qd, tau, gravity, inverse);
    };
    both();
    both();
    EXPECT_EQ(allocations_in(both), 0);
  });
}

// Where no selection reaches the re-selection threshold (an ill-conditioned Y1 everywhere, as on
// example-parallel-robots' robot_delta; here a threshold of 0.999 on the cases whose selection
// after the first call, the rank-revealing choice, is clearly below it: conditioning < 0.6), that
// selection is kept at the next calls: no rank-revealing QR, no allocation, the same
// accelerations.
TEST(ClosedChainAllocation, AKeptIllConditionedSelectionDoesNotAllocate) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  ClosedChainOptions options;
  options.reselect_conditioning = 0.999;
  int checked = 0;
  for (const testing_support::ClosedCase& c : allocation_cases()) {
    if (!c.mechanism.independent.empty()) continue;  // a chosen selection is never re-made
    SCOPED_TRACE(c.name);
    const ClosedChainModel model(c.mechanism, options);
    ClosedChainData data(model);
    const Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(model.dof_count(), -1, 1);
    const Eigen::VectorXd first = forward_dynamics(model, data, c.q, c.qd, tau, gravity);
    bool below = true;
    for (int s = 0; s < model.aggregate_count(); ++s)
      below = below && selection_conditioning(data.constraint_matrix[s], data.selection[s]) < 0.6;
    if (!below) continue;
    ++checked;
    EXPECT_EQ(allocations_in([&] { forward_dynamics(model, data, c.q, c.qd, tau, gravity); }), 0);
    EXPECT_EQ(forward_dynamics(model, data, c.q, c.qd, tau, gravity), first);
  }
  EXPECT_GE(checked, 5);
}

TEST(ClosedChainAllocation, ConstraintForcesDoNotAllocateAfterTheFirstCall) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  for_each_case([](const testing_support::ClosedCase& c, const ClosedChainModel& model,
                   ClosedChainData& data) {
    const Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(model.dof_count(), -1, 1);
    const Eigen::VectorXd qdd = forward_dynamics(model, data, c.q, c.qd, tau, gravity);
    ConstraintForces forces;
    constraint_forces(model, data, c.q, c.qd, qdd, tau, gravity, forces);
    constraint_forces(model, data, c.q, c.qd, qdd, tau, gravity, forces);
    EXPECT_EQ(allocations_in(
                  [&] { constraint_forces(model, data, c.q, c.qd, qdd, tau, gravity, forces); }),
              0);
    EXPECT_LT(forces.residual, 1e-9);  // qdd is the closed chain's motion for tau
  });
}

}  // namespace
}  // namespace skograph

// Closed-chain dynamics do not depend on where the mechanism stands: moved by a translation, under
// uniform gravity, a mechanism has the same accelerations, minimal forces, M_R and Qdot qd, and
// the rounding of the world-axes recursions (rigid/closed_chain/dynamics.cpp) must not grow with
// the distance from the world origin.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "skograph/rigid/closed_chain_model.hpp"
#include "support/closed_chain_support.hpp"

namespace skograph {
namespace {

using namespace testing_support;

// `mechanism` with every joint and loop frame on the world moved by `offset`.
Mechanism translated(Mechanism mechanism, const Eigen::Vector3d& offset) {
  for (Joint& joint : mechanism.joints)
    if (joint.parent < 0) joint.origin.pretranslate(offset);
  for (LoopClosure& loop : mechanism.loops) {
    if (loop.parent < 0) loop.parent_origin.pretranslate(offset);
    if (loop.child < 0) loop.child_origin.pretranslate(offset);
  }
  return mechanism;
}

double relative_difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / (1.0 + b.cwiseAbs().maxCoeff());
}

TEST(ClosedChainPlacement, DynamicsDoNotDependOnWhereTheMechanismStands) {
  // The Stewart platform (legs on the world) and a floating body closed to the world, 1 km away.
  std::mt19937 rng(11);
  Eigen::VectorXd floating_q;
  const Mechanism floating = floating_closed_to_world(rng, floating_q);
  struct Case {
    const char* name;
    Mechanism mechanism;
    Eigen::VectorXd q;
  };
  for (const Case& c : {Case{"stewart", stewart_platform(), Eigen::VectorXd::Zero(21)},
                        Case{"floating_to_world", floating, floating_q}}) {
    SCOPED_TRACE(c.name);
    const ClosedChainModel near(c.mechanism);
    const ClosedChainModel far(translated(c.mechanism, Eigen::Vector3d(800.0, -600.0, 300.0)));
    ClosedChainData near_data(near), far_data(far);
    Eigen::VectorXd q = c.q;
    close_positions(near, near_data, q);
    std::mt19937 state_rng(5);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    Eigen::VectorXd qd(near.dof_count()), tau(near.dof_count());
    for (Eigen::Index i = 0; i < qd.size(); ++i) qd[i] = uniform(state_rng);
    for (Eigen::Index i = 0; i < tau.size(); ++i) tau[i] = 5.0 * uniform(state_rng);
    close_velocities(near, near_data, q, qd);
    const Eigen::Vector3d gravity(0.0, 0.0, -9.81);

    const Eigen::VectorXd qdd_near = forward_dynamics(near, near_data, q, qd, tau, gravity);
    const Eigen::VectorXd qdd_far = forward_dynamics(far, far_data, q, qd, tau, gravity);
    EXPECT_LT(relative_difference(qdd_far, qdd_near), 1e-11);

    ASSERT_EQ(near_data.independent, far_data.independent);
    Eigen::VectorXd qdd_independent(static_cast<Eigen::Index>(near_data.independent.size()));
    for (std::size_t j = 0; j < near_data.independent.size(); ++j)
      qdd_independent[static_cast<Eigen::Index>(j)] = qdd_near[near_data.independent[j]];
    const Eigen::VectorXd id_near =
        inverse_dynamics(near, near_data, q, qd, qdd_independent, gravity);
    const Eigen::VectorXd id_far = inverse_dynamics(far, far_data, q, qd, qdd_independent, gravity);
    EXPECT_LT(relative_difference(id_far, id_near), 1e-11);

    const Eigen::MatrixXd mass_near = reduced_mass_matrix(near, near_data, q);
    const Eigen::MatrixXd mass_far = reduced_mass_matrix(far, far_data, q);
    EXPECT_LT(relative_difference(mass_far, mass_near), 1e-11);
  }
}

}  // namespace
}  // namespace skograph

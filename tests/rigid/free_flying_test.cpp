// Base-invariant free-flying dynamics against the regular algorithms on random free-flying trees:
// decoupled operational-space inertias P + S (Lemma 4.1) versus (J M^-1 J*)^-1 through the
// operators, base-invariant forward dynamics (Algorithm 3.3) versus inverse dynamics.
#include "skograph/rigid/free_flying.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using testing_support::rigid_random_state;

const Eigen::Vector3d kGravity(0.2, 0.1, -9.81);

testing_support::RandomMechanismOptions free_flying_options(int seed) {
  testing_support::RandomMechanismOptions options;
  options.links = 10 + 5 * seed;
  options.floating_base = true;
  options.rotation_vectors = seed % 2 == 0;
  return options;
}

class FreeFlying : public ::testing::TestWithParam<int> {};

TEST_P(FreeFlying, DecoupledOperationalSpaceInertiasMatchTheRegularOnes) {
  std::mt19937 rng(1000 + GetParam());
  const RigidBodyModel model(
      testing_support::random_mechanism(free_flying_options(GetParam()), rng));
  RigidBodyData data(model);
  FreeFlyingData free_flying(model);
  const Eigen::VectorXd q = rigid_random_state(model.dof_count(), rng);
  const std::vector<Matrix6d> decoupled =
      decoupled_operational_space_inertias(model, data, free_flying, q);
  update_positions(model, q, data);
  for (int link = 0; link < model.link_count(); ++link) {
    const Matrix6d regular = operational_space_inertia(model, data, link);
    const Matrix6d& lambda = decoupled[model.node_of_link(link)];
    EXPECT_LT((lambda - regular).cwiseAbs().maxCoeff(), 1e-8 * (1 + regular.cwiseAbs().maxCoeff()))
        << "link " << link;
  }
}

TEST_P(FreeFlying, BaseInvariantForwardDynamicsInvertsInverseDynamics) {
  std::mt19937 rng(1100 + GetParam());
  const RigidBodyModel model(
      testing_support::random_mechanism(free_flying_options(GetParam()), rng));
  RigidBodyData data(model);
  FreeFlyingData free_flying(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng);
  const Eigen::VectorXd qdd = rigid_random_state(n, rng);
  const Eigen::VectorXd tau = inverse_dynamics(model, data, q, qd, qdd, kGravity);
  const Eigen::VectorXd solved =
      base_invariant_forward_dynamics(model, data, free_flying, q, qd, tau, kGravity);
  EXPECT_LT((solved - qdd).cwiseAbs().maxCoeff(), 1e-7);
  // The link accelerations are the inertial ones: inverse dynamics with gravity as body forces.
  update_positions(model, q, data);
  Eigen::VectorXd forces(6 * model.link_count());
  for (int link = 0; link < model.link_count(); ++link) {
    const Link& body = model.mechanism().links[link];
    const Eigen::Vector3d weight =
        body.mass * (data.link_pose[model.node_of_link(link)].linear().transpose() * kGravity);
    forces.segment<3>(6 * link) = body.center_of_mass.cross(weight);
    forces.segment<3>(6 * link + 3) = weight;
  }
  inverse_dynamics(model, data, q, qd, qdd, Eigen::Vector3d::Zero(), forces);
  EXPECT_LT((free_flying.acceleration - data.acceleration).cwiseAbs().maxCoeff(), 1e-7);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FreeFlying, ::testing::Range(0, 4));

TEST(FreeFlyingData, RejectsGroundedSystems) {
  std::mt19937 rng(5);
  testing_support::RandomMechanismOptions options;
  options.floating_base = false;
  const RigidBodyModel model(testing_support::random_mechanism(options, rng));
  EXPECT_THROW(FreeFlyingData{model}, std::invalid_argument);
}

}  // namespace
}  // namespace skograph

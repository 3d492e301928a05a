// Base-invariant free-flying dynamics against the regular algorithms on random free-flying trees:
// decoupled operational-space inertias P + S (Lemma 4.1) versus (J M^-1 J*)^-1 through the
// operators, base-invariant forward dynamics (Algorithm 3.3) versus inverse dynamics, and the
// Section 4 statements on Upsilon(k).
#include "skograph/rigid/free_flying.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <memory>
#include <random>

#include "skograph/operators/operational_space.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using testing_support::rigid_random_state;

const Eigen::Vector3d kTiltedGravity(0.2, 0.1, -9.81);

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
  const Eigen::VectorXd tau = inverse_dynamics(model, data, q, qd, qdd, kTiltedGravity);
  const Eigen::VectorXd solved =
      base_invariant_forward_dynamics(model, data, free_flying, q, qd, tau, kTiltedGravity);
  EXPECT_LT((solved - qdd).cwiseAbs().maxCoeff(), 1e-7);
  // The link accelerations are the inertial ones: inverse dynamics with gravity as body forces.
  update_positions(model, q, data);
  Eigen::VectorXd forces(6 * model.link_count());
  for (int link = 0; link < model.link_count(); ++link) {
    const Link& body = model.mechanism().links[link];
    const Eigen::Vector3d weight =
        body.mass *
        (data.link_pose[model.node_of_link(link)].linear().transpose() * kTiltedGravity);
    forces.segment<3>(6 * link) = body.center_of_mass.cross(weight);
    forces.segment<3>(6 * link + 3) = weight;
  }
  inverse_dynamics(model, data, q, qd, qdd, Eigen::Vector3d::Zero(), forces);
  EXPECT_LT((free_flying.acceleration - data.acceleration).cwiseAbs().maxCoeff(), 1e-7);
}

// Eq. 25's second half: alpha+(k), from P+ + S+ and z+ + z_s+ alone, is the parent's acceleration
// moved to O_k, phi*(p, k) alpha(p); the two threads of Algorithm 3.3 give the one thread's qdd.
TEST_P(FreeFlying, AlphaPlusIsTheParentsAccelerationAndTwoThreadsAgree) {
  std::mt19937 rng(1200 + GetParam());
  const RigidBodyModel model(
      testing_support::random_mechanism(free_flying_options(GetParam()), rng));
  RigidBodyData data(model);
  FreeFlyingData free_flying(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng);
  const Eigen::VectorXd tau = rigid_random_state(n, rng, 5.0);
  const Eigen::VectorXd qdd =
      base_invariant_forward_dynamics(model, data, free_flying, q, qd, tau, kTiltedGravity);
  const Eigen::VectorXd& alpha = free_flying.acceleration;
  for (int k = 0; k < model.node_count(); ++k) {
    const int p = model.forest().parent(k);
    const Vector6d parent = p == Forest::kNone
                                ? Vector6d::Zero()
                                : Vector6d(data.phi[k].transpose() * alpha.segment<6>(6 * p));
    EXPECT_LT((free_flying.acceleration_plus.segment<6>(6 * k) - parent).cwiseAbs().maxCoeff(),
              1e-8 * (1 + parent.cwiseAbs().maxCoeff()))
        << "node " << k;
  }
  for (int round = 0; round < 3; ++round)
    EXPECT_EQ(
        base_invariant_forward_dynamics(model, data, free_flying, q, qd, tau, kTiltedGravity, 2),
        qdd);
}

// Eq. 36: the dual recursion's Upsilon(k) is part II's Omega(k, k) (Eq. 34's recursion) at every
// link, and Lambda(k)^-1.
TEST_P(FreeFlying, DualUpsilonRecursionMatchesTheRegularOne) {
  std::mt19937 rng(1400 + GetParam());
  const RigidBodyModel model(
      testing_support::random_mechanism(free_flying_options(GetParam()), rng));
  RigidBodyData data(model);
  FreeFlyingData free_flying(model);
  const Eigen::VectorXd q = rigid_random_state(model.dof_count(), rng);
  const std::vector<Matrix6d> dual =
      dual_operational_space_compliances(model, data, free_flying, q);
  update_positions(model, q, data);
  synchronize_sko_model(model, data);
  OperationalSpaceWorkspace workspace(data.sko.structure_ptr());
  const BlockDiagonal& regular = operational_space_compliance_diagonal(data.sko, workspace);
  for (int k = 0; k < model.node_count(); ++k) {
    const Matrix6d block = regular.block(k);
    EXPECT_LT((dual[static_cast<std::size_t>(k)] - block).cwiseAbs().maxCoeff(),
              1e-8 * (1 + block.cwiseAbs().maxCoeff()))
        << "node " << k;
    EXPECT_LT((free_flying.operational_space_inertia[static_cast<std::size_t>(k)] *
                   dual[static_cast<std::size_t>(k)] -
               Matrix6d::Identity())
                  .cwiseAbs()
                  .maxCoeff(),
              1e-7)
        << "node " << k;
  }
}

// Algorithm 3.4: from the links' own poses and velocities alone (a fresh workspace that never saw
// q or qd), the same link accelerations and hinge accelerations as Algorithm 3.3 and the
// articulated-body algorithm.
TEST_P(FreeFlying, NonMinimalCoordinatesGiveTheSameAccelerations) {
  std::mt19937 rng(1500 + GetParam());
  testing_support::RandomMechanismOptions options = free_flying_options(GetParam());
  options.planar = false;
  const RigidBodyModel model(testing_support::random_mechanism(options, rng));
  RigidBodyData data(model);
  FreeFlyingData minimal(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng);
  const Eigen::VectorXd tau = rigid_random_state(n, rng, 5.0);
  const Eigen::VectorXd qdd =
      base_invariant_forward_dynamics(model, data, minimal, q, qd, tau, kTiltedGravity);
  const std::vector<Eigen::Isometry3d> poses = data.link_pose;
  const Eigen::VectorXd velocities = data.velocity;
  for (const int threads : {1, 2}) {
    RigidBodyData fresh(model);
    FreeFlyingData free_flying(model);
    const Eigen::VectorXd alpha = decoupled_link_accelerations(
        model, fresh, free_flying, poses, velocities, tau, kTiltedGravity, threads);
    EXPECT_LT((alpha - minimal.acceleration).cwiseAbs().maxCoeff(),
              1e-9 * (1 + minimal.acceleration.cwiseAbs().maxCoeff()))
        << threads << " threads";
    EXPECT_LT((free_flying.generalized_acceleration - qdd).cwiseAbs().maxCoeff(),
              1e-9 * (1 + qdd.cwiseAbs().maxCoeff()))
        << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, FreeFlying, ::testing::Range(0, 4));

// On a serial chain the dual sweep needs nothing of the regular one: two threads, long chain.
TEST(FreeFlyingThreads, SerialChainSweepsRunApart) {
  std::mt19937 rng(77);
  testing_support::RandomMechanismOptions options;
  options.links = 300;
  options.planar = false;
  Mechanism chain = testing_support::random_mechanism(options, rng);
  for (Joint& joint : chain.joints)
    if (joint.child > 0) joint.parent = joint.child - 1;
  const RigidBodyModel model(chain);
  RigidBodyData data(model);
  FreeFlyingData free_flying(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng, 0.5), qd = rigid_random_state(n, rng);
  const Eigen::VectorXd tau = rigid_random_state(n, rng);
  const Eigen::VectorXd reference = forward_dynamics(model, data, q, qd, tau, kTiltedGravity);
  const Eigen::VectorXd one =
      base_invariant_forward_dynamics(model, data, free_flying, q, qd, tau, kTiltedGravity, 1);
  const Eigen::VectorXd two =
      base_invariant_forward_dynamics(model, data, free_flying, q, qd, tau, kTiltedGravity, 2);
  EXPECT_EQ(one, two);
  EXPECT_LT((one - reference).cwiseAbs().maxCoeff(), 1e-6 * (1 + reference.cwiseAbs().maxCoeff()));
}

TEST(FreeFlyingData, RejectsGroundedSystems) {
  std::mt19937 rng(5);
  testing_support::RandomMechanismOptions options;
  options.floating_base = false;
  const RigidBodyModel model(testing_support::random_mechanism(options, rng));
  EXPECT_THROW(FreeFlyingData{model}, std::invalid_argument);
}

// The free-flying paper, Section 4: Upsilon(k) of Eq. 34 (the base-to-tips recursion over the
// articulated-body quantities, part II's Omega(k, k) of Lemma 5) is the inverse of the
// operational-space inertia, Lambda(k) Upsilon(k) = I (Eq. 35, 37a, Lambda = P + S from the dual
// sweep), Upsilon(base) = P^-1(base), and Upsilon(k) is invertible at every link of a free flyer
// while "for ground-based manipulators, Upsilon(k) is singular for the first 5 links": on a
// seven-link revolute arm its rank is the number of hinges between link k and the ground.
Mechanism seven_link_arm(bool free_flying, std::mt19937& rng) {
  testing_support::RandomMechanismOptions options;
  options.links = 7;
  options.floating_base = false;
  options.planar = false;
  options.rotation_vectors = false;
  Mechanism arm = testing_support::random_mechanism(options, rng);
  for (Joint& joint : arm.joints) {
    joint.parent = joint.child - 1;
    joint.type = joint.child == 0 && free_flying ? JointType::kFloating : JointType::kRevolute;
  }
  return arm;
}

TEST(FreeFlyingUpsilon, SingularNearTheGroundInvertibleEverywhereOnAFreeFlyer) {
  for (int trial = 0; trial < 4; ++trial) {
    for (const bool free_flying : {false, true}) {
      SCOPED_TRACE(testing::Message()
                   << "trial " << trial << (free_flying ? " free" : " grounded"));
      std::mt19937 rng(1300 + trial);
      const RigidBodyModel model(seven_link_arm(free_flying, rng));
      RigidBodyData data(model);
      const Eigen::VectorXd q = rigid_random_state(model.dof_count(), rng);
      update_positions(model, q, data);
      synchronize_sko_model(model, data);
      OperationalSpaceWorkspace workspace(data.sko.structure_ptr());
      const BlockDiagonal& upsilon = operational_space_compliance_diagonal(data.sko, workspace);
      std::unique_ptr<FreeFlyingData> free;
      std::vector<Matrix6d> lambda;
      if (free_flying) {
        free = std::make_unique<FreeFlyingData>(model);
        lambda = decoupled_operational_space_inertias(model, data, *free, q);
      }
      for (int link = 0; link < 7; ++link) {
        const int k = model.node_of_link(link);
        const Matrix6d block = upsilon.block(k);
        const Eigen::JacobiSVD<Matrix6d> svd(block);
        const Vector6d sigma = svd.singularValues();
        const int rank = static_cast<int>((sigma.array() > 1e-9 * sigma(0)).count());
        // Hinge dofs between the link and the ground: link + 1 revolutes, or 6 + link.
        EXPECT_EQ(rank, free_flying ? 6 : std::min(link + 1, 6)) << "link " << link;
        if (!free_flying) continue;
        EXPECT_LT((lambda[static_cast<std::size_t>(k)] * block - Matrix6d::Identity())
                      .cwiseAbs()
                      .maxCoeff(),
                  1e-8)
            << "link " << link;
        if (link == 0) {
          const Matrix6d base_inverse =
              free->articulated_inertia[static_cast<std::size_t>(k)].inverse();
          EXPECT_LT((block - base_inverse).cwiseAbs().maxCoeff(),
                    1e-10 * (1 + base_inverse.cwiseAbs().maxCoeff()));
        }
      }
    }
  }
}

}  // namespace
}  // namespace skograph

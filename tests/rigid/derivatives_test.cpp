// The dynamics' derivatives (rigid/derivatives.hpp) and the configuration's tangent
// (rigid/tangent.hpp) on random trees with every joint type (floating bases, spherical and planar
// joints inside, joints in a shuffled file order), against central differences with Richardson
// extrapolation of the recursions along the tangent (link-frame Newton-Euler for inverse dynamics,
// the articulated-body recursion for forward dynamics), the mass matrix by composite inertias, the
// identities ID(q, qd, FD) = tau and M M^-1 = 1, and the world velocities for the tangent.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <functional>
#include <random>

#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/tangent.hpp"
#include "skograph/rigid/tree_order.hpp"
#include "support/closed_chain_support.hpp"
#include "support/gravity.hpp"
#include "support/richardson.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using testing_support::random_mechanism;
using testing_support::RandomMechanismOptions;
using testing_support::richardson_columns;
using testing_support::RichardsonColumns;
using testing_support::rigid_random_state;

using skograph::testing_support::kGravityDownZ;

// Richardson's R(h/2) along the tangent step `at` takes; `estimate` receives |R(h/2) - R(h)| (the
// largest entry relative to the largest of R), an estimate of R(h)'s own error.
Eigen::MatrixXd richardson(int n, const std::function<Eigen::VectorXd(int, double)>& at, double h,
                           double* estimate = nullptr) {
  const RichardsonColumns columns = richardson_columns(n, at, h);
  if (estimate != nullptr)
    *estimate = (columns.fine - columns.coarse).cwiseAbs().maxCoeff() /
                (1.0 + columns.fine.cwiseAbs().maxCoeff());
  return columns.fine;
}

double relative_error(const Eigen::MatrixXd& computed, const Eigen::MatrixXd& reference) {
  return (computed - reference).cwiseAbs().maxCoeff() / (1.0 + reference.cwiseAbs().maxCoeff());
}

struct DerivativeCase {
  std::unique_ptr<RigidBodyModel> model;
  Eigen::VectorXd q, qd, qdd, tau;
};

// `depth_first`: the joints renumbered depth first, as the model layer numbers them; otherwise as
// generated. Both number parents first, so the forward-dynamics derivatives factor M along the
// tree either way; the dense factorization is covered by the massless-gripper test below and by
// the shuffled file order of tests/cli/dof_order_cli_test.cpp.
DerivativeCase random_case(unsigned seed, const RandomMechanismOptions& options,
                           bool depth_first = false) {
  std::mt19937 rng(seed);
  DerivativeCase c;
  const Mechanism mechanism = random_mechanism(options, rng);
  c.model =
      std::make_unique<RigidBodyModel>(depth_first ? depth_first_order(mechanism) : mechanism);
  const int n = c.model->dof_count();
  c.q = rigid_random_state(n, rng, 0.8);  // rotation vectors well inside |r| < pi
  c.qd = rigid_random_state(n, rng, 1.0);
  c.qdd = rigid_random_state(n, rng, 1.0);
  c.tau = rigid_random_state(n, rng, 2.0);
  return c;
}

std::vector<RandomMechanismOptions> shapes() {
  RandomMechanismOptions floating;  // floating base, spherical and planar joints
  floating.links = 12;
  RandomMechanismOptions fixed = floating;
  fixed.floating_base = false;
  fixed.extra_bases = 2;
  RandomMechanismOptions axes = floating;
  axes.coordinate_axes = true;  // the recursions' turn kernels
  axes.links = 16;
  return {floating, fixed, axes};
}

TEST(Tangent, DifferenceUndoesIntegrate) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    DerivativeCase c = random_case(seed, shapes()[0]);
    const RigidBodyModel& model = *c.model;
    const Eigen::VectorXd moved = integrate(model, c.q, c.qd, 0.7);
    const Eigen::VectorXd back = difference(model, c.q, moved);
    EXPECT_LT((back - 0.7 * c.qd).cwiseAbs().maxCoeff(), 1e-12) << seed;
    const Eigen::VectorXd again = integrate(model, c.q, back, 1.0);
    EXPECT_LT((again - moved).cwiseAbs().maxCoeff(), 1e-12) << seed;
  }
}

// Moving q along qd moves every link with its spatial velocity: the poses' rate along
// integrate(q, qd, t) is V(k) (world axes at the link origin).
TEST(Tangent, MovesTheLinksWithTheirVelocities) {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    DerivativeCase c = random_case(seed, shapes()[seed % 3]);
    const RigidBodyModel& model = *c.model;
    RigidBodyData data(model);
    update_kinematics(model, c.q, c.qd, data);
    const std::vector<Eigen::Isometry3d> poses = link_poses(model, data);
    std::vector<Vector6d> velocity(static_cast<std::size_t>(model.node_count()));
    for (int k = 0; k < model.node_count(); ++k) {
      const Eigen::Matrix3d R = poses[k].linear();
      velocity[k] << R * data.velocity.segment<3>(6 * k), R * data.velocity.segment<3>(6 * k + 3);
    }
    const auto rates = [&](double t) {
      update_positions(model, integrate(model, c.q, c.qd, t), data);
      return link_poses(model, data);
    };
    const double h = 1e-4;
    const auto plus = rates(h), minus = rates(-h);
    for (int k = 0; k < model.node_count(); ++k) {
      const Eigen::Matrix3d turn =
          (plus[k].linear() - minus[k].linear()) / (2 * h) * poses[k].linear().transpose();
      const Eigen::Vector3d w(turn(2, 1), turn(0, 2), turn(1, 0));
      const Eigen::Vector3d v = (plus[k].translation() - minus[k].translation()) / (2 * h);
      EXPECT_LT((w - velocity[k].head<3>()).norm(), 1e-6) << seed << " link " << k;
      EXPECT_LT((v - velocity[k].tail<3>()).norm(), 1e-6) << seed << " link " << k;
    }
  }
}

TEST(Derivatives, InverseDynamicsAgainstRichardsonAlongTheTangent) {
  unsigned seed = 10;
  for (const RandomMechanismOptions& shape : shapes()) {
    DerivativeCase c = random_case(++seed, shape);
    const RigidBodyModel& model = *c.model;
    const int n = model.dof_count();
    RigidBodyData data(model), reference(model);
    InverseDynamicsDerivatives id;
    inverse_dynamics_derivatives(model, data, c.q, c.qd, c.qdd, kGravityDownZ, id);
    EXPECT_LT(
        relative_error(id.tau, inverse_dynamics(model, reference, c.q, c.qd, c.qdd, kGravityDownZ)),
        1e-13);
    EXPECT_LT(relative_error(id.mass, mass_matrix(model, reference, c.q)), 1e-13);
    double estimate = 0.0;
    const Eigen::MatrixXd by_q = richardson(
        n,
        [&](int j, double e) -> Eigen::VectorXd {
          return inverse_dynamics(model, reference,
                                  integrate(model, c.q, Eigen::VectorXd::Unit(n, j), e), c.qd,
                                  c.qdd, kGravityDownZ);
        },
        1e-3, &estimate);
    EXPECT_LT(relative_error(id.dtau_dq, by_q), std::max(1e-7, 10 * estimate)) << seed;
    const Eigen::MatrixXd by_qd = richardson(
        n,
        [&](int j, double e) -> Eigen::VectorXd {
          return inverse_dynamics(model, reference, c.q, c.qd + e * Eigen::VectorXd::Unit(n, j),
                                  c.qdd, kGravityDownZ);
        },
        1e-3);
    EXPECT_LT(relative_error(id.dtau_dqd, by_qd), 1e-7) << seed;
  }
}

TEST(Derivatives, ForwardDynamicsAgainstRichardsonAlongTheTangent) {
  unsigned seed = 20;
  for (const RandomMechanismOptions& shape : shapes())
    for (const bool depth_first : {false, true}) {
      DerivativeCase c = random_case(++seed, shape, depth_first);
      const RigidBodyModel& model = *c.model;
      const int n = model.dof_count();
      RigidBodyData data(model), reference(model);
      ForwardDynamicsDerivatives fd;
      forward_dynamics_derivatives(model, data, c.q, c.qd, c.tau, kGravityDownZ, fd);
      EXPECT_LT(relative_error(fd.qdd,
                               forward_dynamics(model, reference, c.q, c.qd, c.tau, kGravityDownZ)),
                1e-12);
      // Identities: M^-1 M = 1, and inverse dynamics at FD's qdd gives tau back.
      EXPECT_LT(relative_error(fd.dqdd_dtau * fd.inverse.mass, Eigen::MatrixXd::Identity(n, n)),
                1e-10);
      EXPECT_LT(relative_error(fd.inverse.tau, c.tau), 1e-10);
      double estimate = 0.0;
      const Eigen::MatrixXd by_q = richardson(
          n,
          [&](int j, double e) -> Eigen::VectorXd {
            return forward_dynamics(model, reference,
                                    integrate(model, c.q, Eigen::VectorXd::Unit(n, j), e), c.qd,
                                    c.tau, kGravityDownZ);
          },
          1e-3, &estimate);
      EXPECT_LT(relative_error(fd.dqdd_dq, by_q), std::max(1e-7, 10 * estimate)) << seed;
      const Eigen::MatrixXd by_qd = richardson(
          n,
          [&](int j, double e) -> Eigen::VectorXd {
            return forward_dynamics(model, reference, c.q, c.qd + e * Eigen::VectorXd::Unit(n, j),
                                    c.tau, kGravityDownZ);
          },
          1e-3);
      EXPECT_LT(relative_error(fd.dqdd_dqd, by_qd), 1e-7) << seed;
      const Eigen::MatrixXd by_tau = richardson(
          n,
          [&](int j, double e) -> Eigen::VectorXd {
            return forward_dynamics(model, reference, c.q, c.qd,
                                    c.tau + e * Eigen::VectorXd::Unit(n, j), kGravityDownZ);
          },
          1e-2);
      EXPECT_LT(relative_error(fd.dqdd_dtau, by_tau), 1e-9) << seed;
    }
}

// A massless gripper (a hinge and two fingers with no mass) on a two-link arm: M is singular on
// the gripper's dofs, forward dynamics keeps their accelerations zero, and the derivatives take
// the factorization on the dofs that move mass (rows of the massless dofs zero).
TEST(Derivatives, ForwardDynamicsWithAMasslessSubtree) {
  Mechanism m;
  const int upper = testing_support::add_link(m, testing_support::rod_link("upper", 0.5, 2.0));
  const int lower = testing_support::add_link(m, testing_support::rod_link("lower", 0.4, 1.5));
  Link palm_link, left_link, right_link;
  palm_link.name = "palm";
  left_link.name = "left";
  right_link.name = "right";
  const int palm = testing_support::add_link(m, palm_link);
  const int left = testing_support::add_link(m, left_link);
  const int right = testing_support::add_link(m, right_link);
  using testing_support::revolute_joint;
  m.joints.push_back(revolute_joint("shoulder", -1, upper, {0, 0, 0.2}, Eigen::Vector3d::UnitY()));
  m.joints.push_back(revolute_joint("elbow", upper, lower, {0.5, 0, 0}, Eigen::Vector3d::UnitX()));
  m.joints.push_back(revolute_joint("grip", lower, palm, {0.4, 0, 0}, Eigen::Vector3d::UnitX()));
  m.joints.push_back(revolute_joint("left", palm, left, {0.02, 0.02, 0}, Eigen::Vector3d::UnitZ()));
  m.joints.push_back(
      revolute_joint("right", palm, right, {0.02, -0.02, 0}, Eigen::Vector3d::UnitZ()));
  const RigidBodyModel model(m);
  const int n = model.dof_count();
  ASSERT_EQ(n, 5);
  RigidBodyData data(model), reference(model);
  Eigen::VectorXd q(n), qd(n), tau = Eigen::VectorXd::Zero(n);
  q << 0.3, -0.4, 0.2, 0.1, -0.1;
  qd << 0.5, -0.7, 0.9, 0.2, -0.3;
  tau.head(2) << 1.5, -0.8;  // no force on the massless joints
  ForwardDynamicsDerivatives fd;
  forward_dynamics_derivatives(model, data, q, qd, tau, kGravityDownZ, fd);
  EXPECT_EQ(fd.dqdd_dq.bottomRows(3).norm(), 0.0);
  EXPECT_EQ(fd.dqdd_dtau.bottomRows(3).norm() + fd.dqdd_dtau.rightCols(3).norm(), 0.0);
  const Eigen::MatrixXd by_q = richardson(
      n,
      [&](int j, double e) -> Eigen::VectorXd {
        return forward_dynamics(model, reference,
                                integrate(model, q, Eigen::VectorXd::Unit(n, j), e), qd, tau,
                                kGravityDownZ);
      },
      1e-3);
  EXPECT_LT(relative_error(fd.dqdd_dq, by_q), 1e-7);
  const Eigen::MatrixXd by_qd = richardson(
      n,
      [&](int j, double e) -> Eigen::VectorXd {
        return forward_dynamics(model, reference, q, qd + e * Eigen::VectorXd::Unit(n, j), tau,
                                kGravityDownZ);
      },
      1e-3);
  EXPECT_LT(relative_error(fd.dqdd_dqd, by_qd), 1e-7);
  // M^-1 on the massive dofs, zero elsewhere: M M^-1 M = M.
  EXPECT_LT(relative_error(fd.inverse.mass * fd.dqdd_dtau * fd.inverse.mass, fd.inverse.mass),
            1e-12);
  EXPECT_LT(relative_error(fd.dqdd_dtau.topLeftCorner(2, 2) * fd.inverse.mass.topLeftCorner(2, 2),
                           Eigen::Matrix2d::Identity()),
            1e-12);
}

// Without velocities the rate derivative vanishes; with revolute and prismatic joints only (flat
// coordinates) the gravity part of dtau/dq is symmetric (it is the potential's Hessian).
TEST(Derivatives, IdentitiesWithoutDifferences) {
  RandomMechanismOptions flat;
  flat.links = 10;
  flat.floating_base = false;
  flat.rotation_vectors = false;
  flat.planar = false;
  DerivativeCase c = random_case(31, flat);
  const RigidBodyModel& model = *c.model;
  const int n = model.dof_count();
  RigidBodyData data(model);
  InverseDynamicsDerivatives id;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  inverse_dynamics_derivatives(model, data, c.q, zero, zero, kGravityDownZ, id);
  EXPECT_LT(id.dtau_dqd.cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT(relative_error(id.dtau_dq, id.dtau_dq.transpose()), 1e-13);
}

}  // namespace
}  // namespace skograph

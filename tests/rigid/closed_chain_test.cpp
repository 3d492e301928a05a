// Closed-chain mechanisms by constraint embedding (rigid/closed_chain_model.hpp) against
// independent references: the four-bar's closed form, finite differences of the closure, the dense
// tree mass matrix and bias forces (RigidBodyModel), a dense Lagrange-multiplier DAE solve, energy.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "skograph/rigid/closed_chain_model.hpp"
#include "support/closed_chain_support.hpp"
#include "support/gravity.hpp"

namespace skograph {
namespace {

using namespace testing_support;

using skograph::testing_support::kGravityDownY;

// A chain of four-bars: one aggregate per four-bar, each hanging from the previous one.
TEST(ClosedChainModel, FourBarChainHasOneAggregatePerFourBar) {
  const ClosedChainModel model(four_bar_chain(5));
  ASSERT_EQ(model.aggregate_count(), 5);
  EXPECT_FALSE(model.swallows_whole_mechanism());
  for (int s = 0; s < 5; ++s) {
    std::vector<int> nodes = model.aggregate_nodes(s);
    std::ranges::sort(nodes);
    EXPECT_EQ(nodes, (std::vector<int>{3 * s, 3 * s + 1, 3 * s + 2}));
    EXPECT_EQ(model.aggregate_loops(s), (std::vector<int>{s}));
  }
}

TEST(ClosedChainModel, FourBarAggregatesAndClosesToTheClosedForm) {
  const FourBarLengths lengths;
  for (const bool internal : {false, true}) {
    const ClosedChainModel model(four_bar(internal));
    ClosedChainData data(model);
    ASSERT_EQ(model.aggregate_count(), 1);
    EXPECT_EQ(model.aggregate_nodes(0).size(), 3u);
    EXPECT_TRUE(model.swallows_whole_mechanism());
    EXPECT_EQ(model.constraint_rows(0), 5);  // a 3-D revolute closure
    Eigen::VectorXd q = four_bar_configuration(internal, 0.9);
    q[1] += 0.2;
    q[2] -= 0.15;
    EXPECT_GT(position_residual(model, data, q), 1e-2);
    close_positions(model, data, q);
    EXPECT_LT(position_residual(model, data, q), 1e-10);
    // The coupler's tip where the circles about the crank's tip and D meet.
    const Eigen::Vector2d tip = four_bar_coupler_tip(lengths, q[0], true);
    const double coupler = q[0] + q[1];
    const Eigen::Vector2d computed =
        lengths.crank * Eigen::Vector2d(std::cos(q[0]), std::sin(q[0])) +
        lengths.coupler * Eigen::Vector2d(std::cos(coupler), std::sin(coupler));
    EXPECT_LT((computed - tip).norm(), 1e-10) << (internal ? "internal" : "terminal");
    // Rank 2 of 5 rows: one independent coordinate.
    Eigen::VectorXd qd = Eigen::VectorXd::Random(3);
    close_velocities(model, data, q, qd);
    EXPECT_EQ(data.selection[0].rank, 2);
    EXPECT_EQ(data.independent.size(), 1u);
    EXPECT_LT(velocity_residual(model, data, q, qd), 1e-10);
  }
}

TEST(ClosedChainModel, ClosesPositionsAndVelocitiesOfEveryLoopType) {
  std::mt19937 rng(11);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    EXPECT_LT(position_residual(model, data, c.q), 1e-10) << c.name;
    EXPECT_LT(velocity_residual(model, data, c.q, c.qd), 1e-10) << c.name;
    // Perturb every coordinate; Newton restores the closure keeping the independent ones.
    update_closed_chain(model, data, c.q, c.qd);
    Eigen::VectorXd q = c.q + rigid_random_state(model.dof_count(), rng, 0.02);
    const Eigen::VectorXd perturbed = q;
    const std::vector<int> independent = data.independent;
    close_positions(model, data, q);
    EXPECT_LT(position_residual(model, data, q), 1e-10) << c.name;
    for (const int d : independent) EXPECT_EQ(q[d], perturbed[d]) << c.name;
    Eigen::VectorXd qd = rigid_random_state(model.dof_count(), rng, 1.0);
    close_velocities(model, data, q, qd);
    EXPECT_LT(velocity_residual(model, data, q, qd), 1e-10) << c.name;
  }
}

// Along a closed velocity the closure error grows only at second order (Q qd = 0 is the tangent
// of the closure), along a velocity that violates Q qd = 0 at first order; the relative motion of
// the closure frames is one the loop joint allows.
TEST(ClosedChainModel, ConstraintMatrixIsTheTangentOfThePositionClosure) {
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    const double h = 1e-4;
    const Eigen::VectorXd forward = advance_configuration(model.tree(), c.q, c.qd, h);
    const Eigen::VectorXd backward = advance_configuration(model.tree(), c.q, c.qd, -h);
    EXPECT_LT(position_residual(model, data, forward), 50 * h * h * (1 + c.qd.squaredNorm()))
        << c.name;
    EXPECT_LT(position_residual(model, data, backward), 50 * h * h * (1 + c.qd.squaredNorm()))
        << c.name;
    update_closed_chain(model, data, c.q, c.qd);
    const Eigen::MatrixXd q_matrix = full_constraint_matrix(model, data);
    // A direction violating the constraints: the least-squares inverse of Q applied to a unit
    // violation opens the closure at first order.
    if (q_matrix.rows() == 0 || q_matrix.norm() == 0) continue;
    Eigen::VectorXd violation = Eigen::VectorXd::Zero(q_matrix.rows());
    Eigen::Index worst = 0;
    q_matrix.rowwise().norm().maxCoeff(&worst);
    violation[worst] = 1.0;
    const Eigen::VectorXd opening = q_matrix.completeOrthogonalDecomposition().solve(violation);
    const double opened =
        position_residual(model, data, advance_configuration(model.tree(), c.q, opening, h));
    EXPECT_GT(opened, 0.1 * h * (q_matrix * opening).cwiseAbs().maxCoeff()) << c.name;
    // Relative motion of the closure frames by finite differences of their poses.
    const Mechanism& m = model.mechanism();
    RigidBodyData tree_data(model.tree());
    for (const LoopClosure& loop : m.loops) {
      auto relative_pose = [&](const Eigen::VectorXd& q) {
        update_positions(model.tree(), q, tree_data);
        auto pose = [&](int link) {
          return link < 0 ? Eigen::Isometry3d::Identity()
                          : tree_data.link_pose[model.tree().node_of_link(link)];
        };
        return Eigen::Isometry3d((pose(loop.parent) * loop.parent_origin).inverse() *
                                 pose(loop.child) * loop.child_origin);
      };
      const Eigen::Isometry3d plus = relative_pose(forward), minus = relative_pose(backward);
      const Eigen::Vector3d translation_rate = (plus.translation() - minus.translation()) / (2 * h);
      const Eigen::AngleAxisd turn(plus.linear() * minus.linear().transpose());
      const Eigen::Vector3d rotation_rate = turn.angle() * turn.axis() / (2 * h);
      const Eigen::Vector3d axis = loop.axis.normalized();
      const double tolerance = 1e-5 * (1 + c.qd.norm());
      switch (loop.type) {
        case LoopType::kRevolute:
          EXPECT_LT(translation_rate.norm(), tolerance) << c.name;
          EXPECT_LT(rotation_rate.cross(axis).norm(), tolerance) << c.name;
          break;
        case LoopType::kPrismatic:
          EXPECT_LT(rotation_rate.norm(), tolerance) << c.name;
          EXPECT_LT(translation_rate.cross(axis).norm(), tolerance) << c.name;
          break;
        case LoopType::kSpherical:
          EXPECT_LT(translation_rate.norm(), tolerance) << c.name;
          break;
        case LoopType::kWeld:
          EXPECT_LT(translation_rate.norm() + rotation_rate.norm(), tolerance) << c.name;
          break;
      }
    }
  }
}

// Qdot qd is d/dt (Q(q(t)) qd) along q(t) with qdd = 0 (central differences), for any qd (the
// identity does not need Q qd = 0).
TEST(ClosedChainModel, VelocityProductMatchesFiniteDifferences) {
  std::mt19937 rng(5);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    const double h = 1e-5;
    const Eigen::VectorXd qd = rigid_random_state(model.dof_count(), rng, 1.0);
    update_closed_chain(model, data, advance_configuration(model.tree(), c.q, qd, h), qd);
    const Eigen::VectorXd plus = full_constraint_matrix(model, data) * qd;
    update_closed_chain(model, data, advance_configuration(model.tree(), c.q, qd, -h), qd);
    const Eigen::VectorXd minus = full_constraint_matrix(model, data) * qd;
    update_closed_chain(model, data, c.q, qd);
    const Eigen::VectorXd product = full_velocity_product(model, data);
    if (product.size() == 0) continue;
    EXPECT_LT(((plus - minus) / (2 * h) - product).cwiseAbs().maxCoeff(),
              1e-6 * (1 + product.cwiseAbs().maxCoeff()))
        << c.name;
  }
}

TEST(ClosedChainModel, DynamicsMatchTheDenseTreeAndTheLagrangeMultiplierReference) {
  std::mt19937 rng(3);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    const auto [mass, bias] = tree_terms(model, c.q, c.qd, kGravityDownY);
    const Eigen::VectorXd tau = rigid_random_state(model.dof_count(), rng, 2.0);

    const Eigen::VectorXd qdd = forward_dynamics(model, data, c.q, c.qd, tau, kGravityDownY);
    const Eigen::MatrixXd x = data.X;
    const std::vector<int> independent = data.independent;
    const Eigen::MatrixXd q_matrix = full_constraint_matrix(model, data);
    const Eigen::VectorXd product = full_velocity_product(model, data);
    const double scale = 1 + (mass * qdd).cwiseAbs().maxCoeff() + tau.cwiseAbs().maxCoeff() +
                         bias.cwiseAbs().maxCoeff();
    // Projected equations of motion and the acceleration-level closure.
    EXPECT_LT((x.transpose() * (mass * qdd + bias - tau)).cwiseAbs().maxCoeff(), 1e-9 * scale)
        << c.name;
    if (q_matrix.rows() > 0) {
      EXPECT_LT((q_matrix * qdd + product).cwiseAbs().maxCoeff(), 1e-9 * scale) << c.name;
    }
    // Dense DAE reference.
    const Eigen::VectorXd reference = dae_accelerations(mass, bias, tau, q_matrix, product);
    EXPECT_LT((qdd - reference).cwiseAbs().maxCoeff(), 1e-8 * (1 + reference.cwiseAbs().maxCoeff()))
        << c.name;

    // M_R = X* M X.
    const Eigen::MatrixXd reduced = reduced_mass_matrix(model, data, c.q);
    EXPECT_LT((reduced - x.transpose() * mass * x).cwiseAbs().maxCoeff(),
              1e-10 * (1 + mass.cwiseAbs().maxCoeff()))
        << c.name;

    // Minimal inverse dynamics: X* (M qdd + C) with qdd = X qdd_R + Xdot qd_R, and it inverts
    // forward dynamics (X* tau at the forward accelerations).
    Eigen::VectorXd qdd_independent(static_cast<Eigen::Index>(independent.size()));
    for (std::size_t i = 0; i < independent.size(); ++i) qdd_independent[i] = qdd[independent[i]];
    const Eigen::VectorXd rate = qdd - x * qdd_independent;  // Xdot qd_R
    EXPECT_LT((inverse_dynamics(model, data, c.q, c.qd, qdd_independent, kGravityDownY) -
               x.transpose() * tau)
                  .cwiseAbs()
                  .maxCoeff(),
              1e-9 * scale)
        << c.name;
    const Eigen::VectorXd other = rigid_random_state(qdd_independent.size(), rng, 3.0);
    const Eigen::VectorXd full = x * other + rate;
    EXPECT_LT((inverse_dynamics(model, data, c.q, c.qd, other, kGravityDownY) -
               x.transpose() * (mass * full + bias))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-9 * (scale + (mass * full).cwiseAbs().maxCoeff()))
        << c.name;

    // Innovations factors reproduce M_R.
    InnovationsFactors factors;
    innovations_factors(model, data, c.q, factors);
    const Eigen::MatrixXd product_of_factors = factors.newton_euler_factor *
                                               factors.innovations_inertia *
                                               factors.newton_euler_factor.transpose();
    EXPECT_LT((product_of_factors - reduced).cwiseAbs().maxCoeff(),
              1e-9 * (1 + reduced.cwiseAbs().maxCoeff()))
        << c.name;
    EXPECT_LT((factors.inverse_factor * factors.newton_euler_factor -
               Eigen::MatrixXd::Identity(reduced.rows(), reduced.cols()))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-9)
        << c.name;
  }
}

// The world-frame forward dynamics, each aggregate through its member tree, against the
// articulated-body recursion on the embedded SKO model (dense 6|S| blocks per aggregate).
TEST(ClosedChainModel, WorldFrameForwardDynamicsIsTheEmbeddedModels) {
  std::mt19937 rng(11);
  for (const ClosedCase& c : closed_cases()) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model), reference_data(model);
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd tau = rigid_random_state(model.dof_count(), rng, 2.0);
      const Eigen::VectorXd reference = forward_dynamics_through_embedded_model(
          model, reference_data, c.q, c.qd, tau, kGravityDownY);
      const Eigen::VectorXd qdd = forward_dynamics(model, data, c.q, c.qd, tau, kGravityDownY);
      EXPECT_LT((qdd - reference).cwiseAbs().maxCoeff(),
                1e-12 * (1 + reference.cwiseAbs().maxCoeff()))
          << c.name;
    }
  }
}

// World pose of link `link` at q.
Eigen::Isometry3d link_pose(const ClosedChainModel& model, ClosedChainData& data,
                            const Eigen::VectorXd& q, int link) {
  update_positions(model.tree(), q, data.tree);
  return data.tree.link_pose[model.tree().node_of_link(link)];
}

// The crank's, coupler's and rocker's world angular velocity (z) and the coupler tip's velocity.
TEST(ClosedChainModel, FourBarTerminalAndInternalCutsMoveAlike) {
  const ClosedChainModel terminal(four_bar(false)), internal(four_bar(true));
  ClosedChainData terminal_data(terminal), internal_data(internal);
  for (const double crank : {0.3, 1.4, 2.9, -2.0}) {
    Eigen::VectorXd q_terminal = four_bar_configuration(false, crank);
    Eigen::VectorXd q_internal = four_bar_configuration(true, crank);
    // The same crank rate: scale the one-dimensional null space of Q.
    auto velocity = [&](const ClosedChainModel& model, ClosedChainData& data,
                        const Eigen::VectorXd& q) {
      Eigen::VectorXd qd = Eigen::VectorXd::Ones(3);
      close_velocities(model, data, q, qd);
      return Eigen::VectorXd(qd * (1.3 / qd[0]));
    };
    const Eigen::VectorXd qd_terminal = velocity(terminal, terminal_data, q_terminal);
    const Eigen::VectorXd qd_internal = velocity(internal, internal_data, q_internal);
    EXPECT_NEAR(qd_terminal[1], qd_internal[1], 1e-10);
    // Rocker's absolute angular velocity: crank + coupler + rocker rates in the serial chain.
    EXPECT_NEAR(qd_terminal.sum(), qd_internal[2], 1e-10);
    const Eigen::Vector3d tau(0.7, 0.0, 0.0);
    const Eigen::VectorXd qdd_terminal =
        forward_dynamics(terminal, terminal_data, q_terminal, qd_terminal, tau, kGravityDownY);
    const Eigen::VectorXd qdd_internal =
        forward_dynamics(internal, internal_data, q_internal, qd_internal, tau, kGravityDownY);
    EXPECT_NEAR(qdd_terminal[0], qdd_internal[0], 1e-9);
    EXPECT_NEAR(qdd_terminal[1], qdd_internal[1], 1e-9);
    EXPECT_NEAR(qdd_terminal.sum(), qdd_internal[2], 1e-9);
    // Same link poses: crank and coupler frames coincide; the rocker frames differ by a half turn
    // about z at the other end of the rod.
    for (const int link : {0, 1})
      EXPECT_LT((link_pose(terminal, terminal_data, q_terminal, link).matrix() -
                 link_pose(internal, internal_data, q_internal, link).matrix())
                    .norm(),
                1e-10);
    const Eigen::Isometry3d rocker_terminal = link_pose(terminal, terminal_data, q_terminal, 2);
    const Eigen::Isometry3d rocker_internal = link_pose(internal, internal_data, q_internal, 2);
    EXPECT_LT((rocker_terminal * Eigen::Vector3d(0.5 * 2.5, 0, 0) -
               rocker_internal * Eigen::Vector3d(0.5 * 2.5, 0, 0))
                  .norm(),
              1e-10);
  }
}

// Total energy T + U of the tree at (q, qd).
double energy(const ClosedChainModel& model, ClosedChainData& data, const Eigen::VectorXd& q,
              const Eigen::VectorXd& qd) {
  update_kinematics(model.tree(), q, qd, data.tree);
  return kinetic_energy(model.tree(), data.tree) +
         potential_energy(model.tree(), data.tree, kGravityDownY);
}

// One RK4 step of dq/dt = configuration_rate(q, qd), dqd/dt = closed-chain forward dynamics,
// then positions and velocities closed (the independent entries kept: this integrates q_R, qd_R).
void closed_rk4_step(const ClosedChainModel& model, ClosedChainData& data, Eigen::VectorXd& q,
                     Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                     const Eigen::Vector3d& gravity, double dt) {
  auto derivative = [&](const Eigen::VectorXd& qs, const Eigen::VectorXd& qds,
                        Eigen::VectorXd& q_rate, Eigen::VectorXd& qd_rate) {
    q_rate.resize(model.dof_count());
    configuration_rate(model.tree(), qs, qds, q_rate);
    qd_rate = forward_dynamics(model, data, qs, qds, tau, gravity);
  };
  Eigen::VectorXd k1q, k1v, k2q, k2v, k3q, k3v, k4q, k4v;
  derivative(q, qd, k1q, k1v);
  derivative(q + 0.5 * dt * k1q, qd + 0.5 * dt * k1v, k2q, k2v);
  derivative(q + 0.5 * dt * k2q, qd + 0.5 * dt * k2v, k3q, k3v);
  derivative(q + dt * k3q, qd + dt * k3v, k4q, k4v);
  q += dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
  qd += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
  close_positions(model, data, q);
  close_velocities(model, data, q, qd);
}

TEST(ClosedChainModel, TorqueFreeFourBarConservesEnergy) {
  for (const bool internal_cut : {false, true}) {
    const ClosedChainModel model(four_bar(internal_cut));
    ClosedChainData data(model);
    Eigen::VectorXd q = four_bar_configuration(internal_cut, 0.4);
    Eigen::VectorXd qd = Eigen::VectorXd::Ones(3);
    close_velocities(model, data, q, qd);
    qd *= 2.0 / qd.cwiseAbs().maxCoeff();
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
    const double initial = energy(model, data, q, qd);
    for (int step = 0; step < 1000; ++step)
      closed_rk4_step(model, data, q, qd, zero, kGravityDownY, 1e-3);
    EXPECT_LT(position_residual(model, data, q), 1e-10);
    const double drift = std::abs(energy(model, data, q, qd) - initial) / std::abs(initial);
    EXPECT_LT(drift, 1e-6) << (internal_cut ? "internal" : "terminal");
  }
}

// Terminal and internal cuts from the same physical state stay together over a simulated
// half-second with gravity and a crank torque: the crank and coupler frames and the rocker's
// center of mass coincide at the end.
TEST(ClosedChainModel, FourBarCutsGiveTheSameMotion) {
  const ClosedChainModel terminal(four_bar(false)), internal(four_bar(true));
  ClosedChainData terminal_data(terminal), internal_data(internal);
  Eigen::VectorXd q_terminal = four_bar_configuration(false, 0.5);
  Eigen::VectorXd q_internal = four_bar_configuration(true, 0.5);
  Eigen::VectorXd qd_terminal = Eigen::VectorXd::Ones(3), qd_internal = Eigen::VectorXd::Ones(3);
  close_velocities(terminal, terminal_data, q_terminal, qd_terminal);
  close_velocities(internal, internal_data, q_internal, qd_internal);
  qd_terminal *= 1.5 / qd_terminal[0];
  qd_internal *= 1.5 / qd_internal[0];
  const Eigen::VectorXd tau = Eigen::Vector3d(0.8, 0.0, 0.0);
  for (int step = 0; step < 500; ++step) {
    closed_rk4_step(terminal, terminal_data, q_terminal, qd_terminal, tau, kGravityDownY, 1e-3);
    closed_rk4_step(internal, internal_data, q_internal, qd_internal, tau, kGravityDownY, 1e-3);
  }
  EXPECT_GT(std::abs(q_terminal[0] - 0.5), 0.1);  // it moved
  for (const int link : {0, 1})
    EXPECT_LT((link_pose(terminal, terminal_data, q_terminal, link).matrix() -
               link_pose(internal, internal_data, q_internal, link).matrix())
                  .norm(),
              1e-8);
  const Eigen::Vector3d center(0.5 * 2.5, 0, 0);
  EXPECT_LT((link_pose(terminal, terminal_data, q_terminal, 2) * center -
             link_pose(internal, internal_data, q_internal, 2) * center)
                .norm(),
            1e-8);
}

TEST(ClosedChainModel, ReportsClosuresThatCannotBeAssembled) {
  FourBarLengths lengths;
  lengths.ground = 8.0;  // longer than the other three links together
  const ClosedChainModel model(four_bar(false, lengths));
  ClosedChainData data(model);
  Eigen::VectorXd q = Eigen::VectorXd::Constant(3, 0.2);
  try {
    close_positions(model, data, q);
    FAIL() << "no ClosureError";
  } catch (const ClosureError& error) {
    EXPECT_NE(std::string(error.what()).find("loop 'close' cannot be closed from the given state"),
              std::string::npos)
        << error.what();
  }
}

// All aggregates of a chain of four-bars closed together (one tree pass per Newton trial): each
// four-bar against its closed form at its own crank angle, the independent entries kept.
TEST(ClosedChainModel, ClosesEveryFourBarOfAChainTogether) {
  const int count = 6;
  const FourBarLengths lengths;
  const ClosedChainModel model(four_bar_chain(count));
  ClosedChainData data(model);
  Eigen::VectorXd q(3 * count);
  for (int i = 0; i < count; ++i) {
    q.segment<3>(3 * i) = four_bar_configuration(true, 0.4 + 0.3 * i);
    q[3 * i + 1] += 0.05 * (i + 1);  // off the closure by a different amount each
    q[3 * i + 2] -= 0.04 * (i + 1);
  }
  const Eigen::VectorXd given = q;
  close_positions(model, data, q);
  EXPECT_LT(position_residual(model, data, q), 1e-10);
  for (int s = 0; s < count; ++s) {
    for (const int i : data.selection[s].independent) {
      const int dof = model.aggregate_dofs(s)[i];
      EXPECT_EQ(q[dof], given[dof]) << "four-bar " << s << " dof " << dof;
    }
    // The coupler's tip where the circles about the crank's tip and the rocker pivot meet.
    const double crank = q[3 * s], coupler = crank + q[3 * s + 1];
    const Eigen::Vector2d tip =
        lengths.crank * Eigen::Vector2d(std::cos(crank), std::sin(crank)) +
        lengths.coupler * Eigen::Vector2d(std::cos(coupler), std::sin(coupler));
    const double rocker = q[3 * s + 2];
    const Eigen::Vector2d rocker_tip =
        Eigen::Vector2d(lengths.ground, 0) +
        lengths.rocker * Eigen::Vector2d(std::cos(rocker), std::sin(rocker));
    EXPECT_LT((tip - rocker_tip).norm(), 1e-10) << "four-bar " << s;
    EXPECT_LT((tip - four_bar_coupler_tip(lengths, crank, true)).norm(), 1e-10) << s;
  }
}

// A spherical four-bar (every joint axis through the origin O): its revolute closure has 5 rows
// of generic rank 3 (off the closure the relative rotation is free) but rank 2 on every closed
// configuration (a rotation about O: the linear rows follow from the angular ones). Over-
// constrained by its geometry, it is no singular configuration: one independent coordinate, the
// constraints hold, as with the same four-bar closed by a spherical loop (3 rows, rank 2).
TEST(ClosedChainModel, SphericalFourBarClosedByARevoluteIsOverConstrainedNotSingular) {
  auto spherical_four_bar = [](LoopType type) {
    Mechanism m;
    m.name = "spherical_four_bar";
    for (const char* name : {"crank", "coupler", "rocker"}) add_link(m, rod_link(name, 0.5, 1.0));
    const Eigen::Isometry3d at_o = Eigen::Isometry3d::Identity();
    m.joints.push_back(make_joint("j_crank", JointType::kRevolute, -1, 0, at_o));
    m.joints.push_back(
        make_joint("j_coupler", JointType::kRevolute, 0, 1, at_o, Eigen::Vector3d(0.6, 0, 0.8)));
    m.joints.push_back(
        make_joint("j_rocker", JointType::kRevolute, -1, 2, at_o, Eigen::Vector3d(0, 0.8, 0.6)));
    // The pin between coupler and rocker on the axis (1, 1, 1)/sqrt(3), 0.5 from O: the frames
    // coincide at q = 0.
    const Eigen::Vector3d axis = Eigen::Vector3d(1, 1, 1).normalized();
    m.loops.push_back(make_loop("pin", type, 1, 2, frame(0.5 * axis), frame(0.5 * axis), axis));
    return m;
  };
  for (const LoopType type : {LoopType::kSpherical, LoopType::kRevolute}) {
    SCOPED_TRACE(loop_type_name(type));
    const ClosedChainModel model(spherical_four_bar(type));
    EXPECT_EQ(model.nominal_rank(0), type == LoopType::kRevolute ? 3 : 2);
    ClosedChainData data(model);
    Eigen::VectorXd q = Eigen::VectorXd::Zero(3);
    EXPECT_LT(position_residual(model, data, q), 1e-12);
    q[0] = 0.2;  // turn the crank; close the others
    close_positions(model, data, q);
    EXPECT_LT(position_residual(model, data, q), 1e-10);
    Eigen::VectorXd qd = Eigen::Vector3d(1.0, 0.0, 0.0);
    close_velocities(model, data, q, qd);
    EXPECT_EQ(data.independent.size(), 1u);
    EXPECT_EQ(data.nominal_rank[0], 2);
    EXPECT_LT(velocity_residual(model, data, q, qd), 1e-10);
    // The pin point moves alike on coupler and rocker (first principles: both rotate about O).
    const Eigen::Vector3d gravity(0, 0, -9.81);
    const Eigen::VectorXd qdd =
        forward_dynamics(model, data, q, qd, Eigen::Vector3d::Zero(), gravity);
    EXPECT_LT((full_constraint_matrix(model, data) * qdd + full_velocity_product(model, data))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-9);
  }
}

// Two four-bars in one tree, the second with its rocker pivot out of reach: the error names its
// loop (the largest residual) and says that Newton got no closer.
TEST(ClosedChainModel, ReportsTheLoopWithTheLargestResidual) {
  Mechanism m = four_bar_chain(3);
  m.joints[5].origin.translation() = Eigen::Vector3d(8.0, 0, 0);  // j_rocker1: 8 > 1 + 3 + 2.5
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  Eigen::VectorXd q(9);
  for (int i = 0; i < 3; ++i) q.segment<3>(3 * i) = four_bar_configuration(true, 0.7);
  q[1] += 0.1;
  try {
    close_positions(model, data, q);
    FAIL() << "no ClosureError";
  } catch (const ClosureError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.find("loop 'close1' cannot be closed from the given state with its independent "
                        "coordinates kept: residual "),
              0u)
        << what;
    EXPECT_NE(what.find("the least the search reaches from up to 22 starts"), std::string::npos)
        << what;
  }
}

TEST(ClosedChainModel, ReportsASingularConfiguration) {
  // Crank 1, coupler 1, rocker 2, ground 2: closes with every link on the x axis (crank along +x,
  // coupler back along -x, rocker along +x), where the closure loses rank.
  FourBarLengths lengths{1.0, 1.0, 2.0, 2.0};
  const ClosedChainModel model(four_bar(false, lengths));
  ClosedChainData data(model);
  const Eigen::VectorXd regular = four_bar_configuration(false, 1.2, lengths);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
  EXPECT_LT(position_residual(model, data, regular), 1e-10);
  update_closed_chain(model, data, regular, zero);
  EXPECT_EQ(data.nominal_rank[0], 2);
  const Eigen::Vector3d in_line(0.0, M_PI, -M_PI);
  EXPECT_LT(position_residual(model, data, in_line), 1e-12);
  try {
    update_closed_chain(model, data, in_line, zero);
    FAIL() << "no SingularConfigurationError";
  } catch (const SingularConfigurationError& error) {
    EXPECT_NE(
        std::string(error.what()).find("singular configuration: loop 'close' loses rank (2 -> 1)"),
        std::string::npos)
        << error.what();
  }
  // Started at the singular configuration, the first update reports it too: the nominal rank is
  // the generic one, fixed by the model (independent of where the data is first updated).
  ClosedChainData fresh(model);
  EXPECT_EQ(fresh.nominal_rank[0], 2);
  EXPECT_THROW(update_closed_chain(model, fresh, in_line, zero), SingularConfigurationError);
  Eigen::VectorXd in_line_q = in_line;
  ClosedChainData closing(model);
  close_positions(model, closing, in_line_q);  // already closed: kept as given
  EXPECT_EQ(in_line_q, Eigen::VectorXd(in_line));
  Eigen::VectorXd qd = Eigen::VectorXd::Ones(3);
  EXPECT_THROW(close_velocities(model, closing, in_line_q, qd), SingularConfigurationError);
  // The same data then works at a regular configuration, with one independent coordinate.
  close_velocities(model, fresh, regular, qd);
  EXPECT_EQ(fresh.independent.size(), 1u);
  EXPECT_LT(velocity_residual(model, fresh, regular, qd), 1e-10);
  const Eigen::VectorXd qdd = forward_dynamics(model, fresh, regular, qd, zero, kGravityDownY);
  EXPECT_LT((full_constraint_matrix(model, fresh) * qdd + full_velocity_product(model, fresh))
                .cwiseAbs()
                .maxCoeff(),
            1e-9);
}

// The generic rank of Q (ClosedChainModel::nominal_rank) against the rank of Q at a regular
// closed configuration computed independently (dense full_constraint_matrix, SVD): every loop
// type closed to the world, random mechanisms with several loops, the Stewart platforms and the
// four-bars, the planar four-bar's five rows of rank 2.
TEST(ClosedChainModel, NominalRankIsTheRankAtARegularClosedConfiguration) {
  std::mt19937 rng(515);
  auto check = [](const Mechanism& mechanism, const Eigen::VectorXd& q0) {
    const ClosedChainModel model(mechanism);
    ClosedChainData data(model);
    update_closed_chain(model, data, q0, Eigen::VectorXd::Zero(model.dof_count()));
    const Eigen::MatrixXd Q = full_constraint_matrix(model, data);
    int total = 0;
    for (int s = 0; s < model.aggregate_count(); ++s) total += model.nominal_rank(s);
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(Q);
    const Eigen::VectorXd sigma = svd.singularValues();
    int rank = 0;
    for (Eigen::Index i = 0; i < sigma.size(); ++i) rank += sigma[i] > 1e-8 * sigma[0];
    EXPECT_EQ(total, rank) << mechanism.name;
  };
  for (const LoopType type :
       {LoopType::kRevolute, LoopType::kPrismatic, LoopType::kSpherical, LoopType::kWeld}) {
    Eigen::VectorXd q0;
    const Mechanism m = chain_closed_to_world(type, rng, q0);
    check(m, q0);
  }
  for (int trial = 0; trial < 4; ++trial) {
    Eigen::VectorXd q0;
    const Mechanism m = random_closed_mechanism(8, 2, rng, q0);
    check(m, q0);
  }
  check(stewart_platform(),
        Eigen::VectorXd::Zero(ClosedChainModel(stewart_platform()).dof_count()));
  check(four_bar(false), four_bar_configuration(false, 0.7));
  check(four_bar(true), four_bar_configuration(true, 0.7));
  const ClosedChainModel planar(four_bar(false));
  EXPECT_EQ(planar.constraint_rows(0), 5);
  EXPECT_EQ(planar.nominal_rank(0), 2);
}

TEST(ClosedChainModel, RejectsBadClosures) {
  auto message = [](const Mechanism& m) {
    try {
      const ClosedChainModel model(m);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  Mechanism gear = geared_links();
  gear.joints[2].type = JointType::kPlanar;
  EXPECT_NE(message(gear).find("coupling 'gear' couples joints with different dof counts"),
            std::string::npos)
      << message(gear);
  Mechanism loop = four_bar(false);
  loop.loops[0].child = 7;
  EXPECT_NE(message(loop).find("loop 'close' names a link out of range"), std::string::npos)
      << message(loop);
  Mechanism fixed = geared_links();
  fixed.joints[1].type = JointType::kFixed;
  EXPECT_NE(message(fixed).find("couples a fixed joint"), std::string::npos) << message(fixed);
}

// Re-selection along a full crank turn of the crank-rocker with a demanding threshold: the
// selection changes where its Y1 degrades, the current conditioning never falls below the
// threshold unless no selection does better, and the velocities stay closed.
TEST(ClosedChainModel, ReselectsIndependentCoordinatesAlongAFullCrankTurn) {
  ClosedChainOptions options;
  options.reselect_conditioning = 0.6;
  const ClosedChainModel model(four_bar(false), options);
  ClosedChainData data(model);
  int changes = 0, previous = -1;
  for (int i = 0; i <= 360; ++i) {
    const Eigen::VectorXd q = four_bar_configuration(false, 2 * M_PI * i / 360.0);
    Eigen::VectorXd qd = Eigen::VectorXd::Ones(3);
    close_velocities(model, data, q, qd);
    EXPECT_LT(velocity_residual(model, data, q, qd), 1e-10);
    const double current = selection_conditioning(data.constraint_matrix[0], data.selection[0]);
    const CoordinateSelection best = select_coordinates(data.constraint_matrix[0]);
    EXPECT_GE(current, std::min(0.6, best.conditioning) - 1e-12) << i;
    if (previous >= 0 && data.independent[0] != previous) ++changes;
    previous = data.independent[0];
  }
  EXPECT_GT(changes, 0);
}

// With a threshold no selection reaches (every Y1 of the four-bar is below 0.999), the selection
// made where the conditioning fell short is kept while it stays within half of what the best
// choice reached then (for up to 64 updates), instead of being re-made at every update: along the
// crank turn it is re-made where it degrades but lags behind the best choice (which re-making at
// every update would never do), and, the best choice's conditioning changing slowly along the
// turn, stays within 0.4 of the best one's now.
TEST(ClosedChainModel, KeepsASelectionWhereNoneReachesTheThreshold) {
  ClosedChainOptions options;
  options.reselect_conditioning = 0.999;
  const ClosedChainModel model(four_bar(false), options);
  ClosedChainData data(model);
  int kept_changes = 0, lagging = 0;
  std::vector<int> previous;
  for (int i = 0; i <= 360; ++i) {
    const Eigen::VectorXd q = four_bar_configuration(false, 2 * M_PI * i / 360.0);
    Eigen::VectorXd qd = Eigen::VectorXd::Ones(3);
    close_velocities(model, data, q, qd);
    EXPECT_LT(velocity_residual(model, data, q, qd), 1e-10);
    const CoordinateSelection best = select_coordinates(data.constraint_matrix[0]);
    ASSERT_LT(best.conditioning, 0.999);
    const double current = selection_conditioning(data.constraint_matrix[0], data.selection[0]);
    EXPECT_GE(current, 0.4 * best.conditioning) << i;
    if (data.selection[0].dependent != best.dependent) ++lagging;  // kept, not re-made
    if (!previous.empty() && data.selection[0].dependent != previous) ++kept_changes;
    previous = data.selection[0].dependent;
  }
  EXPECT_GT(kept_changes, 0);  // re-made where it degraded
  EXPECT_GT(lagging, 0);       // and kept where the best choice had already moved on
}

}  // namespace
}  // namespace skograph

namespace skograph {
namespace {

using namespace testing_support;

// A gear's sub-graph holds both joints' hinges, for siblings and for a link hanging from its
// motor; the closed coordinates satisfy q[motor] = ratio q[link] and the same for the rates.
TEST(ClosedChainModel, GearAggregatesBothHingesAndCouplesTheirCoordinates) {
  for (const bool serial : {false, true}) {
    const ClosedChainModel model(geared_links(4.0, serial));
    ClosedChainData data(model);
    ASSERT_EQ(model.aggregate_count(), 1);
    std::vector<int> nodes = model.aggregate_nodes(0);
    std::ranges::sort(nodes);
    EXPECT_EQ(nodes, (std::vector<int>{1, 2}));
    EXPECT_FALSE(model.swallows_whole_mechanism());
    Eigen::VectorXd q(3), qd(3);
    q << 0.2, 0.3, -0.5;
    qd << 0.4, 1.5, -2.0;
    close_positions(model, data, q);
    close_velocities(model, data, q, qd);
    EXPECT_NEAR(q[1], 4.0 * q[2], 1e-12);
    EXPECT_NEAR(qd[1], 4.0 * qd[2], 1e-12);
    EXPECT_EQ(data.independent.size(), 2u);
    EXPECT_EQ(data.independent[0], 0);  // the base joint is a plain tree joint
  }
}

// Two loops sharing links merge into one aggregate whose rows stack both loops.
TEST(ClosedChainModel, LoopsSharingLinksShareOneAggregate) {
  std::mt19937 rng(21);
  Eigen::VectorXd q0;
  Mechanism m = chain_closed_to_world(LoopType::kSpherical, rng, q0);
  LoopClosure second;
  second.name = "second";
  second.type = LoopType::kRevolute;
  second.parent = 0;
  second.child = 3;
  close_loop_at(m, second, q0, rng);
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  ASSERT_EQ(model.aggregate_count(), 1);
  EXPECT_EQ(model.aggregate_loops(0), (std::vector<int>{0, 1}));
  EXPECT_EQ(model.constraint_rows(0), 3 + 5);
  Eigen::VectorXd q = q0 + rigid_random_state(model.dof_count(), rng, 0.01);
  close_positions(model, data, q);
  EXPECT_LT(position_residual(model, data, q), 1e-10);
  Eigen::VectorXd qd = rigid_random_state(model.dof_count(), rng, 1.0);
  close_velocities(model, data, q, qd);
  EXPECT_LT(velocity_residual(model, data, q, qd), 1e-10);
}

}  // namespace
}  // namespace skograph

namespace skograph {
namespace {

using namespace testing_support;

// A loop whose sub-graph has no dofs (across a fixed joint) is a constant condition: checked, not
// embedded; the rest of the mechanism moves as a tree.
TEST(ClosedChainModel, LoopAcrossAFixedJointIsAConstantCondition) {
  Mechanism m = geared_links();
  m.couplings.clear();
  m.joints[1].type = JointType::kFixed;
  LoopClosure loop;
  loop.name = "rigid";
  loop.type = LoopType::kWeld;
  loop.parent = 0;
  loop.child = 1;
  loop.parent_origin = m.joints[1].origin;
  m.loops.push_back(loop);
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  ASSERT_EQ(model.aggregate_count(), 1);
  EXPECT_TRUE(model.aggregate_dofs(0).empty());
  Eigen::VectorXd q(2), qd(2);
  q << 0.3, -0.4;
  qd << 1.0, 2.0;
  close_positions(model, data, q);
  EXPECT_LT(position_residual(model, data, q), 1e-12);
  RigidBodyData tree_data(model.tree());
  const Eigen::VectorXd tau = Eigen::Vector2d(0.5, -0.2);
  const Eigen::VectorXd reference =
      forward_dynamics(model.tree(), tree_data, q, qd, tau, kGravityDownY);
  const Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, tau, kGravityDownY);
  EXPECT_LT((qdd - reference).cwiseAbs().maxCoeff(), 1e-10);
}

// Without loops or couplings the closed-chain model is the tree: every dof independent, X = I.
TEST(ClosedChainModel, TreeWithoutClosuresIsTheTree) {
  Mechanism m = four_bar(false);
  m.loops.clear();
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  EXPECT_EQ(model.aggregate_count(), 0);
  const Eigen::VectorXd q = Eigen::Vector3d(0.3, -0.2, 0.9), qd = Eigen::Vector3d(1.0, 0.5, -2.0);
  const Eigen::VectorXd tau = Eigen::Vector3d(0.1, 0.2, 0.3);
  RigidBodyData tree_data(model.tree());
  const Eigen::VectorXd reference =
      forward_dynamics(model.tree(), tree_data, q, qd, tau, kGravityDownY);
  EXPECT_LT(
      (forward_dynamics(model, data, q, qd, tau, kGravityDownY) - reference).cwiseAbs().maxCoeff(),
      1e-10);
  EXPECT_TRUE(data.X.isIdentity());
  EXPECT_EQ(data.independent, (std::vector<int>{0, 1, 2}));
}

// The Stewart platform: one aggregate holding every joint (said so, still works), closed at
// q = 0 with 6 independent dofs (21 tree dofs, 15 independent loop rows); energy of a torque-free
// RK4 run with gravity stays constant (positions and velocities closed after every step).
TEST(ClosedChainModel, StewartPlatformConservesEnergy) {
  const ClosedChainModel model(stewart_platform());
  ClosedChainData data(model);
  ASSERT_EQ(model.aggregate_count(), 1);
  EXPECT_TRUE(model.swallows_whole_mechanism());
  EXPECT_EQ(model.constraint_rows(0), 15);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.dof_count());
  EXPECT_LT(position_residual(model, data, q), 1e-12);
  std::mt19937 rng(17);
  Eigen::VectorXd qd = rigid_random_state(model.dof_count(), rng, 0.3);
  close_velocities(model, data, q, qd);
  EXPECT_EQ(data.independent.size(), 6u);
  const Eigen::Vector3d gravity(0, 0, -9.81);
  auto total = [&](const Eigen::VectorXd& qs, const Eigen::VectorXd& qds) {
    update_kinematics(model.tree(), qs, qds, data.tree);
    return kinetic_energy(model.tree(), data.tree) +
           potential_energy(model.tree(), data.tree, gravity);
  };
  const double initial = total(q, qd);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());
  for (int step = 0; step < 300; ++step) closed_rk4_step(model, data, q, qd, zero, gravity, 1e-3);
  EXPECT_LT(position_residual(model, data, q), 1e-10);
  EXPECT_LT(velocity_residual(model, data, q, qd), 1e-10);
  const double drift = std::abs(total(q, qd) - initial) / std::abs(initial);
  EXPECT_LT(drift, 1e-6);
}

// A revolute closure whose axes point opposite ways is open although a x (R a) vanishes: a ball
// joint at the origin closed to the world by a revolute about z, turned a half turn about x.
TEST(ClosedChainModel, RevoluteClosureWithFlippedAxisIsOpen) {
  Mechanism m;
  m.links = {rod_link("ball", 1.0, 1.0)};
  Joint ball;
  ball.name = "ball";
  ball.type = JointType::kSpherical;
  ball.child = 0;
  m.joints.push_back(ball);
  LoopClosure loop;
  loop.name = "hinge";
  loop.type = LoopType::kRevolute;
  loop.child = 0;
  m.loops.push_back(loop);
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  Eigen::VectorXd q = Eigen::Vector3d(M_PI, 0, 0);
  EXPECT_NEAR(position_residual(model, data, q), 2.0, 1e-12);
  // Newton cannot take a single step there (a x (R a) vanishes with its Jacobian's rank); the
  // search behind it restarts and closes the hinge with the axis the right way up.
  close_positions(model, data, q);
  EXPECT_LT(position_residual(model, data, q), kClosureTolerance);
  EXPECT_NEAR(rotation_from_vector(q)(2, 2), 1.0, 1e-10);
  q = Eigen::Vector3d(0.3, -0.2, 0.5);  // tilted: Newton turns the axis back to z
  close_positions(model, data, q);
  EXPECT_LT(position_residual(model, data, q), 1e-10);
  EXPECT_NEAR(std::abs(rotation_from_vector(q)(2, 2)), 1.0, 1e-10);
}

}  // namespace
}  // namespace skograph

// rigid/closed_chain_simulation.hpp: Dormand-Prince (and RK4) in minimal coordinates with
// projection. References
// computed here independently of the library's closed-chain code: energies from the tree mass
// matrix and the links' centers of mass, closure errors from the link poses and the loop frames,
// velocity closure by central differences of those errors along dq/dt, one RK4 step by hand on
// the tree forward dynamics, the work of tau by the trapezoid rule.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "skograph/rigid/closed_chain_simulation.hpp"
#include "support/closed_chain_support.hpp"

namespace skograph {
namespace {

using testing_support::Cut;

// Kinetic 1/2 qd* M qd (tree mass matrix) plus gravity potential -sum m g . c (world centers of
// mass), for a separate tree workspace.
double total_energy(const RigidBodyModel& tree, RigidBodyData& data, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& qd, const Eigen::Vector3d& gravity) {
  const Eigen::MatrixXd& mass = mass_matrix(tree, data, q);
  double energy = 0.5 * qd.dot(mass * qd);
  for (int k = 0; k < tree.node_count(); ++k) {
    const Link& link = tree.mechanism().links[static_cast<size_t>(tree.link_of_node(k))];
    energy -= link.mass *
              gravity.dot(link_poses(tree, data)[static_cast<size_t>(k)] * link.center_of_mass);
  }
  return energy;
}

// The closure errors from the poses: O_c in F_p, and for a revolute F_c's z axis in F_p's x, y.
Eigen::VectorXd closure_errors(const RigidBodyModel& tree, RigidBodyData& data,
                               const Eigen::VectorXd& q) {
  update_positions(tree, q, data);
  const Mechanism& m = tree.mechanism();
  Eigen::VectorXd errors(5 * static_cast<Eigen::Index>(m.loops.size()));
  errors.setZero();
  auto pose = [&](int link) {
    return link < 0 ? Eigen::Isometry3d::Identity()
                    : data.link_pose[static_cast<size_t>(tree.node_of_link(link))];
  };
  for (size_t i = 0; i < m.loops.size(); ++i) {
    const LoopClosure& loop = m.loops[i];
    const Eigen::Isometry3d parent = pose(loop.parent) * loop.parent_origin;
    const Eigen::Isometry3d child = pose(loop.child) * loop.child_origin;
    const auto at = static_cast<Eigen::Index>(5 * i);
    errors.segment<3>(at) = parent.inverse() * child.translation();
    if (loop.type == LoopType::kRevolute)
      errors.segment<2>(at + 3) = (parent.linear().transpose() * child.linear().col(2)).head<2>();
  }
  return errors;
}

struct Recorded {
  std::vector<double> time, energy, library_energy, position_error, velocity_error, power;
  std::vector<Eigen::VectorXd> q, qd;
  std::vector<std::vector<Eigen::Isometry3d>> poses;  // per step, per link index
};

// Simulates and records, per step, the references above.
SimulationSummary run(const Mechanism& mechanism, Eigen::VectorXd& q, Eigen::VectorXd& qd,
                      const SimulationOptions& options, Recorded& recorded,
                      const ClosedChainOptions& closure = {}) {
  const ClosedChainModel model(mechanism, closure);
  ClosedChainData data(model);
  const RigidBodyModel& tree = model.tree();
  RigidBodyData reference(tree);
  Eigen::VectorXd rate(tree.dof_count());
  const Eigen::VectorXd tau =
      options.tau.size() ? options.tau : Eigen::VectorXd::Zero(tree.dof_count()).eval();
  return simulate(model, data, q, qd, options, [&](const SimulationSample& s) {
    recorded.time.push_back(s.time);
    recorded.q.push_back(*s.q);
    recorded.qd.push_back(*s.qd);
    recorded.energy.push_back(total_energy(tree, reference, *s.q, *s.qd, options.gravity));
    recorded.library_energy.push_back(s.kinetic_energy + s.potential_energy);
    recorded.position_error.push_back(closure_errors(tree, reference, *s.q).cwiseAbs().maxCoeff() +
                                      s.position_residual);
    const double epsilon = 1e-6;
    configuration_rate(tree, *s.q, *s.qd, rate);
    const Eigen::VectorXd ahead = closure_errors(tree, reference, *s.q + epsilon * rate);
    const Eigen::VectorXd behind = closure_errors(tree, reference, *s.q - epsilon * rate);
    recorded.velocity_error.push_back(((ahead - behind) / (2 * epsilon)).cwiseAbs().maxCoeff());
    recorded.power.push_back(tau.dot(*s.qd));
    update_positions(tree, *s.q, reference);
    std::vector<Eigen::Isometry3d> poses(mechanism.links.size());
    for (int k = 0; k < tree.node_count(); ++k)
      poses[static_cast<size_t>(tree.link_of_node(k))] =
          reference.link_pose[static_cast<size_t>(k)];
    recorded.poses.push_back(poses);
  });
}

// A consistent state of the internal-cut four-bar: q = 0 (closed by construction) and the rates
// of its independent coordinates, the dependent ones solved.
void carriage_fourbar_state(Eigen::VectorXd& q, Eigen::VectorXd& qd) {
  const ClosedChainModel model(testing_support::carriage_fourbar(Cut::kInternal));
  ClosedChainData data(model);
  q = Eigen::VectorXd::Zero(5);
  qd.resize(5);
  qd << 0.3, 2.0, -1.5, -1.0, 0.7;  // slide, crank, coupler, tool, rocker
  close_velocities(model, data, q, qd);
}

void expect_conserved(const Recorded& recorded, double tolerance) {
  double scale = std::abs(recorded.energy.front());
  for (size_t i = 0; i < recorded.time.size(); ++i) {
    // The library's energies agree with the references at every step.
    EXPECT_NEAR(recorded.library_energy[i], recorded.energy[i], 1e-10 * (1 + scale));
    EXPECT_LT(recorded.position_error[i], 1e-10) << "t = " << recorded.time[i];
    EXPECT_LT(recorded.velocity_error[i], 1e-7) << "t = " << recorded.time[i];
  }
  for (double e : recorded.energy) scale = std::max(scale, std::abs(e));
  for (size_t i = 0; i < recorded.time.size(); ++i)
    ASSERT_LT(std::abs(recorded.energy[i] - recorded.energy.front()), tolerance * scale)
        << "t = " << recorded.time[i];
}

TEST(ClosedChainSimulation, StepCountEndsExactlyAtTheDurationAndRejectsBadValues) {
  EXPECT_EQ(simulation_step_count(1.0, 1e-3), 1000);
  EXPECT_EQ(simulation_step_count(1.0, 0.25), 4);
  EXPECT_EQ(simulation_step_count(1.0, 0.3), 4);  // 0.3, 0.6, 0.9, then 0.1
  EXPECT_EQ(simulation_step_count(0.5, 0.5), 1);
  for (const auto& [t, h] : std::vector<std::pair<double, double>>{{0.0, 0.1},
                                                                   {-1.0, 0.1},
                                                                   {1.0, 0.0},
                                                                   {1.0, -0.1},
                                                                   {1.0, 2.0},
                                                                   {NAN, 0.1},
                                                                   {1.0, NAN},
                                                                   {INFINITY, 0.1},
                                                                   {1e6, 1e-6}})
    EXPECT_THROW(simulation_step_count(t, h), std::invalid_argument) << t << " " << h;
}

TEST(ClosedChainSimulation, FourBarConservesEnergyWithoutAndWithGravity) {
  for (const Eigen::Vector3d& gravity :
       {Eigen::Vector3d::Zero().eval(), Eigen::Vector3d(0, 0, -9.81)}) {
    SCOPED_TRACE(gravity.z());
    Eigen::VectorXd q, qd;
    carriage_fourbar_state(q, qd);
    SimulationOptions options;
    options.duration = 1.0;
    options.step = 5e-4;
    options.gravity = gravity;
    Recorded recorded;
    const SimulationSummary summary =
        run(testing_support::carriage_fourbar(Cut::kInternal), q, qd, options, recorded);
    ASSERT_EQ(recorded.time.size(), 2001u);
    EXPECT_DOUBLE_EQ(recorded.time.back(), 1.0);
    expect_conserved(recorded, 1e-6);
    EXPECT_LT(summary.energy_drift, 1e-6);
    EXPECT_LT(summary.max_position_residual, 1e-10);
    EXPECT_LT(summary.max_velocity_residual, 1e-10);
    if (gravity.z() == 0) {
      EXPECT_LT(summary.kinetic_energy_drift, 1e-6);
    }
    // It moved: the crank turned by more than a radian.
    EXPECT_GT(std::abs(q(1)), 1.0);
  }
}

TEST(ClosedChainSimulation, StewartPlatformConservesEnergyWithoutAndWithGravity) {
  for (const Eigen::Vector3d& gravity :
       {Eigen::Vector3d::Zero().eval(), Eigen::Vector3d(0, 0, -9.81)}) {
    SCOPED_TRACE(gravity.z());
    const Mechanism mechanism = testing_support::stewart_platform();
    const ClosedChainModel model(mechanism);
    EXPECT_TRUE(model.swallows_whole_mechanism());
    Eigen::VectorXd q = Eigen::VectorXd::Zero(21), qd = Eigen::VectorXd::Zero(21);
    for (int leg = 0; leg < 6; ++leg) {
      q(3 * leg + 2) = 0.01 * (leg + 1);   // prismatic extensions
      qd(3 * leg + 2) = 0.05 * (leg - 2);  // and rates
      qd(3 * leg) = 0.1;
    }
    SimulationOptions options;
    // Without actuator forces the platform falls, and after about 0.4 s the legs swing fast
    // through near-singular configurations; 0.3 s is a fall of about 0.4 m.
    options.duration = 0.3;
    options.step = 1e-3;
    options.gravity = gravity;
    Recorded recorded;
    const SimulationSummary summary = run(mechanism, q, qd, options, recorded);
    ASSERT_EQ(recorded.time.size(), 301u);
    expect_conserved(recorded, 1e-6);
    EXPECT_LT(summary.energy_drift, 1e-6);
    EXPECT_LT(summary.max_position_residual, 1e-10);
    EXPECT_LT(summary.max_velocity_residual, 1e-10);
    EXPECT_GT(summary.initial_kinetic_energy, 1e-3);  // it moves
  }
}

TEST(ClosedChainSimulation, AFailedProjectionRejectsTheStepAndTheRunGoesOn) {
  // One Newton iteration per projection closes only the short steps (drift small enough for one
  // quadratic step to reach 1e-12); with loose tolerances the long steps fail to close, are
  // retried shorter, and every reported sample is still closed.
  const Mechanism mechanism = testing_support::stewart_platform();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(21), qd = Eigen::VectorXd::Zero(21);
  for (int leg = 0; leg < 6; ++leg) {
    q(3 * leg + 2) = 0.01 * (leg + 1);
    qd(3 * leg + 2) = 0.05 * (leg - 2);
    qd(3 * leg) = 0.1;
  }
  SimulationOptions options;
  options.duration = 0.3;
  options.step = 0.05;
  options.gravity = Eigen::Vector3d(0, 0, -9.81);
  options.relative_tolerance = options.absolute_tolerance = 0.1;
  ClosedChainOptions one_iteration;
  one_iteration.max_newton_iterations = 1;
  Recorded recorded;
  const SimulationSummary summary = run(mechanism, q, qd, options, recorded, one_iteration);
  EXPECT_GT(summary.rejected_steps, 0);
  ASSERT_EQ(recorded.time.size(), 7u);
  EXPECT_DOUBLE_EQ(recorded.time.back(), 0.3);
  for (std::size_t k = 0; k < recorded.time.size(); ++k) {
    EXPECT_LT(recorded.position_error[k], 1e-9) << "t = " << recorded.time[k];
    EXPECT_LT(recorded.velocity_error[k], 1e-6) << "t = " << recorded.time[k];
  }
}

TEST(ClosedChainSimulation, TerminalAndInternalCutsGiveTheSameMotion) {
  // The same physical initial state: q = 0 closes both; the rates map joint by joint except the
  // rocker's, which is absolute (from the carriage) in the internal cut and relative to the
  // coupler in the terminal cut.
  Eigen::VectorXd q_internal, qd_internal;
  carriage_fourbar_state(q_internal, qd_internal);
  Eigen::VectorXd q_terminal = q_internal, qd_terminal = qd_internal;
  qd_terminal(4) = qd_internal(4) - qd_internal(1) - qd_internal(2);
  SimulationOptions options;
  options.duration = 0.5;
  options.step = 5e-4;
  Recorded internal, terminal;
  run(testing_support::carriage_fourbar(Cut::kInternal), q_internal, qd_internal, options,
      internal);
  run(testing_support::carriage_fourbar(Cut::kTerminal), q_terminal, qd_terminal, options,
      terminal);
  ASSERT_EQ(internal.poses.size(), terminal.poses.size());
  const Eigen::Vector3d rocker_center(0.15, 0, 0);
  double largest = 0.0;
  for (size_t i = 0; i < internal.poses.size(); ++i) {
    for (int link : {0, 1, 2, 4}) {  // carriage, crank, coupler, tool: the same frames
      largest = std::max(largest, (internal.poses[i][static_cast<size_t>(link)].matrix() -
                                   terminal.poses[i][static_cast<size_t>(link)].matrix())
                                      .cwiseAbs()
                                      .maxCoeff());
    }
    // The rocker's frame differs between the cuts; its center of mass does not.
    largest = std::max(largest,
                       (internal.poses[i][3] * rocker_center - terminal.poses[i][3] * rocker_center)
                           .cwiseAbs()
                           .maxCoeff());
    EXPECT_NEAR(internal.energy[i], terminal.energy[i], 1e-7 * std::abs(internal.energy[0]));
  }
  EXPECT_LT(largest, 1e-8);
  // The motion is not trivial: the crank turned.
  EXPECT_GT(std::abs(internal.q.back()(1) - internal.q.front()(1)), 0.3);
}

TEST(ClosedChainSimulation, OneStepOfATreeIsClassicalRungeKuttaOnTheTreeDynamics) {
  // The internal-cut four-bar without its loop is a tree: X = I, nothing to close, and one step
  // must be RK4 on qdd = M^-1 (tau - C) computed here from the tree's forward dynamics.
  Mechanism mechanism = testing_support::carriage_fourbar(Cut::kInternal);
  mechanism.loops.clear();
  const RigidBodyModel tree(mechanism);
  RigidBodyData data(tree);
  Eigen::VectorXd q(5), qd(5), tau(5);
  q << 0.1, 0.2, -0.3, 0.4, 0.5;
  qd << 0.5, -1.0, 2.0, 0.3, -0.7;
  tau << 1.0, 0.1, -0.05, 0.02, 0.03;
  const double h = 0.01;
  const Eigen::Vector3d gravity(0, 0, -9.81);
  auto acceleration = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& v) {
    return Eigen::VectorXd(forward_dynamics(tree, data, x, v, tau, gravity));
  };
  const Eigen::VectorXd a1 = acceleration(q, qd);
  const Eigen::VectorXd a2 = acceleration(q + 0.5 * h * qd, qd + 0.5 * h * a1);
  const Eigen::VectorXd a3 = acceleration(q + 0.5 * h * (qd + 0.5 * h * a1), qd + 0.5 * h * a2);
  const Eigen::VectorXd a4 = acceleration(q + h * (qd + 0.5 * h * a2), qd + h * a3);
  const Eigen::VectorXd v2 = qd + 0.5 * h * a1, v3 = qd + 0.5 * h * a2, v4 = qd + h * a3;
  const Eigen::VectorXd q_expected = q + h / 6 * (qd + 2 * v2 + 2 * v3 + v4);
  const Eigen::VectorXd qd_expected = qd + h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);

  const ClosedChainModel model(mechanism);
  ClosedChainData closed(model);
  SimulationOptions options;
  options.duration = h;
  options.step = h;
  options.integrator = Integrator::kRungeKutta4;
  options.gravity = gravity;
  options.tau = tau;
  const SimulationSummary summary = simulate(model, closed, q, qd, options);
  EXPECT_EQ(summary.steps, 1);
  EXPECT_EQ(summary.accepted_steps, 1);
  EXPECT_EQ(summary.evaluations, 4);
  EXPECT_LT((q - q_expected).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((qd - qd_expected).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(ClosedChainSimulation, EnergyChangesByTheWorkOfTheAppliedForces) {
  Eigen::VectorXd q, qd;
  carriage_fourbar_state(q, qd);
  SimulationOptions options;
  options.duration = 0.5;
  options.step = 1e-4;
  options.tau = Eigen::VectorXd::Zero(5);
  options.tau << 2.0, 0.3, -0.1, 0.05, 0.0;  // on all joints, the rocker's too
  Recorded recorded;
  const SimulationSummary summary =
      run(testing_support::carriage_fourbar(Cut::kInternal), q, qd, options, recorded);
  // W by the trapezoid rule on the recorded power (error O(h^2) ~ 1e-8 relative here).
  double work = 0.0;
  for (size_t i = 1; i < recorded.time.size(); ++i)
    work += 0.5 * (recorded.power[i] + recorded.power[i - 1]) *
            (recorded.time[i] - recorded.time[i - 1]);
  const double change = recorded.energy.back() - recorded.energy.front();
  EXPECT_GT(std::abs(work), 0.1);
  EXPECT_NEAR(change, work, 1e-6 * std::abs(work));
  EXPECT_NEAR(summary.work, work, 1e-6 * std::abs(work));
  EXPECT_LT(summary.energy_drift, 1e-8);
}

TEST(ClosedChainSimulation, EnergyErrorShrinksAtFourthOrder) {
  // Halving h divides the energy error of RK4 by about 16 (the projection does not spoil it).
  double drift[2];
  for (int i = 0; i < 2; ++i) {
    Eigen::VectorXd q, qd;
    carriage_fourbar_state(q, qd);
    qd *= 3.0;
    SimulationOptions options;
    options.duration = 0.5;
    options.step = i == 0 ? 4e-3 : 2e-3;
    options.integrator = Integrator::kRungeKutta4;
    Recorded recorded;
    drift[i] = run(testing_support::carriage_fourbar(Cut::kInternal), q, qd, options, recorded)
                   .energy_drift;
  }
  EXPECT_GT(drift[0], 1e-12);
  EXPECT_GT(drift[0] / drift[1], 8.0);
  EXPECT_LT(drift[0] / drift[1], 40.0);
}

TEST(ClosedChainSimulation, DormandPrinceSamplesAgreeWithAFineFixedStepReference) {
  // The same motion by RK4 with steps of 1e-4 s (error ~1e-13 here) and by Dormand-Prince with
  // samples every 0.01 s interpolated from its own, much longer steps.
  Eigen::VectorXd q_reference, qd_reference, q, qd;
  carriage_fourbar_state(q_reference, qd_reference);
  qd_reference *= 3.0;
  q = q_reference;
  qd = qd_reference;
  SimulationOptions fixed;
  fixed.duration = 0.5;
  fixed.step = 1e-4;
  fixed.integrator = Integrator::kRungeKutta4;
  Recorded reference, adaptive;
  run(testing_support::carriage_fourbar(Cut::kInternal), q_reference, qd_reference, fixed,
      reference);
  SimulationOptions options;
  options.duration = 0.5;
  options.step = 0.01;
  options.relative_tolerance = options.absolute_tolerance = 1e-11;
  const SimulationSummary summary =
      run(testing_support::carriage_fourbar(Cut::kInternal), q, qd, options, adaptive);
  ASSERT_EQ(adaptive.time.size(), 51u);
  ASSERT_EQ(reference.time.size(), 5001u);
  double largest = 0.0;
  for (size_t k = 0; k < adaptive.time.size(); ++k) {
    ASSERT_NEAR(adaptive.time[k], reference.time[100 * k], 1e-12);
    largest = std::max(largest, (adaptive.q[k] - reference.q[100 * k]).cwiseAbs().maxCoeff());
    largest = std::max(largest, (adaptive.qd[k] - reference.qd[100 * k]).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(largest, 1e-8);
  EXPECT_GT((adaptive.q.back() - adaptive.q.front()).norm(), 1.0);  // it moved
  // Far fewer steps than the reference's 5000, yet more than the 50 sample intervals.
  EXPECT_GT(summary.accepted_steps, 50);
  EXPECT_LT(summary.accepted_steps, 2000);
  EXPECT_EQ(summary.rejected_steps, 0);
}

TEST(ClosedChainSimulation, TighterTolerancesGiveSmallerEnergyDrift) {
  double drift[3];
  long long steps[3];
  const double tolerances[3] = {1e-5, 1e-7, 1e-9};
  for (int i = 0; i < 3; ++i) {
    Eigen::VectorXd q, qd;
    carriage_fourbar_state(q, qd);
    qd *= 3.0;
    SimulationOptions options;
    options.duration = 1.0;
    options.step = 0.01;
    options.relative_tolerance = options.absolute_tolerance = tolerances[i];
    Recorded recorded;
    const SimulationSummary summary =
        run(testing_support::carriage_fourbar(Cut::kInternal), q, qd, options, recorded);
    drift[i] = summary.energy_drift;
    steps[i] = summary.accepted_steps;
    // The drift the summary reports is the one of the references computed here.
    double largest = 0.0;
    for (double e : recorded.energy) largest = std::max(largest, std::abs(e - recorded.energy[0]));
    EXPECT_NEAR(drift[i] * summary.energy_scale, largest, 1e-9 * summary.energy_scale);
  }
  // A fifth-order method: 100 times tighter tolerances cost about 100^(1/5) = 2.5 times the steps
  // and shrink the error by about 100.
  EXPECT_GT(drift[0] / drift[1], 20.0);
  EXPECT_GT(drift[1] / drift[2], 20.0);
  EXPECT_LT(drift[2], 1e-8);
  EXPECT_GT(steps[1], steps[0]);
  EXPECT_GT(steps[2], steps[1]);
  EXPECT_LT(steps[2], 10 * steps[0]);
}

TEST(ClosedChainSimulation, BadSizesAndOptionsAreRejected) {
  const ClosedChainModel model(testing_support::carriage_fourbar(Cut::kInternal));
  ClosedChainData data(model);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(5), qd = Eigen::VectorXd::Zero(5), short_q(4);
  SimulationOptions options;
  EXPECT_THROW(simulate(model, data, short_q, qd, options), std::invalid_argument);
  options.tau = Eigen::VectorXd::Zero(3);
  EXPECT_THROW(simulate(model, data, q, qd, options), std::invalid_argument);
  options.tau.resize(0);
  options.step = 0.0;
  EXPECT_THROW(simulate(model, data, q, qd, options), std::invalid_argument);
  options.step = 1e-3;
  options.relative_tolerance = 0.0;
  EXPECT_THROW(simulate(model, data, q, qd, options), std::invalid_argument);
  options.relative_tolerance = 1e-9;
  options.absolute_tolerance = NAN;
  EXPECT_THROW(simulate(model, data, q, qd, options), std::invalid_argument);
}

TEST(ClosedChainSimulation, AClosureOutOfReachIsAClosureErrorNamingTheLoop) {
  // A 0.4 m two-link arm whose tip is tied to a world point 1 m away.
  Mechanism m;
  m.source = "reach (built in code)";
  using namespace testing_support;
  const int a = add_link(m, rod_link("a", 0.2, 1.0));
  const int b = add_link(m, rod_link("b", 0.2, 1.0));
  m.joints.push_back(make_joint("ja", JointType::kRevolute, -1, a, frame({0, 0, 0})));
  m.joints.push_back(make_joint("jb", JointType::kRevolute, a, b, frame({0.2, 0, 0})));
  m.loops.push_back(
      make_loop("tip", LoopType::kSpherical, -1, b, frame({1.0, 0, 0}), frame({0.2, 0, 0})));
  const ClosedChainModel model(m);
  ClosedChainData data(model);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(2), qd = Eigen::VectorXd::Zero(2);
  SimulationOptions options;
  try {
    simulate(model, data, q, qd, options);
    ADD_FAILURE() << "no ClosureError";
  } catch (const ClosureError& e) {
    EXPECT_NE(std::string(e.what()).find("at t = 0 s"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'tip'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace skograph

// Flexible links inside a loop (docs/flexible-bodies.md, "In a loop"): a planar four-bar whose
// coupler (and, in the second mechanism, also its rocker) is a clamped beam bending in the plane.
// Checked against first principles that do not go through the constraint embedding: the loop's
// closure gap, written here from the link poses, stays zero to second order along the motion
// forward dynamics gives (its second derivative by Richardson-extrapolated differences), and
// M qdd + C - tau lies in the range of the gap's Jacobian transposed (the loop's force does no
// work along the manifold), with M and C of the tree; energy is kept by the simulation without
// damping; a mode the planar joints cannot follow is refused.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <string>

#include "skograph/rigid/beam_modes.hpp"
#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/closed_chain_simulation.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {
namespace {

// A uniform beam of `length` along x clamped at its hinge with `modes` in-plane modes (EI_z) and,
// unless `planar`, as many out of the plane (EI_y); its nodes at the stations of `attached`.
Link beam_link(const std::string& name, double length, int modes, bool planar,
               const std::vector<std::pair<std::string, double>>& attached,
               double damping_ratio = 0.0) {
  BeamSpec beam;
  beam.length = length;
  beam.stiffness_y = planar ? std::numeric_limits<double>::infinity() : 40.0;
  beam.stiffness_z = 60.0;
  beam.mass_per_length = 2.0;
  beam.modes = modes;
  beam.radius = length / 50.0;
  std::vector<double> stations;
  for (const auto& entry : attached) stations.push_back(entry.second);
  const BeamModes data = clamped_free_beam(beam, stations);
  Link link;
  link.name = name;
  link.mass = data.mass;
  link.center_of_mass = data.center_of_mass;
  link.inertia = data.inertia_about_center;
  auto body = std::make_shared<ModalBody>();
  body->modal_mass = data.modal_mass;
  body->modal_stiffness = data.modal_stiffness;
  body->modal_damping = (2.0 * damping_ratio * data.frequencies.array()).matrix().asDiagonal();
  body->coupling = data.coupling;
  for (std::size_t i = 0; i < attached.size(); ++i)
    body->nodes.push_back({attached[i].first, data.influence[i], 0});
  link.flexible = std::move(body);
  return link;
}

Joint revolute_z(const std::string& name, int parent, int child, double x, double y, double angle) {
  Joint joint;
  joint.name = name;
  joint.type = JointType::kRevolute;
  joint.parent = parent;
  joint.child = child;
  joint.origin =
      Eigen::Translation3d(x, y, 0.0) * Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitZ());
  joint.axis = Eigen::Vector3d::UnitZ();
  return joint;
}

// Ground pivots A = (0, 0), D = (0.35, 0); crank 0.1, coupler 0.4, rocker 0.3 in the xy plane;
// the loop pins the coupler's tip to the rocker's. The coupler is a beam; with
// `flexible_rocker` the rocker too (a loop between two flexible links).
Mechanism flexible_four_bar(bool planar, bool flexible_rocker, double damping_ratio = 0.0) {
  Mechanism m;
  m.name = "flexible_four_bar";
  Link crank;
  crank.name = "crank";
  crank.mass = 0.3;
  crank.center_of_mass = Eigen::Vector3d(0.05, 0, 0);
  crank.inertia = Eigen::Vector3d(2e-5, 2.6e-4, 2.6e-4).asDiagonal();
  m.links.push_back(crank);
  m.links.push_back(beam_link("coupler", 0.4, 2, planar, {{"pin", 0.4}}, damping_ratio));
  if (flexible_rocker) {
    m.links.push_back(beam_link("rocker", 0.3, 1, true, {{"pin", 0.3}}));
  } else {
    Link rocker;
    rocker.name = "rocker";
    rocker.mass = 0.6;
    rocker.center_of_mass = Eigen::Vector3d(0.15, 0, 0);
    rocker.inertia = Eigen::Vector3d(4e-5, 4.5e-3, 4.5e-3).asDiagonal();
    m.links.push_back(rocker);
  }
  m.joints.push_back(revolute_z("crank_joint", -1, 0, 0.0, 0.0, 1.5707963267948966));
  m.joints.push_back(revolute_z("coupler_joint", 0, 1, 0.1, 0.0, -1.0472591299386100));
  m.joints.push_back(revolute_z("rocker_joint", -1, 2, 0.35, 0.0, 1.5827216874342542));
  LoopClosure pin;
  pin.name = "pin";
  pin.type = LoopType::kRevolute;
  pin.parent = 1;
  pin.child = 2;
  pin.parent_origin = Eigen::Translation3d(0.4, 0, 0) * Eigen::AngleAxisd::Identity();
  pin.child_origin = Eigen::Translation3d(0.3, 0, 0) *
                     Eigen::AngleAxisd(-1.0591845152373657, Eigen::Vector3d::UnitZ());
  pin.axis = Eigen::Vector3d::UnitZ();
  m.loops.push_back(pin);
  m.independent = {"crank_joint"};
  return m;
}

// The closure gap written from the poses: the pin frames' origins coincide and their z axes
// agree (6 numbers, zero exactly on the closed configurations).
Eigen::VectorXd closure_gap(const ClosedChainModel& model, const Eigen::VectorXd& q) {
  const RigidBodyModel& tree = model.tree();
  RigidBodyData data(tree);
  update_positions(tree, q, data);
  const LoopClosure& loop = model.mechanism().loops[0];
  const Eigen::Isometry3d parent =
      link_poses(tree, data)[tree.node_of_link(loop.parent)] * loop.parent_origin;
  const Eigen::Isometry3d child =
      link_poses(tree, data)[tree.node_of_link(loop.child)] * loop.child_origin;
  Eigen::VectorXd gap(6);
  gap.head<3>() = child.translation() - parent.translation();
  gap.tail<3>() = child.linear().col(2) - parent.linear().col(2);
  return gap;
}

// A closed state with the modes deflected and moving: crank and modal coordinates kept, the
// rest closed.
struct ClosedState {
  Eigen::VectorXd q, qd;
};
ClosedState closed_state(const ClosedChainModel& model, ClosedChainData& data, double crank) {
  const int n = model.dof_count();
  ClosedState state{Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};
  const std::vector<std::string>& names = model.tree().dof_names();
  for (int d = 0; d < n; ++d) {
    const std::string& name = names[static_cast<std::size_t>(d)];
    if (name == "crank_joint") {
      state.q[d] = crank;
      state.qd[d] = 1.3;
    } else if (name.find(":eta") != std::string::npos) {
      state.q[d] = 0.004 * (d % 2 ? 1.0 : -0.6);
      state.qd[d] = 0.2 * (d % 2 ? -1.0 : 0.7);
    }
  }
  assemble(model, data, state.q);
  close_velocities(model, data, state.q, state.qd);
  return state;
}

void check_dynamics_from_first_principles(bool flexible_rocker) {
  const ClosedChainModel model(flexible_four_bar(true, flexible_rocker));
  ClosedChainData data(model);
  const RigidBodyModel& tree = model.tree();
  RigidBodyData tree_data(tree);
  const int n = model.dof_count();
  const Eigen::Vector3d gravity(0, -9.81, 0);
  for (const double crank : {0.1, 0.9, 2.4}) {
    const ClosedState state = closed_state(model, data, crank);
    EXPECT_LT(closure_gap(model, state.q).norm(), 1e-10) << crank;
    EXPECT_LT(position_residual(model, data, state.q), 1e-10);
    EXPECT_LT(velocity_residual(model, data, state.q, state.qd), 1e-10);
    Eigen::VectorXd tau = Eigen::VectorXd::Zero(n);
    tau[0] = 0.15;
    const Eigen::VectorXd qdd = forward_dynamics(model, data, state.q, state.qd, tau, gravity);

    // The gap along q(t) = q + t qd + t^2/2 qdd: first and second derivatives zero at t = 0.
    auto gap_at = [&](double t) -> Eigen::VectorXd {
      return closure_gap(model, state.q + t * state.qd + 0.5 * t * t * qdd);
    };
    auto second = [&](double h) -> Eigen::VectorXd {
      return (gap_at(h) - 2.0 * gap_at(0.0) + gap_at(-h)) / (h * h);
    };
    auto first = [&](double h) -> Eigen::VectorXd { return (gap_at(h) - gap_at(-h)) / (2.0 * h); };
    // A step short against the motion's time scale (the second mode's qdd is of order 1e5).
    const double h = 0.05 / std::sqrt(1.0 + qdd.norm() + state.qd.squaredNorm());
    const Eigen::VectorXd rate = (4.0 * first(h / 2) - first(h)) / 3.0;
    const Eigen::VectorXd curvature = (4.0 * second(h / 2) - second(h)) / 3.0;
    EXPECT_LT(rate.norm(), 1e-6) << crank;
    EXPECT_LT(curvature.norm(), 1e-6 * (1.0 + qdd.norm())) << crank << "\n" << curvature;

    // G = d gap / dq by Richardson differences; M qdd + C - tau = G* lambda for some lambda.
    Eigen::MatrixXd jacobian(6, n);
    for (int j = 0; j < n; ++j) {
      auto at = [&](double e) -> Eigen::VectorXd {
        Eigen::VectorXd moved = state.q;
        moved[j] += e;
        return closure_gap(model, moved);
      };
      auto central = [&](double e) -> Eigen::VectorXd { return (at(e) - at(-e)) / (2.0 * e); };
      jacobian.col(j) = (4.0 * central(5e-4) - central(1e-3)) / 3.0;
    }
    const Eigen::MatrixXd mass = mass_matrix(tree, tree_data, state.q);
    const Eigen::VectorXd bias =
        inverse_dynamics(tree, tree_data, state.q, state.qd, Eigen::VectorXd::Zero(n), gravity);
    const Eigen::VectorXd residual = mass * qdd + bias - tau;
    const Eigen::MatrixXd transpose = jacobian.transpose();
    const Eigen::VectorXd lambda = transpose.completeOrthogonalDecomposition().solve(residual);
    EXPECT_LT((transpose * lambda - residual).norm(), 1e-7 * (1.0 + residual.norm())) << crank;
    // The loop does hold the mechanism: the force is not zero.
    EXPECT_GT(residual.norm(), 1e-3);

    // Inverse dynamics in the independent coordinates gives back X* tau.
    Eigen::VectorXd independent_qdd(static_cast<Eigen::Index>(data.independent.size()));
    for (std::size_t i = 0; i < data.independent.size(); ++i)
      independent_qdd[static_cast<Eigen::Index>(i)] = qdd[data.independent[i]];
    const Eigen::VectorXd independent_forces =
        inverse_dynamics(model, data, state.q, state.qd, independent_qdd, gravity);
    EXPECT_LT((independent_forces - data.X.transpose() * tau).norm(), 1e-9) << crank;
  }
}

TEST(FlexibleClosedChain, ForwardDynamicsKeepTheLoopClosedAndItsForceWorkless) {
  check_dynamics_from_first_principles(false);
}

TEST(FlexibleClosedChain, ALoopBetweenTwoFlexibleLinks) {
  check_dynamics_from_first_principles(true);
}

// At rest under the torques that hold it (qdd = 0), the linearized dynamics follow from the
// energy alone: M_R dqdd_R/dq_R = -d^2 U / dq_R^2 with U = V - tau . q on the closed
// configurations (V the gravity and elastic potential), whose second differences are taken here
// from closed neighbours; and M_R dqdd_R/dqd_R = -X* D X, the modal damping D (no Coriolis terms
// at rest). The derivatives' own route (differences of forward dynamics) shares neither.
TEST(FlexibleClosedChain, LinearizedAtRestTheStiffnessIsThePotentialsHessian) {
  const ClosedChainModel model(flexible_four_bar(true, true, 0.02));
  ClosedChainData data(model);
  const RigidBodyModel& tree = model.tree();
  RigidBodyData tree_data(tree);
  const int n = model.dof_count();
  const Eigen::Vector3d gravity(0, -9.81, 0);
  ClosedState state = closed_state(model, data, 0.7);
  state.qd.setZero();
  // The holding forces on the independent coordinates: X* tau = tau_R at qdd_R = 0.
  const Eigen::VectorXd held = inverse_dynamics(
      model, data, state.q, state.qd,
      Eigen::VectorXd::Zero(static_cast<Eigen::Index>(data.independent.size())), gravity);
  const std::vector<int> independent = data.independent;
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(n);
  for (std::size_t j = 0; j < independent.size(); ++j)
    tau[independent[j]] = held[static_cast<Eigen::Index>(j)];
  ClosedChainForwardDerivatives derivatives;
  forward_dynamics_derivatives(model, data, state.q, state.qd, tau, gravity, derivatives);
  ASSERT_EQ(derivatives.independent, independent);
  const Eigen::MatrixXd embedding = data.X;  // at the state (the energy's closures move data)
  EXPECT_LT(derivatives.qdd.norm(), 1e-9);
  const auto r = static_cast<Eigen::Index>(independent.size());
  Eigen::MatrixXd by_q(r, r), by_qd(r, r);
  for (Eigen::Index a = 0; a < r; ++a) {
    by_q.row(a) = derivatives.dqdd_dq.row(independent[static_cast<std::size_t>(a)]);
    by_qd.row(a) = derivatives.dqdd_dqd.row(independent[static_cast<std::size_t>(a)]);
  }
  const Eigen::MatrixXd stiffness = -derivatives.reduced_mass * by_q;

  // U at the configuration closed with the independent coordinates moved by d.
  auto energy = [&](const Eigen::VectorXd& d) {
    Eigen::VectorXd q = state.q;
    for (Eigen::Index a = 0; a < r; ++a) q[independent[static_cast<std::size_t>(a)]] += d[a];
    close_positions(model, data, q);
    update_positions(tree, q, tree_data);
    return potential_energy(tree, tree_data, q, gravity) - tau.dot(q);
  };
  const double h = 1e-3;
  Eigen::MatrixXd hessian(r, r);
  for (Eigen::Index a = 0; a < r; ++a)
    for (Eigen::Index b = 0; b < r; ++b) {
      auto mixed = [&](double step) {
        Eigen::VectorXd ea = Eigen::VectorXd::Zero(r), eb = Eigen::VectorXd::Zero(r);
        ea[a] = step;
        eb[b] = step;
        return (energy(ea + eb) - energy(ea - eb) - energy(eb - ea) + energy(-ea - eb)) /
               (4.0 * step * step);
      };
      hessian(a, b) = (4.0 * mixed(h / 2) - mixed(h)) / 3.0;
    }
  // Entry by entry against the scale of its row and column (the bending modes' stiffness is
  // five orders above the crank's gravity stiffness).
  for (Eigen::Index a = 0; a < r; ++a)
    for (Eigen::Index b = 0; b < r; ++b)
      EXPECT_NEAR(stiffness(a, b), hessian(a, b),
                  1e-5 * std::sqrt(std::abs(hessian(a, a) * hessian(b, b))) + 1e-6)
          << a << ", " << b << "\n"
          << stiffness << "\n\n"
          << hessian;
  // Damping: D on the modal rows and columns of the tree's dofs.
  Eigen::MatrixXd damping = Eigen::MatrixXd::Zero(n, n);
  const Mechanism& m = model.mechanism();
  for (int k = 0; k < tree.node_count(); ++k)
    if (const int modes = tree.modes(k); modes > 0)
      damping.block(tree.modal_offset(k), tree.modal_offset(k), modes, modes) =
          m.links[static_cast<std::size_t>(tree.link_of_node(k))].flexible->modal_damping;
  const Eigen::MatrixXd reduced_damping = embedding.transpose() * damping * embedding;
  EXPECT_GT(reduced_damping.norm(), 1e-3);
  EXPECT_LT((derivatives.reduced_mass * by_qd + reduced_damping).norm(),
            1e-6 * reduced_damping.norm())
      << derivatives.reduced_mass * by_qd << "\n\n"
      << -reduced_damping;
  // dqdd/dtau against forward dynamics' own change for a unit torque on the crank (linear).
  Eigen::VectorXd pushed = tau;
  pushed[independent[0]] += 1.0;
  const Eigen::VectorXd moved = forward_dynamics(model, data, state.q, state.qd, pushed, gravity);
  EXPECT_LT((moved - derivatives.qdd - derivatives.dqdd_dtau.col(independent[0])).norm(),
            1e-9 * (1.0 + moved.norm()));
}

TEST(FlexibleClosedChain, ModesAreIndependentCoordinates) {
  const ClosedChainModel model(flexible_four_bar(true, false));
  ClosedChainData data(model);
  const ClosedState state = closed_state(model, data, 0.5);
  forward_dynamics(model, data, state.q, state.qd, Eigen::VectorXd::Zero(model.dof_count()),
                   Eigen::Vector3d::Zero());
  std::vector<std::string> independent;
  for (const int d : data.independent)
    independent.push_back(model.tree().dof_names()[static_cast<std::size_t>(d)]);
  EXPECT_EQ(independent, (std::vector<std::string>{"crank_joint", "coupler:eta1", "coupler:eta2"}));
}

TEST(FlexibleClosedChain, SimulationKeepsEnergyWithoutDamping) {
  const ClosedChainModel model(flexible_four_bar(true, false));
  ClosedChainData data(model);
  ClosedState state = closed_state(model, data, 0.3);
  SimulationOptions options;
  options.duration = 0.5;
  options.step = 0.05;
  options.gravity = Eigen::Vector3d(0, -9.81, 0);
  const SimulationSummary summary = simulate(model, data, state.q, state.qd, options);
  EXPECT_LT(summary.energy_drift, 1e-7);
  EXPECT_LT(summary.max_position_residual, 1e-9);
  EXPECT_LT(summary.max_velocity_residual, 1e-9);
  EXPECT_LT(closure_gap(model, state.q).norm(), 1e-9);
}

TEST(FlexibleClosedChain, AModeThePlanarJointsCannotFollowIsRefused) {
  try {
    const ClosedChainModel model(flexible_four_bar(false, false));
    FAIL() << "out-of-plane modes were taken";
  } catch (const LoopDefinitionError& e) {
    EXPECT_NE(
        std::string(e.what()).find("loop 'pin' cannot follow modal coordinate 'coupler:eta1'"),
        std::string::npos)
        << e.what();
    EXPECT_EQ(e.loop(), 0);
  }
}

}  // namespace
}  // namespace skograph

// Trees with flexible links through the SKO model (rigid/flexible_nodes.cpp) against the dense
// reference written from the definitions (tests/support/flexible_reference.hpp): the mass matrix,
// the bias forces, inverse and forward dynamics and the energy on random trees with several
// flexible bodies, a floating base included; part II's innovations factors and M^-1 on them; and
// a flexible link whose modes move nothing equals the rigid model; the derivatives against
// differences of the reference.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "skograph/operators/innovations.hpp"
#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/flexible_kinematics.hpp"
#include "skograph/rigid/free_flying.hpp"
#include "skograph/rigid/kinematics.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/rigid/tangent.hpp"
#include "support/flexible_mechanism.hpp"
#include "support/flexible_reference.hpp"
#include "support/richardson.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using flexible_reference::Body;
using flexible_reference::Tree;
using namespace testing_support;

using flexible_reference::max_relative_error;

int flexible_count(const std::vector<Body>& bodies) {
  return static_cast<int>(
      std::count_if(bodies.begin(), bodies.end(), [](const Body& b) { return b.modes() > 0; }));
}

// Random trees with at least two flexible bodies; modal rotations of up to 0.3 rad per unit
// coordinate, or 1.5 rad (turns past 1 rad, where the left Jacobian leaves its series).
std::vector<Body> random_tree(int trial, std::mt19937& rng) {
  for (;;) {
    std::vector<Body> bodies =
        random_flexible_bodies(2 + trial % 6, trial % 2 == 0, trial % 4 == 3 ? 1.5 : 0.3, rng);
    if (flexible_count(bodies) >= std::min<int>(2, static_cast<int>(bodies.size()))) return bodies;
  }
}

TEST(FlexibleModel, DynamicsMatchTheDenseReference) {
  std::mt19937 rng(53);
  const Eigen::Vector3d gravity(0.7, -0.4, -9.81);
  for (int trial = 0; trial < 16; ++trial) {
    const std::vector<Body> bodies = random_tree(trial, rng);
    const Tree tree(bodies);
    const RigidBodyModel model(mechanism_of(bodies));
    RigidBodyData data(model);
    const int n = tree.dofs();
    ASSERT_EQ(model.dof_count(), n);
    ASSERT_TRUE(model.has_flexible_links());
    const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng),
                          qdd = rigid_random_state(n, rng), tau = rigid_random_state(n, rng);
    const Eigen::MatrixXd mass = tree.mass_matrix(q);
    const Eigen::VectorXd bias = tree.bias_forces(q, qd, gravity);
    const std::string where = "trial " + std::to_string(trial);
    EXPECT_LT(max_relative_error(mass_matrix(model, data, q), mass), 1e-12) << where;
    EXPECT_LT(max_relative_error(bias_forces(model, data, q, qd, gravity), bias), 1e-12) << where;
    EXPECT_LT(
        max_relative_error(inverse_dynamics(model, data, q, qd, qdd, gravity), mass * qdd + bias),
        1e-12)
        << where;
    // Forward dynamics to the conditioning of M.
    const Eigen::VectorXd expected = mass.ldlt().solve(tau - bias);
    const Eigen::VectorXd acceleration = forward_dynamics(model, data, q, qd, tau, gravity);
    EXPECT_LT((mass * (acceleration - expected)).cwiseAbs().maxCoeff(),
              1e-12 * std::max(1.0, (tau - bias).cwiseAbs().maxCoeff()))
        << where;
    update_kinematics(model, q, qd, data);
    const double energy = kinetic_energy(model, data) + potential_energy(model, data, q, gravity);
    const double reference = tree.energy(q, qd, gravity);
    EXPECT_NEAR(energy, reference, 1e-12 * std::max(1.0, std::abs(reference))) << where;
  }
}

TEST(FlexibleModel, ModalCoordinatesAreNamedAfterTheirLink) {
  std::mt19937 rng(8);
  const std::vector<Body> bodies = random_tree(1, rng);
  const RigidBodyModel model(mechanism_of(bodies));
  const Tree tree(bodies);
  for (int k = 0; k < model.node_count(); ++k) {
    EXPECT_EQ(model.modes(k), bodies[k].modes());
    EXPECT_EQ(model.modal_offset(k), tree.offset(k) + bodies[k].joint_dofs());
    for (int m = 0; m < model.modes(k); ++m)
      EXPECT_EQ(model.dof_names()[model.modal_offset(k) + m],
                "link" + std::to_string(k) + ":eta" + std::to_string(m + 1));
  }
}

// Part II Lemma 11 and Eq. 51 on flexible nodes: M = [I + H A K] D [I + H A K]*, the factored
// inverse is the factor's inverse, and M^-1 by the innovations factors is the inverse of the
// reference's M.
TEST(FlexibleModel, InnovationsFactorsAndTheInverseOfM) {
  std::mt19937 rng(51);
  for (int trial = 0; trial < 8; ++trial) {
    const std::vector<Body> bodies = random_tree(trial, rng);
    const Tree tree(bodies);
    const RigidBodyModel model(mechanism_of(bodies));
    RigidBodyData data(model);
    const int n = tree.dofs();
    const Eigen::VectorXd q = rigid_random_state(n, rng);
    const Eigen::MatrixXd mass = tree.mass_matrix(q);
    InnovationsFactors factors;
    innovations_factors(model, data, q, factors);
    const Eigen::MatrixXd product = factors.newton_euler_factor * factors.innovations_inertia *
                                    factors.newton_euler_factor.transpose();
    EXPECT_LT(max_relative_error(product, mass), 1e-12) << "trial " << trial;
    EXPECT_LT(max_relative_error(factors.inverse_factor * factors.newton_euler_factor,
                                 Eigen::MatrixXd::Identity(n, n)),
              1e-12)
        << "trial " << trial;
    Eigen::MatrixXd inverse;
    mass_matrix_inverse(data.sko, forward_workspace(data), inverse);
    EXPECT_LT(max_relative_error(mass * inverse, Eigen::MatrixXd::Identity(n, n)), 1e-11)
        << "trial " << trial;
  }
}

// A flexible link whose modes neither load its rigid rows (zero coupling) nor move the nodes
// (zero influence): the joints' rows and columns of M and the bias are the rigid model's, the
// modal block is the modal mass, and nothing couples the two.
TEST(FlexibleModel, ModesThatMoveNothingLeaveTheRigidModel) {
  std::mt19937 rng(14);
  const Eigen::Vector3d gravity(0.0, 0.0, -9.81);
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<Body> bodies = random_tree(trial, rng);
    std::vector<Body> rigid = bodies;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
      Body& body = bodies[k];
      if (body.modes() > 0) body.coupling.setZero();
      if (body.attachment.size() > 0) body.attachment.setZero();
      rigid[k].modal_mass.resize(0, 0);
      rigid[k].coupling.resize(0, 0);
      rigid[k].stiffness.resize(0, 0);
      rigid[k].damping.resize(0, 0);
      rigid[k].attachment.resize(0, 0);
    }
    const RigidBodyModel flexible_model(mechanism_of(bodies)), rigid_model(mechanism_of(rigid));
    RigidBodyData flexible_data(flexible_model), rigid_data(rigid_model);
    ASSERT_FALSE(rigid_model.has_flexible_links());
    // The rigid dofs among the flexible model's.
    std::vector<int> joint_dofs;
    for (int k = 0; k < flexible_model.node_count(); ++k)
      for (int i = 0; i < flexible_model.joint_dofs(k); ++i)
        joint_dofs.push_back(flexible_model.hinge_offset(k) + i);
    const int n = flexible_model.dof_count(), r = rigid_model.dof_count();
    ASSERT_EQ(static_cast<int>(joint_dofs.size()), r);
    const Eigen::VectorXd q_rigid = rigid_random_state(r, rng),
                          qd_rigid = rigid_random_state(r, rng);
    Eigen::VectorXd q = Eigen::VectorXd::Zero(n), qd = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < r; ++i) {
      q[joint_dofs[i]] = q_rigid[i];
      qd[joint_dofs[i]] = qd_rigid[i];
    }
    const Eigen::MatrixXd mass = mass_matrix(flexible_model, flexible_data, q);
    const Eigen::MatrixXd rigid_mass = mass_matrix(rigid_model, rigid_data, q_rigid);
    const Eigen::VectorXd bias = bias_forces(flexible_model, flexible_data, q, qd, gravity);
    const Eigen::VectorXd rigid_bias =
        bias_forces(rigid_model, rigid_data, q_rigid, qd_rigid, gravity);
    const double scale = std::max(1.0, rigid_mass.cwiseAbs().maxCoeff());
    for (int i = 0; i < r; ++i) {
      EXPECT_NEAR(bias[joint_dofs[i]], rigid_bias[i], 1e-13 * std::max(1.0, rigid_bias.norm()));
      for (int j = 0; j < r; ++j)
        EXPECT_NEAR(mass(joint_dofs[i], joint_dofs[j]), rigid_mass(i, j), 1e-14 * scale);
    }
    for (int k = 0; k < flexible_model.node_count(); ++k) {
      const int first = flexible_model.modal_offset(k), modes = flexible_model.modes(k);
      if (modes == 0) continue;
      EXPECT_LT(max_relative_error(mass.block(first, first, modes, modes), bodies[k].modal_mass),
                1e-15);
      for (int i = 0; i < r; ++i)
        EXPECT_EQ(mass.block(first, joint_dofs[i], modes, 1).cwiseAbs().maxCoeff(), 0.0);
    }
  }
}

// What is written for rigid nodes only says so rather than answering for a rigid tree.
// The derivatives of a flexible tree (Richardson differences of the SKO model's inverse dynamics,
// rigid/flexible_derivatives.cpp) against Richardson differences of the dense reference's M qdd +
// b along the same tangent, and forward dynamics' derivatives as -M^-1 dtau/dx, M^-1.
TEST(FlexibleModel, DerivativesMatchDifferencesOfTheDenseReference) {
  std::mt19937 rng(19);
  const Eigen::Vector3d gravity(0.3, 0.5, -9.81);
  for (int trial = 0; trial < 6; ++trial) {
    const std::vector<Body> bodies = random_tree(trial, rng);
    const Tree tree(bodies);
    const RigidBodyModel model(mechanism_of(bodies));
    RigidBodyData data(model);
    const int n = tree.dofs();
    const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng),
                          qdd = rigid_random_state(n, rng), tau = rigid_random_state(n, rng);
    const auto reference_tau = [&](const Eigen::VectorXd& at_q, const Eigen::VectorXd& at_qd) {
      return Eigen::VectorXd(tree.mass_matrix(at_q) * qdd + tree.bias_forces(at_q, at_qd, gravity));
    };
    const auto unit = [n](int j) { return Eigen::VectorXd::Unit(n, j); };
    const RichardsonColumns by_q = richardson_columns(
        n, [&](int j, double e) { return reference_tau(integrate(model, q, unit(j), e), qd); },
        1e-3);
    const RichardsonColumns by_qd = richardson_columns(
        n, [&](int j, double e) { return reference_tau(q, qd + e * unit(j)); }, 1e-3);
    InverseDynamicsDerivatives inverse;
    inverse_dynamics_derivatives(model, data, q, qd, qdd, gravity, inverse);
    const std::string where = "trial " + std::to_string(trial);
    const auto tolerance = [](const RichardsonColumns& columns) {
      return std::max(1e-8, 10.0 * max_relative_error(columns.fine, columns.coarse));
    };
    EXPECT_LT(max_relative_error(inverse.dtau_dq, by_q.fine), tolerance(by_q)) << where;
    EXPECT_LT(max_relative_error(inverse.dtau_dqd, by_qd.fine), tolerance(by_qd)) << where;
    EXPECT_LT(max_relative_error(inverse.mass, tree.mass_matrix(q)), 1e-12) << where;
    EXPECT_LT(max_relative_error(inverse.tau, reference_tau(q, qd)), 1e-12) << where;

    ForwardDynamicsDerivatives forward;
    forward_dynamics_derivatives(model, data, q, qd, tau, gravity, forward);
    const Eigen::MatrixXd mass = tree.mass_matrix(q);
    EXPECT_LT(max_relative_error(mass * forward.dqdd_dtau, Eigen::MatrixXd::Identity(n, n)), 1e-10)
        << where;
    InverseDynamicsDerivatives at_qdd;  // at the forward dynamics' qdd
    inverse_dynamics_derivatives(model, data, q, qd, forward.qdd, gravity, at_qdd);
    EXPECT_LT(max_relative_error(mass * forward.dqdd_dq, -at_qdd.dtau_dq), 1e-9) << where;
    EXPECT_LT(max_relative_error(mass * forward.dqdd_dqd, -at_qdd.dtau_dqd), 1e-9) << where;
  }
}

// A link's operational-space inertia on flexible trees: (J M^-1 J*)^-1 with M the reference's and
// J the link frame's velocity per unit qd (the rigid rows of its node's nu).
TEST(FlexibleModel, OperationalSpaceInertiaOfALink) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 12; trial += 2) {  // floating bases: J has full row rank
    const std::vector<Body> bodies = random_tree(trial, rng);
    const Tree tree(bodies);
    const RigidBodyModel model(mechanism_of(bodies));
    RigidBodyData data(model);
    const int n = tree.dofs();
    const Eigen::VectorXd q = rigid_random_state(n, rng);
    const int link = model.link_count() - 1, node = model.node_of_link(link);
    Eigen::MatrixXd jacobian(6, n);
    for (int j = 0; j < n; ++j) {
      update_kinematics(model, q, Eigen::VectorXd::Unit(n, j), data);
      jacobian.col(j) = data.velocity.segment<6>(data.sko.structure().node.offset(node));
    }
    const Eigen::MatrixXd compliance =
        jacobian * tree.mass_matrix(q).ldlt().solve(jacobian.transpose());
    update_positions(model, q, data);
    const Matrix6d inertia = operational_space_inertia(model, data, link);
    EXPECT_LT(max_relative_error(inertia * compliance, Eigen::MatrixXd::Identity(6, 6)), 1e-9)
        << "trial " << trial;
  }
}

// The reference's centre of mass along the curve q + s u (floating joints moved by exp of their
// body-frame rates), from its own poses: sum m p + R (m c + coupling_t eta) over the mass; the
// value at s = 0 and the exact derivative d/ds.
std::pair<Eigen::Vector3d, Eigen::Vector3d> reference_center_of_mass(const Tree& tree,
                                                                     const Eigen::VectorXd& q,
                                                                     const Eigen::VectorXd& u) {
  using flexible_reference::Hyper;
  using flexible_reference::Matrix3h;
  using flexible_reference::Vector3h;
  std::vector<Matrix3h> rotation;
  std::vector<Vector3h> position;
  tree.poses(q, u, Eigen::VectorXd::Zero(q.size()), rotation, position);
  Vector3h moment = Vector3h::Constant(Hyper(0.0));
  double mass = 0.0;
  const std::vector<Body>& bodies = tree.bodies();
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    const Body& body = bodies[k];
    const int first_mode = tree.offset(static_cast<int>(k)) + body.joint_dofs();
    Vector3h first_moment = (body.mass * body.center_of_mass).cast<Hyper>();
    for (int j = 0; j < body.modes(); ++j) {
      const Hyper eta(q[first_mode + j], u[first_mode + j], 0.0, 0.0);
      for (int r = 0; r < 3; ++r) first_moment[r] += body.coupling(3 + r, j) * eta;
    }
    moment += Hyper(body.mass) * position[k] + rotation[k] * first_moment;
    mass += body.mass;
  }
  Eigen::Vector3d value, rate;
  for (int r = 0; r < 3; ++r) {
    value[r] = moment[r].x / mass;
    rate[r] = moment[r].a / mass;
  }
  return {value, rate};
}

// The centre of mass and its Jacobian on random trees with flexible links (a floating base
// among them) against the reference's poses, column by column along each dof's rate; on the same
// trees without modes they equal the rigid model's centre and Jacobian.
TEST(FlexibleModel, CentreOfMassAndItsJacobianMatchTheReference) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 10; ++trial) {
    const std::vector<Body> bodies = random_tree(trial, rng);
    const Tree tree(bodies);
    const RigidBodyModel model(mechanism_of(bodies));
    RigidBodyData data(model);
    const int n = tree.dofs();
    const Eigen::VectorXd q = rigid_random_state(n, rng);
    update_positions(model, q, data);
    const Eigen::Vector3d center = flexible_center_of_mass(model, data, q);
    Eigen::MatrixXd jacobian(3, n);
    flexible_center_of_mass_jacobian(model, data, q, jacobian);
    double scale = 1.0;
    Eigen::MatrixXd expected(3, n);
    for (int i = 0; i < n; ++i) {
      const auto [value, rate] = reference_center_of_mass(tree, q, Eigen::VectorXd::Unit(n, i));
      EXPECT_LT((center - value).norm(), 1e-12 * std::max(1.0, value.norm())) << "trial " << trial;
      expected.col(i) = rate;
      scale = std::max(scale, rate.cwiseAbs().maxCoeff());
    }
    EXPECT_LT((jacobian - expected).cwiseAbs().maxCoeff(), 1e-12 * scale) << "trial " << trial;

    // The subtree of every link on a moving joint (its own node; a flexible link above it carries
    // it on its nodes, one below moves inside it): the reference with the masses outside that
    // subtree set to zero.
    for (int top = 0; top < static_cast<int>(bodies.size()); ++top) {
      if (bodies[top].joint == Body::Joint::kFixed) continue;
      std::vector<Body> subtree = bodies;
      for (std::size_t k = 0; k < bodies.size(); ++k) {
        int a = static_cast<int>(k);
        while (a > top) a = bodies[a].parent;
        if (a != top) {
          subtree[k].mass = 0.0;
          subtree[k].coupling.setZero();
        }
      }
      const Tree subtree_tree(subtree);
      Eigen::MatrixXd subtree_jacobian(3, n);
      flexible_center_of_mass_jacobian(model, data, q, subtree_jacobian, top);
      const Eigen::Vector3d subtree_center = flexible_center_of_mass(model, data, q, top);
      for (int i = 0; i < n; ++i) {
        const auto [value, rate] =
            reference_center_of_mass(subtree_tree, q, Eigen::VectorXd::Unit(n, i));
        EXPECT_LT((subtree_center - value).norm(), 1e-12 * std::max(1.0, value.norm()));
        EXPECT_LT((subtree_jacobian.col(i) - rate).cwiseAbs().maxCoeff(), 1e-12 * scale)
            << "trial " << trial << " subtree of link " << top << " column " << i;
      }
    }

    // Without modes: the rigid model's own functions.
    std::vector<Body> rigid = bodies;
    for (Body& body : rigid) {
      body.modal_mass.resize(0, 0);
      body.coupling.resize(6, 0);
      body.stiffness.resize(0, 0);
      body.damping.resize(0, 0);
      body.attachment.resize(6, 0);
    }
    const RigidBodyModel rigid_model(mechanism_of(rigid));
    RigidBodyData rigid_data(rigid_model);
    const int m = rigid_model.dof_count();
    const Eigen::VectorXd qr = rigid_random_state(m, rng);
    update_positions(rigid_model, qr, rigid_data);
    Eigen::MatrixXd rigid_jacobian(3, m), flexible_jacobian(3, m);
    center_of_mass_jacobian(rigid_model, rigid_data, rigid_jacobian);
    const Eigen::Vector3d rigid_center = center_of_mass(rigid_model, rigid_data);
    flexible_center_of_mass_jacobian(rigid_model, rigid_data, qr, flexible_jacobian);
    EXPECT_LT((flexible_center_of_mass(rigid_model, rigid_data, qr) - rigid_center).norm(),
              1e-14 * std::max(1.0, rigid_center.norm()));
    EXPECT_LT((flexible_jacobian - rigid_jacobian).cwiseAbs().maxCoeff(),
              1e-14 * std::max(1.0, rigid_jacobian.cwiseAbs().maxCoeff()));
  }
}

// Link k's world pose in the reference along q + s1 u + s2 w (Tree::poses): its value, its
// derivative along u, and the mixed second derivative.
struct ReferencePose {
  Eigen::Matrix3d rotation, rotation_rate, rotation_second;
  Eigen::Vector3d position_rate, position_second;
};

ReferencePose reference_pose(const Tree& tree, const Eigen::VectorXd& q, const Eigen::VectorXd& u,
                             const Eigen::VectorXd& w, int k) {
  std::vector<flexible_reference::Matrix3h> rotation;
  std::vector<flexible_reference::Vector3h> position;
  tree.poses(q, u, w, rotation, position);
  ReferencePose pose;
  for (int a = 0; a < 3; ++a) {
    pose.position_rate[a] = position[k][a].a;
    pose.position_second[a] = position[k][a].c;
    for (int b = 0; b < 3; ++b) {
      pose.rotation(a, b) = rotation[k](a, b).x;
      pose.rotation_rate(a, b) = rotation[k](a, b).a;
      pose.rotation_second(a, b) = rotation[k](a, b).c;
    }
  }
  return pose;
}

// Link frames on random trees with flexible links (a floating base among them): the frame
// Jacobian in world and local axes against the reference's poses moved along each dof's rate,
// the frame velocity against the reference's along qd, Jdot qd against its second derivative
// along qd, and the acceleration against J qdd + Jdot qd; a rigid link's frame off its origin too.
TEST(FlexibleModel, FrameKinematicsMatchTheReference) {
  std::mt19937 rng(41);
  int frames = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const std::vector<Body> bodies = random_tree(trial, rng);
    const Tree tree(bodies);
    const RigidBodyModel model(mechanism_of(bodies));
    RigidBodyData data(model);
    const int n = tree.dofs();
    const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng),
                          qdd = rigid_random_state(n, rng);
    update_kinematics(model, q, qd, data);
    for (int k = 0; k < static_cast<int>(bodies.size()); ++k) {
      if (bodies[k].joint == Body::Joint::kFixed) continue;
      FrameRef frame{k, Eigen::Isometry3d::Identity()};
      if (bodies[k].modes() == 0) frame.pose = random_origin(rng);
      // Reference: the frame's rotation and origin along q + s u, turned into [w; v] in world axes.
      const auto twist = [&](const Eigen::VectorXd& u) {
        const ReferencePose pose = reference_pose(tree, q, u, Eigen::VectorXd::Zero(n), k);
        const Eigen::Matrix3d spin = pose.rotation_rate * pose.rotation.transpose();
        Vector6d world;
        world.head<3>() << spin(2, 1), spin(0, 2), spin(1, 0);
        world.tail<3>() = pose.position_rate + pose.rotation_rate * frame.pose.translation();
        return std::make_pair(world, Eigen::Matrix3d(pose.rotation * frame.pose.linear()));
      };
      Eigen::MatrixXd jacobian(6, n), local(6, n);
      frame_jacobian(model, data, frame, FrameAxes::kWorld, jacobian);
      frame_jacobian(model, data, frame, FrameAxes::kLocal, local);
      Eigen::MatrixXd expected(6, n), expected_local(6, n);
      for (int i = 0; i < n; ++i) {
        const auto [world, axes] = twist(Eigen::VectorXd::Unit(n, i));
        expected.col(i) = world;
        expected_local.col(i) << axes.transpose() * world.head<3>(),
            axes.transpose() * world.tail<3>();
      }
      const double scale = std::max(1.0, expected.cwiseAbs().maxCoeff());
      EXPECT_LT((jacobian - expected).cwiseAbs().maxCoeff(), 1e-12 * scale)
          << "trial " << trial << " link " << k;
      EXPECT_LT((local - expected_local).cwiseAbs().maxCoeff(), 1e-12 * scale)
          << "trial " << trial << " link " << k;
      const Vector6d velocity = frame_velocity(model, data, frame, FrameAxes::kWorld);
      EXPECT_LT((velocity - twist(qd).first).cwiseAbs().maxCoeff(),
                1e-12 * std::max(1.0, velocity.cwiseAbs().maxCoeff()))
          << "trial " << trial << " link " << k;

      // Jdot qd, the frame's classical acceleration at qdd = 0: the reference's second derivative
      // along qd (w' = vee of the skew part of R'' R*, the origin's p'' + R'' o); with qdd, the
      // acceleration is J qdd + Jdot qd.
      const ReferencePose along_qd = reference_pose(tree, q, qd, qd, k);
      const Eigen::Matrix3d product = along_qd.rotation_second * along_qd.rotation.transpose();
      Vector6d bias;
      bias.head<3>() << 0.5 * (product(2, 1) - product(1, 2)),
          0.5 * (product(0, 2) - product(2, 0)), 0.5 * (product(1, 0) - product(0, 1));
      bias.tail<3>() =
          along_qd.position_second + along_qd.rotation_second * frame.pose.translation();
      const double bias_scale = std::max(1.0, bias.cwiseAbs().maxCoeff());
      EXPECT_LT(
          (frame_jacobian_bias(model, data, frame, FrameAxes::kWorld) - bias).cwiseAbs().maxCoeff(),
          1e-12 * bias_scale)
          << "trial " << trial << " link " << k;
      update_accelerations(model, data, qdd);
      const Vector6d expected_acceleration = jacobian * qdd + bias;
      EXPECT_LT((frame_acceleration(model, data, frame, FrameAxes::kWorld) - expected_acceleration)
                    .cwiseAbs()
                    .maxCoeff(),
                1e-12 * std::max(bias_scale, expected_acceleration.cwiseAbs().maxCoeff()))
          << "trial " << trial << " link " << k;
      ++frames;
    }
  }
  EXPECT_GE(frames, 20);
}

// The recursions written for rigid nodes refuse a flexible tree rather than answer for a rigid one.
TEST(FlexibleModel, RigidOnlyAlgorithmsRefuseFlexibleLinks) {
  std::mt19937 rng(3);
  std::vector<Body> bodies = random_tree(2, rng);
  const RigidBodyModel model(mechanism_of(bodies));
  try {
    FreeFlyingData free_flying(model);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("flexible links"), std::string::npos) << e.what();
  }
  // The rigid centre of mass has no modal coordinates to read: flexible_center_of_mass does.
  RigidBodyData data(model);
  update_positions(model, Eigen::VectorXd::Zero(model.dof_count()), data);
  Eigen::MatrixXd jacobian(3, model.dof_count());
  EXPECT_THROW(center_of_mass(model, data), std::invalid_argument);
  EXPECT_THROW(center_of_mass_velocity(model, data), std::invalid_argument);
  EXPECT_THROW(center_of_mass_jacobian(model, data, jacobian), std::invalid_argument);
}

}  // namespace
}  // namespace skograph

// Fixed-body fusion (rigid/fixed_body_fusion.hpp) against the unfused model, whose recursions visit
// every link (fixed joints as 0-dof nodes): the same M, bias, forward and inverse dynamics; every
// fused link still a frame at the same place in space, taking forces and giving operational-space
// inertias as the link did; combined inertias against the parallel-axis theorem by hand.
#include "skograph/rigid/fixed_body_fusion.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "skograph/io/mechanism_file.hpp"
#include "skograph/io/state_reader.hpp"
#include "skograph/io/urdf_reader.hpp"
#include "skograph/rigid/frames.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {
namespace {

// An arm as robots ship it: a massless base_link welded to the world, a massive mounting plate
// and a rotated camera on fixed joints, a sensor between two moving joints, a chain of two tool
// frames (one massive, one massless) on the tip.
const std::string kShipped = R"(<robot name="shipped">
  <link name="base_link"/>
  <link name="plate"><inertial><origin xyz="0.02 0 0.01"/><mass value="3"/><inertia ixx="0.03" ixy="0.001" ixz="0" iyy="0.04" iyz="0" izz="0.05"/></inertial></link>
  <link name="camera"><inertial><origin xyz="0 0.01 0" rpy="0.1 0.2 0.3"/><mass value="0.2"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.0025"/></inertial></link>
  <link name="upper"><inertial><origin xyz="0 0 0.2"/><mass value="2"/><inertia ixx="0.03" ixy="0.001" ixz="0" iyy="0.03" iyz="0" izz="0.01"/></inertial></link>
  <link name="sensor"><inertial><origin xyz="0.01 0.02 0"/><mass value="0.4"/><inertia ixx="0.002" ixy="0" ixz="0.0001" iyy="0.002" iyz="0" izz="0.003"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0.1 0 0.1"/><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.012" iyz="0" izz="0.008"/></inertial></link>
  <link name="gripper"><inertial><origin xyz="0 0 0.05"/><mass value="0.7"/><inertia ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.002"/></inertial></link>
  <link name="tcp"/>
  <joint name="to_plate" type="fixed"><parent link="base_link"/><child link="plate"/><origin xyz="0 0 0.1"/></joint>
  <joint name="to_camera" type="fixed"><parent link="plate"/><child link="camera"/><origin xyz="0.1 0 0.05" rpy="0 0.5 1.0"/></joint>
  <joint name="shoulder" type="revolute"><parent link="plate"/><child link="upper"/><origin xyz="0 0 0.2" rpy="0.2 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="to_sensor" type="fixed"><parent link="upper"/><child link="sensor"/><origin xyz="0.1 0 0.35" rpy="0.3 0 0.1"/></joint>
  <joint name="elbow" type="continuous"><parent link="sensor"/><child link="lower"/><origin xyz="0 0 0.05" rpy="0 0.3 0"/><axis xyz="1 0 0"/></joint>
  <joint name="to_gripper" type="fixed"><parent link="lower"/><child link="gripper"/><origin xyz="0 0 0.3" rpy="0 0 0.7"/></joint>
  <joint name="to_tcp" type="fixed"><parent link="gripper"/><child link="tcp"/><origin xyz="0 0 0.1"/></joint>
  <joint name="wrist" type="revolute"><parent link="gripper"/><child link="finger"/><origin xyz="0.02 0 0.08"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="finger"><inertial><origin xyz="0 0 0.02"/><mass value="0.1"/><inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.00005"/></inertial></link>
</robot>)";

struct Dynamics {
  Eigen::MatrixXd mass;
  Eigen::VectorXd bias, qdd, tau;
};

Dynamics dynamics_of(const RigidBodyModel& model, const Eigen::VectorXd& q,
                     const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                     const Eigen::VectorXd& qdd) {
  RigidBodyData data(model);
  const Eigen::Vector3d g(0.3, -0.2, -9.81);
  return {mass_matrix(model, data, q), bias_forces(model, data, q, qd, g),
          forward_dynamics(model, data, q, qd, tau, g),
          inverse_dynamics(model, data, q, qd, qdd, g)};
}

void expect_close(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tolerance) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tolerance * std::max(1.0, b.cwiseAbs().maxCoeff()))
      << a << "\nvs\n"
      << b;
}

TEST(FixedBodyFusion, TheFusedModelHasTheDynamicsOfTheUnfusedTree) {
  const Mechanism shipped = parse_urdf(kShipped, "shipped.urdf");
  const Mechanism fused = fuse_fixed_bodies(shipped);
  // Bodies: upper (with sensor), lower (with gripper, tcp), finger; the rest is static.
  ASSERT_EQ(fused.links.size(), 3u);
  EXPECT_EQ(fused.joints.size(), 3u);
  const RigidBodyModel full(shipped), reduced(fused);
  EXPECT_EQ(reduced.dof_names(), full.dof_names());
  const Eigen::Vector3d q(0.4, -0.9, 0.3), qd(1.2, -0.5, 2.0), tau(2.0, -1.0, 0.05),
      qdd(0.7, 1.1, -3.0);
  const Dynamics a = dynamics_of(full, q, qd, tau, qdd), b = dynamics_of(reduced, q, qd, tau, qdd);
  expect_close(b.mass, a.mass, 1e-14);
  expect_close(b.bias, a.bias, 1e-14);
  // Forward dynamics works in world axes about the base (rigid_body_model.hpp), where the light
  // finger's D = H P H* comes out of entries of m |r|^2: a few more ulps than in link frames.
  expect_close(b.qdd, a.qdd, 3e-13);
  expect_close(b.tau, a.tau, 1e-14);
}

// Two bodies by hand: a 2 kg body (inertia I about its center at the origin) and a 1 kg point at
// (1, 0, 0) on a fixed joint: 3 kg at (1/3, 0, 0), and about it I + diag(0, 2/3, 2/3) by the
// parallel-axis theorem (2 (1/3)^2 + 1 (2/3)^2 = 2/3).
TEST(FixedBodyFusion, CombinedInertiaIsTheParallelAxisSum) {
  Mechanism m;
  Link body{"body", 2.0, Eigen::Vector3d::Zero(), Eigen::Vector3d(1.0, 1.5, 2.0).asDiagonal()};
  Link point{"point", 1.0, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Zero()};
  m.links = {body, point};
  Joint hinge{"hinge", JointType::kContinuous, -1, 0};
  Joint weld{"weld", JointType::kFixed, 0, 1};
  weld.origin.translation() = Eigen::Vector3d(1.0, 0.0, 0.0);
  m.joints = {hinge, weld};
  const Mechanism fused = fuse_fixed_bodies(m);
  ASSERT_EQ(fused.links.size(), 1u);
  EXPECT_DOUBLE_EQ(fused.links[0].mass, 3.0);
  EXPECT_TRUE(fused.links[0].center_of_mass.isApprox(Eigen::Vector3d(1.0 / 3.0, 0.0, 0.0), 1e-15));
  const Eigen::Matrix3d expected =
      Eigen::Vector3d(1.0, 1.5 + 2.0 / 3.0, 2.0 + 2.0 / 3.0).asDiagonal();
  EXPECT_TRUE(fused.links[0].inertia.isApprox(expected, 1e-15)) << fused.links[0].inertia;
  // The fused link stays a frame; its joint's name too, standing for it (not listed).
  ASSERT_EQ(fused.frames.size(), 2u);
  EXPECT_EQ(fused.frames[0].name, "point");
  EXPECT_EQ(fused.frames[0].link, 0);
  EXPECT_FALSE(fused.frames[0].joint_alias);
  EXPECT_EQ(fused.frames[1].link, 0);
  EXPECT_TRUE(fused.frames[1].joint_alias);
  EXPECT_EQ(fused.frames[1].name,
            m.joints[static_cast<std::size_t>(m.parent_joint(m.find_link("point")))].name);
}

// Every link of the file is still a frame, at the same place in space, and a force on it or its
// operational-space inertia are those of the unfused link.
TEST(FixedBodyFusion, FusedLinksStayFramesWithTheirPosesForcesAndOperationalSpaceInertias) {
  const Mechanism shipped = parse_urdf(kShipped, "shipped.urdf");
  const RigidBodyModel full(shipped), reduced(fuse_fixed_bodies(shipped));
  RigidBodyData full_data(full), reduced_data(reduced);
  const Eigen::Vector3d q(-0.3, 1.1, 0.6), qd(0.2, -0.4, 1.0), qdd(1.0, 0.5, -0.2);
  update_positions(full, q, full_data);
  update_positions(reduced, q, reduced_data);
  for (const Link& link : shipped.links) {
    SCOPED_TRACE(link.name);
    const Eigen::Isometry3d expected = frame_pose(full, full_data, find_frame(full, link.name));
    const Eigen::Isometry3d pose =
        frame_pose(reduced, reduced_data, find_frame(reduced, link.name));
    EXPECT_TRUE(pose.matrix().isApprox(expected.matrix(), 1e-14));
  }
  EXPECT_THROW(find_frame(reduced, "elsewhere"), std::invalid_argument);

  // A wrench on the tcp frame and on the camera (static: it moves nothing).
  Vector6d wrench;
  wrench << 0.3, -0.2, 0.1, 5.0, -2.0, 1.0;
  Eigen::VectorXd full_forces = Eigen::VectorXd::Zero(6 * full.link_count());
  Eigen::VectorXd reduced_forces = Eigen::VectorXd::Zero(6 * reduced.link_count());
  for (const char* name : {"tcp", "camera"}) {
    add_frame_force(full, find_frame(full, name), wrench, full_forces);
    add_frame_force(reduced, find_frame(reduced, name), wrench, reduced_forces);
  }
  const Eigen::Vector3d g(0, 0, -9.81);
  const Eigen::VectorXd expected_tau =
      inverse_dynamics(full, full_data, q, qd, qdd, g, full_forces);
  expect_close(inverse_dynamics(reduced, reduced_data, q, qd, qdd, g, reduced_forces), expected_tau,
               1e-14);

  // Three dofs cannot move the tcp in six directions: no operational-space inertia (the next test
  // has a floating base); a frame on the world has none either.
  update_positions(full, q, full_data);
  update_positions(reduced, q, reduced_data);
  EXPECT_THROW(operational_space_inertia(reduced, reduced_data, find_frame(reduced, "tcp")),
               std::runtime_error);
  EXPECT_THROW(operational_space_inertia(reduced, reduced_data, find_frame(reduced, "base_link")),
               std::invalid_argument);
}

// A 6-dof arm (floating base) so that operational-space inertias exist: the fused frame's equals
// the unfused link's (part II Eq. 59-60 on both models).
TEST(FixedBodyFusion, OperationalSpaceInertiaOfAFusedFrameIsTheUnfusedLinks) {
  std::string text = kShipped;
  text.replace(text.find("<link name=\"base_link\"/>"), 24,
               "<link name=\"world\"/><link name=\"base_link\"><inertial><mass value=\"5\"/>"
               "<inertia ixx=\"0.2\" ixy=\"0\" ixz=\"0\" iyy=\"0.3\" iyz=\"0\" izz=\"0.4\"/>"
               "</inertial></link><joint name=\"float\" type=\"floating\"><parent "
               "link=\"world\"/><child link=\"base_link\"/></joint>");
  const Mechanism shipped = parse_urdf(text, "floating.urdf");
  const RigidBodyModel full(shipped), reduced(fuse_fixed_bodies(shipped));
  RigidBodyData full_data(full), reduced_data(reduced);
  Eigen::VectorXd q(full.dof_count());
  for (int i = 0; i < q.size(); ++i) q(i) = 0.2 * std::sin(1.3 * i + 0.4);
  update_positions(full, q, full_data);
  update_positions(reduced, q, reduced_data);
  for (const char* name : {"camera", "plate", "base_link"}) {
    SCOPED_TRACE(name);
    const Matrix6d expected = operational_space_inertia(full, full_data, find_frame(full, name));
    const Matrix6d fused =
        operational_space_inertia(reduced, reduced_data, find_frame(reduced, name));
    EXPECT_TRUE(fused.isApprox(expected, 1e-10)) << fused << "\nvs\n" << expected;
  }
}

// A loop closed on a fused tool frame moves to the frame's body with the closure frame composed
// through the fixed joints: the same frame in space, so the closed-chain model is the one written
// directly on the body.
TEST(FixedBodyFusion, LoopsOnFusedLinksMoveToTheBodyWithTheSameFrame) {
  const Mechanism direct = read_mechanism_file(std::string(SKOGRAPH_SOURCE_DIR) +
                                               "/examples/models/fourbar_terminal_cut.yaml");
  ASSERT_EQ(direct.loops.size(), 1u);
  const LoopClosure& loop = direct.loops[0];
  Mechanism framed = direct;
  const Eigen::Isometry3d first =
      Eigen::Translation3d(0.05, 0.02, 0) * Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitZ());
  const Eigen::Isometry3d second = first.inverse() * loop.child_origin;
  framed.links.push_back({"flange", 0.0});
  framed.links.push_back({"pin", 0.0});
  const int flange = static_cast<int>(framed.links.size()) - 2, pin = flange + 1;
  framed.joints.push_back({"to_flange", JointType::kFixed, loop.child, flange, first});
  framed.joints.push_back({"to_pin", JointType::kFixed, flange, pin, second});
  framed.loops[0].child = pin;
  framed.loops[0].child_origin = Eigen::Isometry3d::Identity();

  const Mechanism reduced = fuse_fixed_bodies(framed);
  const Mechanism reference = fuse_fixed_bodies(direct);
  ASSERT_EQ(reduced.links.size(), reference.links.size());
  EXPECT_EQ(reduced.loops[0].child, reference.loops[0].child);
  EXPECT_EQ(reduced.loops[0].parent, reference.loops[0].parent);
  EXPECT_TRUE(reduced.loops[0].child_origin.matrix().isApprox(
      reference.loops[0].child_origin.matrix(), 1e-14));
  EXPECT_TRUE(reduced.loops[0].parent_origin.matrix().isApprox(
      reference.loops[0].parent_origin.matrix(), 1e-14));
}

TEST(FixedBodyFusion, VisualsOfFusedLinksMoveToTheBodyAtTheSamePlace) {
  // A flange welded on the four-bar's rocker by two fixed joints carries a box: on the fused body
  // the box sits at the composed origins times its own frame, after the body's own visuals.
  Mechanism framed = read_mechanism_file(std::string(SKOGRAPH_SOURCE_DIR) +
                                         "/examples/models/fourbar_terminal_cut.yaml");
  const int rocker = framed.find_link("rocker");
  ASSERT_GE(rocker, 0);
  Visual own;
  own.size = {0.1, 0.1, 0.1};
  framed.links[static_cast<std::size_t>(rocker)].visuals.push_back(own);
  const Eigen::Isometry3d first =
      Eigen::Translation3d(0.05, 0.02, 0) * Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitZ());
  const Eigen::Isometry3d second =
      Eigen::Translation3d(0.0, 0.1, 0.03) * Eigen::AngleAxisd(-1.1, Eigen::Vector3d::UnitX());
  framed.links.push_back({"flange", 0.0});
  framed.links.push_back({"plate", 0.0});
  const int flange = static_cast<int>(framed.links.size()) - 2, plate = flange + 1;
  framed.joints.push_back({"to_flange", JointType::kFixed, rocker, flange, first});
  framed.joints.push_back({"to_plate", JointType::kFixed, flange, plate, second});
  Visual box;
  box.size = {0.2, 0.3, 0.4};
  box.origin = Eigen::Translation3d(0.3, 0, 0) * Eigen::AngleAxisd(0.7, Eigen::Vector3d::UnitY());
  box.rgba = {0.1, 0.2, 0.3, 1.0};
  framed.links[static_cast<std::size_t>(plate)].visuals.push_back(box);

  const Mechanism fused = fuse_fixed_bodies(framed);
  const Link& body = fused.links[static_cast<std::size_t>(fused.find_link("rocker"))];
  ASSERT_EQ(body.visuals.size(), 2u);
  EXPECT_EQ(body.visuals[0].size, own.size);
  EXPECT_EQ(body.visuals[1].size, box.size);
  EXPECT_EQ(body.visuals[1].rgba, box.rgba);
  EXPECT_TRUE(
      body.visuals[1].origin.matrix().isApprox((first * second * box.origin).matrix(), 1e-14));
}

TEST(FixedBodyFusion, AllStaticMechanismsKeepTheirRootAndCoupledFixedJointsStay) {
  // A quadrotor's URDF: everything welded; the root stays a (static) body.
  const Mechanism quad = parse_urdf(R"(<robot name="quad">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.2"/></inertial></link>
  <link name="rotor"><inertial><mass value="0.1"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.002"/></inertial></link>
  <joint name="r" type="fixed"><parent link="base"/><child link="rotor"/><origin xyz="0.2 0 0"/></joint>
</robot>)",
                                    "quad.urdf");
  const Mechanism fused = fuse_fixed_bodies(quad);
  ASSERT_EQ(fused.links.size(), 1u);
  EXPECT_EQ(fused.links[0].name, "base");
  EXPECT_NEAR(fused.links[0].mass, 1.1, 1e-15);
  EXPECT_EQ(RigidBodyModel(fused).dof_count(), 0);
  // A coupling naming a fixed joint keeps its link, so that the closed-chain model can refuse it.
  Mechanism coupled = parse_urdf(kShipped, "shipped.urdf");
  coupled.couplings.push_back(
      {"g", "gear", coupled.find_joint("to_sensor"), coupled.find_joint("shoulder"), 2.0});
  const Mechanism kept = fuse_fixed_bodies(coupled);
  EXPECT_GE(kept.find_link("sensor"), 0);
  EXPECT_EQ(kept.joints[kept.couplings[0].joint_a].name, "to_sensor");
}

}  // namespace
}  // namespace skograph

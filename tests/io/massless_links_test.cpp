// Dropping massless fixed leaf frames leaves the dynamics unchanged: the mass matrix and bias of
// the reduced model equal those of the same arm written without the frames; io's dof names are the
// rigid model's.
#include <gtest/gtest.h>

#include "io/mechanism_file.hpp"
#include "io/state_reader.hpp"
#include "io/urdf_reader.hpp"
#include "rigid/rigid_body_model.hpp"

namespace skograph {
namespace {

const std::string kArm = R"(<robot name="arm">
  <link name="base"><inertial><mass value="3"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="upper"><inertial><origin xyz="0 0 0.2"/><mass value="2"/><inertia ixx="0.03" ixy="0.001" ixz="0" iyy="0.03" iyz="0" izz="0.01"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0.1 0 0.1"/><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.012" iyz="0" izz="0.008"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.1" rpy="0.2 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/><origin xyz="0 0 0.4"/><axis xyz="1 0 1"/></joint>
  FRAMES
</robot>)";

std::string with_frames(const std::string& frames) {
  std::string text = kArm;
  return text.replace(text.find("FRAMES"), 6, frames);
}

TEST(MasslessLinks, DroppingFramesLeavesTheDynamicsUnchanged) {
  const Mechanism plain = parse_urdf(with_frames(""), "plain.urdf");
  // A chain of two massless frames on the tip and one on the base.
  const Mechanism framed = parse_urdf(with_frames(R"(
  <link name="flange"/><link name="tcp"/><link name="camera"/>
  <joint name="f1" type="fixed"><parent link="lower"/><child link="flange"/><origin xyz="0 0 0.3"/></joint>
  <joint name="f2" type="fixed"><parent link="flange"/><child link="tcp"/><origin xyz="0 0 0.1"/></joint>
  <joint name="f3" type="fixed"><parent link="base"/><child link="camera"/></joint>)"),
                                      "framed.urdf");
  ASSERT_EQ(framed.links.size(), 6u);
  const Mechanism reduced = without_massless_fixed_links(framed);
  ASSERT_EQ(reduced.links.size(), plain.links.size());
  ASSERT_EQ(reduced.joints.size(), plain.joints.size());
  EXPECT_EQ(reduced.find_link("flange"), -1);

  const RigidBodyModel a(plain), b(reduced);
  EXPECT_EQ(a.dof_names(), dof_names(plain));
  EXPECT_EQ(b.dof_names(), dof_names(framed));
  RigidBodyData data_a(a), data_b(b);
  const Eigen::Vector2d q(0.3, -0.7), qd(1.1, 0.4);
  const Eigen::Vector3d g(0, 0, -9.81);
  EXPECT_TRUE(mass_matrix(a, data_a, q).isApprox(mass_matrix(b, data_b, q), 1e-14));
  EXPECT_TRUE(bias_forces(a, data_a, q, qd, g).isApprox(bias_forces(b, data_b, q, qd, g), 1e-14));
}

// Massless links on fixed joints inside the tree (a URDF base_link welded to the world, a mounting
// frame between two moving joints) go too: the joints below them hang from the kept ancestor with
// the composed origin, and the dynamics equal those of the arm written without the frames.
TEST(MasslessLinks, MasslessFixedLinksInsideTheTreeAreMergedIntoTheirAncestor) {
  const std::string inertial =
      R"(<inertial><origin xyz="0.05 0 0.1"/><mass value="1.5"/><inertia ixx="0.02" ixy="0.001" ixz="0" iyy="0.025" iyz="0" izz="0.015"/></inertial>)";
  const std::string plain_text = R"(<robot name="plain"><link name="world"/>
  <link name="upper">)" + inertial +
                                 R"(</link><link name="lower">)" + inertial + R"(</link>
  <joint name="shoulder" type="revolute"><parent link="world"/><child link="upper"/><origin xyz="0 0 0.3" rpy="0.2 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/><origin xyz="0.1 0 0.4" rpy="0 0.3 0"/><axis xyz="1 0 0"/></joint>
</robot>)";
  const std::string framed_text =
      R"(<robot name="framed"><link name="base_link"/><link name="mount"/>
  <link name="upper">)" +
      inertial + R"(</link><link name="mid"/><link name="lower">)" + inertial + R"(</link>
  <joint name="to_mount" type="fixed"><parent link="base_link"/><child link="mount"/><origin xyz="0 0 0.1"/></joint>
  <joint name="shoulder" type="revolute"><parent link="mount"/><child link="upper"/><origin xyz="0 0 0.2" rpy="0.2 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="to_mid" type="fixed"><parent link="upper"/><child link="mid"/><origin xyz="0.1 0 0"/></joint>
  <joint name="elbow" type="continuous"><parent link="mid"/><child link="lower"/><origin xyz="0 0 0.4" rpy="0 0.3 0"/><axis xyz="1 0 0"/></joint>
</robot>)";
  const Mechanism plain = parse_urdf(plain_text, "plain.urdf");
  const Mechanism framed = without_massless_fixed_links(parse_urdf(framed_text, "framed.urdf"));
  ASSERT_EQ(framed.links.size(), plain.links.size());
  ASSERT_EQ(framed.joints.size(), plain.joints.size());
  const RigidBodyModel a(plain), b(framed);
  RigidBodyData data_a(a), data_b(b);
  const Eigen::Vector2d q(0.3, -0.7), qd(1.1, 0.4);
  const Eigen::Vector3d g(0, 0, -9.81);
  EXPECT_TRUE(mass_matrix(a, data_a, q).isApprox(mass_matrix(b, data_b, q), 1e-14));
  EXPECT_TRUE(bias_forces(a, data_a, q, qd, g).isApprox(bias_forces(b, data_b, q, qd, g), 1e-14));
}

TEST(MasslessLinks, MasslessLinksWithChildrenOrMotionStay) {
  const Mechanism m = parse_urdf(with_frames(R"(
  <link name="idle"/>
  <joint name="spin" type="continuous"><parent link="lower"/><child link="idle"/><axis xyz="0 0 1"/></joint>)"),
                                 "m.urdf");
  EXPECT_EQ(without_massless_fixed_links(m).links.size(), m.links.size());
}

}  // namespace
}  // namespace skograph

namespace skograph {
namespace {

// A loop closed on a massless tool frame (URDF style) moves to the frame's kept ancestor with the
// closure frame composed through the fixed joints: the same frame in space, so the closed-chain
// model is the one written directly on the ancestor.
TEST(MasslessLinks, LoopsOnDroppedFramesMoveToTheAncestorWithTheSameFrame) {
  const Mechanism direct = read_mechanism_file(std::string(SKOGRAPH_SOURCE_DIR) +
                                               "/examples/models/fourbar_terminal_cut.yaml");
  ASSERT_EQ(direct.loops.size(), 1u);
  const LoopClosure& loop = direct.loops[0];
  // Two massless frames in a chain on the loop's child, the closure frame split between them.
  Mechanism framed = direct;
  const Eigen::Isometry3d first =
      Eigen::Translation3d(0.05, 0.02, 0) * Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitZ());
  const Eigen::Isometry3d second = first.inverse() * loop.child_origin;
  framed.links.push_back({"flange", 0.0});
  framed.links.push_back({"pin", 0.0});
  const int flange = static_cast<int>(framed.links.size()) - 2, pin = flange + 1;
  Joint to_flange{"to_flange", JointType::kFixed, loop.child, flange, first};
  Joint to_pin{"to_pin", JointType::kFixed, flange, pin, second};
  framed.joints.push_back(to_flange);
  framed.joints.push_back(to_pin);
  framed.loops[0].child = pin;
  framed.loops[0].child_origin = Eigen::Isometry3d::Identity();

  const Mechanism reduced = without_massless_fixed_links(framed);
  ASSERT_EQ(reduced.links.size(), direct.links.size());
  EXPECT_EQ(reduced.loops[0].child, loop.child);
  EXPECT_EQ(reduced.loops[0].parent, loop.parent);
  EXPECT_TRUE(reduced.loops[0].child_origin.matrix().isApprox(loop.child_origin.matrix(), 1e-14));
  EXPECT_TRUE(reduced.loops[0].parent_origin.matrix().isApprox(loop.parent_origin.matrix(), 1e-14));
}

}  // namespace
}  // namespace skograph

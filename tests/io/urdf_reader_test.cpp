// URDF reading: frames, inertias and axes against closed forms; the world-root rule; every kind of
// bad input the reader refuses, each with its line.
#include "skograph/io/urdf_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;

// base (inertial frame yawed by pi/2, offset COM) -> j1 (revolute, origin yaw pi/2 + pitch pi/2,
// axis given with length 2) -> l1 -> j2 (fixed) -> tool (no inertial).
const std::string kArm = R"(<?xml version="1.0"?>
<robot name="arm">
  <link name="base">
    <inertial>
      <origin xyz="0.1 0.2 0.3" rpy="0 0 1.5707963267948966"/>
      <mass value="2"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="2.5"/>
    </inertial>
  </link>
  <link name="l1">
    <inertial>
      <mass value="1.5"/>
      <inertia ixx="0.1" ixy="0.01" ixz="0" iyy="0.12" iyz="0" izz="0.15"/>
    </inertial>
  </link>
  <link name="tool"/>
  <joint name="j1" type="revolute">
    <parent link="base"/>
    <child link="l1"/>
    <origin xyz="0 0 1" rpy="0 1.5707963267948966 1.5707963267948966"/>
    <axis xyz="0 0 2"/>
    <limit lower="-2" upper="2.5" effort="10" velocity="1"/>
  </joint>
  <joint name="j2" type="fixed">
    <parent link="l1"/>
    <child link="tool"/>
    <origin xyz="0.5 0 0"/>
  </joint>
</robot>
)";

TEST(UrdfReader, LinksJointsFramesAndInertiasMatchClosedForms) {
  const Mechanism m = parse_urdf(kArm, "arm.urdf");
  EXPECT_EQ(m.name, "arm");
  ASSERT_EQ(m.links.size(), 3u);
  EXPECT_EQ(m.links[0].name, "base");
  EXPECT_EQ(m.links[2].name, "tool");
  // Inertia yawed by pi/2: the x and y moments swap; the COM is the inertial origin.
  EXPECT_DOUBLE_EQ(m.links[0].mass, 2.0);
  EXPECT_TRUE(m.links[0].center_of_mass.isApprox(Eigen::Vector3d(0.1, 0.2, 0.3)));
  EXPECT_TRUE(m.links[0].inertia.isApprox(
      Eigen::Vector3d(2.0, 1.0, 2.5).asDiagonal().toDenseMatrix(), 1e-12));
  EXPECT_NEAR(m.links[1].inertia(0, 1), 0.01, 1e-15);
  EXPECT_NEAR(m.links[1].inertia(1, 0), 0.01, 1e-15);
  EXPECT_EQ(m.links[2].mass, 0.0);  // no <inertial>: massless frame

  // The root link is welded to the world by an added first joint.
  ASSERT_EQ(m.joints.size(), 3u);
  EXPECT_EQ(m.joints[0].name, "base_to_world");
  EXPECT_EQ(m.joints[0].type, JointType::kFixed);
  EXPECT_EQ(m.joints[0].parent, -1);
  EXPECT_EQ(m.joints[0].child, 0);

  const Joint& j1 = m.joints[1];
  EXPECT_EQ(j1.type, JointType::kRevolute);
  EXPECT_EQ(j1.parent, 0);
  EXPECT_EQ(j1.child, 1);
  EXPECT_TRUE(j1.axis.isApprox(Eigen::Vector3d::UnitZ()));  // normalized
  EXPECT_DOUBLE_EQ(j1.lower, -2.0);
  EXPECT_DOUBLE_EQ(j1.upper, 2.5);
  // rpy = (0, pi/2, pi/2) is Rz(pi/2) Ry(pi/2): x -> -z, y -> -x, z -> y.
  const Eigen::Matrix3d R = j1.origin.linear();
  EXPECT_TRUE(R.col(0).isApprox(-Eigen::Vector3d::UnitZ(), 1e-12)) << R;
  EXPECT_TRUE(R.col(1).isApprox(-Eigen::Vector3d::UnitX(), 1e-12)) << R;
  EXPECT_TRUE(R.col(2).isApprox(Eigen::Vector3d::UnitY(), 1e-12)) << R;
  EXPECT_TRUE(j1.origin.translation().isApprox(Eigen::Vector3d(0, 0, 1)));
  EXPECT_EQ(m.joints[2].type, JointType::kFixed);
  EXPECT_EQ(m.parent_joint(2), 2);
}

TEST(UrdfReader, AWorldRootIsTheInertialFrameAndFloatingJointsAttachBases) {
  const std::string text = R"(<robot name="free">
  <link name="world"/>
  <link name="body"><inertial><mass value="3"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="free" type="floating"><parent link="world"/><child link="body"/></joint>
  <joint name="slide" type="planar"><parent link="body"/><child link="arm"/><axis xyz="0 1 0"/></joint>
</robot>)";
  const Mechanism m = parse_urdf(text, "free.urdf");
  ASSERT_EQ(m.links.size(), 2u);  // "world" is not a link
  ASSERT_EQ(m.joints.size(), 2u);
  EXPECT_EQ(m.joints[0].type, JointType::kFloating);
  EXPECT_EQ(m.joints[0].parent, -1);
  EXPECT_EQ(m.joints[1].type, JointType::kPlanar);
  EXPECT_TRUE(m.joints[1].axis.isApprox(Eigen::Vector3d::UnitY()));
}

TEST(UrdfReader, TheAddedWeldJointNeverTakesAnExistingName) {
  const std::string text = R"(<robot name="r">
  <link name="a"/><link name="b"/>
  <joint name="a_to_world" type="fixed"><parent link="a"/><child link="b"/></joint>
</robot>)";
  const Mechanism m = parse_urdf(text, "r.urdf");
  EXPECT_EQ(m.joints[0].name, "a_to_world_");
  EXPECT_EQ(m.joints[1].name, "a_to_world");
}

// kArm with `from` replaced by `to` (once).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kArm;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(UrdfReader, EachKindOfBadInputIsAnInputErrorWithItsLine) {
  struct Case {
    std::string text;
    int line;
    std::string problem;
  };
  const Case cases[] = {
      {edited("</robot>", ""), 30, "malformed XML"},
      {edited("<link name=\"tool\"/>", "<link name=\"tool\">"), 29, "malformed XML"},
      {edited("type=\"revolute\"", "type=\"screw\""), 17, "unknown type 'screw'"},
      {edited("<child link=\"tool\"/>", "<child link=\"gripper\"/>"), 26,
       "missing child link 'gripper'"},
      {edited("<parent link=\"base\"/>", "<parent link=\"nowhere\"/>"), 18,
       "missing parent link 'nowhere'"},
      {edited("<child link=\"tool\"/>", "<child link=\"l1\"/>"), 24,
       "joint 'j2' connects link 'l1' to itself"},
      {edited("<mass value=\"1.5\"/>", "<mass value=\"-1.5\"/>"), 10, "negative mass"},
      {edited("<axis xyz=\"0 0 2\"/>", "<axis xyz=\"0 0 0\"/>"), 17, "zero-length axis"},
      {edited("xyz=\"0.5 0 0\"", "xyz=\"nan 0 0\""), 27, "not a finite number"},
      {edited("ixx=\"0.1\"", "ixx=\"inf\""), 13, "not a finite number"},
      {edited("<mass value=\"2\"/>", "<mass value=\"two\"/>"), 6, "not a number"},
      {edited("<robot name=\"arm\">", "<robots name=\"arm\">")
           .replace(kArm.size() - 9, 8, "</robots>"),
       2, "root element is not <robot>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.problem);
    expect_input_error([&] { parse_urdf(c.text, "arm.urdf"); }, "arm.urdf", c.line, c.problem);
  }
}

// Robots as they ship. A zero mass is a massless frame; inconsistent inertias are
// accepted with one warning naming the links, and refused at their line with --strict.
TEST(UrdfReader, InconsistentInertiasAreOneWarningOrRefusedWhenStrict) {
  ReadOptions strict;
  strict.strict = true;
  const std::string massless = edited("<mass value=\"1.5\"/>", "<mass value=\"0\"/>");
  const std::string indefinite = edited("ixy=\"0.01\"", "ixy=\"0.5\"");
  const std::string triangle = edited("iyy=\"2\"", "iyy=\"5\"");
  // Mass 0 makes l1 a massless frame; the rotational inertia written with it is dropped, and said.
  const Mechanism frame = parse_urdf(massless, "arm.urdf");
  EXPECT_EQ(frame.links[1].mass, 0.0);
  EXPECT_TRUE(frame.links[1].inertia.isZero(0.0));
  ASSERT_EQ(frame.warnings.size(), 1u);
  EXPECT_NE(frame.warnings[0].find("rotational inertia without mass (1 link, treated as "
                                   "massless): l1"),
            std::string::npos)
      << frame.warnings[0];
  // The two kinds together: one warning line naming both links by kind.
  std::string two = indefinite;
  two.replace(two.find("iyy=\"2\""), 7, "iyy=\"5\"");
  const Mechanism accepted = parse_urdf(two, "arm.urdf");
  ASSERT_EQ(accepted.warnings.size(), 1u);
  const std::string& warning = accepted.warnings[0];
  EXPECT_NE(warning.find("not positive semi-definite (1 link): l1"), std::string::npos) << warning;
  EXPECT_NE(warning.find("violates the triangle inequality (1 link): base"), std::string::npos)
      << warning;
  EXPECT_NE(warning.find("--strict"), std::string::npos);
  EXPECT_DOUBLE_EQ(accepted.links[1].inertia(0, 1), 0.5);  // kept as given
  expect_input_error([&] { parse_urdf(indefinite, "arm.urdf", strict); }, "arm.urdf", 10,
                     "not positive semi-definite");
  expect_input_error([&] { parse_urdf(triangle, "arm.urdf", strict); }, "arm.urdf", 3,
                     "triangle inequality");
  EXPECT_NO_THROW(parse_urdf(kArm, "arm.urdf", strict));
  // A CAD export's rounding: a principal moment of -1e-12 relative is reported too; a zero moment
  // the eigensolver returns as -1e-22 is not.
  const Mechanism rounded =
      parse_urdf(edited("ixx=\"0.1\" ixy=\"0.01\" ixz=\"0\" iyy=\"0.12\" iyz=\"0\" izz=\"0.15\"",
                        "ixx=\"-1.5e-13\" ixy=\"0\" ixz=\"0\" iyy=\"0.15\" iyz=\"0\" izz=\"0.15\""),
                 "arm.urdf");
  ASSERT_EQ(rounded.warnings.size(), 1u);
  EXPECT_NE(rounded.warnings[0].find("not positive semi-definite (1 link): l1"), std::string::npos);
  EXPECT_EQ(inertia_consistency(1.0, Eigen::Vector3d(-1e-22, 1e-22, 3e-6).asDiagonal()),
            InertiaConsistency::kViolatesTriangle);
  EXPECT_EQ(inertia_consistency(1.0, Eigen::Vector3d(-1e-22, 3e-6, 3e-6).asDiagonal()),
            InertiaConsistency::kConsistent);
}

TEST(UrdfReader, ProblemsOnlyUrdfdomDetectsStillGiveOneLineNamingTheFile) {
  // A revolute joint without <limit>: urdfdom's own message, without a line.
  expect_input_error(
      [&] {
        parse_urdf(edited("<limit lower=\"-2\" upper=\"2.5\" effort=\"10\" velocity=\"1\"/>", ""),
                   "arm.urdf");
      },
      "arm.urdf", 0, "does not specify limits");
  expect_input_error([&] { read_urdf_file("/nonexistent/skograph.urdf"); },
                     "/nonexistent/skograph.urdf", 0, "cannot open the file");
}

}  // namespace
}  // namespace skograph

// SDF through libsdformat (io/sdf_reader.hpp): a free-floating base and a universal joint read as
// the YAML mechanism written by hand (floating joint, two hinges through a massless cross link),
// the same mass matrix and bias; a joint that closes a cycle becomes a loop whose two frames
// coincide at q = 0; static models are welded; <frame>s are frames; each bad input one error with
// its line.
#include "skograph/io/sdf_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "skograph/io/yaml_reader.hpp"
#include "skograph/rigid/frames.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;
using io_test::write_file;

// A body floating free (no joint to the world) carrying a pendulum on a universal joint whose
// frame is turned and offset from the pendulum's link frame (joint poses are in the child frame).
const std::string kUniversal = R"(<?xml version="1.0"?>
<sdf version="1.9">
  <model name="cardan">
    <pose>0 0 2 0 0 0.3</pose>
    <link name="body">
      <pose>0.1 0.2 0.3 0.1 0.2 0.3</pose>
      <inertial><pose>0.01 0 0.02 0 0 0</pose><mass>3</mass>
        <inertia><ixx>0.1</ixx><ixy>0.01</ixy><ixz>0</ixz><iyy>0.12</iyy><iyz>0</iyz><izz>0.15</izz></inertia></inertial>
    </link>
    <link name="pendulum">
      <pose relative_to="body">0 0 -0.5 0 0 0</pose>
      <inertial><pose>0 0 -0.2 0 0 0</pose><mass>1</mass>
        <inertia><ixx>0.02</ixx><ixy>0</ixy><ixz>0</ixz><iyy>0.02</iyy><iyz>0</iyz><izz>0.004</izz></inertia></inertial>
    </link>
    <frame name="tip" attached_to="pendulum"><pose relative_to="pendulum">0 0 -0.4 0 0 0</pose></frame>
    <joint name="cardan" type="universal">
      <parent>body</parent><child>pendulum</child>
      <pose>0 0 0.1 0 0 0.5</pose>
      <axis><xyz>1 0 0</xyz></axis>
      <axis2><xyz>0 1 0</xyz></axis2>
    </joint>
  </model>
</sdf>
)";

// The same mechanism by hand: the skograph link frame of the pendulum is the joint frame
// (0, 0, 0.1) yaw 0.5 in the pendulum's SDF frame, which sits 0.5 below the body.
const std::string kUniversalYaml = R"(name: cardan
links:
  - {name: body, mass: 3, com: [0.01, 0, 0.02], inertia: {ixx: 0.1, ixy: 0.01, iyy: 0.12, izz: 0.15}}
  - {name: cross}
  - name: pendulum
    mass: 1
    com: [0.0, 0.0, -0.3]
    inertia: {ixx: 0.02, iyy: 0.02, izz: 0.004}
joints:
  - {name: body_floating, type: floating, parent: world, child: body,
     origin: {xyz: [0.0, 0.0, 0.0], rpy: [0, 0, 0]}}
  - {name: "cardan:0", type: continuous, parent: body, child: cross, axis: [1, 0, 0],
     origin: {xyz: [0, 0, -0.4], rpy: [0, 0, 0.5]}}
  - {name: "cardan:1", type: continuous, parent: cross, child: pendulum, axis: [0, 1, 0]}
)";

TEST(SdfReader, AFloatingBaseAndAUniversalJointReadAsWrittenByHand) {
  const Mechanism sdf = read_sdf_file(write_file("cardan.sdf", kUniversal));
  Mechanism yaml = parse_yaml(kUniversalYaml, "cardan.yaml");
  // The floating base starts at the body's pose in the world: the model pose times the link pose.
  const Eigen::Isometry3d model_pose =
      Eigen::Translation3d(0, 0, 2) * Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ());
  const Eigen::Isometry3d link_pose = Eigen::Translation3d(0.1, 0.2, 0.3) *
                                      Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()) *
                                      Eigen::AngleAxisd(0.2, Eigen::Vector3d::UnitY()) *
                                      Eigen::AngleAxisd(0.1, Eigen::Vector3d::UnitX());
  yaml.joints[0].origin = model_pose * link_pose;
  // The pendulum's inertia in its skograph frame: the SDF frame seen from the joint frame (turned
  // by -0.5 about z, 0.1 below); its COM at (0, 0, -0.2) in the SDF frame.
  const Eigen::Isometry3d in_link =
      (Eigen::Translation3d(0, 0, 0.1) * Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitZ()))
          .inverse();
  yaml.links[2].center_of_mass = in_link * Eigen::Vector3d(0, 0, -0.2);
  yaml.links[2].inertia = in_link.linear() * Eigen::Vector3d(0.02, 0.02, 0.004).asDiagonal() *
                          in_link.linear().transpose();
  ASSERT_EQ(sdf.joints.size(), 3u);
  EXPECT_EQ(sdf.joints[0].name, "body_floating");
  EXPECT_EQ(sdf.joints[1].name, "cardan:0");
  EXPECT_EQ(sdf.joints[2].name, "cardan:1");
  const RigidBodyModel a(sdf), b(yaml);
  EXPECT_EQ(a.dof_names(), b.dof_names());
  RigidBodyData da(a), db(b);
  Eigen::VectorXd q(8), qd(8);
  for (int i = 0; i < 8; ++i) {
    q(i) = 0.3 * std::sin(1.1 * i + 0.2);
    qd(i) = 0.8 * std::cos(0.9 * i);
  }
  const Eigen::Vector3d g(0, 0, -9.81);
  EXPECT_TRUE(mass_matrix(a, da, q).isApprox(mass_matrix(b, db, q), 1e-13));
  EXPECT_TRUE(bias_forces(a, da, q, qd, g).isApprox(bias_forces(b, db, q, qd, g), 1e-12));
  // The frame "tip" is 0.4 below the pendulum's SDF frame.
  update_positions(a, Eigen::VectorXd::Zero(8), da);
  const Eigen::Isometry3d tip = frame_pose(a, da, find_frame(a, "tip"));
  const Eigen::Vector3d expected = model_pose * link_pose * Eigen::Vector3d(0, 0, -0.9);
  EXPECT_TRUE(tip.translation().isApprox(expected, 1e-12)) << tip.translation().transpose();
}

const std::string kFourBar = R"(<?xml version="1.0"?>
<sdf version="1.9">
  <model name="fourbar">
    <static>STATIC</static>
    <link name="ground"><inertial><mass>5</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial></link>
    <link name="crank"><pose>0 0 0 0 0 1.5707963267948966</pose>
      <inertial><pose>0.05 0 0 0 0 0</pose><mass>0.3</mass><inertia><ixx>2e-5</ixx><iyy>2.6e-4</iyy><izz>2.6e-4</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial></link>
    <link name="coupler"><pose relative_to="crank">0.1 0 0 0 0 -1.04725912993861</pose>
      <inertial><pose>0.2 0 0 0 0 0</pose><mass>0.8</mass><inertia><ixx>5e-5</ixx><iyy>1.07e-2</iyy><izz>1.07e-2</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial></link>
    <link name="rocker"><pose>0.35 0 0 0 0 1.5827216874342542</pose>
      <inertial><pose>0.15 0 0 0 0 0</pose><mass>0.6</mass><inertia><ixx>4e-5</ixx><iyy>4.5e-3</iyy><izz>4.5e-3</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial></link>
    <joint name="crank_joint" type="revolute"><parent>ground</parent><child>crank</child><axis><xyz>0 0 1</xyz><limit><lower>-3</lower><upper>3</upper></limit></axis></joint>
    <joint name="coupler_joint" type="continuous"><parent>crank</parent><child>coupler</child><axis><xyz>0 0 1</xyz></axis></joint>
    <joint name="rocker_joint" type="continuous"><parent>ground</parent><child>rocker</child><axis><xyz>0 0 1</xyz></axis></joint>
    <joint name="pin_c" type="LOOPTYPE"><parent>coupler</parent><child>rocker</child><pose>0.3 0 0 0 0 0</pose><axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 1 0</xyz></axis2></joint>
  </model>
</sdf>
)";

std::string four_bar(const std::string& is_static, const std::string& loop_type) {
  std::string text = kFourBar;
  text.replace(text.find("STATIC"), 6, is_static);
  text.replace(text.find("LOOPTYPE"), 8, loop_type);
  return text;
}

TEST(SdfReader, AJointThatClosesACycleIsALoopAndStaticModelsAreWelded) {
  const std::string path = write_file("fourbar.sdf", four_bar("true", "revolute"));
  const Mechanism m = read_sdf_file(path);
  ASSERT_EQ(m.loops.size(), 1u);
  const LoopClosure& loop = m.loops[0];
  EXPECT_EQ(loop.name, "pin_c");
  EXPECT_EQ(loop.type, LoopType::kRevolute);
  EXPECT_EQ(loop.source_line, 15);
  EXPECT_EQ(m.links[loop.parent].name, "coupler");
  EXPECT_EQ(m.links[loop.child].name, "rocker");
  EXPECT_EQ(m.joints[0].name, "ground_weld");  // <static>: the unattached ground is welded
  EXPECT_EQ(m.joints[0].type, JointType::kFixed);
  // At q = 0 the two closure frames coincide (the file's geometry closes the loop).
  const RigidBodyModel model(m);
  RigidBodyData data(model);
  update_positions(model, Eigen::VectorXd::Zero(model.dof_count()), data);
  const Eigen::Isometry3d p = data.link_pose[model.node_of_link(loop.parent)] * loop.parent_origin;
  const Eigen::Isometry3d c = data.link_pose[model.node_of_link(loop.child)] * loop.child_origin;
  EXPECT_TRUE(p.matrix().isApprox(c.matrix(), 1e-9)) << p.matrix() << "\n" << c.matrix();
  // Not static: the ground floats.
  const Mechanism floating = read_sdf_file(write_file("floating.sdf", four_bar("false", "ball")));
  EXPECT_EQ(floating.joints[0].type, JointType::kFloating);
  EXPECT_EQ(floating.loops[0].type, LoopType::kSpherical);
  // A universal joint cannot close a loop: it stays in the tree, in its own direction (the
  // search enters the coupler-rocker pair at the coupler), and the rocker's joint is cut.
  const Mechanism universal =
      read_sdf_file(write_file("universal.sdf", four_bar("true", "universal")));
  ASSERT_EQ(universal.loops.size(), 1u);
  EXPECT_EQ(universal.loops[0].name, "rocker_joint");
  const Joint& cardan = universal.joints[static_cast<std::size_t>(universal.find_joint("pin_c:1"))];
  EXPECT_EQ(universal.links[static_cast<std::size_t>(cardan.child)].name, "rocker");
}

TEST(SdfReader, EachKindOfBadInputIsOneLineWithItsLine) {
  const std::string good = four_bar("true", "revolute");
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  struct Case {
    std::string name, text;
    int line;
    std::string problem;
  };
  const Case cases[] = {
      {"malformed.sdf", edited("</model>", "</mode>"), 3, "malformed XML"},
      {"type.sdf", edited("type=\"continuous\"><parent>crank", "type=\"screw\"><parent>crank"), 13,
       "joint 'coupler_joint' has type 'screw'"},
      {"missing.sdf", edited("<child>rocker</child><pose>", "<child>rockr</child><pose>"), 15,
       "joint 'pin_c' names missing child link 'rockr'"},
      {"nested.sdf", edited("<static>true</static>", "<static>true</static><model name=\"n\"/>"), 4,
       "nested models"},
      {"root.sdf", "<?xml version=\"1.0\"?>\n<robot name=\"r\"/>\n", 2, "not an SDF file"},
      {"empty.sdf", "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n</sdf>\n", 2, "no <model>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = write_file(c.name, c.text);
    expect_input_error([&] { read_sdf_file(path); }, path, c.line, c.problem);
  }
  expect_input_error([] { read_sdf_file("/nonexistent/model.sdf"); }, "/nonexistent/model.sdf", 0,
                     "cannot open the file");
}

}  // namespace
}  // namespace skograph

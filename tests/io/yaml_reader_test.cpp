// The native YAML format: the same mechanism written in URDF and in YAML reads the same; spherical
// and free joints, loops and couplings; `urdf:` references; every bad input with file and line.
#include "skograph/io/yaml_reader.hpp"

#include <gtest/gtest.h>

#include "skograph/io/urdf_reader.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;
using io_test::write_file;

const std::string kTreeUrdf = R"(<robot name="pair">
  <link name="base"><inertial><origin xyz="0 0 0.1" rpy="0.3 -0.2 0.4"/><mass value="4"/>
    <inertia ixx="0.3" ixy="0.01" ixz="-0.02" iyy="0.25" iyz="0.03" izz="0.2"/></inertial></link>
  <link name="arm"><inertial><origin xyz="0.2 0 0"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <joint name="shoulder" type="prismatic"><parent link="base"/><child link="arm"/>
    <origin xyz="0.1 0.2 0.3" rpy="0.5 0.6 -0.7"/><axis xyz="1 1 0"/>
    <limit lower="-0.5" upper="0.5" effort="1" velocity="1"/></joint>
</robot>)";

// Mechanism with four links under the world, a spherical and a free joint, a loop and a coupling.
const std::string kModel = R"(name: demo
links:
  - name: base
    mass: 2.0
    com: [0, 0, 0.1]
    inertia: {ixx: 0.2, iyy: 0.2, izz: 0.3}
  - name: b1
    mass: 1.0
    inertia: {ixx: 0.01, ixy: 0.001, iyy: 0.02, izz: 0.02}
  - name: b2
    mass: 1.0
    inertia: {ixx: 0.01, iyy: 0.01, izz: 0.01}
  - name: b3
    mass: 0.5
    inertia: {ixx: 0.01, iyy: 0.01, izz: 0.01}
joints:
  - {name: free, type: free, parent: world, child: base}
  - {name: ball, type: spherical, parent: base, child: b1, origin: {xyz: [0, 0, 0.2]}}
  - {name: motor, type: revolute, parent: base, child: b2, axis: [0, 0, 3], limits: {lower: -1, upper: 1}}
  - {name: wheel, type: continuous, parent: b1, child: b3, origin: {xyz: [0.3, 0, 0], rpy: [0, 0, 1.5707963267948966]}}
loops:
  - name: close1
    type: spherical
    parent: b3
    child: world
    origin: {xyz: [0.1, 0, 0]}
    child_origin: {xyz: [1, 2, 3]}
couplings:
  - {name: g1, type: gear, joints: [motor, wheel], ratio: 50.0}
)";

TEST(YamlReader, TheSameMechanismInUrdfAndYamlReadsTheSame) {
  const std::string yaml = R"(name: pair
links:
  - name: base
    mass: 4
    com: [0, 0, 0.1]
    inertia: {ixx: 0.3, ixy: 0.01, ixz: -0.02, iyy: 0.25, iyz: 0.03, izz: 0.2}
  - name: arm
    mass: 1
    com: [0.2, 0, 0]
    inertia: {ixx: 0.01, iyy: 0.02, izz: 0.02}
joints:
  - name: weld
    type: fixed
    parent: world
    child: base
  - name: shoulder
    type: prismatic
    parent: base
    child: arm
    origin: {xyz: [0.1, 0.2, 0.3], rpy: [0.5, 0.6, -0.7]}
    axis: [1, 1, 0]
    limits: {lower: -0.5, upper: 0.5}
)";
  const Mechanism from_urdf = parse_urdf(kTreeUrdf, "pair.urdf");
  const Mechanism from_yaml = parse_yaml(yaml, "pair.yaml");
  ASSERT_EQ(from_urdf.links.size(), from_yaml.links.size());
  ASSERT_EQ(from_urdf.joints.size(), from_yaml.joints.size());
  // The URDF inertial frame is rotated: compare the base inertia through its rotation-invariant
  // principal moments and trace, the arm's directly.
  const Eigen::Matrix3d urdf_base = from_urdf.links[0].inertia;
  EXPECT_NEAR(urdf_base.trace(), 0.75, 1e-12);
  EXPECT_NEAR(urdf_base.determinant(), from_yaml.links[0].inertia.determinant(), 1e-12);
  EXPECT_TRUE(from_urdf.links[1].inertia.isApprox(from_yaml.links[1].inertia));
  EXPECT_TRUE(from_urdf.links[1].center_of_mass.isApprox(from_yaml.links[1].center_of_mass));
  const Joint& a = from_urdf.joints[1];
  const Joint& b = from_yaml.joints[1];
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.parent, b.parent);
  EXPECT_EQ(a.child, b.child);
  EXPECT_TRUE(a.origin.matrix().isApprox(b.origin.matrix(), 1e-12));
  EXPECT_TRUE(b.axis.isApprox(Eigen::Vector3d(1, 1, 0).normalized()));
  EXPECT_TRUE(a.axis.isApprox(b.axis));
  EXPECT_EQ(a.lower, b.lower);
  EXPECT_EQ(a.upper, b.upper);
}

TEST(YamlReader, SphericalFreeJointsLoopsAndCouplings) {
  const Mechanism m = parse_yaml(kModel, "demo.yaml");
  EXPECT_EQ(m.name, "demo");
  ASSERT_EQ(m.joints.size(), 4u);
  EXPECT_EQ(m.joints[0].type, JointType::kFloating);
  EXPECT_EQ(m.joints[1].type, JointType::kSpherical);
  EXPECT_TRUE(m.joints[2].axis.isApprox(Eigen::Vector3d::UnitZ()));
  EXPECT_EQ(m.joints[2].lower, -1.0);
  EXPECT_EQ(m.links[1].inertia(1, 0), 0.001);
  ASSERT_EQ(m.loops.size(), 1u);
  const LoopClosure& loop = m.loops[0];
  EXPECT_EQ(loop.name, "close1");
  EXPECT_EQ(loop.type, LoopType::kSpherical);
  EXPECT_EQ(loop.parent, m.find_link("b3"));
  EXPECT_EQ(loop.child, -1);
  EXPECT_TRUE(loop.child_origin.translation().isApprox(Eigen::Vector3d(1, 2, 3)));
  EXPECT_EQ(loop.source_line, 22);
  ASSERT_EQ(m.couplings.size(), 1u);
  EXPECT_EQ(m.couplings[0].joint_a, m.find_joint("motor"));
  EXPECT_EQ(m.couplings[0].joint_b, m.find_joint("wheel"));
  EXPECT_EQ(m.couplings[0].ratio, 50.0);
  EXPECT_EQ(m.couplings[0].source_line, 29);
}

TEST(YamlReader, AUrdfReferenceIsRelativeToTheYamlFolderAndGainsLoops) {
  write_file("pair.urdf", kTreeUrdf);
  const std::string path = write_file("pair_closed.yaml", R"(urdf: pair.urdf
loops:
  - {name: wall, type: weld, parent: arm, child: world}
)");
  const Mechanism m = read_yaml_file(path);
  EXPECT_EQ(m.links.size(), 2u);
  EXPECT_EQ(m.joints[0].name, "base_to_world");
  ASSERT_EQ(m.loops.size(), 1u);
  EXPECT_EQ(m.loops[0].type, LoopType::kWeld);
  EXPECT_EQ(m.loops[0].parent, 1);
  EXPECT_EQ(m.source, path);
  // Errors inside the URDF name the YAML file and its line, then the URDF file and its line.
  const std::string bad_urdf =
      write_file("bad.urdf", "<robot name=\"x\"><link name=\"a\"></robot>");
  const std::string uses_bad = write_file("uses_bad.yaml", "urdf: bad.urdf\n");
  expect_input_error([&] { read_yaml_file(uses_bad); }, uses_bad, 1,
                     "in its urdf: " + bad_urdf + ":1: malformed XML");
}

using io_test::replaced;

TEST(YamlReader, EachKindOfBadInputNamesTheFileAndLine) {
  struct Case {
    std::string text;
    int line;
    std::string problem;
  };
  const Case cases[] = {
      {replaced(kModel, "    com: [0, 0, 0.1]", "    com: [0, 0, 0.1"), 6, "malformed YAML"},
      {replaced(kModel, "type: spherical, parent", "type: screw, parent"), 18,
       "unknown type 'screw'"},
      {replaced(kModel, "child: b3, origin", "child: b9, origin"), 20, "unknown link 'b9'"},
      {replaced(kModel, "parent: base, child: b2", "parent: base, child: b1"), 19,
       "link 'b1' has two parents"},
      {replaced(kModel, "mass: 0.5", "mass: -2"), 14, "negative mass"},
      {replaced(kModel, "axis: [0, 0, 3]", "axis: [0, 0, 0]"), 19, "zero-length axis"},
      {replaced(kModel, "ratio: 50.0", "ratio: .nan"), 29, "not a finite number"},
      {replaced(kModel, "xyz: [1, 2, 3]", "xyz: [1, .inf, 3]"), 27, "not a finite number"},
      {replaced(kModel, "mass: 2.0", "mass: heavy"), 4, "must be a number"},
      {replaced(kModel, "    com: [0, 0, 0.1]", "    centre: [0, 0, 0.1]"), 5,
       "unknown key 'centre'"},
      {replaced(kModel, "couplings:", "coupling:"), 28, "unknown key 'coupling'"},
      {replaced(kModel, "    parent: b3", "    parent: b7"), 24, "unknown link 'b7'"},
      {replaced(kModel, "    type: spherical\n", "    type: cylindrical\n"), 23,
       "unknown type 'cylindrical'"},
      {replaced(kModel, "joints: [motor, wheel]", "joints: [motor, wheel2]"), 29,
       "unknown joint 'wheel2'"},
      {replaced(kModel, "joints: [motor, wheel]", "joints: [motor, ball]"), 29,
       "different dof counts"},
      {replaced(kModel, "{name: free, type: free, parent: world, child: base}",
                "{name: free, type: free, parent: b3, child: base}"),
       17, "cycle"},
      {replaced(kModel, "  - {name: free, type: free, parent: world, child: base}\n", ""), 3,
       "link 'base' is the child of no joint"},
      {replaced(kModel, "name: b3\n", "name: world\n"), 13, "'world' is the inertial frame"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.problem);
    expect_input_error([&] { parse_yaml(c.text, "demo.yaml"); }, "demo.yaml", c.line, c.problem);
  }
}

// The same inertia policy as URDF: inconsistent inertias are one warning, refused at
// the inertia's line with --strict; a coupling's offset is read.
TEST(YamlReader, InconsistentInertiasWarnOrAreRefusedWhenStrictAndCouplingsTakeAnOffset) {
  const std::string indefinite = replaced(kModel, "{ixx: 0.01, ixy: 0.001", "{ixx: 0.01, ixy: 0.5");
  const std::string triangle =
      replaced(kModel, "{ixx: 0.2, iyy: 0.2, izz: 0.3}", "{ixx: 0.1, iyy: 0.1, izz: 0.3}");
  ReadOptions strict;
  strict.strict = true;
  const Mechanism accepted = parse_yaml(indefinite, "demo.yaml");
  ASSERT_EQ(accepted.warnings.size(), 1u);
  EXPECT_NE(accepted.warnings[0].find("not positive semi-definite (1 link): b1"), std::string::npos)
      << accepted.warnings[0];
  expect_input_error([&] { parse_yaml(indefinite, "demo.yaml", "", strict); }, "demo.yaml", 9,
                     "not positive semi-definite");
  expect_input_error([&] { parse_yaml(triangle, "demo.yaml", "", strict); }, "demo.yaml", 6,
                     "triangle inequality");
  const Mechanism massless = parse_yaml(replaced(kModel,
                                                 "    mass: 0.5\n    inertia: {ixx: 0.01, "
                                                 "iyy: 0.01, izz: 0.01}\n",
                                                 ""),
                                        "demo.yaml");
  EXPECT_EQ(massless.links[3].mass, 0.0);
  EXPECT_TRUE(massless.warnings.empty());
  const Mechanism offset =
      parse_yaml(replaced(kModel, "ratio: 50.0}", "ratio: 50.0, offset: 0.25}"), "demo.yaml");
  EXPECT_DOUBLE_EQ(offset.couplings[0].offset, 0.25);
  EXPECT_DOUBLE_EQ(parse_yaml(kModel, "demo.yaml").couplings[0].offset, 0.0);
}

}  // namespace
}  // namespace skograph

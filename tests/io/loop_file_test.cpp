// The example-parallel-robots loop files and URDF+ loops: what each key makes of the
// mechanism, every bad input one InputError with file and line, and the same five-bar closed by a
// loop file, by a URDF+ <loop> and by the native YAML having the same dynamics; URDF+ parallel
// chains (the generalized_rbda benchmark's shape, written here) of several depths and loop sizes
// against their YAML twins.
#include "skograph/io/loop_file.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "skograph/model/dynamics.hpp"
#include "skograph/io/urdf_reader.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;
using io_test::write_file;

std::string example(const std::string& name) {
  return std::string(SKOGRAPH_SOURCE_DIR) + "/examples/models/" + name;
}

Mechanism fivebar_with(const std::string& loop_text) {
  Mechanism m = read_urdf_file(example("fivebar.urdf"));
  LoopFile::parse(loop_text, "loops.yaml").apply(m);
  return m;
}

TEST(LoopFile, PairsBecomeLoopsBetweenTheirFrames) {
  const Mechanism m = fivebar_with(
      "closed_loop: [[tip_A, tip_B], [elbow1, distal2]]\n"
      "type: [3d, 6D]\nname_mot: [motor2, motor1]\n");
  ASSERT_EQ(m.loops.size(), 2u);
  EXPECT_EQ(m.loops[0].name, "loop1");
  EXPECT_EQ(m.loops[0].type, LoopType::kSpherical);
  EXPECT_EQ(m.loops[0].parent, m.find_link("tip_A"));
  EXPECT_EQ(m.loops[0].child, m.find_link("tip_B"));
  EXPECT_TRUE(m.loops[0].parent_origin.isApprox(Eigen::Isometry3d::Identity()));
  EXPECT_EQ(m.loops[0].source_line, 1);
  // A joint names its child link's frame; 6D in any case is a weld.
  EXPECT_EQ(m.loops[1].type, LoopType::kWeld);
  EXPECT_EQ(m.loops[1].parent, m.find_link("distal1"));
  EXPECT_EQ(m.preferred_independent, (std::vector<std::string>{"motor2", "motor1"}));
}

TEST(LoopFile, JointTypesConvertJoints) {
  const Mechanism m = fivebar_with(
      "closed_loop: [[tip_A, tip_B]]\ntype: [3d]\n"
      "joint_name: [elbow1, elbow2, motor2, nothing]\n"
      "joint_type: [spherical, UJOINT_ZY, FIXED, SPHERICAL]\n");
  EXPECT_EQ(m.joints[static_cast<std::size_t>(m.find_joint("elbow1"))].type, JointType::kSpherical);
  EXPECT_EQ(m.joints[static_cast<std::size_t>(m.find_joint("motor2"))].type, JointType::kFixed);
  // UJOINT_ZY: about the joint frame's z to a massless cross, then about the cross's y.
  EXPECT_LT(m.find_joint("elbow2"), 0);
  const Joint& outer = m.joints[static_cast<std::size_t>(m.find_joint("elbow2_Z"))];
  const Joint& inner = m.joints[static_cast<std::size_t>(m.find_joint("elbow2_Y"))];
  const int cross = m.find_link("elbow2_cross");
  ASSERT_GE(cross, 0);
  EXPECT_EQ(m.links[static_cast<std::size_t>(cross)].mass, 0.0);
  EXPECT_EQ(outer.parent, m.find_link("proximal2"));
  EXPECT_EQ(outer.child, cross);
  EXPECT_TRUE(outer.axis.isApprox(Eigen::Vector3d::UnitZ()));
  EXPECT_TRUE(outer.origin.isApprox(
      Eigen::Isometry3d(Eigen::Translation3d(0.2, 0, 0) *
                        Eigen::AngleAxisd(1.450893993599911, Eigen::Vector3d::UnitZ()))));
  EXPECT_EQ(inner.parent, cross);
  EXPECT_EQ(inner.child, m.find_link("distal2"));
  EXPECT_TRUE(inner.axis.isApprox(Eigen::Vector3d::UnitY()));
  EXPECT_TRUE(inner.origin.isApprox(Eigen::Isometry3d::Identity()));
  // A joint_name the model lacks stays a warning (published files carry such typos).
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("joint_name 'nothing' names no joint"), std::string::npos);
}

TEST(LoopFile, BadFilesAreOneLineWithTheirLine) {
  Mechanism m = read_urdf_file(example("fivebar.urdf"));
  auto apply = [&](const std::string& text) {
    Mechanism copy = m;
    LoopFile::parse(text, "loops.yaml").apply(copy);
  };
  expect_input_error([&] { apply("closed_loop: [[tip_A, tip_B]]\ntype: [3d]\nmotors: [x]\n"); },
                     "loops.yaml", 3, "unknown key 'motors'");
  expect_input_error([&] { apply("closed_loop: [[tip_A, tip_C]]\ntype: [3d]\n"); }, "loops.yaml", 1,
                     "closed_loop pair 1 names 'tip_C': no link, joint or frame");
  expect_input_error([&] { apply("closed_loop: [[tip_A, tip_B]]\ntype: [4d]\n"); }, "loops.yaml", 2,
                     "type '4d' of closed_loop pair 1 is not 6d or 3d");
  expect_input_error([&] { apply("closed_loop: [[tip_A, tip_B]]\ntype: [3d, 3d]\n"); },
                     "loops.yaml", 2, "'type' has 2 entries and 'closed_loop' 1 pairs");
  expect_input_error(
      [&] { apply("closed_loop: [[tip_A, tip_B]]\ntype: [3d]\nname_mot: [motor1, motr2]\n"); },
      "loops.yaml", 3, "name_mot 'motr2' is not a joint");
  expect_input_error(
      [&] {
        apply(
            "closed_loop: [[tip_A, tip_B]]\ntype: [3d]\njoint_name: [elbow1]\n"
            "joint_type: [HINGE]\n");
      },
      "loops.yaml", 4, "joint_type 'HINGE' is not SPHERICAL, FIXED or UJOINT_ab");
  expect_input_error([&] { apply("closed_loop: [[tip_A]]\ntype: [3d]\n"); }, "loops.yaml", 1,
                     "closed_loop pair 1 must be a list of two frame names");
  expect_input_error([&] { apply("type: [3d]\n"); }, "loops.yaml", 1, "has no 'closed_loop'");
  expect_input_error([&] { apply(std::string("closed_loop: [[tip_A, tip\0B]]\n", 30)); },
                     "loops.yaml", 1, "NUL");
  // Given where a model is expected, it says how to pass it.
  const std::string loops = write_file("robot.yaml", "closed_loop: [[a, b]]\ntype: [6d]\n");
  expect_input_error([&] { load_model(loops); }, loops, 1,
                     "this is a loop file (closed_loop, type, name_mot), not a model: pass it with "
                     "--loops");
}

// The same five-bar closed three ways: the loop file, URDF+, the native YAML with both.
TEST(LoopFile, TheFiveBarsOfEveryFormatHaveTheSameDynamics) {
  ReadOptions with_loops;
  with_loops.loops_file = example("fivebar_loops.yaml");
  const std::string yaml =
      write_file("fivebar.yaml", "urdf: " + example("fivebar.urdf") +
                                     "\nloops_file: " + example("fivebar_loops.yaml") + "\n");
  const std::string native = write_file("fivebar_native.yaml", "urdf: " + example("fivebar.urdf") +
                                                                   R"(
loops:
  - {name: tip, type: spherical, parent: tip_A, child: tip_B}
independent: [motor1, motor2]
)");
  const Model models[] = {load_model(example("fivebar.urdf"), with_loops), load_model(yaml),
                          load_model(example("fivebar_plus.urdf")), load_model(native)};
  const Eigen::Vector4d q(0.3, -0.1, 0.2, 0.1), qd(0.5, 0.0, -0.4, 0.0), tau(0.2, 0, -0.1, 0);
  ModelData first(models[0]);
  const ClosedState closed = close_state(models[0], first, q, qd);
  EXPECT_EQ(closed.q[0], 0.3);  // the motors are the independent coordinates
  EXPECT_EQ(closed.q[2], 0.2);
  const Eigen::VectorXd qdd = forward_dynamics(models[0], first, closed.q, closed.qd, tau);
  for (const Model& model : models) {
    SCOPED_TRACE(model.file());
    ASSERT_TRUE(model.is_closed_chain());
    ModelData data(model);
    EXPECT_LT((close_state(model, data, q, qd).q - closed.q).norm(), 1e-12);
    EXPECT_LT((forward_dynamics(model, data, closed.q, closed.qd, tau) - qdd).norm(), 1e-12);
    EXPECT_EQ(data.independent, (std::vector<std::string>{"motor1", "motor2"}));
  }
}

// Two planar chains of `depth` links from a base (every joint about z, one unit apart), joined
// at link k of each: by a rod from link_1_k closed to link_2_k by a revolute <loop> (implicit),
// or by a <coupling> of ratio `ratio` between link_1_k and link_2_k (explicit: the coordinates
// of the two chains up to k sum alike). The URDF+ text and the native YAML twin.
struct Chains {
  std::string urdf, yaml;
};
Chains parallel_chains(int depth, int k, bool implicit, double ratio = 1.0) {
  std::ostringstream urdf, yaml;
  const std::string inertia =
      R"(<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"/>)";
  urdf << "<robot name=\"chains\">\n  <link name=\"base\"/>\n";
  yaml << "links:\n  - {name: base}\n";
  auto link = [&](const std::string& name) {
    urdf << "  <link name=\"" << name
         << "\"><inertial><origin xyz=\"0 0.5 0\"/><mass value=\"0.25\"/>" << inertia
         << "</inertial></link>\n";
    yaml << "  - {name: " << name << ", mass: 0.25, com: [0, 0.5, 0], inertia: {ixx: 0.01, iyy: "
         << "0.01, izz: 0.02}}\n";
  };
  for (int c = 1; c <= 2; ++c)
    for (int i = 1; i <= depth; ++i) link("link_" + std::to_string(c) + "_" + std::to_string(i));
  if (implicit) link("rod");
  std::ostringstream joints;
  auto joint = [&](const std::string& name, const std::string& parent, const std::string& child,
                   double x, double y, bool independent) {
    urdf << "  <joint name=\"" << name << "\" type=\"continuous\" independent=\""
         << (independent ? "true" : "false") << "\"><parent link=\"" << parent
         << "\"/><child link=\"" << child << "\"/><origin xyz=\"" << x << " " << y
         << " 0\"/><axis xyz=\"0 0 1\"/></joint>\n";
    joints << "  - {name: " << name << ", type: revolute, parent: " << parent
           << ", child: " << child << ", axis: [0, 0, 1], origin: {xyz: [" << x << ", " << y
           << ", 0]}}\n";
  };
  for (int c = 1; c <= 2; ++c)
    for (int i = 1; i <= depth; ++i) {
      const std::string name = "link_" + std::to_string(c) + "_" + std::to_string(i);
      const std::string parent =
          i == 1 ? "base" : "link_" + std::to_string(c) + "_" + std::to_string(i - 1);
      joint("joint_" + std::to_string(c) + "_" + std::to_string(i), parent, name,
            i == 1 && c == 2 && implicit ? 1.0 : 0.0, i == 1 ? 0.0 : 1.0,
            !(c == 2 && i == (implicit ? 1 : k)));
    }
  yaml << "joints:\n  - {name: base_to_world, type: fixed, parent: world, child: base}\n"
       << joints.str();
  if (implicit) {
    joint("rod_joint", "link_1_" + std::to_string(k), "rod", 0, 1, false);
    yaml << "  - {name: rod_joint, type: revolute, parent: link_1_" << k
         << ", child: rod, axis: [0, 0, 1], origin: {xyz: [0, 1, 0]}}\n";
    urdf << "  <loop name=\"closing\" type=\"revolute\"><predecessor link=\"rod\"><origin "
         << "xyz=\"1 0 0\"/></predecessor><successor link=\"link_2_" << k
         << "\"><origin xyz=\"0 1 0\"/></successor><axis xyz=\"0 0 1\"/></loop>\n";
    yaml << "loops:\n  - {name: closing, type: revolute, parent: rod, child: link_2_" << k
         << ", axis: [0, 0, 1], origin: {xyz: [1, 0, 0]}, child_origin: {xyz: [0, 1, 0]}}\n"
         << "independent: [";
    for (int c = 1; c <= 2; ++c)
      for (int i = 1; i <= depth; ++i)
        if (!(c == 2 && i == 1)) yaml << (c + i > 2 ? ", " : "") << "joint_" << c << "_" << i;
    yaml << "]\n";
  } else {
    urdf << "  <coupling name=\"gear\"><predecessor link=\"link_1_" << k
         << "\"/><successor link=\"link_2_" << k << "\"/><ratio value=\"" << ratio
         << "\"/></coupling>\n";
    // sum_{i<=k} q_2_i = ratio sum_{i<=k} q_1_i, solved for q_2_k.
    yaml << "couplings:\n  - {name: gear, type: " << (k == 1 ? "gear" : "differential")
         << ", joints: [joint_2_" << k;
    std::ostringstream ratios;
    for (int i = 1; i <= k; ++i) {
      yaml << ", joint_1_" << i;
      ratios << (i > 1 ? ", " : "") << ratio;
    }
    for (int i = 1; i < k; ++i) {
      yaml << ", joint_2_" << i;
      ratios << ", -1";
    }
    yaml << "], " << (k == 1 ? "ratio: " + ratios.str() : "ratios: [" + ratios.str() + "]")
         << "}\nindependent: [";
    for (int c = 1; c <= 2; ++c)
      for (int i = 1; i <= depth; ++i)
        if (!(c == 2 && i == k)) yaml << (c + i > 2 ? ", " : "") << "joint_" << c << "_" << i;
    yaml << "]\n";
  }
  urdf << "</robot>\n";
  return {urdf.str(), yaml.str()};
}

TEST(UrdfPlus, ParallelChainsEqualTheirYamlTwins) {
  struct Case {
    int depth, k;
    bool implicit;
  };
  for (const Case c : {Case{5, 2, true}, Case{10, 4, true}, Case{20, 9, true}, Case{5, 1, false},
                       Case{10, 4, false}, Case{20, 10, false}}) {
    SCOPED_TRACE("depth " + std::to_string(c.depth) + " k " + std::to_string(c.k) +
                 (c.implicit ? " loop" : " coupling"));
    const Chains chains = parallel_chains(c.depth, c.k, c.implicit, 1.5);
    const Model plus = load_model(write_file("chains.urdf", chains.urdf));
    const Model twin = load_model(write_file("chains.yaml", chains.yaml));
    ASSERT_TRUE(plus.is_closed_chain());
    ASSERT_EQ(plus.dof_names(), twin.dof_names());
    const int n = plus.dof_count();
    Eigen::VectorXd q(n), qd(n), tau(n);
    for (int i = 0; i < n; ++i) {
      q[i] = 0.05 * std::sin(1.0 + i);
      qd[i] = 0.3 * std::cos(2.0 + i);
      tau[i] = 0.1 * std::sin(3.0 + i);
    }
    ModelData a(plus), b(twin);
    const ClosedState closed = close_state(plus, a, q, qd);
    EXPECT_LT(position_residual(*plus.closed_chain(), *a.closed_chain(),
                                plus.dof_order().model_vector(closed.q)),
              kClosureTolerance);
    const ClosedState closed_twin = close_state(twin, b, q, qd);
    EXPECT_LT((closed.q - closed_twin.q).norm(), 1e-10);
    EXPECT_LT((forward_dynamics(plus, a, closed.q, closed.qd, tau) -
               forward_dynamics(twin, b, closed.q, closed.qd, tau))
                  .norm(),
              1e-9);
    EXPECT_EQ(a.independent, b.independent);
  }
}

TEST(UrdfPlus, BadElementsAreOneLineWithTheirLine) {
  const std::string head = R"(<robot name="r"><link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>
)";
  auto read = [&](const std::string& tail) {
    return [=] { parse_urdf(head + tail + "</robot>\n", "r.urdf"); };
  };
  expect_input_error(
      read(R"(<loop name="l" type="planar"><predecessor link="a"/><successor link="b"/></loop>)"),
      "r.urdf", 3, "loop 'l' has type 'planar'");
  expect_input_error(
      read(R"(<loop name="l" type="revolute"><predecessor link="a"/><successor link="c"/></loop>)"),
      "r.urdf", 3, "loop 'l' successor names missing link 'c'");
  expect_input_error(
      read(R"(<loop type="fixed"><predecessor link="a"/><successor link="b"/></loop>)"), "r.urdf",
      3, "<loop> without a name");
  expect_input_error(
      read(
          R"(<coupling name="g"><predecessor link="a"/><successor link="b"/><ratio value="x"/></coupling>)"),
      "r.urdf", 3, "<ratio> value 'x' is not a number");
  expect_input_error(
      [&] {
        parse_urdf(R"(<robot name="r"><link name="a"/><link name="b"/>
<joint name="j" type="revolute" independent="maybe"><parent link="a"/><child link="b"/></joint>
</robot>)",
                   "r.urdf");
      },
      "r.urdf", 2, "independent=\"maybe\" (expected true or false)");
}

}  // namespace
}  // namespace skograph

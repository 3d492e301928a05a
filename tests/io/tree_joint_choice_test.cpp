// Where the cut goes (rigid/tree_joint_choice.hpp): a URDF whose joints form no
// tree is read by cutting one joint per cycle. The cut joint equals the URDF+ <loop> its twin
// declares by hand; a joint walked against its direction is reversed without changing the motion
// (the same accelerations, link poses and centre of mass as the unreversed choice, with the
// coordinate map between the two written here from the planar geometry); the aggregates stay
// inside the biconnected components; the joints the user wants independent stay in the tree.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "skograph/model/dynamics.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/io/sdf_reader.hpp"
#include "skograph/io/urdf_reader.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;

std::string read_example(const std::string& name) {
  std::ifstream in(std::filesystem::path(SKOGRAPH_SOURCE_DIR) / "examples" / "models" / name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The five-bar with an effector of two parent joints (examples/models/fivebar_effector.urdf).
const std::string kEffector = read_example("fivebar_effector.urdf");
const std::string kTip2 = R"(  <joint name="tip2" type="continuous" independent="false">
    <parent link="distal2"/><child link="effector"/>
    <origin xyz="0.25 0 0" rpy="0 0 -1.8545904360032246"/><axis xyz="0 0 1"/>
  </joint>
)";
constexpr double kTip2Yaw = -1.8545904360032246;

using io_test::replaced;

Model model_of(const std::string& text, const std::string& name, const ReadOptions& options = {}) {
  return build_model(parse_urdf(text, name, options), name);
}

int line_of(const std::string& text, const std::string& what) {
  const std::size_t at = text.find(what);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

TEST(TreeJointChoice, ACutJointIsTheLoopItsUrdfPlusTwinDeclares) {
  const std::string twin = replaced(kEffector, kTip2, R"(  <loop name="tip2" type="revolute">
    <predecessor link="distal2"><origin xyz="0.25 0 0" rpy="0 0 -1.8545904360032246"/></predecessor>
    <successor link="effector"/>
    <axis xyz="0 0 1"/>
  </loop>
)");
  const Mechanism read = parse_urdf(kEffector, "effector.urdf");
  ASSERT_EQ(read.loops.size(), 1u);
  const LoopClosure& loop = read.loops[0];
  EXPECT_EQ(loop.name, "tip2");
  EXPECT_EQ(loop.type, LoopType::kRevolute);
  EXPECT_EQ(read.links[static_cast<std::size_t>(loop.parent)].name, "distal2");
  EXPECT_EQ(read.links[static_cast<std::size_t>(loop.child)].name, "effector");
  EXPECT_EQ(loop.source_line, line_of(kEffector, "<joint name=\"tip2\""));
  EXPECT_TRUE(loop.child_origin.isApprox(Eigen::Isometry3d::Identity(), 1e-15));
  EXPECT_EQ(read.find_joint("tip2"), -1);
  ASSERT_EQ(read.notes.size(), 1u);
  EXPECT_NE(read.notes[0].find("cut 'tip2'"), std::string::npos) << read.notes[0];

  const Model cut = model_of(kEffector, "effector.urdf"), declared = model_of(twin, "twin.urdf");
  ASSERT_EQ(cut.dof_names(), declared.dof_names());
  ModelData a(cut), b(declared);
  Eigen::VectorXd q(5), qd(5), tau(5);
  q << 0.3, 0.0, -0.2, 0.0, 0.1;  // motor1 elbow1 motor2 elbow2 tip1
  qd << 0.5, 0.0, -0.4, 0.0, 0.2;
  tau << 0.02, 0.01, -0.03, 0.0, 0.001;
  const ClosedState closed = close_state(cut, a, q, qd);
  EXPECT_EQ(a.independent, (std::vector<std::string>{"motor1", "motor2", "tip1"}));
  EXPECT_LT((close_state(declared, b, q, qd).q - closed.q).norm(), 1e-12);
  EXPECT_LT((forward_dynamics(cut, a, closed.q, closed.qd, tau) -
             forward_dynamics(declared, b, closed.q, closed.qd, tau))
                .norm(),
            1e-12);
  EXPECT_LT(
      (reduced_mass_matrix(cut, a, closed.q) - reduced_mass_matrix(declared, b, closed.q)).norm(),
      1e-14);
}

// tip2 written from the effector to distal2 (the inverse origin): distal2 then has two parents
// (a different five-bar: its link frame, at elbow2, is also tip2's axis, so the effector reaches
// from distal1's tip to the elbow). Marked independent, tip2 stays in the tree, which reaches the
// effector from distal2 against tip2's direction: tip2 is reversed, tip1 cut. Not marked, the
// search keeps tip1 and cuts tip2 (no reversal): the reference. A pointer spins on the effector
// (a forward joint whose parent's frame moves when tip2 is reversed).
std::string effector_with_tip2_from_the_effector(bool independent) {
  const Eigen::Rotation2Dd turn(-kTip2Yaw);
  const Eigen::Vector2d offset = -(turn * Eigen::Vector2d(0.25, 0.0));
  std::ostringstream joint;
  joint << std::setprecision(17) << R"(  <joint name="tip2" type="continuous" independent=")"
        << (independent ? "true" : "false") << R"(">
    <parent link="effector"/><child link="distal2"/>
    <origin xyz=")"
        << offset.x() << " " << offset.y() << R"( 0" rpy="0 0 )" << -kTip2Yaw << R"("/>
    <axis xyz="0 0 1"/>
  </joint>
  <link name="pointer">
    <inertial><origin xyz="0.05 0.01 0"/><mass value="0.05"/>
      <inertia ixx="1e-05" ixy="0" ixz="0" iyy="2e-05" iyz="0" izz="3e-05"/></inertial>
  </link>
  <joint name="spin" type="continuous">
    <parent link="effector"/><child link="pointer"/>
    <origin xyz="0.02 0.01 0" rpy="0 0 0.3"/><axis xyz="0 0 1"/>
  </joint>
)";
  return replaced(kEffector, kTip2, joint.str());
}

TEST(TreeJointChoice, AReversedJointKeepsTheMotionTheLinkFramesAndTheCoordinate) {
  const std::string text = effector_with_tip2_from_the_effector(true);
  const Mechanism read = parse_urdf(text, "reversed.urdf");
  ASSERT_EQ(read.loops.size(), 1u);
  EXPECT_EQ(read.loops[0].name, "tip1");
  const Joint& tip2 = read.joints[static_cast<std::size_t>(read.find_joint("tip2"))];
  EXPECT_EQ(read.links[static_cast<std::size_t>(tip2.parent)].name, "distal2");
  EXPECT_EQ(read.links[static_cast<std::size_t>(tip2.child)].name, "effector");
  EXPECT_TRUE(tip2.axis.isApprox(Eigen::Vector3d(0, 0, -1), 1e-15));
  ASSERT_EQ(read.notes.size(), 1u);
  EXPECT_NE(read.notes[0].find("reversed 'tip2'"), std::string::npos) << read.notes[0];

  // The same five-bar cut at tip2: dofs motor1 elbow1 motor2 elbow2 tip1.
  const Mechanism cut = parse_urdf(effector_with_tip2_from_the_effector(false), "cut.urdf");
  ASSERT_EQ(cut.loops.size(), 1u);
  EXPECT_EQ(cut.loops[0].name, "tip2");
  const Model reference = build_model(cut, "cut.urdf");
  const Model reversed = model_of(text, "reversed.urdf");
  ASSERT_EQ(reversed.dof_names(),
            (std::vector<std::string>{"motor1", "elbow1", "motor2", "elbow2", "tip2", "spin"}));
  ModelData a(reference), b(reversed);
  Eigen::VectorXd q(6), qd(6), tau(6);
  q << 0.3, 0.0, -0.2, 0.0, 0.1, 0.4;
  qd << 0.5, 0.0, -0.4, 0.0, 0.2, -0.3;
  tau << 0.02, 0.01, -0.03, 0.0, 0.0, 0.001;
  const ClosedState closed = close_state(reference, a, q, qd);
  const Eigen::VectorXd qdd = forward_dynamics(reference, a, closed.q, closed.qd, tau);
  // Planar yaws: distal1 = motor1 + elbow1 + const, the effector = distal1 + tip1, distal2 =
  // motor2 + elbow2 + const; tip2 (effector -> distal2) = distal2 - effector - its origin's yaw,
  // which is 0 where the file closes (all zero). Rates and accelerations alike, without consts.
  // The reversed joint keeps this coordinate.
  auto tip2_of = [](const Eigen::VectorXd& v) { return v[2] + v[3] - (v[0] + v[1] + v[4]); };
  Eigen::VectorXd q2 = closed.q, qd2 = closed.qd, tau2 = tau;
  q2[4] = tip2_of(closed.q);
  qd2[4] = tip2_of(closed.qd);
  tau2[4] = 0.0;
  const ClosedState closed2 = close_state(reversed, b, q2, qd2);
  EXPECT_LT((closed2.q - q2).norm(), 1e-12);
  EXPECT_LT((closed2.qd - qd2).norm(), 1e-12);
  const Eigen::VectorXd qdd2 = forward_dynamics(reversed, b, q2, qd2, tau2);
  EXPECT_LT((qdd2.head(4) - qdd.head(4)).norm(), 1e-10);
  EXPECT_NEAR(qdd2[4], tip2_of(qdd), 1e-10);
  EXPECT_NEAR(qdd2[5], qdd[5], 1e-10);
  // The link names keep the file's frames although the effector's link frame moved, and the
  // reversed joint's name its file child's (distal2's) frame.
  for (const char* frame : {"effector", "distal1", "distal2", "proximal1", "pointer", "spin"})
    EXPECT_TRUE(frame_pose(reversed, b, q2, frame)
                    .isApprox(frame_pose(reference, a, closed.q, frame), 1e-12))
        << frame;
  EXPECT_TRUE(frame_pose(reversed, b, q2, "tip2")
                  .isApprox(frame_pose(reference, a, closed.q, "distal2"), 1e-12));
  EXPECT_LT((center_of_mass(reversed, b, q2) - center_of_mass(reference, a, closed.q)).norm(),
            1e-14);
}

TEST(TreeJointChoice, TheJointsTheUserWantsIndependentStayInTheTree) {
  ReadOptions options;
  options.independent = {"motor1", "motor2", "tip2"};
  const Mechanism read = parse_urdf(kEffector, "effector.urdf", options);
  ASSERT_EQ(read.loops.size(), 1u);
  EXPECT_EQ(read.loops[0].name, "tip1");  // not tip2, which the breadth-first search would cut
  EXPECT_GE(read.find_joint("tip2"), 0);
  // A loop file's name_mot (the actuated joints) the same way, through the loading path.
  ReadOptions with_loop_file;
  with_loop_file.loops_file =
      io_test::write_file("actuated.yaml", "closed_loop: []\ntype: []\nname_mot: [tip2]\n");
  const Mechanism loaded = load_mechanism(
      std::string(SKOGRAPH_SOURCE_DIR) + "/examples/models/fivebar_effector.urdf", with_loop_file);
  ASSERT_EQ(loaded.loops.size(), 1u);
  EXPECT_EQ(loaded.loops[0].name, "tip1");
}

// Two four-bars in series, each written as a link with two parents (b and e): the aggregates are
// the two cycles (the biconnected components without their top link), not one.
TEST(TreeJointChoice, AggregatesStayInsideTheBiconnectedComponents) {
  std::ostringstream text;
  text << "<robot name=\"two_cycles\">\n";
  for (const char* link : {"a", "b", "c", "d", "e", "f"})
    text << "  <link name=\"" << link
         << "\"><inertial><mass value=\"1\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" "
            "iyz=\"0\" izz=\"0.1\"/></inertial></link>\n";
  auto joint = [&](const char* name, const char* parent, const char* child, double x, double y) {
    text << "  <joint name=\"" << name << "\" type=\"continuous\"><parent link=\"" << parent
         << "\"/><child link=\"" << child << "\"/><origin xyz=\"" << x << " " << y
         << " 0\"/><axis xyz=\"0 0 1\"/></joint>\n";
  };
  text << "  <link name=\"world\"/>\n";
  joint("ja", "world", "a", 0, 0);
  joint("jb", "a", "b", 0, 1);
  joint("jc", "world", "c", 1, 0);
  joint("jbc", "c", "b", -1, 1);  // b's second parent: a parallelogram
  joint("jd", "b", "d", 0, 1);
  joint("je", "d", "e", 0, 1);
  joint("jf", "b", "f", 1, 0);
  joint("jef", "f", "e", -1, 1);  // e's second parent
  text << "</robot>\n";
  const Model model = model_of(text.str(), "two_cycles.urdf");
  ASSERT_TRUE(model.is_closed_chain());
  const ClosedChainModel& closed = *model.closed_chain();
  ASSERT_EQ(closed.mechanism().loops.size(), 2u);
  EXPECT_EQ(closed.mechanism().loops[0].name, "jbc");
  EXPECT_EQ(closed.mechanism().loops[1].name, "jef");
  ASSERT_EQ(closed.aggregate_count(), 2);
  for (int s = 0; s < 2; ++s) EXPECT_EQ(closed.aggregate_nodes(s).size(), 3u);
}

// SDF chooses its tree the same way: the four-bar of fourbar_internal_cut.sdf cut at pin_c by
// default; with pin_c wanted independent it stays in the tree, reversed (the search reaches the
// rocker from the carriage first), and coupler_joint is cut. Both readings close to the same
// link poses and accelerate the shared joints alike.
TEST(TreeJointChoice, SdfKeepsTheWantedJointAndReversesIt) {
  const std::string path =
      std::string(SKOGRAPH_SOURCE_DIR) + "/examples/models/fourbar_internal_cut.sdf";
  ReadOptions wanted;
  wanted.independent = {"pin_c"};
  const Mechanism by_default = read_sdf_file(path), kept = read_sdf_file(path, wanted);
  ASSERT_EQ(by_default.loops.size(), 1u);
  EXPECT_EQ(by_default.loops[0].name, "pin_c");
  ASSERT_EQ(kept.loops.size(), 1u);
  EXPECT_EQ(kept.loops[0].name, "coupler_joint");
  ASSERT_EQ(kept.notes.size(), 1u);
  EXPECT_NE(kept.notes[0].find("cut 'coupler_joint' (now a loop closure), reversed 'pin_c'"),
            std::string::npos)
      << kept.notes[0];
  const Joint& pin = kept.joints[static_cast<std::size_t>(kept.find_joint("pin_c"))];
  EXPECT_EQ(kept.links[static_cast<std::size_t>(pin.child)].name, "coupler");

  const Model a = build_model(by_default, path), b = build_model(kept, path);
  ModelData data_a(a), data_b(b);
  const std::vector<std::string> shared = {"slide", "crank_joint", "tool_joint", "rocker_joint"};
  auto index = [](const Model& model, const std::string& name) {
    const auto& names = model.dof_names();
    return static_cast<Eigen::Index>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  Eigen::VectorXd q = Eigen::VectorXd::Zero(5), qd = Eigen::VectorXd::Zero(5);
  const double values[] = {0.05, 0.3, 0.2, 0.104}, rates[] = {0.1, 2.0, -1.0, 0.7};
  for (std::size_t i = 0; i < shared.size(); ++i) {
    q[index(a, shared[i])] = values[i];
    qd[index(a, shared[i])] = rates[i];
  }
  const ClosedState closed = close_state(a, data_a, q, qd);
  Eigen::VectorXd qb = Eigen::VectorXd::Zero(5), qdb = Eigen::VectorXd::Zero(5);
  Eigen::VectorXd tau_a = Eigen::VectorXd::Zero(5), tau_b = Eigen::VectorXd::Zero(5);
  for (const std::string& name : shared) {
    qb[index(b, name)] = closed.q[index(a, name)];
    qdb[index(b, name)] = closed.qd[index(a, name)];
  }
  tau_a[index(a, "slide")] = tau_b[index(b, "slide")] = 1.0;
  tau_a[index(a, "crank_joint")] = tau_b[index(b, "crank_joint")] = 0.05;
  const ClosedState closed_b = close_state(b, data_b, qb, qdb);
  for (const std::string& name : data_b.independent)
    EXPECT_NE(std::find(shared.begin(), shared.end(), name), shared.end()) << name;
  const Eigen::VectorXd qdd_a = forward_dynamics(a, data_a, closed.q, closed.qd, tau_a);
  const Eigen::VectorXd qdd_b = forward_dynamics(b, data_b, closed_b.q, closed_b.qd, tau_b);
  for (const std::string& name : shared) {
    EXPECT_NEAR(closed_b.q[index(b, name)], closed.q[index(a, name)], 1e-10) << name;
    EXPECT_NEAR(closed_b.qd[index(b, name)], closed.qd[index(a, name)], 1e-10) << name;
    EXPECT_NEAR(qdd_b[index(b, name)], qdd_a[index(a, name)], 1e-9) << name;
  }
  for (const char* frame : {"carriage", "crank", "coupler", "rocker", "tool", "pivot_b"})
    EXPECT_TRUE(frame_pose(b, data_b, closed_b.q, frame)
                    .isApprox(frame_pose(a, data_a, closed.q, frame), 1e-10))
        << frame;
  // The reversed pin_c still names its joint frame on the rocker (its <pose>, relative to the
  // child link).
  Eigen::Isometry3d pin_on_rocker = Eigen::Isometry3d::Identity();
  pin_on_rocker.translation() = Eigen::Vector3d(0.3, 0, 0);
  pin_on_rocker.linear() =
      Eigen::AngleAxisd(-1.05918449057797, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  EXPECT_TRUE(frame_pose(b, data_b, closed_b.q, "pin_c")
                  .isApprox(frame_pose(a, data_a, closed.q, "rocker") * pin_on_rocker, 1e-10));
}

// A link the search reaches only against a ball joint (never reversed: its coordinates would
// change meaning) floats, closed by the ball as a spherical loop, as SDF links no joint reaches do.
TEST(TreeJointChoice, SdfFloatsALinkReachedOnlyAgainstABallJoint) {
  const Mechanism read = read_sdf_file(std::string(SKOGRAPH_SOURCE_DIR) +
                                       "/tests/fuzz_regressions/sdf/"
                                       "link_reached_only_against_a_ball_joint.sdf");
  ASSERT_EQ(read.loops.size(), 1u);
  EXPECT_EQ(read.loops[0].name, "ball");
  EXPECT_EQ(read.loops[0].type, LoopType::kSpherical);
  const int floating = read.find_joint("b_floating");
  ASSERT_GE(floating, 0);
  EXPECT_EQ(read.joints[static_cast<std::size_t>(floating)].type, JointType::kFloating);
}

TEST(TreeJointChoice, ATreeIsLeftAloneAndImpossibleChoicesAreOneLine) {
  const Mechanism tree = parse_urdf(read_example("arm7.urdf"), "arm7.urdf");
  EXPECT_TRUE(tree.loops.empty());
  EXPECT_TRUE(tree.notes.empty());
  const std::string links =
      "<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"><inertial><mass value=\"1\"/>"
      "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n";
  // Two <mimic>-coupled joints into one link: neither may be cut.
  expect_input_error(
      [&] {
        parse_urdf(
            "<robot name=\"r\"><link name=\"world\"/><link name=\"a\"/>\n<joint "
            "name=\"j1\" type=\"continuous\"><parent link=\"world\"/><child "
            "link=\"a\"/></joint>\n<joint name=\"j2\" type=\"continuous\"><parent "
            "link=\"world\"/><child link=\"a\"/><mimic joint=\"j1\"/></joint></robot>\n",
            "r.urdf");
      },
      "r.urdf", 3, "joint 'j2' (continuous) closes a cycle with joints that must stay in the tree");
  expect_input_error(
      [&] {
        parse_urdf(links +
                       "<joint name=\"p1\" type=\"planar\"><parent link=\"a\"/><child link=\"b\"/>"
                       "</joint>\n<joint name=\"p2\" type=\"planar\"><parent link=\"a\"/>"
                       "<child link=\"b\"/></joint>\n</robot>\n",
                   "r.urdf");
      },
      "r.urdf", 5, "joint 'p2' (planar) closes a cycle with joints that must stay in the tree");
  // The root c reaches b by the fixed g, then a only against the floating f.
  expect_input_error(
      [&] {
        parse_urdf(
            "<robot name=\"r\">\n<link name=\"c\"/>\n<link name=\"a\"/>\n"
            "<link name=\"b\"/>\n<joint name=\"f\" type=\"floating\"><parent "
            "link=\"a\"/><child link=\"b\"/></joint>\n<joint name=\"g\" type=\"fixed\">"
            "<parent link=\"c\"/><child link=\"b\"/></joint>\n</robot>\n",
            "r.urdf");
      },
      "r.urdf", 5, "joint 'f' (floating) would have to be reversed");
}

}  // namespace
}  // namespace skograph

// Through the command line: every model format reads the same mechanism as its YAML twin
// (the same closed state, accelerations, inverse dynamics and M_reduced, compared by dof name);
// URDF <mimic> tags are the YAML couplings; massless moving subtrees and bad mimic tags warn, or
// are refused with --strict; the published robot collection in ../shared/robots loads (skipped
// when ../shared is absent).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "support/cli_support.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using cli_test::CliRun;
using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::matrix_of;
using cli_test::run_cli;
using cli_test::vector_of;
using io_test::write_file;
using Json = nlohmann::json;

Json dynamics_json(const std::string& arguments) {
  const CliRun run = run_cli("dynamics " + arguments + " --json");
  EXPECT_EQ(run.status, 0) << run.err;
  return Json::parse(run.out.empty() ? "{}" : run.out);
}

// Index of each of `names` in `order` (the dofs of the other report).
std::vector<int> positions(const Json& names, const Json& order) {
  std::vector<int> result;
  for (const auto& name : names) {
    const auto it = std::find(order.begin(), order.end(), name);
    EXPECT_NE(it, order.end()) << name;
    result.push_back(static_cast<int>(it - order.begin()));
  }
  return result;
}

void expect_near(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tolerance,
                 const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tolerance * std::max(1.0, b.cwiseAbs().maxCoeff()))
      << what << ":\n"
      << a << "\nvs\n"
      << b;
}

// Two reports of the same mechanism: equal by dof name; for closed chains the same independent
// coordinates (as a set) and M_reduced, permuted into the same order.
void expect_same_dynamics(const Json& a, const Json& b, double matrix_tolerance = 1e-12,
                          double vector_tolerance = 1e-10, double qdd_tolerance = -1.0) {
  ASSERT_EQ(a["dofs"].size(), b["dofs"].size());
  const std::vector<int> in_b = positions(a["dofs"], b["dofs"]);
  const auto n = static_cast<Eigen::Index>(in_b.size());
  Eigen::MatrixXd b_mass(n, n);
  const Eigen::MatrixXd mass = matrix_of(b["M"]);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) b_mass(i, j) = mass(in_b[i], in_b[j]);
  expect_near(matrix_of(a["M"]), b_mass, matrix_tolerance, "M");
  for (const char* key : {"q", "qd", "bias", "qdd", "tau"}) {
    const Eigen::VectorXd values = vector_of(b[key]);
    Eigen::VectorXd permuted(n);
    for (Eigen::Index i = 0; i < n; ++i) permuted(i) = values(in_b[i]);
    const bool qdd = std::string(key) == "qdd" && qdd_tolerance > 0.0;
    expect_near(vector_of(a[key]), permuted, qdd ? qdd_tolerance : vector_tolerance, key);
  }
  ASSERT_EQ(a.contains("M_reduced"), b.contains("M_reduced"));
  if (!a.contains("M_reduced")) return;
  const std::vector<int> reduced_in_b = positions(a["independent"], b["independent"]);
  const Eigen::MatrixXd reduced = matrix_of(b["M_reduced"]);
  const auto r = static_cast<Eigen::Index>(reduced_in_b.size());
  Eigen::MatrixXd b_reduced(r, r);
  for (Eigen::Index i = 0; i < r; ++i)
    for (Eigen::Index j = 0; j < r; ++j)
      b_reduced(i, j) = reduced(reduced_in_b[i], reduced_in_b[j]);
  expect_near(matrix_of(a["M_reduced"]), b_reduced, matrix_tolerance, "M_reduced");
}

// MJCF files written as MuJoCo users write them (nested bodies, defaults, degrees, euler,
// axisangle, xyaxes, zaxis, <include>, inertias from geoms, connect equalities for pins, joint
// equalities for gears) and an SDF file with a loop joint, against their YAML twins.
TEST(ModelFormatsCli, MjcfAndSdfModelsGiveTheDynamicsOfTheirYamlTwins) {
  const std::pair<const char*, const char*> twins[] = {
      {"fourbar.xml", "fourbar.yaml"},
      {"fourbar_chain.xml", "fourbar_chain.yaml"},
      {"stewart_platform.xml", "stewart_platform.yaml"},
      {"geared_links.xml", "geared_links.yaml"},
      {"delta_robot.xml", "delta_robot.yaml"},
      {"humanoid.xml", "humanoid.yaml"},
      {"fourbar_internal_cut.sdf", "fourbar_internal_cut.yaml"}};
  for (const auto& [model, twin] : twins) {
    SCOPED_TRACE(model);
    const std::string stem = std::string(twin).substr(0, std::string(twin).rfind('.'));
    const std::string state = " --state " + example_model(stem + "_state.json");
    expect_same_dynamics(dynamics_json(example_model(model) + state),
                         dynamics_json(example_model(twin) + state));
  }
}

// The delta robot is a translational manipulator: its three actuated arms are the independent
// coordinates, and the platform keeps its orientation (the universal joints' angles cancel).
TEST(ModelFormatsCli, TheDeltaRobotTranslatesItsPlatform) {
  const Json report = dynamics_json(example_model("delta_robot.xml") + " --state " +
                                    example_model("delta_robot_state.json"));
  EXPECT_EQ(report["independent"], Json({"arm1", "arm2", "arm3"}));
  const std::vector<int> at = positions(Json({"rod1_b", "plate_a"}), report["dofs"]);
  for (const char* key : {"q", "qd", "qdd"})
    EXPECT_NEAR(report[key][at[0]].get<double>() + report[key][at[1]].get<double>(), 0.0, 1e-9)
        << key;
}

const std::string kGripper = R"(<robot name="gripper">
  <link name="palm"><inertial><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
  <link name="left"><inertial><origin xyz="0 0.02 0.03"/><mass value="0.1"/><inertia ixx="2e-5" ixy="0" ixz="0" iyy="2e-5" iyz="0" izz="1e-5"/></inertial></link>
  <link name="right"><inertial><origin xyz="0 -0.02 0.03"/><mass value="0.1"/><inertia ixx="2e-5" ixy="0" ixz="0" iyy="2e-5" iyz="0" izz="1e-5"/></inertial></link>
  <link name="tip"><inertial><origin xyz="0 0 0.01"/><mass value="0.05"/><inertia ixx="1e-6" ixy="0" ixz="0" iyy="1e-6" iyz="0" izz="1e-6"/></inertial></link>
  <joint name="swing" type="revolute"><parent link="world_anchor"/><child link="palm"/><axis xyz="1 0 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="left_joint" type="prismatic"><parent link="palm"/><child link="left"/><origin xyz="0 0.01 0.05"/><axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="10" velocity="0.2"/></joint>
  <joint name="right_joint" type="prismatic"><parent link="palm"/><child link="right"/><origin xyz="0 -0.01 0.05"/><axis xyz="0 1 0"/><limit lower="-0.04" upper="0" effort="10" velocity="0.2"/>MIMIC_RIGHT</joint>
  <joint name="tip_joint" type="revolute"><parent link="left"/><child link="tip"/><origin xyz="0 0.02 0.06"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>MIMIC_TIP</joint>
  <link name="world_anchor"/>
</robot>
)";

std::string gripper(const std::string& right, const std::string& tip) {
  std::string text = kGripper;
  text.replace(text.find("MIMIC_RIGHT"), 11, right);
  text.replace(text.find("MIMIC_TIP"), 9, tip);
  return text;
}

// q[right] = -1.0 q[left] - 0.005 and q[tip] = 2 q[swing] + 0.1 by <mimic>, against the same URDF
// without the tags plus YAML couplings.
TEST(ModelFormatsCli, UrdfMimicTagsAreTheYamlCouplings) {
  const std::string mimic = write_file(
      "gripper.urdf", gripper(R"(<mimic joint="left_joint" multiplier="-1.0" offset="-0.005"/>)",
                              R"(<mimic joint="swing" multiplier="2"   offset="0.1"/>)"));
  const std::string plain = write_file("gripper_plain.urdf", gripper("", ""));
  // The masters of the <mimic> tags are the independent coordinates by default: the
  // YAML names them.
  const std::string yaml = write_file("gripper_coupled.yaml", R"(urdf: gripper_plain.urdf
couplings:
  - {name: right_joint, joints: [right_joint, left_joint], ratio: -1.0, offset: -0.005}
  - {name: tip_joint, joints: [tip_joint, swing], ratio: 2.0, offset: 0.1}
independent: [swing, left_joint]
)");
  const std::string state = write_file(
      "gripper_state.json",
      R"({"q": {"swing": 0.3, "left_joint": 0.02}, "qd": {"swing": -0.5, "left_joint": 0.01},
          "tau": {"swing": 0.2, "left_joint": 1.0}, "qdd": {"swing": 1.0, "left_joint": -0.1}})");
  const Json from_mimic = dynamics_json(mimic + " --state " + state);
  expect_same_dynamics(from_mimic, dynamics_json(yaml + " --state " + state));
  EXPECT_EQ(from_mimic["independent"], Json({"swing", "left_joint"}));
  // The closed state satisfies the tags, the masters kept as the state gives them.
  const std::vector<int> at =
      positions(Json({"swing", "left_joint", "right_joint", "tip_joint"}), from_mimic["dofs"]);
  const Json& q = from_mimic["q"];
  EXPECT_NEAR(q[at[2]].get<double>(), -1.0 * q[at[1]].get<double>() - 0.005, 1e-12);
  EXPECT_NEAR(q[at[3]].get<double>(), 2.0 * q[at[0]].get<double>() + 0.1, 1e-12);
  EXPECT_EQ(q[at[0]].get<double>(), 0.3);
  EXPECT_EQ(q[at[1]].get<double>(), 0.02);
  // graph shows the couplings as cut edges.
  const Json graph = Json::parse(run_cli("graph " + mimic + " --json").out);
  EXPECT_EQ(graph["spanning_tree"]["cut_edges"].size(), 2u);
}

TEST(ModelFormatsCli, UnusableMimicTagsWarnWithTheirLineOrAreRefusedWhenStrict) {
  struct Case {
    std::string right, problem;
  };
  const Case cases[] = {
      {R"(<mimic joint="thumb"/>)", "joint 'right_joint' mimics missing joint 'thumb'"},
      {R"(<mimic joint="left_joint" multiplier="0"/>)",
       "joint 'right_joint' mimics joint 'left_joint' with multiplier 0"},
      {R"(<mimic joint="right_joint"/>)", "joint 'right_joint' mimics itself"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.problem);
    const std::string path = write_file("bad_mimic.urdf", gripper(c.right, ""));
    const CliRun warned = run_cli("dynamics " + path + " --json");
    EXPECT_EQ(warned.status, 0) << warned.err;
    EXPECT_EQ(std::count(warned.err.begin(), warned.err.end(), '\n'), 1) << warned.err;
    EXPECT_NE(warned.err.find("warning: " + path + ": 1 <mimic> tag ignored"), std::string::npos)
        << warned.err;
    EXPECT_NE(warned.err.find("line 8: " + c.problem), std::string::npos) << warned.err;
    expect_one_line_error(run_cli("dynamics " + path + " --strict"), path + ":8: " + c.problem);
  }
  // A fixed joint cannot mimic, nor be mimicked.
  std::string fixed = gripper("", "");
  fixed.replace(fixed.find("type=\"revolute\"><parent link=\"left\""), 15, "type=\"fixed\"   ");
  const std::string path = write_file(
      "fixed_mimic.urdf",
      fixed.replace(fixed.find("<limit lower=\"-0.04\""), 0, "<mimic joint=\"tip_joint\"/>"));
  expect_one_line_error(run_cli("dynamics " + path + " --strict"),
                        "mimics fixed joint 'tip_joint', which has no motion");
}

// A massless gripper on a moving joint: the dynamics leaves it at rest, with one warning naming
// the joint; --strict refuses it naming the joint; a force on it is refused (by the dynamics,
// their derivatives and the linearization alike).
TEST(ModelFormatsCli, MasslessMovingSubtreesWarnOrAreRefused) {
  std::string text = gripper("", "");
  for (const char* link : {"left", "right", "tip"}) {
    const std::string start = std::string("<link name=\"") + link + "\">";
    const auto at = text.find(start);
    const auto end = text.find("</link>", at);
    text.replace(at, end + 7 - at, std::string("<link name=\"") + link + "\"/>");
  }
  const std::string path = write_file("massless_fingers.urdf", text);
  const CliRun run = run_cli("dynamics " + path + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("warning: " + path +
                         ": joints 'left_joint', 'right_joint' move only massless links"),
            std::string::npos)
      << run.err;
  const Json report = Json::parse(run.out);
  const std::vector<int> at = positions(Json({"left_joint", "tip_joint"}), report["dofs"]);
  EXPECT_EQ(report["qdd"][at[0]].get<double>(), 0.0);
  EXPECT_EQ(report["qdd"][at[1]].get<double>(), 0.0);
  expect_one_line_error(run_cli("dynamics " + path + " --strict"),
                        path + ": joint 'left_joint' moves no mass");
  const std::string state = write_file("push.json", R"({"tau": {"tip_joint": 0.5}})");
  for (const char* command : {"dynamics ", "derivatives ", "linearize "})
    expect_one_line_error(run_cli(command + path + " --state " + state),
                          "joint 'tip_joint' moves no mass");
  expect_one_line_error(run_cli("export " + path + " --mass m.mtx --factor l.mtx"),
                        "the mass matrix is singular (joint 'left_joint' moves no mass");
}

// Every command takes every format; the type comes from the extension (an MJCF file is not read as
// DOT by graph; a .txt file is nothing).
TEST(ModelFormatsCli, EveryCommandTakesEveryFormatByExtension) {
  const auto dir = io_test::scratch_dir() / "formats";
  std::filesystem::create_directories(dir);
  for (const char* model : {"fourbar.xml", "fourbar_internal_cut.sdf", "arm7.urdf"}) {
    SCOPED_TRACE(model);
    const std::string path = example_model(model);
    const CliRun graph = run_cli("graph " + path + " --json");
    ASSERT_EQ(graph.status, 0) << graph.err;
    const Json report = Json::parse(graph.out);
    EXPECT_EQ(report["spanning_tree"]["root"], "world");
    EXPECT_EQ(run_cli("bench " + path + " --algo fd --reps 1").status, 0);
    EXPECT_EQ(run_cli("export " + path + " --mass " + (dir / "m.mtx").string()).status, 0);
    EXPECT_EQ(
        run_cli("render " + path + " --what digraph --format dot -o " + (dir / "d.dot").string())
            .status,
        0);
    const CliRun analyze = run_cli("analyze " + path + " --out " + (dir / "analysis").string());
    EXPECT_EQ(analyze.status, 0) << analyze.err;
  }
  const CliRun simulate =
      run_cli("simulate " + example_model("fourbar.xml") + " --t 0.02 --dt 0.01 --json");
  EXPECT_EQ(simulate.status, 0) << simulate.err;
  // The MJCF four-bar's digraph: every body a node, the pin and the gearbox cut edges.
  const Json graph = Json::parse(run_cli("graph " + example_model("fourbar.xml") + " --json").out);
  EXPECT_EQ(graph["nodes"].size(), 5u);
  EXPECT_EQ(graph["spanning_tree"]["cut_edges"].size(), 2u);
  const std::string text = write_file("model.txt", "digraph { a -> b }\n");
  expect_one_line_error(run_cli("graph " + text), "unknown file type '.txt'");
}

// ../shared/robots (the published example-robot-data URDFs): at least 67 of 69 load
// with finite dynamics; the others say in one line what is wrong with them. The benchmark robots
// as shipped have the dynamics of their fixed bodies fused by hand, to 1e-14.
const std::filesystem::path kRobots =
    std::filesystem::path(SKOGRAPH_SOURCE_DIR) / ".." / "shared" / "robots";

TEST(ModelFormatsCli, PublishedRobotFilesLoadAsPinocchioLoadsThem) {
  const auto collection = kRobots / "example-robot-data";
  if (!std::filesystem::exists(collection)) GTEST_SKIP() << "no ../shared/robots";
  int files = 0, loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(collection)) {
    if (entry.path().extension() != ".urdf") continue;
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    const CliRun run = run_cli("dynamics " + entry.path().string() + " --json");
    if (run.status != 0) {
      EXPECT_EQ(run.status, 2);
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
      EXPECT_NE(run.err.find(entry.path().string()), std::string::npos) << run.err;
      continue;
    }
    const Json report = Json::parse(run.out);
    bool finite = true;
    for (const char* key : {"bias", "qdd", "tau"})
      for (const auto& x : report[key]) finite = finite && std::isfinite(x.get<double>());
    for (const auto& row : report["M"])
      for (const auto& x : row) finite = finite && std::isfinite(x.get<double>());
    EXPECT_TRUE(finite);
    loaded += finite;
    // At most one warning line per file.
    EXPECT_LE(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
  EXPECT_EQ(files, 69);
  EXPECT_GE(loaded, 67);
}

TEST(ModelFormatsCli, ShippedRobotsHaveTheDynamicsOfTheirHandFusedFiles) {
  const auto benchmark = kRobots / "benchmark";
  if (!std::filesystem::exists(benchmark)) GTEST_SKIP() << "no ../shared/robots";
  for (const char* robot : {"anymal_c_float", "panda", "pr2", "talos_float", "tiago_pro"}) {
    SCOPED_TRACE(robot);
    const std::string shipped = (benchmark / (std::string(robot) + ".urdf")).string();
    const std::string fused = (benchmark / "fused" / (std::string(robot) + ".urdf")).string();
    const Json dofs = dynamics_json(shipped)["dofs"];
    // A generic state: every dof moving.
    Json state = {{"q", Json::object()},
                  {"qd", Json::object()},
                  {"tau", Json::object()},
                  {"qdd", Json::object()}};
    std::map<std::string, std::vector<double>> by_joint;
    for (std::size_t i = 0; i < dofs.size(); ++i) {
      std::string name = dofs[i];
      const auto colon = name.rfind(':');
      if (colon != std::string::npos &&
          name.find_first_not_of("0123456789", colon + 1) == std::string::npos)
        name = name.substr(0, colon);
      by_joint[name].push_back(0.3 * std::sin(1.7 * static_cast<double>(i) + 1.0));
    }
    int k = 0;
    for (const auto& [joint, values] : by_joint) {
      const std::size_t count = values.size();
      for (const char* key : {"q", "qd", "tau", "qdd"}) {
        Json value = count == 1 ? Json(values[0] * (1 + k % 3)) : Json(values);
        state[key][joint] = value;
      }
      ++k;
    }
    const std::string state_file = write_file(std::string(robot) + "_state.json", state.dump());
    // The goal: the same dynamics to 1e-14 (relative to the largest entry); qdd to 5e-14,
    // as forward dynamics works in world axes about the base (rigid_body_model.hpp), where the
    // light links' D = H P H* come out of entries of m |r|^2 (TALOS: 1.7e-14).
    expect_same_dynamics(dynamics_json(shipped + " --state " + state_file),
                         dynamics_json(fused + " --state " + state_file), 1e-14, 1e-14, 5e-14);
  }
}

}  // namespace
}  // namespace skograph

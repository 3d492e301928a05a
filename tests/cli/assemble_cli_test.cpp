// Closed chains as people publish them, from the command line: `skograph assemble`
// and the state file it writes, assembly from any start with the independent coordinates kept or
// a warning naming those that moved, --loops on every model command, loop files given where a
// model is expected, MJCF models whose meshes are absent, redundant <connect> equalities.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/cli_support.hpp"

namespace skograph {
namespace {

using cli_test::CliRun;
using cli_test::dynamics_json;
using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::run_cli;
using cli_test::vector_of;
using io_test::write_file;
using Json = nlohmann::json;

const std::string kLoops = " --loops " + example_model("fivebar_loops.yaml");

TEST(AssembleCli, WritesAClosedStateEveryCommandAccepts) {
  const std::string start =
      write_file("fivebar_start.json", R"({"q": {"motor1": 0.3, "elbow1": 1.0, "motor2": -0.2},
                                "qd": {"motor1": 0.5, "elbow1": 2.0}, "tau": {"motor1": 0.1}})");
  const std::string closed = (io_test::scratch_dir() / "fivebar_closed.json").string();
  const CliRun run = run_cli("assemble " + example_model("fivebar.urdf") + kLoops + " --state " +
                             start + " --out " + closed + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const Json assembled = Json::parse(run.out);
  EXPECT_LT(assembled["residual"].get<double>(), 1e-10);
  EXPECT_EQ(assembled["independent"], Json({"motor1", "motor2"}));
  EXPECT_TRUE(assembled["moved"].empty());
  const Eigen::VectorXd q = vector_of(assembled["q"]);
  EXPECT_EQ(q[0], 0.3);  // the motors as the state gives them
  EXPECT_EQ(q[2], -0.2);
  // The written state: dynamics takes it as closed (its q unchanged), tau kept.
  const Json dynamics =
      dynamics_json(example_model("fivebar.urdf") + kLoops + " --state " + closed);
  EXPECT_LT((vector_of(dynamics["q"]) - q).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT((vector_of(dynamics["qd"]) - vector_of(assembled["qd"])).cwiseAbs().maxCoeff(), 1e-15);
  // qd on the constraints: the velocity of the end effector is the same from both distal links
  // (the velocity residual the model reports is the independent check of simulate below).
  const CliRun simulate = run_cli("simulate " + example_model("fivebar.urdf") + kLoops +
                                  " --state " + closed + " --t 0.01 --dt 0.005 --json");
  ASSERT_EQ(simulate.status, 0) << simulate.err;
  EXPECT_LT(Json::parse(simulate.out)["velocity_residual"].get<double>(), 1e-9);
}

// A four-bar that is not Grashof: its crank cannot turn round, and at pi (pointing away from the
// rocker) the loop cannot close with the crank kept.
constexpr const char* kTripleRocker = R"(links:
  - {name: crank, mass: 0.3, com: [0.075, 0, 0], inertia: {ixx: 1e-5, iyy: 6e-4, izz: 6e-4}}
  - {name: coupler, mass: 0.5, com: [0.15, 0, 0], inertia: {ixx: 1e-5, iyy: 4e-3, izz: 4e-3}}
  - {name: rocker, mass: 0.2, com: [0.05, 0, 0], inertia: {ixx: 1e-5, iyy: 2e-4, izz: 2e-4}}
joints:
  - {name: crank_joint, type: revolute, parent: world, child: crank, axis: [0, 0, 1]}
  - {name: coupler_joint, type: revolute, parent: crank, child: coupler, axis: [0, 0, 1],
     origin: {xyz: [0.15, 0, 0]}}
  - {name: rocker_joint, type: revolute, parent: world, child: rocker, axis: [0, 0, 1],
     origin: {xyz: [0.4, 0, 0]}}
loops:
  - {name: pin, type: revolute, parent: coupler, child: rocker, axis: [0, 0, 1],
     origin: {xyz: [0.3, 0, 0]}, child_origin: {xyz: [0.1, 0, 0]}}
independent: [crank_joint]
)";

TEST(AssembleCli, MovesTheIndependentCoordinatesOnlyWhenTheLoopsLeaveNoChoice) {
  const std::string model = write_file("triple_rocker.yaml", kTripleRocker);
  const std::string away = write_file("crank_away.json", R"({"q": {"crank_joint": 3.0}})");
  const CliRun run = run_cli("assemble " + model + " --state " + away + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const Json assembled = Json::parse(run.out);
  EXPECT_LT(assembled["residual"].get<double>(), 1e-10);
  ASSERT_EQ(assembled["moved"].size(), 1u);
  const double moved = assembled["moved"]["crank_joint"];
  EXPECT_LT(std::abs(moved), 3.0);
  EXPECT_GT(std::abs(moved), 0.0);
  EXPECT_NE(run.err.find("warning: " + model + ": the independent coordinate 'crank_joint' (by "),
            std::string::npos)
      << run.err;
  // The closed crank is reachable: the coupler's far end meets the rocker's circle.
  const double crank = 3.0 + moved;
  const Eigen::Vector2d b(0.15 * std::cos(crank), 0.15 * std::sin(crank));
  EXPECT_LE((Eigen::Vector2d(0.4, 0) - b).norm(), 0.3 + 0.1 + 1e-9);
  // Where the loop closes with it, the crank stays (dynamics assembles the same way).
  const std::string near = write_file("crank_near.json", R"({"q": {"crank_joint": 0.4}})");
  const Json dynamics = dynamics_json(model + " --state " + near);
  EXPECT_EQ(dynamics["q"][0].get<double>(), 0.4);
  // No closed configuration at all: one line naming the loop and the residual.
  expect_one_line_error(
      run_cli("dynamics " + std::string(SKOGRAPH_SOURCE_DIR) + "/examples/bad/reach.yaml"),
      "loop 'tip' cannot be closed from the given state: residual 6.0e-01");
}

TEST(AssembleCli, EveryModelCommandTakesLoops) {
  const std::string model = example_model("fivebar.urdf") + kLoops;
  const std::string dir = io_test::scratch_dir().string();
  const Json graph = Json::parse(run_cli("graph " + model + " --json").out);
  EXPECT_EQ(graph["spanning_tree"]["cut_edges"].size(), 1u);
  for (const std::string& command :
       {"dynamics " + model, "simulate " + model + " --t 0.01 --dt 0.01",
        "export " + model + " --mass " + dir + "/fivebar_MR.mtx",
        "render " + model + " --what aggregated -o " + dir + "/fivebar.svg",
        "analyze " + model + " --out " + dir + "/fivebar_analysis",
        "bench " + model + " --algo fd --reps 1", "assemble " + model}) {
    const CliRun run = run_cli(command);
    EXPECT_EQ(run.status, 0) << command << ": " << run.err;
  }
  // The YAML key, beside urdf:.
  const std::string yaml = write_file(
      "fivebar_keyed.yaml", "urdf: " + example_model("fivebar.urdf") +
                                "\nloops_file: " + example_model("fivebar_loops.yaml") + "\n");
  EXPECT_EQ(dynamics_json(yaml)["independent"], Json({"motor1", "motor2"}));
  // A loop file where a model is expected says how to pass it.
  expect_one_line_error(run_cli("dynamics " + example_model("fivebar_loops.yaml")),
                        "this is a loop file (closed_loop, type, name_mot), not a model: pass it "
                        "with --loops beside its URDF");
  expect_one_line_error(run_cli("dynamics " + example_model("fivebar.urdf") + " --loops"),
                        "--loops needs a file");
}

TEST(AssembleCli, ALoopThatCannotCloseNamesTheLoopFileAndItsLine) {
  // The five-bar's tip welded to its base: the tip never reaches the base's origin, and the
  // second pair (line 3) is the one to blame, on every command that assembles.
  const std::string loops = write_file("fivebar_unclosable.yaml",
                                       "closed_loop:\n  - [tip_A, tip_B]\n  - [tip_A, base]\n"
                                       "type: [3d, 6d]\n");
  const std::string model = example_model("fivebar.urdf") + " --loops " + loops;
  for (const std::string& command :
       {"dynamics " + model, "assemble " + model, "simulate " + model + " --t 0.01 --dt 0.01",
        "export " + model + " --mass " + (io_test::scratch_dir() / "never.mtx").string()}) {
    const CliRun run = run_cli(command);
    expect_one_line_error(run, "loop 'loop2' cannot be closed from the given state");
    EXPECT_EQ(
        run.err.find(command.substr(0, command.find(' ')) + ": " + loops + ":3: loop 'loop2'"),
        std::string("skograph ").size())
        << run.err;
  }
}

TEST(AssembleCli, RedundantConnectEqualitiesAssembleToTheSameDelta) {
  const Json plain = dynamics_json(example_model("delta_robot.xml"));
  const Json redundant = dynamics_json(example_model("delta_robot_redundant.xml"));
  EXPECT_EQ(redundant["aggregates"][0]["rows"], 21);
  EXPECT_EQ(redundant["aggregates"][0]["rank"], plain["aggregates"][0]["rank"]);
  EXPECT_LT((vector_of(redundant["q"]) - vector_of(plain["q"])).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((vector_of(redundant["qdd"]) - vector_of(plain["qdd"])).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(AssembleCli, MjcfMeshesMayBeAbsentWhenEveryBodyHasItsInertial) {
  const std::string with_inertials = write_file("meshless.xml", R"(<mujoco model="arm">
  <compiler meshdir="assets"/>
  <asset><mesh name="link_mesh" file="missing.obj"/><mesh name="base_mesh" file="base.stl"/></asset>
  <worldbody>
    <body name="base">
      <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <joint name="j1" type="hinge" axis="0 0 1"/><geom type="mesh" mesh="base_mesh"/>
      <body name="link" pos="0.1 0 0">
        <inertial pos="0.05 0 0" mass="0.5" diaginertia="0.001 0.002 0.002"/>
        <joint name="j2" type="hinge" axis="0 1 0"/><geom type="mesh" mesh="link_mesh"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)");
  const CliRun run = run_cli("dynamics " + with_inertials + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("2 mesh file(s) missing (missing.obj, base.stl)"), std::string::npos)
      << run.err;
  // The inertias are the <inertial> elements: M(0, 0) about j1 = 0.01 + 0.5 (0.15^2) + 0.002.
  EXPECT_NEAR(Json::parse(run.out)["M"][0][0].get<double>(), 0.01 + 0.5 * 0.15 * 0.15 + 0.002,
              1e-12);
  std::ifstream in(with_inertials);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(
      text.find(R"(<inertial pos="0.05 0 0" mass="0.5" diaginertia="0.001 0.002 0.002"/>)"), 69,
      "");
  expect_one_line_error(run_cli("dynamics " + write_file("meshless_link.xml", text)),
                        "(the mesh file is missing, and body 'link' has no <inertial>: its inertia "
                        "would come from the mesh)");
}

}  // namespace
}  // namespace skograph

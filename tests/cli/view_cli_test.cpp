// `skograph view`: one page that needs nothing from a network, whose scene puts every link where
// the model's kinematics puts it, closes every loop it draws, and plays a trajectory's rows;
// bad input is one line and leaves no page.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "skograph/model/kinematics.hpp"
#include "skograph/model/state.hpp"
#include "support/cli_support.hpp"
#include "support/source_paths.hpp"
#include "support/view_support.hpp"

namespace skograph {
namespace {

using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::run_cli;
using nlohmann::json;
using view_test::page_text;
using view_test::scene_of;
using view_test::vector3;

// A point given in a link's frame (-1: the world) in the world, by the scene's pose of the link.
Eigen::Vector3d world_point(const json& poses, int link, const json& point) {
  if (link < 0) return vector3(point);
  const json& p = poses[static_cast<std::size_t>(link)];
  const Eigen::Quaterniond turn(p[6].get<double>(), p[3].get<double>(), p[4].get<double>(),
                                p[5].get<double>());
  return turn * vector3(point) + Eigen::Vector3d(p[0], p[1], p[2]);
}

// Each loop's two frames at one place, in every frame of the scene (the page rounds to six
// significant digits).
void expect_loops_closed(const json& scene, double tolerance) {
  for (std::size_t f = 0; f < scene["poses"].size(); ++f)
    for (const json& loop : scene["loops"]) {
      const Eigen::Vector3d a =
          world_point(scene["poses"][f], loop["parent"], loop["parent_origin"]);
      const Eigen::Vector3d b = world_point(scene["poses"][f], loop["child"], loop["child_origin"]);
      EXPECT_LT((a - b).norm(), tolerance) << loop["name"] << " at frame " << f;
    }
}

TEST(ViewCli, TheStewartPlatformsPageIsSelfContainedAndPutsItsLinksWhereTheModelDoes) {
  const auto page_path = io_test::scratch_dir() / "stewart.html";
  const std::string model_file = example_model("stewart_platform.yaml");
  const std::string independent = "leg1,leg2,leg3,leg4,leg5,leg6";
  const cli_test::CliRun run =
      run_cli("view " + model_file + " --independent " + independent + " --state " +
              example_model("stewart_platform_state.json") + " --out " + page_path.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string page = page_text(page_path);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  // three.js and its controls inlined; nothing the page would fetch.
  EXPECT_NE(page.find("REVISION=\"111\""), std::string::npos);
  EXPECT_NE(page.find("THREE.OrbitControls"), std::string::npos);
  for (const char* attribute : {" src=", " href=", " src =", " href ="})
    EXPECT_EQ(page.find(attribute), std::string::npos) << attribute;
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  for (const char* request : {"fetch(", "XMLHttpRequest", "import("})
    EXPECT_EQ(page.find(request, page.find("id=\"scene\"")), std::string::npos) << request;

  const json scene = scene_of(page);
  ASSERT_TRUE(scene.is_object());
  ReadOptions options;
  options.independent = {"leg1", "leg2", "leg3", "leg4", "leg5", "leg6"};
  const Model model = load_model(model_file, options);
  ModelData data(model);
  const ModelState state = read_model_state(example_model("stewart_platform_state.json"), model);
  const Eigen::VectorXd q = close_state(model, data, state.q, state.qd).q;
  const Mechanism& mechanism = model.source_mechanism();
  ASSERT_EQ(scene["links"].size(), mechanism.links.size());
  ASSERT_EQ(scene["poses"].size(), 1u);
  for (std::size_t l = 0; l < mechanism.links.size(); ++l) {
    const Eigen::Isometry3d expected = frame_pose(model, data, q, mechanism.links[l].name) *
                                       mechanism.links[l].declared_frame.inverse();
    const json& pose = scene["poses"][0][l];
    EXPECT_LT((Eigen::Vector3d(pose[0], pose[1], pose[2]) - expected.translation()).norm(), 1e-5)
        << mechanism.links[l].name;
    const Eigen::Quaterniond turn(pose[6].get<double>(), pose[3].get<double>(),
                                  pose[4].get<double>(), pose[5].get<double>());
    // The angle between the two turns (the page's quaternion is rounded to six digits).
    EXPECT_LT(turn.normalized().angularDistance(Eigen::Quaterniond(expected.linear())), 1e-5)
        << mechanism.links[l].name;
  }
  expect_loops_closed(scene, 1e-5);
  ASSERT_EQ(scene["loops"].size(), 5u);  // top2 ... top6; top1 is the tree's
  // The legs are marked as the independent coordinates' joints, nothing else.
  for (const json& joint : scene["joints"]) {
    const std::string name = joint["name"];
    EXPECT_EQ(joint["independent"].get<bool>(), name.rfind("leg", 0) == 0) << name;
  }
  // Each box has its link's mass and inertia: I = m/12 (b^2 + c^2, ...) in the box's axes.
  int boxes = 0;
  for (std::size_t l = 0; l < mechanism.links.size(); ++l) {
    const json& box = scene["links"][l]["box"];
    const Link& link = mechanism.links[l];
    if (box.is_null()) {
      EXPECT_EQ(link.mass, 0.0);
      continue;
    }
    const Eigen::Vector3d size = vector3(box["size"]).cwiseAbs2();
    const Eigen::Vector3d moments(size(1) + size(2), size(0) + size(2), size(0) + size(1));
    const Eigen::Quaterniond turn(box["quaternion"][3].get<double>(), box["quaternion"][0],
                                  box["quaternion"][1], box["quaternion"][2]);
    const Eigen::Matrix3d inertia = turn.toRotationMatrix() *
                                    (link.mass / 12.0 * moments).asDiagonal() *
                                    turn.toRotationMatrix().transpose();
    EXPECT_LT((inertia - link.inertia).norm(), 1e-4 * link.inertia.norm()) << link.name;
    EXPECT_LT((vector3(box["center"]) - link.center_of_mass).norm(), 1e-6) << link.name;
    ++boxes;
  }
  EXPECT_GT(boxes, 10);
  // The centre of mass is the model's.
  EXPECT_LT((vector3(scene["com"][0]) - center_of_mass(model, data, q)).norm(), 1e-5);
}

TEST(ViewCli, ATrajectoryIsPlayedRowByRowWithItsLoopsClosed) {
  const auto page_path = io_test::scratch_dir() / "fourbar.html";
  const std::string trajectory = example_model("fourbar_trajectory.csv");
  const cli_test::CliRun run = run_cli("view " + example_model("fourbar.yaml") + " --trajectory " +
                                       trajectory + " --out " + page_path.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const json scene = scene_of(page_text(page_path));
  // The times are the file's first column, one frame per row.
  std::ifstream in(trajectory);
  std::string line;
  std::getline(in, line);
  std::vector<double> times;
  while (std::getline(in, line))
    if (!line.empty()) times.push_back(std::stod(line.substr(0, line.find(','))));
  ASSERT_EQ(scene["times"].get<std::vector<double>>(), times);
  ASSERT_EQ(scene["poses"].size(), times.size());
  expect_loops_closed(scene, 1e-5);
  // The crank turns: its frame differs between the first and the last row.
  EXPECT_NE(scene["poses"][0], scene["poses"][times.size() - 1]);
}

// A sweep of the four-bar's crank: one closed configuration per value, the crank turned by the
// value from the first frame's; the delta robot's arm stops where the loops no longer close with
// it, and the page says from which value.
TEST(ViewCli, ASweepAssemblesAClosedConfigurationPerValue) {
  const auto page_path = io_test::scratch_dir() / "sweep.html";
  ASSERT_EQ(run_cli("view " + example_model("fourbar.yaml") + " --sweep crank_joint=0:3:31 --out " +
                    page_path.string())
                .status,
            0);
  const json scene = scene_of(page_text(page_path));
  EXPECT_EQ(scene["variable"], "crank_joint");
  ASSERT_EQ(scene["times"].size(), 31u);
  expect_loops_closed(scene, 1e-5);
  std::size_t crank = 0;
  while (scene["links"][crank]["name"] != "crank") ++crank;
  auto turn = [&](std::size_t f) {
    const json& p = scene["poses"][f][crank];
    return Eigen::Quaterniond(p[6].get<double>(), p[3].get<double>(), p[4].get<double>(),
                              p[5].get<double>())
        .normalized();
  };
  for (std::size_t f = 0; f < 31; ++f) {
    EXPECT_NEAR(scene["times"][f].get<double>(), 0.1 * static_cast<double>(f), 1e-12);
    EXPECT_NEAR(turn(f).angularDistance(turn(0)), 0.1 * static_cast<double>(f), 1e-5) << f;
  }

  ASSERT_EQ(run_cli("view " + example_model("delta_robot.yaml") + " --sweep arm1=0:3:31 --out " +
                    page_path.string())
                .status,
            0);
  const std::string page = page_text(page_path);
  const json delta = scene_of(page);
  expect_loops_closed(delta, 1e-5);
  const std::size_t shown = delta["times"].size();
  ASSERT_GT(shown, 1u);
  ASSERT_LT(shown, 31u);
  std::ostringstream next;
  next << "Assembly fails from arm1 = " << 0.1 * static_cast<double>(shown);
  EXPECT_NE(page.find(next.str()), std::string::npos) << next.str();

  const std::string model = example_model("fourbar.yaml");
  expect_one_line_error(run_cli("view " + model + " --sweep coupler_joint=0:1:5"),
                        "'coupler_joint' is a dependent coordinate at the state");
  expect_one_line_error(run_cli("view " + model + " --sweep crank=0:1:5"),
                        "'crank' is not a dof of the model");
  expect_one_line_error(run_cli("view " + model + " --sweep crank_joint=0:1"),
                        "--sweep takes DOF=LO:HI:N");
  expect_one_line_error(run_cli("view " + model + " --sweep crank_joint=0:1:1"),
                        "a whole number from 2 to 10000");
  expect_one_line_error(run_cli("view " + model + " --sweep crank_joint=0:1:5 --trajectory " +
                                example_model("fourbar_trajectory.csv")),
                        "--sweep and --trajectory do not go together");
}

TEST(ViewCli, BadInputIsOneLineAndLeavesNoPage) {
  const auto page_path = io_test::scratch_dir() / "bad.html";
  const std::string model = example_model("fourbar.yaml");
  const std::string csv = io_test::write_file("short.csv", "t,crank_joint,motor\n0,1,2\n");
  expect_one_line_error(
      run_cli("view " + model + " --trajectory " + csv + " --out " + page_path.string()),
      csv + ":1: no column for the model's dof 'coupler_joint'");
  EXPECT_FALSE(std::filesystem::exists(page_path));
  // A page already there stays as it was.
  std::ofstream(page_path) << "before";
  const std::string rows = io_test::write_file(
      "rows.csv", "t,crank_joint,coupler_joint,rocker_joint,motor\n0,0,0,0,0\n1,0,x,0,0\n");
  expect_one_line_error(
      run_cli("view " + model + " --trajectory " + rows + " --out " + page_path.string()),
      rows + ":3: column 'coupler_joint': 'x' is not a finite number");
  EXPECT_EQ(page_text(page_path), "before");
  expect_one_line_error(run_cli("view " + model + " --trajectory " + rows + " --state " +
                                example_model("fourbar_state.json")),
                        "--state and --trajectory do not go together");
  expect_one_line_error(
      run_cli("view " + model + " --trajectory " + (io_test::scratch_dir() / "none.csv").string()),
      "none.csv");
}

// Every example model makes a page, and a 50-link robot's stays small.
TEST(ViewCli, EveryExampleModelMakesAPage) {
  const auto page_path = io_test::scratch_dir() / "example.html";
  int pages = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(SKOGRAPH_SOURCE_DIR "/examples/models")) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".yaml" && extension != ".xml" && extension != ".urdf" && extension != ".sdf")
      continue;
    if (entry.path().filename().string().find("loops") != std::string::npos)
      continue;  // a loop file
    const cli_test::CliRun run =
        run_cli("view " + entry.path().string() + " --out " + page_path.string());
    EXPECT_EQ(run.status, 0) << entry.path() << run.err;
    EXPECT_TRUE(scene_of(page_text(page_path)).is_object()) << entry.path();
    ++pages;
  }
  EXPECT_GT(pages, 25);
  const auto talos = testing_support::kSharedRobots / "benchmark" / "talos_float.urdf";
  if (!std::filesystem::exists(talos)) GTEST_SKIP() << "../shared/robots is absent";
  ASSERT_EQ(run_cli("view " + talos.string() + " --out " + page_path.string()).status, 0);
  EXPECT_LT(std::filesystem::file_size(page_path), 2'000'000u);
  // A 1000-step trajectory of it (the zero state held) stays under 10 MB.
  const Model model = load_model(talos.string());
  const Eigen::VectorXd q = read_model_state("", model).q;
  std::ostringstream csv;
  csv << "t";
  for (const std::string& dof : model.dof_names()) csv << "," << dof;
  csv << "\n";
  for (int row = 0; row <= 1000; ++row) {
    csv << row * 1e-3;
    for (Eigen::Index i = 0; i < q.size(); ++i) csv << "," << q(i);
    csv << "\n";
  }
  const std::string trajectory = io_test::write_file("talos.csv", csv.str());
  ASSERT_EQ(run_cli("view " + talos.string() + " --trajectory " + trajectory + " --out " +
                    page_path.string())
                .status,
            0);
  EXPECT_LT(std::filesystem::file_size(page_path), 10'000'000u);
}

}  // namespace
}  // namespace skograph

// `skograph view` draws the visual geometry the model file gives: the same box written in URDF,
// MJCF and SDF lands at the same place in the world (computed here from the file's numbers), with
// its size and colour; meshes are found beside the model and through --package-path and keep
// their vertices; a missing mesh leaves the link's inertia box and one note; a mesh that cannot
// be read is one line, exit 2, and no page. A state whose loops cannot be closed is drawn open,
// and every published robot that loads makes a page.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "skograph/model/model.hpp"
#include "support/cli_support.hpp"
#include "support/io_support.hpp"
#include "support/source_paths.hpp"
#include "support/view_support.hpp"

namespace skograph {
namespace {

using cli_test::expect_one_line_error;
using cli_test::run_cli;
using nlohmann::json;
using view_test::page_text;
using view_test::pose_of;
using view_test::scene_of;
using view_test::vector3;

namespace fs = std::filesystem;

// The scene of `skograph view FILE ARGUMENTS`, expected to succeed.
json geometry_scene(const std::string& file, const std::string& arguments = "") {
  const fs::path page = io_test::scratch_dir() / (fs::path(file).stem().string() + ".html");
  const cli_test::CliRun run = run_cli("view " + file + " --out " + page.string() + arguments);
  EXPECT_EQ(run.status, 0) << run.err;
  return scene_of(page_text(page));
}

int link_named(const json& scene, const std::string& name) {
  for (std::size_t l = 0; l < scene["links"].size(); ++l)
    if (scene["links"][l]["name"] == name) return static_cast<int>(l);
  ADD_FAILURE() << "no link " << name;
  return 0;
}

// The visual's frame in the world at the scene's first frame.
Eigen::Isometry3d visual_in_world(const json& scene, int link, const json& visual) {
  return pose_of(scene["poses"][0][static_cast<std::size_t>(link)]) *
         pose_of(visual["position"], visual["quaternion"]);
}

// An arm whose second link, on a hinge about its y axis 1 m above the base and turned 0.5 rad
// about z, carries a 0.1 x 0.2 x 0.3 box centred at (0.1, 0, 0.2) in its frame and turned a
// quarter about z, red: at hinge = 0.7 the box's frame in the world is
// T(0, 0, 1) Rz(0.5) Ry(0.7) T(0.1, 0, 0.2) Rz(pi / 2).
const char* kBoxUrdf = R"(<?xml version="1.0"?>
<robot name="box_arm">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual><origin xyz="0.1 0 0.2" rpy="0 0 1.5707963267948966"/><geometry><box size="0.1 0.2 0.3"/></geometry><material name="red"/></visual>
  </link>
  <joint name="hinge" type="continuous"><parent link="base"/><child link="arm"/><origin xyz="0 0 1" rpy="0 0 0.5"/><axis xyz="0 1 0"/></joint>
</robot>
)";
const char* kBoxMjcf = R"(<mujoco model="box_arm">
  <worldbody>
    <body name="base"><inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>
      <body name="arm" pos="0 0 1" euler="0 0 28.64788975654116">
        <joint name="hinge" type="hinge" axis="0 1 0"/>
        <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>
        <geom type="box" size="0.05 0.1 0.15" pos="0.1 0 0.2" euler="0 0 90" rgba="1 0 0 1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)";
const char* kBoxSdf = R"(<?xml version="1.0"?>
<sdf version="1.9">
  <model name="box_arm">
    <link name="base"><inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial></link>
    <link name="arm">
      <pose>0 0 1 0 0 0.5</pose>
      <inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
      <visual name="box"><pose>0.1 0 0.2 0 0 1.5707963267948966</pose>
        <geometry><box><size>0.1 0.2 0.3</size></box></geometry>
        <material><diffuse>1 0 0 1</diffuse></material></visual>
    </link>
    <joint name="weld" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="hinge" type="revolute"><parent>base</parent><child>arm</child><axis><xyz>0 1 0</xyz></axis></joint>
  </model>
</sdf>
)";

TEST(ViewGeometry, TheSameBoxInUrdfMjcfAndSdfLandsWhereItsNumbersPutIt) {
  const Eigen::Isometry3d expected =
      Eigen::Translation3d(0, 0, 1) * Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitZ()) *
      Eigen::AngleAxisd(0.7, Eigen::Vector3d::UnitY()) * Eigen::Translation3d(0.1, 0, 0.2) *
      Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitZ());
  const std::string state = io_test::write_file("box_arm_state.json", R"({"q": {"hinge": 0.7}})");
  for (const auto& [name, text] :
       {std::pair{"box_arm.urdf", kBoxUrdf}, std::pair{"box_arm.xml", kBoxMjcf},
        std::pair{"box_arm.sdf", kBoxSdf}}) {
    SCOPED_TRACE(name);
    const json scene = geometry_scene(io_test::write_file(name, text), " --state " + state);
    const int arm = link_named(scene, "arm");
    const json& visuals = scene["links"][static_cast<std::size_t>(arm)]["visuals"];
    ASSERT_EQ(visuals.size(), 1u);
    const json& box = visuals[0];
    EXPECT_EQ(box["shape"], "box");
    EXPECT_LT((vector3(box["size"]) - Eigen::Vector3d(0.1, 0.2, 0.3)).norm(), 1e-6);
    EXPECT_EQ(box["colour"], "#ff0000");
    const Eigen::Isometry3d frame = visual_in_world(scene, arm, box);
    EXPECT_LT((frame.translation() - expected.translation()).norm(), 1e-5);
    EXPECT_LT((frame.linear() - expected.linear()).norm(), 1e-5);
    EXPECT_TRUE(scene["links"][static_cast<std::size_t>(arm)]["missing"].empty());
  }
}

TEST(ViewGeometry, ABadVisualIsLeftOutWithAWarningAndTheModelStillLoads) {
  // A negative box size: the box is not drawn (one warning), the cylinder beside it is; dynamics
  // runs as without visuals.
  std::string text = kBoxUrdf;
  text = io_test::replaced(text, R"(<box size="0.1 0.2 0.3"/>)", R"(<box size="0.1 -0.2 0.3"/>)");
  text = io_test::replaced(
      text, "</link>\n  <joint",
      R"(<visual><geometry><cylinder radius="0.1" length="0.2"/></geometry></visual></link>
  <joint)");
  const std::string model = io_test::write_file("bad_visual.urdf", text);
  const fs::path page = io_test::scratch_dir() / "bad_visual.html";
  const cli_test::CliRun run = run_cli("view " + model + " --out " + page.string());
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("link 'arm' (line 5) visual 1 is not drawn: its box has a negative size"),
            std::string::npos)
      << run.err;
  const json scene = scene_of(page_text(page));
  const json& visuals =
      scene["links"][static_cast<std::size_t>(link_named(scene, "arm"))]["visuals"];
  ASSERT_EQ(visuals.size(), 1u);
  EXPECT_EQ(visuals[0]["shape"], "cylinder");
  EXPECT_EQ(run_cli("dynamics " + model + " --json").status, 0);
}

TEST(ViewGeometry, AMujocoGeomsOwnColourOutranksItsMaterial) {
  // MuJoCo: a geom's rgba other than the default (0.5 0.5 0.5 1) takes precedence over its
  // material; with the default the material's colour shows; colours past 1 are clamped.
  const std::string model = io_test::write_file("coloured.xml", R"(<mujoco model="coloured">
  <asset><material name="blue" rgba="0 0 1 1"/></asset>
  <worldbody>
    <body name="carrier">
      <joint name="slide" type="slide" axis="1 0 0"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>
      <geom type="sphere" size="0.1" material="blue" rgba="0 1 0 1"/>
      <geom type="sphere" size="0.1" pos="0.3 0 0" material="blue"/>
      <geom type="sphere" size="0.1" pos="0.6 0 0"/>
      <geom type="sphere" size="0.1" pos="0.9 0 0" rgba="1.5 0.2 0 1"/>
    </body>
  </worldbody>
</mujoco>
)");
  const json scene = geometry_scene(model);
  const json& visuals =
      scene["links"][static_cast<std::size_t>(link_named(scene, "carrier"))]["visuals"];
  ASSERT_EQ(visuals.size(), 4u);
  EXPECT_EQ(visuals[3]["colour"], "#ff3300");
  EXPECT_EQ(visuals[0]["colour"], "#00ff00");
  EXPECT_EQ(visuals[1]["colour"], "#0000ff");
  EXPECT_EQ(visuals[2]["colour"], "#808080");
}

// A tetrahedron as an OBJ file.
const char* kTetraObj = "v 0 0 0\nv 1 0 0\nv 0 2 0\nv 0 0 3\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
const Eigen::Vector3d kTetraPoints[4] = {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0, 0, 3}};

// The URDF of one link on a hinge whose visuals are a cylinder, a sphere and a mesh named `mesh`
// (scaled by 2 along x).
std::string shapes_urdf(const std::string& mesh) {
  return R"(<?xml version="1.0"?>
<robot name="shapes">
  <link name="base"/>
  <link name="body">
    <inertial><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual><geometry><cylinder radius="0.05" length="0.4"/></geometry></visual>
    <visual><origin xyz="0 0 0.3"/><geometry><sphere radius="0.07"/></geometry></visual>
    <visual><origin xyz="0.5 0 0"/><geometry><mesh filename=")" +
         mesh + R"(" scale="2 1 1"/></geometry></visual>
  </link>
  <joint name="hinge" type="continuous"><parent link="base"/><child link="body"/><axis xyz="0 0 1"/></joint>
</robot>
)";
}

TEST(ViewGeometry, MeshesAreFoundThroughPackagePathsAndKeepTheirVertices) {
  const fs::path root = io_test::scratch_dir() / "packages";
  fs::create_directories(root / "shapes_meshes" / "meshes");
  std::ofstream(root / "shapes_meshes" / "meshes" / "tetra.obj") << kTetraObj;
  const std::string model =
      io_test::write_file("shapes.urdf", shapes_urdf("package://shapes_meshes/meshes/tetra.obj"));
  const json scene = geometry_scene(model, " --package-path " + root.string());
  const int body = link_named(scene, "body");
  const json& visuals = scene["links"][static_cast<std::size_t>(body)]["visuals"];
  ASSERT_EQ(visuals.size(), 3u);
  EXPECT_EQ(visuals[0]["shape"], "cylinder");
  EXPECT_LT((vector3(visuals[0]["size"]) - Eigen::Vector3d(0.05, 0.4, 0)).norm(), 1e-9);
  EXPECT_EQ(visuals[1]["shape"], "sphere");
  EXPECT_DOUBLE_EQ(visuals[1]["size"][0].get<double>(), 0.07);
  EXPECT_EQ(visuals[0]["colour"], nullptr);  // no material: the page's own colour
  const json& mesh_visual = visuals[2];
  ASSERT_EQ(mesh_visual["shape"], "mesh");
  EXPECT_LT((vector3(mesh_visual["scale"]) - Eigen::Vector3d(2, 1, 1)).norm(), 1e-12);
  const json& mesh = scene["meshes"][mesh_visual["mesh"].get<std::size_t>()];
  EXPECT_EQ(mesh["file"], "package://shapes_meshes/meshes/tetra.obj");
  ASSERT_EQ(mesh["vertices"].size(), 12u);
  for (std::size_t v = 0; v < 4; ++v)
    EXPECT_LT((vector3(json::array({mesh["vertices"][3 * v], mesh["vertices"][3 * v + 1],
                                    mesh["vertices"][3 * v + 2]})) -
               kTetraPoints[v])
                  .norm(),
              1e-12);
  EXPECT_EQ(mesh["triangles"], json::parse("[0,2,1,0,1,3,0,3,2,1,2,3]"));
  // Every mesh visual drawn, none missing: no inertia box drawn and no note about meshes.
  EXPECT_TRUE(scene["links"][static_cast<std::size_t>(body)]["missing"].empty());
}

TEST(ViewGeometry, AnalyzeFindsViewMeshesThroughPackagePaths) {
  // analyze's view.html is the page `view` makes at the same state with the same folders: the
  // package:// mesh drawn with them, missing (inertia box and note) without.
  const fs::path root = io_test::scratch_dir() / "analyze_packages";
  fs::create_directories(root / "shapes_meshes" / "meshes");
  std::ofstream(root / "shapes_meshes" / "meshes" / "tetra.obj") << kTetraObj;
  const std::string model = io_test::write_file(
      "analyze_shapes.urdf", shapes_urdf("package://shapes_meshes/meshes/tetra.obj"));
  for (const std::string& packages :
       {std::string(" --package-path ") + root.string(), std::string()}) {
    const fs::path folder = io_test::scratch_dir() / "analyze_shapes";
    fs::remove_all(folder);
    const cli_test::CliRun analyzed =
        run_cli("analyze " + model + " --out " + folder.string() + packages);
    ASSERT_EQ(analyzed.status, 0) << analyzed.err;
    const fs::path page = io_test::scratch_dir() / "analyze_shapes_view.html";
    const cli_test::CliRun viewed = run_cli("view " + model + " --out " + page.string() + packages);
    ASSERT_EQ(viewed.status, 0) << viewed.err;
    const std::string text = page_text(folder / "view.html");
    EXPECT_EQ(text, page_text(page));
    const json scene = scene_of(text);
    const json& link = scene["links"][static_cast<std::size_t>(link_named(scene, "body"))];
    EXPECT_EQ(link["visuals"].size(), packages.empty() ? 2u : 3u);
    EXPECT_EQ(link["missing"].size(), packages.empty() ? 1u : 0u);
  }
}

TEST(ViewGeometry, AMissingMeshLeavesTheInertiaBoxAndOneNoteNamingIt) {
  const std::string model = io_test::write_file(
      "missing_mesh.urdf", shapes_urdf("package://nowhere_to_be_found/meshes/part.stl"));
  const fs::path page = io_test::scratch_dir() / "missing_mesh.html";
  const cli_test::CliRun run = run_cli("view " + model + " --out " + page.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string text = page_text(page);
  const json scene = scene_of(text);
  const json& link = scene["links"][static_cast<std::size_t>(link_named(scene, "body"))];
  EXPECT_EQ(link["visuals"].size(), 2u);  // the cylinder and the sphere are still drawn
  EXPECT_EQ(link["missing"], json::array({"package://nowhere_to_be_found/meshes/part.stl"}));
  EXPECT_FALSE(link["box"].is_null());
  EXPECT_NE(text.find("1 mesh file is missing (package://nowhere_to_be_found/meshes/part.stl)"),
            std::string::npos);
  EXPECT_NE(text.find("--package-path"), std::string::npos);
}

TEST(ViewGeometry, AMeshThatCannotBeReadIsOneLineAndNoPage) {
  const std::string mesh = io_test::write_file("broken_part.obj", "v 0 0 0\nf 1 2 3\n");
  const std::string model = io_test::write_file("broken_mesh.urdf", shapes_urdf(mesh));
  const fs::path page = io_test::scratch_dir() / "broken_mesh.html";
  const cli_test::CliRun run = run_cli("view " + model + " --out " + page.string());
  expect_one_line_error(run, mesh + ":2: face vertex 2 names no vertex");
  EXPECT_FALSE(fs::exists(page));
}

TEST(ViewGeometry, MujocoMeshesKeepTheirPlaceOnTheBody) {
  // MuJoCo moves a mesh's vertices to its inertial frame and the geom's pose to make up for it:
  // the tetrahedron's corners must come out where the file puts them on the body.
  fs::create_directories(io_test::scratch_dir() / "mjcf_meshes");
  std::ofstream(io_test::scratch_dir() / "mjcf_meshes" / "tetra.obj") << kTetraObj;
  const std::string model = io_test::write_file("tetra_body.xml", R"(<mujoco model="tetra">
  <compiler meshdir="mjcf_meshes"/>
  <asset><mesh name="tetra" file="tetra.obj"/></asset>
  <worldbody>
    <body name="carrier" pos="0 0 1">
      <joint name="slide" type="slide" axis="1 0 0"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>
      <geom type="mesh" mesh="tetra" pos="0.5 0 0"/>
    </body>
  </worldbody>
</mujoco>
)");
  const json scene = geometry_scene(model);
  const int carrier = link_named(scene, "carrier");
  const json& visual = scene["links"][static_cast<std::size_t>(carrier)]["visuals"][0];
  const json& mesh = scene["meshes"][visual["mesh"].get<std::size_t>()];
  const Eigen::Isometry3d frame = visual_in_world(scene, carrier, visual);
  ASSERT_EQ(mesh["vertices"].size() % 3, 0u);
  // Each vertex MuJoCo keeps is a corner of the tetrahedron where the file puts it.
  std::vector<bool> found(4, false);
  for (std::size_t v = 0; 3 * v < mesh["vertices"].size(); ++v) {
    const Eigen::Vector3d point =
        frame * Eigen::Vector3d(mesh["vertices"][3 * v], mesh["vertices"][3 * v + 1],
                                mesh["vertices"][3 * v + 2]);
    bool matched = false;
    for (int k = 0; k < 4; ++k)
      if ((point - (kTetraPoints[k] + Eigen::Vector3d(0.5, 0, 1))).norm() < 1e-5)
        found[static_cast<std::size_t>(k)] = matched = true;
    EXPECT_TRUE(matched) << "vertex " << v << " at " << point.transpose();
  }
  EXPECT_EQ(found, std::vector<bool>(4, true));
}

TEST(ViewMotion, AStateWhoseLoopsCannotCloseIsDrawnOpenWithANote) {
  // The four-bar's rocker pivot moved 1.65 m along x: the crank and coupler cannot reach it. As
  // its spanning tree at q = 0 the rocker only slides over, so the loop's frames are 1.65 m apart
  // along x (they coincide in the published four-bar).
  std::ifstream in(SKOGRAPH_SOURCE_DIR "/examples/models/fourbar.yaml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string model = io_test::write_file(
      "fourbar_apart.yaml", io_test::replaced(text, "xyz: [0.35, 0, 0]", "xyz: [2.0, 0, 0]"));
  const fs::path page = io_test::scratch_dir() / "fourbar_apart.html";
  const cli_test::CliRun run = run_cli("view " + model + " --out " + page.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string html = page_text(page);
  EXPECT_NE(html.find("The loops cannot be closed at this state"), std::string::npos);
  const json scene = scene_of(html);
  ASSERT_EQ(scene["loops"].size(), 1u);
  const json& loop = scene["loops"][0];
  const Eigen::Vector3d a = pose_of(scene["poses"][0][loop["parent"].get<std::size_t>()]) *
                            vector3(loop["parent_origin"]);
  const Eigen::Vector3d b =
      pose_of(scene["poses"][0][loop["child"].get<std::size_t>()]) * vector3(loop["child_origin"]);
  EXPECT_LT((b - a - Eigen::Vector3d(1.65, 0, 0)).norm(), 1e-4);
  // A sweep needs closed configurations: still one line.
  expect_one_line_error(run_cli("view " + model + " --sweep motor=0:1:3 --out " + page.string()),
                        "cannot be closed");
}

// Each published robot (../shared/robots: 69 URDF files, the 8 benchmark robots, the parallel
// robots with their loop files) that skograph loads makes a page; one it refuses gives the same
// one line from view.
TEST(ViewMotion, EveryPublishedRobotThatLoadsMakesAPage) {
  const fs::path robots = testing_support::kSharedRobots;
  if (!fs::exists(robots)) GTEST_SKIP() << "../shared/robots is absent";
  std::vector<std::pair<fs::path, std::string>> models;  // file, loop file
  for (const char* folder : {"example-robot-data", "benchmark"})
    for (const auto& entry : fs::directory_iterator(robots / folder))
      if (entry.path().extension() == ".urdf") models.emplace_back(entry.path(), "");
  for (const auto& entry : fs::directory_iterator(robots / "example-parallel-robots")) {
    if (!entry.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(entry.path()))
      if (file.path().extension() == ".urdf")
        models.emplace_back(file.path(), fs::exists(entry.path() / "robot.yaml")
                                             ? (entry.path() / "robot.yaml").string()
                                             : "");
  }
  ASSERT_GE(models.size(), 69u + 8u + 18u);
  const fs::path page = io_test::scratch_dir() / "published.html";
  int pages = 0, open = 0, missing_notes = 0;
  for (const auto& [file, loops] : models) {
    SCOPED_TRACE(file.string());
    ReadOptions options;
    options.loops_file = loops;
    bool loads = true;
    try {
      load_model(file.string(), options);
    } catch (const Error&) {
      loads = false;
    }
    fs::remove(page);
    const cli_test::CliRun run =
        run_cli("view " + file.string() + (loops.empty() ? "" : " --loops " + loops) + " --out " +
                page.string());
    if (!loads) {
      expect_one_line_error(run, file.string());
      EXPECT_FALSE(fs::exists(page));
      continue;
    }
    ASSERT_EQ(run.status, 0) << run.err;
    const std::string html = page_text(page);
    ASSERT_TRUE(scene_of(html).is_object());
    ++pages;
    open += html.find("The loops cannot be closed") != std::string::npos;
    missing_notes += html.find("missing (package://") != std::string::npos;
  }
  EXPECT_GE(pages, 90);
  EXPECT_EQ(open, 2);  // the two parallel robots that cannot close at zero
  // Every benchmark original and parallel robot names meshes that are not here.
  EXPECT_GE(missing_notes, 17);
}

// The joint's motion for its coordinates, from rigid/mechanism.hpp's conventions.
Eigen::Isometry3d slider_joint_motion(const json& joint, const std::vector<double>& values) {
  Eigen::Isometry3d motion = Eigen::Isometry3d::Identity();
  const std::string type = joint["type"];
  auto rotation_vector = [](double x, double y, double z) {
    const Eigen::Vector3d v(x, y, z);
    return v.norm() > 0 ? Eigen::AngleAxisd(v.norm(), v.normalized()).toRotationMatrix()
                        : Eigen::Matrix3d::Identity();
  };
  if (type == "revolute" || type == "continuous")
    motion.linear() =
        Eigen::AngleAxisd(values[0], vector3(joint["axis"]).normalized()).toRotationMatrix();
  else if (type == "prismatic")
    motion.translation() = values[0] * vector3(joint["axis"]).normalized();
  else if (type == "spherical")
    motion.linear() = rotation_vector(values[0], values[1], values[2]);
  else if (type == "floating") {
    motion.translation() = Eigen::Vector3d(values[3], values[4], values[5]);
    motion.linear() = rotation_vector(values[0], values[1], values[2]);
  }
  return motion;
}

TEST(ViewMotion, ATreesJointsMoveInThePageByTheScenesJointsAndCoordinates) {
  // What the page's sliders compute (each link frame its parent's times the joint's origin times
  // its motion for its columns of q), done here from the scene alone, gives every link where
  // skograph's kinematics put it: floating, spherical, revolute and prismatic joints.
  for (const char* name : {"humanoid", "cartpole", "arm7"}) {
    SCOPED_TRACE(name);
    const std::string base = SKOGRAPH_SOURCE_DIR "/examples/models/" + std::string(name);
    const std::string model = fs::exists(base + ".yaml") ? base + ".yaml" : base + ".urdf";
    const json scene = geometry_scene(model, " --state " + base + "_state.json");
    ASSERT_TRUE(scene["sliders"].get<bool>());
    const json& q = scene["q"][0];
    ASSERT_EQ(q.size(), scene["dof_names"].size());
    std::vector<Eigen::Isometry3d> poses(scene["links"].size(), Eigen::Isometry3d::Identity());
    std::vector<bool> placed(scene["links"].size(), false);
    // Joints whose parent is placed, until every link is.
    for (std::size_t round = 0; round < scene["joints"].size(); ++round)
      for (const json& joint : scene["joints"]) {
        const int parent = joint["parent"], child = joint["child"];
        if (placed[static_cast<std::size_t>(child)] ||
            (parent >= 0 && !placed[static_cast<std::size_t>(parent)]))
          continue;
        std::vector<double> values;
        for (const json& dof : joint["dofs"]) values.push_back(q[dof.get<std::size_t>()]);
        const Eigen::Isometry3d parent_pose =
            parent < 0 ? Eigen::Isometry3d::Identity() : poses[static_cast<std::size_t>(parent)];
        poses[static_cast<std::size_t>(child)] =
            parent_pose * pose_of(joint["origin"], joint["origin_quaternion"]) *
            slider_joint_motion(joint, values);
        placed[static_cast<std::size_t>(child)] = true;
      }
    for (std::size_t l = 0; l < poses.size(); ++l) {
      ASSERT_TRUE(placed[l]) << scene["links"][l]["name"];
      const Eigen::Isometry3d expected = pose_of(scene["poses"][0][l]);
      EXPECT_LT((poses[l].translation() - expected.translation()).norm(), 1e-4)
          << scene["links"][l]["name"];
      EXPECT_LT((poses[l].linear() - expected.linear()).norm(), 1e-4) << scene["links"][l]["name"];
    }
  }
  // Closed chains keep to the frames skograph assembles.
  EXPECT_FALSE(
      geometry_scene(SKOGRAPH_SOURCE_DIR "/examples/models/fourbar.yaml")["sliders"].get<bool>());
}

TEST(ViewMotion, ATrajectorysLoopForcesAreArrowsInTheWorldsAxes) {
  // The four-bar's pin force is given in its parent frame F_p, which sits on the coupler 0.4 m
  // along its x axis, unturned (examples/models/fourbar.yaml): in the world it is the coupler's
  // turn times the file's numbers, whatever the row.
  const std::string model = SKOGRAPH_SOURCE_DIR "/examples/models/fourbar.yaml";
  const std::string csv = (io_test::scratch_dir() / "fourbar_forces.csv").string();
  const cli_test::CliRun simulated = run_cli("simulate " + model + " --state " +
                                             SKOGRAPH_SOURCE_DIR
                                             "/examples/models/fourbar_state.json --t 0.05 "
                                             "--dt 0.01 --out " +
                                             csv + " --loop-forces");
  ASSERT_EQ(simulated.status, 0) << simulated.err;
  const json scene = geometry_scene(model, " --trajectory " + csv);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> columns;
  for (std::stringstream header(line); std::getline(header, columns.emplace_back(), ',');) {
  }
  columns.pop_back();
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) -
                                    columns.begin());
  };
  const int coupler = link_named(scene, "coupler");
  std::size_t row = 0;
  for (; std::getline(in, line); ++row) {
    std::vector<double> values;
    std::string cell;
    for (std::stringstream cells(line); std::getline(cells, cell, ',');)
      values.push_back(std::stod(cell));
    const Eigen::Vector3d in_parent(values[column("pin_c_fx")], values[column("pin_c_fy")],
                                    values[column("pin_c_fz")]);
    const Eigen::Vector3d expected =
        pose_of(scene["poses"][row][static_cast<std::size_t>(coupler)]).linear() * in_parent;
    const Eigen::Vector3d drawn = vector3(scene["loop_forces"][row][0]);
    EXPECT_LT((drawn - expected).norm(), 1e-4 * (1.0 + expected.norm())) << "row " << row;
  }
  EXPECT_EQ(row, scene["times"].size());
  EXPECT_GT(row, 3u);
  // Without force columns there are no arrows.
  EXPECT_EQ(geometry_scene(model)["loop_forces"], json::parse("[[null]]"));
}

TEST(ViewMotion, EachAggregateOfAClosedChainIsMarkedWithTheGraphsLinks) {
  // The view's aggregates (from the closed-chain model) hold the links the graph report's
  // aggregation of the digraph gives each aggregate.
  for (const char* name :
       {"fourbar.yaml", "stewart_platform.yaml", "delta_robot.yaml", "geared_links.yaml"}) {
    SCOPED_TRACE(name);
    const std::string model = SKOGRAPH_SOURCE_DIR "/examples/models/" + std::string(name);
    const json scene = geometry_scene(model);
    const cli_test::CliRun graph = run_cli("graph " + model + " --json");
    ASSERT_EQ(graph.status, 0) << graph.err;
    std::set<std::set<std::string>> expected, drawn;
    const json report = json::parse(graph.out);
    for (const json& aggregate : report["aggregates"])
      expected.insert(aggregate["nodes"].get<std::set<std::string>>());
    for (const json& aggregate : scene["aggregates"]) {
      std::set<std::string> links;
      for (const json& link : aggregate["links"])
        links.insert(scene["links"][link.get<std::size_t>()]["name"].get<std::string>());
      drawn.insert(links);
    }
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(drawn, expected);
  }
  // A tree has none.
  EXPECT_TRUE(
      geometry_scene(SKOGRAPH_SOURCE_DIR "/examples/models/arm7.urdf")["aggregates"].empty());
}

}  // namespace
}  // namespace skograph

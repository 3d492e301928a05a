// The mesh readers (io/mesh_file.hpp): each format's triangles against the vertices written into
// the file, moved as the format says (COLLADA's node transforms, unit and up axis computed here
// from their definitions); malformed files one InputError naming file and line; where
// package:// and relative names are found.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "skograph/io/mesh_file.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;
using io_test::replaced;
using io_test::scratch_dir;
using io_test::write_file;

// A tetrahedron: its corners and outward-wound faces.
const Eigen::Vector3d kTetraCorners[4] = {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0, 0, 3}};
const int kTetraFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

// Triangle t's corner k as the mesh gives it.
Eigen::Vector3d mesh_corner(const TriangleMesh& mesh, std::size_t t, int k) {
  const std::size_t v = mesh.triangles[3 * t + static_cast<std::size_t>(k)];
  return {mesh.vertices[3 * v], mesh.vertices[3 * v + 1], mesh.vertices[3 * v + 2]};
}

// The mesh holds exactly the tetrahedron's faces, each corner moved by `frame`.
void expect_tetrahedron(const TriangleMesh& mesh, const Eigen::Affine3d& frame) {
  ASSERT_EQ(mesh.triangles.size(), 12u);
  for (std::size_t t = 0; t < 4; ++t)
    for (int k = 0; k < 3; ++k)
      EXPECT_LT((mesh_corner(mesh, t, k) - frame * kTetraCorners[kTetraFaces[t][k]]).norm(), 1e-6)
          << "triangle " << t << " corner " << k;
}

std::string binary_stl_bytes() {
  std::string bytes(84 + 50 * 4, '\0');
  const std::uint32_t count = 4;
  std::memcpy(bytes.data() + 80, &count, 4);
  for (int t = 0; t < 4; ++t)
    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3f corner = kTetraCorners[kTetraFaces[t][k]].cast<float>();
      std::memcpy(bytes.data() + 84 + 50 * t + 12 + 12 * k, corner.data(), 12);
    }
  return bytes;
}

std::string ascii_stl_text() {
  std::string text = "solid tetrahedron\n";
  for (const auto& face : kTetraFaces) {
    text += "  facet normal 0 0 0\n    outer loop\n";
    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3d& p = kTetraCorners[face[k]];
      text += "      vertex " + std::to_string(p.x()) + " " + std::to_string(p.y()) + " " +
              std::to_string(p.z()) + "\n";
    }
    text += "    endloop\n  endfacet\n";
  }
  return text + "endsolid tetrahedron\n";
}

TEST(MeshFile, BinaryAndAsciiStlGiveTheFacetsWritten) {
  const std::string binary = write_file("tetra_binary.stl", binary_stl_bytes());
  expect_tetrahedron(read_mesh_file(binary), Eigen::Affine3d::Identity());
  const std::string ascii = write_file("tetra_ascii.STL", ascii_stl_text());
  expect_tetrahedron(read_mesh_file(ascii), Eigen::Affine3d::Identity());
}

TEST(MeshFile, ObjFacesSplitIntoFansWithEveryIndexForm) {
  // The tetrahedron's faces written three ways: plain, v/t/n and negative (from the end).
  const std::string text =
      "# a tetrahedron\no tetra\nv 0 0 0\nv 1 0 0\nv 0 2 0\nv 0 0 3 1.0\nvn 0 0 1\n"
      "f 1 3 2\nf 1/1/1 2/1/1 4/1/1\nf -4 -1 -2\nf 2//1 3//1 4//1\n";
  expect_tetrahedron(read_mesh_file(write_file("tetra.obj", text)), Eigen::Affine3d::Identity());
  // A quadrilateral is two triangles sharing its first corner.
  const TriangleMesh quad =
      read_mesh_file(write_file("quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n"));
  EXPECT_EQ(quad.triangles, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3}));
}

std::string collada_text(const std::string& asset, const std::string& node_transform,
                         const std::string& primitive) {
  std::string positions;
  for (const Eigen::Vector3d& p : kTetraCorners)
    positions +=
        std::to_string(p.x()) + " " + std::to_string(p.y()) + " " + std::to_string(p.z()) + " ";
  return R"(<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset>)" +
         asset + R"(</asset>
  <library_geometries>
    <geometry id="tetra-mesh">
      <mesh>
        <source id="tetra-positions">
          <float_array id="tetra-positions-array" count="12">)" +
         positions + R"(</float_array>
          <technique_common><accessor source="#tetra-positions-array" count="4" stride="3"/></technique_common>
        </source>
        <source id="tetra-normals"><float_array id="n" count="3">0 0 1</float_array></source>
        <vertices id="tetra-vertices"><input semantic="POSITION" source="#tetra-positions"/></vertices>
        )" +
         primitive + R"(
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene">
      <node id="outer">)" +
         node_transform + R"(<node id="inner"><instance_geometry url="#tetra-mesh"/></node></node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";
}

// The tetrahedron's faces with a normal index beside each vertex (offset 1).
const char* kTetraTriangles =
    R"(<triangles count="4"><input semantic="VERTEX" source="#tetra-vertices" offset="0"/>
<input semantic="NORMAL" source="#tetra-normals" offset="1"/><p>0 0 2 0 1 0  0 0 1 0 3 0  0 0 3 0 2 0  1 0 2 0 3 0</p></triangles>)";

TEST(MeshFile, ColladaMovesItsTrianglesThroughNodesUnitAndUpAxis) {
  // Z up, metres, no transform: the vertices as written.
  expect_tetrahedron(read_mesh_file(write_file("plain.dae", collada_text("", "", kTetraTriangles))),
                     Eigen::Affine3d::Identity());
  // Millimetres, a node translated then turned 90 degrees about z, then scaled; Y_UP is not
  // applied (as RViz, for which URDF meshes are made, does not).
  const std::string asset = R"(<unit meter="0.001" name="millimetre"/><up_axis>Y_UP</up_axis>)";
  const std::string transform =
      R"(<translate>10 20 30</translate><rotate>0 0 1 90</rotate><scale>1 2 1</scale>)";
  const Eigen::Affine3d expected = Eigen::Scaling(0.001) * Eigen::Translation3d(10, 20, 30) *
                                   Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitZ()) *
                                   Eigen::Scaling(1.0, 2.0, 1.0);
  expect_tetrahedron(
      read_mesh_file(write_file("moved.dae", collada_text(asset, transform, kTetraTriangles))),
      expected);
  // A row-major <matrix> and polygons in a <polylist>: a translation along x.
  const std::string matrix = "<matrix>1 0 0 5  0 1 0 0  0 0 1 0  0 0 0 1</matrix>";
  const std::string polylist =
      R"(<polylist count="4"><input semantic="VERTEX" source="#tetra-vertices" offset="0"/>
<vcount>3 3 3 3</vcount><p>0 2 1 0 1 3 0 3 2 1 2 3</p></polylist>)";
  expect_tetrahedron(read_mesh_file(write_file("matrix.dae", collada_text("", matrix, polylist))),
                     Eigen::Affine3d(Eigen::Translation3d(5, 0, 0)));
}

TEST(MeshFile, AGeometryInstancedTwiceIsPlacedTwice) {
  const std::string twice = replaced(
      collada_text("", "", kTetraTriangles),
      R"(<node id="inner"><instance_geometry url="#tetra-mesh"/></node>)",
      R"(<node id="inner"><instance_geometry url="#tetra-mesh"/></node><node id="again"><translate>0 0 7</translate><instance_geometry url="#tetra-mesh"/></node>)");
  const TriangleMesh mesh = read_mesh_file(write_file("twice.dae", twice));
  ASSERT_EQ(mesh.triangles.size(), 24u);
  TriangleMesh first = mesh, second = mesh;
  first.triangles.resize(12);
  second.triangles.erase(second.triangles.begin(), second.triangles.begin() + 12);
  expect_tetrahedron(first, Eigen::Affine3d::Identity());
  expect_tetrahedron(second, Eigen::Affine3d(Eigen::Translation3d(0, 0, 7)));
}

TEST(MeshFile, MalformedFilesAreOneInputErrorNamingFileAndLine) {
  // A binary STL one byte short is neither binary nor ASCII.
  std::string short_stl = binary_stl_bytes();
  short_stl.pop_back();
  const std::string truncated = write_file("short.stl", short_stl);
  expect_input_error([&] { read_mesh_file(truncated); }, truncated, 0, "neither a binary STL");
  const std::string two_corners =
      write_file("two.stl",
                 "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                 "endloop\nendfacet\nfacet normal 0 0 1\nendfacet\nendsolid\n");
  expect_input_error([&] { read_mesh_file(two_corners); }, two_corners, 2,
                     "without exactly three vertices");
  const std::string bad_vertex = write_file("bad.obj", "v 0 0 0\nv 1 0 nan\n");
  expect_input_error([&] { read_mesh_file(bad_vertex); }, bad_vertex, 2, "'v x y z'");
  const std::string ahead = write_file("ahead.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n");
  expect_input_error([&] { read_mesh_file(ahead); }, ahead, 3, "names no vertex defined before");
  const std::string no_faces = write_file("empty.obj", "v 0 0 0\n");
  expect_input_error([&] { read_mesh_file(no_faces); }, no_faces, 0, "no face");
  const std::string wrong_url = write_file(
      "url.dae", replaced(collada_text("", "", kTetraTriangles), "#tetra-mesh", "#nothing"));
  expect_input_error([&] { read_mesh_file(wrong_url); }, wrong_url, 20, "names no <geometry>");
  const std::string past_end = write_file(
      "index.dae",
      replaced(collada_text("", "", kTetraTriangles), "1 0 2 0 3 0</p>", "1 0 2 0 9 0</p>"));
  expect_input_error([&] { read_mesh_file(past_end); }, past_end, 14, "names no vertex");
  const std::string not_xml = write_file("broken.dae", "<COLLADA><asset>\n</COLLADA>");
  expect_input_error([&] { read_mesh_file(not_xml); }, not_xml, 1, "not XML");
  const std::string other = write_file("mesh.ply", "ply\n");
  expect_input_error([&] { read_mesh_file(other); }, other, 0, "does not read");
}

TEST(MeshFile, NamesAreFoundBesideTheModelAndThroughPackagePaths) {
  namespace fs = std::filesystem;
  const fs::path root = scratch_dir() / "locate";
  fs::create_directories(root / "robot_description" / "urdf");
  fs::create_directories(root / "robot_description" / "meshes");
  fs::create_directories(root / "elsewhere" / "robot_meshes" / "visual");
  const std::string model = (root / "robot_description" / "urdf" / "robot.urdf").string();
  std::ofstream(root / "robot_description" / "meshes" / "base.stl") << ascii_stl_text();
  std::ofstream(root / "elsewhere" / "robot_meshes" / "visual" / "arm.stl") << ascii_stl_text();
  const std::string base = (root / "robot_description" / "meshes" / "base.stl").string();
  const std::string arm = (root / "elsewhere" / "robot_meshes" / "visual" / "arm.stl").string();
  // Relative to the model's folder, absolute, file://.
  EXPECT_EQ(fs::path(locate_mesh_file("../meshes/base.stl", model, {})), fs::path(base));
  EXPECT_EQ(locate_mesh_file(base, model, {}), base);
  EXPECT_EQ(locate_mesh_file("file://" + base, model, {}), base);
  // package:// from the folders above the model (the package is one of them).
  EXPECT_EQ(fs::path(locate_mesh_file("package://robot_description/meshes/base.stl", model, {})),
            fs::path(base));
  // Elsewhere only through a package path: the folder holding the package, or the package.
  EXPECT_EQ(locate_mesh_file("package://robot_meshes/visual/arm.stl", model, {}), "");
  EXPECT_EQ(fs::path(locate_mesh_file("package://robot_meshes/visual/arm.stl", model,
                                      {(root / "elsewhere").string()})),
            fs::path(arm));
  EXPECT_EQ(fs::path(locate_mesh_file("model://robot_meshes/visual/arm.stl", model,
                                      {(root / "elsewhere" / "robot_meshes").string() + "/"})),
            fs::path(arm));
  EXPECT_EQ(locate_mesh_file("package://robot_meshes/visual/missing.stl", model,
                             {(root / "elsewhere").string()}),
            "");
  EXPECT_EQ(locate_mesh_file("meshes/nothing.stl", model, {}), "");
}

}  // namespace
}  // namespace skograph

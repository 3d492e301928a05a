// What a link looks like: the visual geometry a model file gives it (URDF <visual>, MJCF <geom>,
// SDF <visual>). Only pictures read it; the dynamics take the link's mass properties. Plain data.
#pragma once

#include <Eigen/Geometry>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace skograph {

// Triangles: three coordinates per vertex, three vertex indices (0-based) per triangle,
// counter-clockwise seen from outside.
struct TriangleMesh {
  std::vector<float> vertices;
  std::vector<std::uint32_t> triangles;
};

enum class VisualShape { kBox, kCylinder, kSphere, kCapsule, kMesh };
// "box", "cylinder", "sphere", "capsule", "mesh".
const char* visual_shape_name(VisualShape shape);

struct Visual {
  VisualShape shape = VisualShape::kBox;
  // box: its sides; sphere: radius in x; cylinder: radius in x, length in y (along the visual
  // frame's z); capsule: radius in x, the distance between its caps' centres in y (along z).
  Eigen::Vector3d size = Eigen::Vector3d::Zero();
  // A mesh: the file as the model names it (a path relative to the model's folder, an absolute
  // path, file://, package://PACKAGE/... or model://MODEL/...), its scale per axis, and its
  // triangles when the reader already has them (MuJoCo loads MJCF meshes itself).
  std::string mesh_file;
  Eigen::Vector3d scale = Eigen::Vector3d::Ones();
  std::shared_ptr<const TriangleMesh> triangles;
  Eigen::Isometry3d origin = Eigen::Isometry3d::Identity();  // the visual frame in the link frame
  // Red, green, blue, alpha in [0, 1]; alpha < 0 when the file gives no colour.
  Eigen::Vector4d rgba{0.0, 0.0, 0.0, -1.0};
};

}  // namespace skograph

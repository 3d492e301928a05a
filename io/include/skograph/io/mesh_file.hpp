// The mesh files a model's visuals name (io/ reads them for pictures only): STL (binary and
// ASCII), Wavefront OBJ and COLLADA (.dae), chosen by the file's extension, any case.
//   STL      binary: 80 bytes, a 32-bit count, 50 bytes per triangle (the file exactly that
//            long); otherwise ASCII: `solid`, then `vertex x y z` three per `facet`
//   OBJ      `v x y z` vertices and `f` faces (indices 1-based, negative from the end, `i/t/n`
//            forms); a polygon is split into a fan of triangles; other statements are skipped
//   COLLADA  every <triangles>, <polylist> and <polygons> of the <geometry> elements the
//            visual scene instantiates, through its nodes' <matrix>, <translate>, <rotate> and
//            <scale>, in metres (<unit meter>); <up_axis> is not applied (RViz, for which
//            URDF meshes are made, ignores it)
// Errors throw skograph::InputError(file, line, problem) (line 0 for binary files).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "skograph/rigid/visual.hpp"

namespace skograph {

// At most this many triangles (and three times as many vertices) in one mesh file (a robot's
// link has thousands).
inline constexpr std::size_t kMaxMeshTriangles = 1'000'000;

TriangleMesh parse_mesh(std::string_view bytes, const std::string& source);
TriangleMesh read_mesh_file(const std::string& path);

// Where the mesh file a model names is: a path relative to the model's folder, an absolute path,
// file://PATH, or package://PACKAGE/REST and model://MODEL/REST, looked for as DIR/PACKAGE/REST
// and (a folder named PACKAGE) DIR/REST in each of `package_paths`, then in the model's folder
// and each folder above it. Empty when no such file exists.
std::string locate_mesh_file(const std::string& name, const std::string& model_file,
                             const std::vector<std::string>& package_paths);

}  // namespace skograph

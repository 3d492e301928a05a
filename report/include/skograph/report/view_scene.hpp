// The 3D view of a model (`skograph view`): the scene of its links, joints and loops at one or
// more closed states, and the self-contained page that draws and plays it (viz/view_page.hpp).
// The scene's JSON keys (docs/pictures.md): "title"; "times" (one per frame); "links" [{"name",
// "mass", "box": {"size", "center", "quaternion"} or null}] (the box of the link's mass and
// principal inertias, in its frame); "poses" (per frame, per link: [x, y, z, qx, qy, qz, qw] of
// the link frame in the world); "joints" [{"name", "type", "parent" (link index, -1 the world),
// "child", "origin" (in the parent's frame), "axis" (in the child's frame, null for none),
// "independent"}]; "loops" [{"name", "type", "parent", "child", "parent_origin",
// "child_origin"}]; "com" (per frame); "colours"; "scale". Indices are 0-based as in JSON arrays.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "skograph/model/model.hpp"
#include "skograph/viz/view_page.hpp"

namespace skograph::report {

// The states to show: one row of q per frame (the file's dof order), at the given times. Each row
// is closed first, as every call on the model is. `source` and `first_line` name where the rows
// came from (a trajectory file, its line of the first row): a row whose loops cannot be closed is
// an InputError there; with no source the model's error is thrown as it is.
struct ViewFrames {
  std::vector<double> times;
  Eigen::MatrixXd q;
  std::string source;
  int first_line = 0;
};

struct ViewScene {
  std::string json;
  std::vector<viz::LegendEntry> legend;
  std::vector<std::string> notes;
};

ViewScene view_scene(const Model& model, const ViewFrames& frames);
// The page of view_scene's scene, titled `title`.
std::string view_html(const Model& model, const std::string& title, const ViewFrames& frames);

}  // namespace skograph::report

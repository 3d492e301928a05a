// The 3D view of a model (`skograph view`): the scene of its links, joints and loops at one or
// more closed states, and the self-contained page that draws and plays it (viz/view_page.hpp).
// The scene's JSON keys (docs/pictures.md; indices 0-based as in JSON arrays):
//   "title"; "times" (one per frame); "variable" ("t", or the dof a sweep runs along);
//   "links" [{"name", "mass", "box": {"size", "center", "quaternion"} or null (the box of the
//     link's mass and principal inertias, in its frame), "visuals" [{"shape", "size", "scale",
//     "position", "quaternion", "colour" (#rrggbb or null), "opacity", "mesh" (an index into
//     "meshes")}] (in its frame; rigid/visual.hpp gives the sizes), "missing" (the mesh files
//     not found)}];
//   "meshes" [{"file" (as the model names it; a MuJoCo mesh's asset name), "vertices" (x, y, z
//     flat), "triangles" (indices flat)}];
//   "poses" (per frame, per link: [x, y, z, qx, qy, qz, qw] of the link frame in the world);
//   "joints" [{"name", "type", "parent" (link index, -1 the world), "child", "origin" and
//     "origin_quaternion" (the joint frame in the parent's frame), "axis" (in the child's frame,
//     null for none), "dofs" (its columns of q), "limits" ([lower, upper] or null),
//     "independent"}];
//   "sliders" (true for a tree the page moves joint by joint); "dof_names"; "q" (per frame, the
//     state's q, when "sliders");
//   "loops" [{"name", "type", "parent", "child", "parent_origin", "child_origin"}];
//   "aggregates" [{"links"}] (constraint embedding's aggregates of a closed chain: the links of
//     each);
//   "loop_forces" (per frame, per loop: the force the loop joint exerts on its child link, in
//     the world's axes, newtons; null for a loop the frames have no force columns of);
//   "com" (per frame); "colours"; "scale".
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
  // What `times` are: "t" (seconds), or the dof a sweep runs along. The page shows
  // "NAME = value" beside its slider.
  std::string variable = "t";
  std::vector<std::string> notes;  // shown on the page (where a sweep stopped)
  // Other columns of the frames (a trajectory's velocities, energy, loop forces), by name: the
  // loops' forces NAME_fx, NAME_fy, NAME_fz (simulate --out --loop-forces) are drawn as arrows.
  std::vector<std::string> extra_names;
  Eigen::MatrixXd extra_values;  // frames x extra_names
  // One state of a closed chain whose loops cannot be closed is drawn open (its spanning tree at
  // q, each loop's two frames apart) with a note saying why, instead of failing.
  bool open_when_unclosed = false;
};

// The rows of a trajectory file (io/trajectory_file.hpp) as frames: times, q in the model's dof
// order, the other columns kept (loop forces), rows named by their lines for errors.
ViewFrames trajectory_frames(const Model& model, const std::string& path);

// A sweep along one coordinate: `count` values from `low` to `high` of the dof `dof` (a dof name:
// "joint", or "joint:i" of a multi-dof joint).
struct ViewSweep {
  std::string dof;
  double low = 0.0, high = 0.0;
  int count = 0;
};
// "DOF=LO:HI:N" (N from 2 to 10 000, LO and HI finite); UsageError naming `option` otherwise.
ViewSweep parse_view_sweep(const std::string& text, const std::string& option);
// The closed configurations along the sweep from q (file order), each from the last: the dof set
// to each value, the model's other independent coordinates held, the loops closed. Where the
// loops cannot be closed with the dof at a value (or only by moving it), the sweep stops there
// and a note says from which value. UsageError when the dof is not the model's, or (closed
// chains) not one of its independent coordinates at q, or when the loops close at no value.
ViewFrames sweep_frames(const Model& model, const Eigen::VectorXd& q, const ViewSweep& sweep);

struct ViewScene {
  std::string json;
  std::vector<viz::LegendEntry> legend;
  std::vector<std::string> notes;
};

// Mesh files are looked for as io/mesh_file.hpp's locate_mesh_file does, with `package_paths`
// for package:// and model:// names; a missing one leaves its link drawn as its inertia's box
// with a note naming it, one that exists but cannot be read is an InputError naming it.
ViewScene view_scene(const Model& model, const ViewFrames& frames,
                     const std::vector<std::string>& package_paths = {});
// The page of view_scene's scene, titled `title`.
std::string view_html(const Model& model, const std::string& title, const ViewFrames& frames,
                      const std::vector<std::string>& package_paths = {});

}  // namespace skograph::report

#include "skograph/report/view_scene.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "skograph/graph/text_input.hpp"
#include "skograph/io/mesh_file.hpp"
#include "skograph/io/trajectory_file.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/model/state.hpp"

namespace skograph::report {

namespace {

using Json = nlohmann::ordered_json;

// Six significant digits: the page needs no more, and a long trajectory stays small.
double rounded(double value) {
  // (Below 1e-300 the scale would overflow; such a value is 0 on any page.)
  if (!(std::abs(value) >= 1e-300) || !std::isfinite(value)) return 0.0;
  const double scale =
      std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::abs(value)))));
  return std::round(value * scale) / scale;
}

Json point_json(const Eigen::Vector3d& point) {
  return Json::array({rounded(point.x()), rounded(point.y()), rounded(point.z())});
}

Json quaternion_json(const Eigen::Matrix3d& rotation) {
  const Eigen::Quaterniond turn(rotation);
  return Json::array({rounded(turn.x()), rounded(turn.y()), rounded(turn.z()), rounded(turn.w())});
}

std::string hex_colour(const Eigen::Vector4d& rgba) {
  static const char* digits = "0123456789abcdef";
  std::string text = "#";
  for (int i = 0; i < 3; ++i) {
    const int value = static_cast<int>(std::lround(std::clamp(rgba(i), 0.0, 1.0) * 255.0));
    text += digits[value / 16];
    text += digits[value % 16];
  }
  return text;
}

// The visuals of the links: each link's drawable visuals, the meshes they share (read once per
// file) and the mesh files that could not be found, per link.
class VisualGeometry {
 public:
  VisualGeometry(const Model& model, const std::vector<std::string>& package_paths)
      : model_file_(model.file()), package_paths_(package_paths) {}

  // The link's "visuals" and "missing" keys.
  void add_link(const Link& link, Json& json) {
    Json visuals = Json::array(), missing = Json::array();
    for (const Visual& visual : link.visuals) {
      Json item{{"shape", visual_shape_name(visual.shape)},
                {"size", point_json(visual.size)},
                {"scale", point_json(visual.scale)},
                {"position", point_json(visual.origin.translation())},
                {"quaternion", quaternion_json(visual.origin.linear())},
                {"colour", visual.rgba(3) >= 0.0 ? Json(hex_colour(visual.rgba)) : Json(nullptr)},
                {"opacity", visual.rgba(3) >= 0.0 ? rounded(visual.rgba(3)) : 1.0}};
      if (visual.shape == VisualShape::kMesh) {
        const int mesh = mesh_index(visual);
        if (mesh < 0) {
          missing.push_back(visual.mesh_file);
          missing_files_.push_back(visual.mesh_file);
          continue;
        }
        item["mesh"] = mesh;
      }
      visuals.push_back(std::move(item));
    }
    json["visuals"] = std::move(visuals);
    json["missing"] = std::move(missing);
  }

  Json meshes() { return std::move(meshes_); }
  const std::vector<std::string>& missing_files() const { return missing_files_; }

 private:
  // The index of the visual's mesh in "meshes", -1 when its file is missing. A file that exists
  // but cannot be read is an InputError naming it.
  int mesh_index(const Visual& visual) {
    std::shared_ptr<const TriangleMesh> triangles = visual.triangles;
    std::string key;
    if (!triangles) {
      key = locate_mesh_file(visual.mesh_file, model_file_, package_paths_);
      if (key.empty()) return -1;
      if (const auto found = file_index_.find(key); found != file_index_.end())
        return found->second;
      triangles = std::make_shared<TriangleMesh>(read_mesh_file(key));
    } else if (const auto found = shared_index_.find(triangles.get());
               found != shared_index_.end()) {
      return found->second;
    }
    Json vertices = Json::array(), faces = Json::array();
    for (float value : triangles->vertices) vertices.push_back(rounded(value));
    for (std::uint32_t index : triangles->triangles) faces.push_back(index);
    const int index = static_cast<int>(meshes_.size());
    meshes_.push_back(Json{{"file", visual.mesh_file},
                           {"vertices", std::move(vertices)},
                           {"triangles", std::move(faces)}});
    if (key.empty())
      shared_index_[triangles.get()] = index;
    else
      file_index_[key] = index;
    return index;
  }

  std::string model_file_;
  std::vector<std::string> package_paths_;
  Json meshes_ = Json::array();
  std::map<std::string, int> file_index_;
  std::map<const TriangleMesh*, int> shared_index_;
  std::vector<std::string> missing_files_;
};

// The box of uniform density with the link's mass and principal moments (I1 = m (b^2 + c^2) / 12
// and its turns): sides sqrt(6 (I2 + I3 - I1) / m), in the principal axes at the centre of mass.
// Null for a massless link.
Json inertia_box_json(const Link& link) {
  if (!(link.mass > 0.0)) return nullptr;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> principal(link.inertia);
  const Eigen::Vector3d moments = principal.eigenvalues();
  Eigen::Matrix3d axes = principal.eigenvectors();
  if (axes.determinant() < 0) axes.col(2) *= -1.0;  // a rotation
  Eigen::Vector3d size;
  for (int i = 0; i < 3; ++i) {
    const double squared = 6.0 * (moments.sum() - 2.0 * moments(i)) / link.mass;
    size(i) = std::sqrt(std::max(squared, 0.0));
  }
  // A point mass or a rod has no extent along some axes: a sliver stays visible.
  const double least = std::max(0.05 * size.maxCoeff(), 1e-3);
  size = size.cwiseMax(least);
  const Eigen::Quaterniond turn(axes);
  return Json{{"size", point_json(size)},
              {"center", point_json(link.center_of_mass)},
              {"quaternion", Json::array({rounded(turn.x()), rounded(turn.y()), rounded(turn.z()),
                                          rounded(turn.w())})}};
}

// The joints holding an independent coordinate (dof names "joint" or "joint:i").
std::set<std::string> independent_joints(const Mechanism& mechanism,
                                         const std::vector<std::string>& independent) {
  std::set<std::string> joints;
  for (const std::string& dof : independent) {
    const bool whole = std::any_of(mechanism.joints.begin(), mechanism.joints.end(),
                                   [&](const Joint& joint) { return joint.name == dof; });
    joints.insert(whole ? dof : dof.substr(0, dof.rfind(':')));
  }
  return joints;
}

constexpr const char* kBodyColour = "#9ecae1";
constexpr const char* kVisualColour = "#bdbdbd";  // a visual the file gives no colour
constexpr const char* kRodColour = "#636363";
constexpr const char* kJointColour = "#969696";
constexpr const char* kIndependentColour = "#08519c";
constexpr const char* kComColour = "#ffb000";
constexpr const char* kForceColour = "#e7298a";
constexpr const char* kAggregateColour = "#d94801";  // the diagrams' aggregate outlines
constexpr const char* kLoopColours[] = {"#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                        "#17becf", "#e377c2", "#8c564b", "#bcbd22"};

// The model's spanning tree alone: its mechanism without loops and couplings, the same joints
// and dofs in the same order.
Model open_model(const Model& model) {
  Mechanism mechanism = model.source_mechanism();
  mechanism.loops.clear();
  mechanism.couplings.clear();
  mechanism.independent.clear();
  mechanism.preferred_independent.clear();
  return build_model(std::move(mechanism), model.file());
}

}  // namespace

ViewScene view_scene(const Model& model, const ViewFrames& frames,
                     const std::vector<std::string>& package_paths) {
  const Mechanism& mechanism = model.source_mechanism();
  std::vector<std::string> link_names;
  for (const Link& link : mechanism.links) link_names.push_back(link.name);
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());

  Json poses = Json::array(), com = Json::array();
  std::set<std::string> independent;
  std::string opened;  // the note of a state drawn open
  // Per loop, the column of NAME_fx when NAME_fy and NAME_fz follow it, else -1.
  std::vector<Eigen::Index> force_columns;
  for (const LoopClosure& loop : mechanism.loops) {
    const auto& names = frames.extra_names;
    const auto found = std::find(names.begin(), names.end(), loop.name + "_fx");
    const auto column = static_cast<Eigen::Index>(found - names.begin());
    const bool whole = names.end() - found >= 3 && *(found + 1) == loop.name + "_fy" &&
                       *(found + 2) == loop.name + "_fz" &&
                       frames.extra_values.rows() == frames.q.rows();
    force_columns.push_back(whole ? column : -1);
  }
  Json loop_forces = Json::array();
  for (Eigen::Index row = 0; row < frames.q.rows(); ++row) {
    const Eigen::VectorXd q = frames.q.row(row).transpose();
    std::vector<FrameMotion> motions;
    Eigen::Vector3d centre;
    try {
      // One assembly and one sweep for every link.
      motions = frame_motions(model, data, q, zero, zero, link_names, FrameAxes::kWorld);
      centre = center_of_mass(model, data, q);
      if (row == 0 && model.is_closed_chain()) {
        close_state(model, data, q, zero);  // data.independent at the first frame
        independent = independent_joints(mechanism, data.independent);
      }
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      if (frames.open_when_unclosed && frames.q.rows() == 1 && model.is_closed_chain()) {
        // Drawn as its spanning tree at q: each loop's two frames apart, joined across the gap.
        const Model open = open_model(model);
        ModelData open_data(open);
        motions = frame_motions(open, open_data, q, zero, zero, link_names, FrameAxes::kWorld);
        centre = center_of_mass(open, open_data, q);
        opened = std::string("The loops cannot be closed at this state (") + e.what() +
                 "): the mechanism is drawn open, as its spanning tree at the state, each loop's "
                 "two frames joined by a rod across the gap.";
      } else if (frames.source.empty()) {
        throw;
      } else {
        throw InputError(frames.source, frames.first_line + static_cast<int>(row),
                         std::string("this row cannot be shown: ") + e.what());
      }
    }
    Json frame = Json::array();
    for (std::size_t l = 0; l < mechanism.links.size(); ++l) {
      // The link's frame in the mechanism: its declared frame's pose, moved back when the tree
      // reversed the joint into it.
      const Eigen::Isometry3d pose = motions[l].pose * mechanism.links[l].declared_frame.inverse();
      const Eigen::Quaterniond turn(pose.linear());
      const Eigen::Vector3d p = pose.translation();
      frame.push_back(
          Json::array({rounded(p.x()), rounded(p.y()), rounded(p.z()), rounded(turn.x()),
                       rounded(turn.y()), rounded(turn.z()), rounded(turn.w())}));
    }
    // Each loop's force in the world's axes: the trajectory gives it in its parent frame F_p.
    Json forces = Json::array();
    for (std::size_t k = 0; k < mechanism.loops.size(); ++k) {
      const LoopClosure& loop = mechanism.loops[k];
      if (force_columns[k] < 0) {
        forces.push_back(nullptr);
        continue;
      }
      Eigen::Vector3d force;
      for (int i = 0; i < 3; ++i) force(i) = frames.extra_values(row, force_columns[k] + i);
      const Eigen::Matrix3d parent_turn =
          loop.parent < 0 ? Eigen::Matrix3d::Identity()
                          : Eigen::Matrix3d((motions[static_cast<std::size_t>(loop.parent)].pose *
                                             mechanism.links[static_cast<std::size_t>(loop.parent)]
                                                 .declared_frame.inverse())
                                                .linear());
      forces.push_back(point_json(parent_turn * loop.parent_origin.linear() * force));
    }
    loop_forces.push_back(std::move(forces));
    poses.push_back(std::move(frame));
    com.push_back(point_json(centre));
  }

  Json json;
  json["title"] = std::filesystem::path(model.file()).filename().string();
  Json times = Json::array();
  for (double t : frames.times) times.push_back(t);
  json["times"] = times;
  json["variable"] = frames.variable;
  double scale = 0.0;
  Json links = Json::array();
  VisualGeometry geometry(model, package_paths);
  bool any_visual = false, any_box = false;  // links drawn as their visuals, as inertia boxes
  for (const Link& link : mechanism.links) {
    Json box = inertia_box_json(link);
    if (!box.is_null()) scale = std::max(scale, 2.0 * link.center_of_mass.norm());
    Json item{{"name", link.name}, {"mass", link.mass}, {"box", std::move(box)}};
    geometry.add_link(link, item);
    any_visual = any_visual || !link.visuals.empty();
    any_box = any_box ||
              (!item["box"].is_null() && (item["visuals"].empty() || !item["missing"].empty()));
    links.push_back(std::move(item));
  }
  json["links"] = std::move(links);
  json["meshes"] = geometry.meshes();
  json["poses"] = std::move(poses);
  // A tree's joints move live in the page (forward kinematics from each joint's origin, axis and
  // coordinates): each joint's columns of q. Closed chains, flexible links and planar joints
  // keep to the frames skograph computed.
  const std::vector<std::string> all_dofs = dof_names(mechanism);
  const std::vector<std::string>& model_dofs = model.dof_names();
  bool sliders = !model.is_closed_chain() && opened.empty();
  Json joints = Json::array();
  std::size_t next_dof = 0;
  for (std::size_t j = 0; j < mechanism.joints.size(); ++j) {
    const Joint& joint = mechanism.joints[j];
    scale = std::max(scale, joint.origin.translation().norm());
    const bool has_axis = joint.type == JointType::kRevolute ||
                          joint.type == JointType::kContinuous ||
                          joint.type == JointType::kPrismatic;
    Json dofs = Json::array();
    const int count = joint_coordinate_count(mechanism, static_cast<int>(j));
    for (int k = 0; k < count && next_dof < all_dofs.size(); ++k, ++next_dof) {
      const auto found = std::find(model_dofs.begin(), model_dofs.end(), all_dofs[next_dof]);
      if (found == model_dofs.end())
        sliders = false;
      else
        dofs.push_back(found - model_dofs.begin());
    }
    if (count != joint_dof_count(joint.type) || joint.type == JointType::kPlanar) sliders = false;
    Json limits = nullptr;
    if (has_axis && std::isfinite(joint.lower) && std::isfinite(joint.upper) &&
        std::abs(joint.lower) < 1e299 && std::abs(joint.upper) < 1e299 && joint.lower < joint.upper)
      limits = Json::array({joint.lower, joint.upper});
    joints.push_back(Json{{"name", joint.name},
                          {"type", joint_type_name(joint.type)},
                          {"parent", joint.parent},
                          {"child", joint.child},
                          {"origin", point_json(joint.origin.translation())},
                          {"origin_quaternion", quaternion_json(joint.origin.linear())},
                          {"axis", has_axis ? point_json(joint.axis) : Json(nullptr)},
                          {"dofs", std::move(dofs)},
                          {"limits", std::move(limits)},
                          {"independent", independent.count(joint.name) > 0}});
  }
  json["joints"] = std::move(joints);
  json["sliders"] = sliders;
  json["dof_names"] = model_dofs;
  Json q_rows = Json::array();
  if (sliders)
    for (Eigen::Index row = 0; row < frames.q.rows(); ++row) {
      Json values = Json::array();
      for (Eigen::Index i = 0; i < frames.q.cols(); ++i) values.push_back(frames.q(row, i));
      q_rows.push_back(std::move(values));
    }
  json["q"] = std::move(q_rows);
  Json loops = Json::array();
  for (const LoopClosure& loop : mechanism.loops)
    loops.push_back(
        Json{{"name", loop.name},
             {"type", loop.type == LoopType::kWeld ? "fixed" : loop_type_name(loop.type)},
             {"parent", loop.parent},
             {"child", loop.child},
             {"parent_origin", point_json(loop.parent_origin.translation())},
             {"child_origin", point_json(loop.child_origin.translation())}});
  json["loops"] = std::move(loops);
  // The aggregates of constraint embedding (closed chains assembled): the source links of each,
  // the bodies of its joints and the links fused into them.
  Json aggregates = Json::array();
  if (const ClosedChainModel* closed = model.closed_chain(); closed && opened.empty()) {
    const Mechanism& built = closed->mechanism();
    for (int a = 0; a < closed->aggregate_count(); ++a) {
      std::set<int> bodies;
      for (const int node : closed->aggregate_nodes(a))
        bodies.insert(built.joints[static_cast<std::size_t>(node)].child);
      Json members = Json::array();
      for (std::size_t l = 0; l < mechanism.links.size(); ++l) {
        const std::string& name = mechanism.links[l].name;
        int link = built.find_link(name);
        if (link < 0)
          for (const Frame& frame : built.frames)
            if (frame.name == name && !frame.joint_alias) link = frame.link;
        if (link >= 0 && bodies.count(link) > 0) members.push_back(l);
      }
      aggregates.push_back(Json{{"links", std::move(members)}});
    }
  }
  const std::size_t aggregate_count = aggregates.size();
  json["aggregates"] = std::move(aggregates);
  json["loop_forces"] = std::move(loop_forces);
  json["com"] = std::move(com);
  Json loop_colours = Json::array();
  for (const char* colour : kLoopColours) loop_colours.push_back(colour);
  json["colours"] =
      Json{{"body", kBodyColour},   {"visual", kVisualColour},           {"rod", kRodColour},
           {"joint", kJointColour}, {"independent", kIndependentColour}, {"com", kComColour},
           {"force", kForceColour}, {"aggregate", kAggregateColour},     {"loops", loop_colours}};
  json["scale"] = rounded(scale);

  ViewScene scene;
  // A file name need not be UTF-8 (names read from files are checked): bad bytes become U+FFFD.
  scene.json = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (any_visual)
    scene.legend.push_back({kVisualColour,
                            "links: their visual geometry (in the file's colours "
                            "where it gives them)"});
  if (any_box)
    scene.legend.push_back({kBodyColour, any_visual ? "links without their visual geometry: "
                                                      "boxes of their mass and principal inertias"
                                                    : "links: boxes of their mass and principal "
                                                      "inertias"});
  scene.legend.push_back({kJointColour, "joints (rods from the parent's frame)"});
  if (!independent.empty())
    scene.legend.push_back({kIndependentColour, "joints of the independent coordinates"});
  if (aggregate_count > 0)
    scene.legend.push_back({kAggregateColour, aggregate_count == 1
                                                  ? "the aggregate of constraint embedding (a box "
                                                    "around its links)"
                                                  : "the " + std::to_string(aggregate_count) +
                                                        " aggregates of constraint embedding "
                                                        "(a box around each one's links)"});
  for (std::size_t k = 0; k < mechanism.loops.size(); ++k)
    scene.legend.push_back({kLoopColours[k % std::size(kLoopColours)],
                            "loop " + mechanism.loops[k].name + " (cut joint): its two frames"});
  if (std::any_of(force_columns.begin(), force_columns.end(),
                  [](Eigen::Index c) { return c >= 0; }))
    scene.legend.push_back(
        {kForceColour,
         "loop forces on the child link (arrows, the longest drawn a quarter of the "
         "mechanism's size)"});
  scene.legend.push_back({kComColour, "centre of mass"});
  scene.notes = frames.notes;
  if (!opened.empty()) scene.notes.push_back(opened);
  if (!any_visual) {
    scene.notes.push_back(
        "The model gives no visual geometry: each link is drawn as the box of its inertia, each "
        "joint as a ball on a rod from its parent's frame.");
  } else if (const std::vector<std::string>& missing = geometry.missing_files(); !missing.empty()) {
    // One note naming each missing file once (in the order the links name them).
    std::vector<std::string> files;
    const bool named_by_package =
        std::any_of(missing.begin(), missing.end(), [](const std::string& file) {
          return file.rfind("package://", 0) == 0 || file.rfind("model://", 0) == 0;
        });
    for (const std::string& file : missing)
      if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
    std::string list;
    const std::size_t shown = std::min<std::size_t>(files.size(), 5);
    for (std::size_t i = 0; i < shown; ++i) list += (i ? ", " : "") + printable(files[i]);
    if (files.size() > shown) list += " and " + std::to_string(files.size() - shown) + " more";
    scene.notes.push_back(std::to_string(files.size()) + " mesh file" +
                          (files.size() == 1 ? " is" : "s are") + " missing (" + list +
                          "): the links that use them are drawn as the boxes of their inertias" +
                          (package_paths.empty() && named_by_package ? "; --package-path DIR "
                                                                       "says where package:// "
                                                                       "files are"
                                                                     : "") +
                          ".");
  }
  return scene;
}

ViewFrames trajectory_frames(const Model& model, const std::string& path) {
  const Trajectory trajectory = read_trajectory_file(path, model.dof_names());
  ViewFrames frames;
  frames.times = trajectory.time;
  frames.q = trajectory.q;
  frames.extra_names = trajectory.extra;
  frames.extra_values = trajectory.extra_values;
  frames.source = path;
  frames.first_line = 2;  // the header is line 1
  return frames;
}

ViewSweep parse_view_sweep(const std::string& text, const std::string& option) {
  const std::string form =
      option + " takes DOF=LO:HI:N (e.g. crank_joint=0:6.28:60), not '" + printable(text) + "'";
  const std::size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0) throw UsageError(form);
  ViewSweep sweep;
  sweep.dof = text.substr(0, equals);
  std::vector<std::string> parts(1);
  for (char c : text.substr(equals + 1)) {
    if (c == ':')
      parts.emplace_back();
    else
      parts.back() += c;
  }
  if (parts.size() != 3) throw UsageError(form);
  auto number = [&](const std::string& part, double& value) {
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (error != std::errc() || end != part.data() + part.size() || !std::isfinite(value))
      throw UsageError(form);
  };
  double count = 0.0;
  number(parts[0], sweep.low);
  number(parts[1], sweep.high);
  number(parts[2], count);
  if (count != std::floor(count) || count < 2 || count > 10000)
    throw UsageError(option +
                     ": N is the number of configurations, a whole number from 2 to "
                     "10000, not '" +
                     printable(parts[2]) + "'");
  sweep.count = static_cast<int>(count);
  return sweep;
}

ViewFrames sweep_frames(const Model& model, const Eigen::VectorXd& q, const ViewSweep& sweep) {
  const std::vector<std::string>& dofs = model.dof_names();
  const auto found = std::find(dofs.begin(), dofs.end(), sweep.dof);
  if (found == dofs.end()) {
    std::string list;
    for (const std::string& dof : dofs) list += (list.empty() ? "" : ", ") + dof;
    throw UsageError("--sweep: '" + printable(sweep.dof) + "' is not a dof of the model (" +
                     printable(list) + ")");
  }
  const auto dof = static_cast<Eigen::Index>(found - dofs.begin());
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());
  Eigen::VectorXd current = q;
  if (model.is_closed_chain()) {
    current = close_state(model, data, q, zero).q;
    const std::vector<std::string>& independent = data.independent;
    if (std::find(independent.begin(), independent.end(), sweep.dof) == independent.end()) {
      std::string list;
      for (const std::string& name : independent) list += (list.empty() ? "" : ", ") + name;
      throw UsageError("--sweep: '" + printable(sweep.dof) +
                       "' is a dependent coordinate at the state (the independent ones: " +
                       printable(list) + "); make it independent with --independent");
    }
  }
  ViewFrames frames;
  frames.variable = sweep.dof;
  std::vector<Eigen::VectorXd> rows;
  for (int k = 0; k < sweep.count; ++k) {
    const double value = sweep.low + (sweep.high - sweep.low) * k / (sweep.count - 1);
    current(dof) = value;
    std::string failure;
    if (model.is_closed_chain()) {
      try {
        const Eigen::VectorXd closed = close_state(model, data, current, zero).q;
        // The loops closed only by moving the swept coordinate: not a configuration of the sweep.
        if (std::abs(closed(dof) - value) > 1e-9 * std::max(1.0, std::abs(value)))
          failure = "the loops close only with " + sweep.dof + " moved";
        else
          current = closed;
      } catch (const InputError&) {
        throw;
      } catch (const UsageError&) {
        throw;
      } catch (const Error& e) {
        failure = e.what();
      }
    }
    std::ostringstream at;
    at << sweep.dof << " = " << value;
    if (!failure.empty()) {
      if (rows.empty())
        throw UsageError("--sweep: the loops cannot be closed at " + at.str() + " (" + failure +
                         ")");
      frames.notes.push_back("Assembly fails from " + at.str() + " on: " + failure + ".");
      break;
    }
    rows.push_back(current);
    frames.times.push_back(value);
  }
  frames.q.resize(static_cast<Eigen::Index>(rows.size()), model.dof_count());
  for (std::size_t r = 0; r < rows.size(); ++r)
    frames.q.row(static_cast<Eigen::Index>(r)) = rows[r].transpose();
  return frames;
}

std::string view_html(const Model& model, const std::string& title, const ViewFrames& frames,
                      const std::vector<std::string>& package_paths) {
  const ViewScene scene = view_scene(model, frames, package_paths);
  return viz::view_page(title, scene.json, scene.legend, scene.notes);
}

}  // namespace skograph::report

#include "skograph/report/view_scene.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "skograph/graph/text_input.hpp"
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
constexpr const char* kRodColour = "#636363";
constexpr const char* kJointColour = "#969696";
constexpr const char* kIndependentColour = "#08519c";
constexpr const char* kComColour = "#ffb000";
constexpr const char* kLoopColours[] = {"#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                        "#17becf", "#e377c2", "#8c564b", "#bcbd22"};

}  // namespace

ViewScene view_scene(const Model& model, const ViewFrames& frames) {
  const Mechanism& mechanism = model.source_mechanism();
  std::vector<std::string> link_names;
  for (const Link& link : mechanism.links) link_names.push_back(link.name);
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());

  Json poses = Json::array(), com = Json::array();
  std::set<std::string> independent;
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
      if (frames.source.empty()) throw;
      throw InputError(frames.source, frames.first_line + static_cast<int>(row),
                       std::string("this row cannot be shown: ") + e.what());
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
  for (const Link& link : mechanism.links) {
    Json box = inertia_box_json(link);
    if (!box.is_null()) scale = std::max(scale, 2.0 * link.center_of_mass.norm());
    links.push_back(Json{{"name", link.name}, {"mass", link.mass}, {"box", std::move(box)}});
  }
  json["links"] = std::move(links);
  json["poses"] = std::move(poses);
  Json joints = Json::array();
  for (const Joint& joint : mechanism.joints) {
    scale = std::max(scale, joint.origin.translation().norm());
    const bool has_axis = joint.type == JointType::kRevolute ||
                          joint.type == JointType::kContinuous ||
                          joint.type == JointType::kPrismatic;
    joints.push_back(Json{{"name", joint.name},
                          {"type", joint_type_name(joint.type)},
                          {"parent", joint.parent},
                          {"child", joint.child},
                          {"origin", point_json(joint.origin.translation())},
                          {"axis", has_axis ? point_json(joint.axis) : Json(nullptr)},
                          {"independent", independent.count(joint.name) > 0}});
  }
  json["joints"] = std::move(joints);
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
  json["com"] = std::move(com);
  Json loop_colours = Json::array();
  for (const char* colour : kLoopColours) loop_colours.push_back(colour);
  json["colours"] = Json{{"body", kBodyColour},   {"rod", kRodColour},
                         {"joint", kJointColour}, {"independent", kIndependentColour},
                         {"com", kComColour},     {"loops", loop_colours}};
  json["scale"] = rounded(scale);

  ViewScene scene;
  // A file name need not be UTF-8 (names read from files are checked): bad bytes become U+FFFD.
  scene.json = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  scene.legend.push_back({kBodyColour, "links: boxes of their mass and principal inertias"});
  scene.legend.push_back({kJointColour, "joints (rods from the parent's frame)"});
  if (!independent.empty())
    scene.legend.push_back({kIndependentColour, "joints of the independent coordinates"});
  for (std::size_t k = 0; k < mechanism.loops.size(); ++k)
    scene.legend.push_back({kLoopColours[k % std::size(kLoopColours)],
                            "loop " + mechanism.loops[k].name + " (cut joint): its two frames"});
  scene.legend.push_back({kComColour, "centre of mass"});
  scene.notes = frames.notes;
  scene.notes.push_back(
      "Drawn without the model's visual geometry: each link as the box of its inertia, each "
      "joint as a ball on a rod from its parent's frame.");
  return scene;
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

std::string view_html(const Model& model, const std::string& title, const ViewFrames& frames) {
  const ViewScene scene = view_scene(model, frames);
  return viz::view_page(title, scene.json, scene.legend, scene.notes);
}

}  // namespace skograph::report

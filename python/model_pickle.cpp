#include "model_pickle.hpp"

#include <pybind11/stl.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "skograph/model/base_change.hpp"

namespace py = pybind11;

namespace skograph::python {
namespace {

constexpr const char* kTag = "skograph-model";
// Version 2 carries flexible links' modal data (a sixth entry per link); a model without flexible
// links is written as version 1, which every reader takes.
constexpr int kVersion = 2;

py::list doubles(const double* values, int count) {
  py::list list;
  for (int i = 0; i < count; ++i) list.append(values[i]);
  return list;
}
py::list pose_list(const Eigen::Isometry3d& pose) {
  const Eigen::Matrix4d matrix = pose.matrix();
  return doubles(matrix.data(), 16);  // column-major
}
// Exactly `count` finite numbers, or the state is not one of ours.
std::vector<double> numbers_of(const py::handle& list, std::size_t count) {
  const std::vector<double> values = list.cast<std::vector<double>>();
  if (values.size() != count)
    throw std::invalid_argument("not a pickled skograph.Model: a list of " +
                                std::to_string(values.size()) + " numbers where " +
                                std::to_string(count) + " belong");
  for (const double value : values)
    if (!std::isfinite(value))
      throw std::invalid_argument("not a pickled skograph.Model: a number that is not finite");
  return values;
}
Eigen::Isometry3d pose_of(const py::handle& list) {
  const std::vector<double> values = numbers_of(list, 16);
  Eigen::Isometry3d pose;
  pose.matrix() = Eigen::Map<const Eigen::Matrix4d>(values.data());
  return pose;
}
Eigen::Vector3d vector_of(const py::handle& list) {
  const std::vector<double> values = numbers_of(list, 3);
  return Eigen::Vector3d(values[0], values[1], values[2]);
}

// A matrix as (rows, columns, entries column by column).
py::tuple matrix_tuple(const Eigen::MatrixXd& matrix) {
  return py::make_tuple(matrix.rows(), matrix.cols(),
                        doubles(matrix.data(), static_cast<int>(matrix.size())));
}
Eigen::MatrixXd matrix_of(const py::handle& item) {
  const py::tuple t = item.cast<py::tuple>();
  if (t.size() != 3) throw std::invalid_argument("not a pickled skograph.Model: a bad matrix");
  const auto rows = t[0].cast<Eigen::Index>(), columns = t[1].cast<Eigen::Index>();
  if (rows < 0 || columns < 0 || rows > 100000 || columns > 100000)
    throw std::invalid_argument("not a pickled skograph.Model: a bad matrix");
  const std::vector<double> values = numbers_of(t[2], static_cast<std::size_t>(rows * columns));
  return Eigen::Map<const Eigen::MatrixXd>(values.data(), rows, columns);
}

// A flexible link's modal data, or None for a rigid link.
py::object modal_body_object(const Link& link) {
  if (!link.flexible) return py::none();
  const ModalBody& body = *link.flexible;
  py::list nodes;
  for (const ModalNode& node : body.nodes)
    nodes.append(py::make_tuple(node.name, matrix_tuple(node.influence), node.source_line));
  return py::make_tuple(matrix_tuple(body.modal_mass), matrix_tuple(body.modal_stiffness),
                        matrix_tuple(body.modal_damping), matrix_tuple(body.coupling), nodes,
                        body.source_file, body.source_line);
}
std::shared_ptr<const ModalBody> modal_body_of(const py::handle& item) {
  if (item.is_none()) return nullptr;
  const py::tuple t = item.cast<py::tuple>();
  if (t.size() != 7) throw std::invalid_argument("not a pickled skograph.Model: bad modal data");
  constexpr Eigen::Index kMostModes = 1000;  // as io/ caps a model's modal coordinates
  auto body = std::make_shared<ModalBody>();
  body->modal_mass = matrix_of(t[0]);
  if (body->modal_mass.rows() > kMostModes)
    throw std::invalid_argument("not a pickled skograph.Model: more than 1000 modes");
  body->modal_stiffness = matrix_of(t[1]);
  body->modal_damping = matrix_of(t[2]);
  body->coupling = matrix_of(t[3]);
  for (const py::handle entry : t[4]) {
    const py::tuple n = entry.cast<py::tuple>();
    if (n.size() != 3) throw std::invalid_argument("not a pickled skograph.Model: bad modal data");
    body->nodes.push_back({n[0].cast<std::string>(), matrix_of(n[1]), n[2].cast<int>()});
  }
  body->source_file = t[5].cast<std::string>();
  body->source_line = t[6].cast<int>();
  return body;
}

py::dict mechanism_dict(const Mechanism& mechanism) {
  py::dict out;
  out["name"] = mechanism.name;
  out["source"] = mechanism.source;
  py::list links, joints, loops, couplings, frames;
  for (const Link& link : mechanism.links)
    links.append(py::make_tuple(link.name, link.mass, doubles(link.center_of_mass.data(), 3),
                                doubles(link.inertia.data(), 9), pose_list(link.declared_frame),
                                modal_body_object(link)));
  for (const Joint& joint : mechanism.joints)
    joints.append(py::make_tuple(joint.name, static_cast<int>(joint.type), joint.parent,
                                 joint.child, pose_list(joint.origin),
                                 doubles(joint.axis.data(), 3), joint.lower, joint.upper));
  for (const LoopClosure& loop : mechanism.loops)
    loops.append(py::make_tuple(loop.name, static_cast<int>(loop.type), loop.parent, loop.child,
                                pose_list(loop.parent_origin), pose_list(loop.child_origin),
                                doubles(loop.axis.data(), 3), loop.source_line, loop.source_file));
  for (const Coupling& coupling : mechanism.couplings)
    couplings.append(py::make_tuple(
        coupling.name, coupling.type, coupling.joint_a, coupling.joint_b, coupling.ratio,
        coupling.further_joints, coupling.further_ratios, coupling.offset, coupling.source_line));
  for (const Frame& frame : mechanism.frames)
    frames.append(py::make_tuple(frame.name, frame.link, pose_list(frame.pose), frame.joint_alias));
  // The links' visuals (pictures only), per link: a key older readers pass over.
  py::list visuals;
  for (const Link& link : mechanism.links) {
    py::list of_link;
    for (const Visual& visual : link.visuals) {
      py::object triangles = py::none();
      if (visual.triangles)
        triangles = py::make_tuple(visual.triangles->vertices, visual.triangles->triangles);
      of_link.append(py::make_tuple(static_cast<int>(visual.shape), doubles(visual.size.data(), 3),
                                    visual.mesh_file, doubles(visual.scale.data(), 3),
                                    pose_list(visual.origin), doubles(visual.rgba.data(), 4),
                                    triangles));
    }
    visuals.append(of_link);
  }
  out["links"] = links;
  out["visuals"] = visuals;
  out["joints"] = joints;
  out["loops"] = loops;
  out["couplings"] = couplings;
  out["frames"] = frames;
  out["static_mass"] = mechanism.static_mass;
  out["static_first_moment"] = doubles(mechanism.static_first_moment.data(), 3);
  out["warnings"] = mechanism.warnings;
  out["independent"] = mechanism.independent;
  out["preferred_independent"] = mechanism.preferred_independent;
  out["notes"] = mechanism.notes;
  return out;
}

Mechanism mechanism_of(const py::dict& in) {
  Mechanism mechanism;
  mechanism.name = in["name"].cast<std::string>();
  mechanism.source = in["source"].cast<std::string>();
  for (const py::handle item : in["links"]) {
    const py::tuple t = item.cast<py::tuple>();
    Link link;
    link.name = t[0].cast<std::string>();
    link.mass = t[1].cast<double>();
    link.center_of_mass = vector_of(t[2]);
    const std::vector<double> inertia = numbers_of(t[3], 9);
    link.inertia = Eigen::Map<const Eigen::Matrix3d>(inertia.data());
    link.declared_frame = pose_of(t[4]);
    if (t.size() > 5) link.flexible = modal_body_of(t[5]);  // rigid before modal data travelled
    mechanism.links.push_back(link);
  }
  if (in.contains("visuals")) {
    const py::list visuals = in["visuals"].cast<py::list>();
    if (visuals.size() != mechanism.links.size())
      throw std::invalid_argument("not a pickled skograph.Model: visuals for " +
                                  std::to_string(visuals.size()) + " links where " +
                                  std::to_string(mechanism.links.size()) + " belong");
    for (std::size_t k = 0; k < mechanism.links.size(); ++k)
      for (const py::handle item : visuals[k]) {
        const py::tuple t = item.cast<py::tuple>();
        Visual visual;
        const int shape = t[0].cast<int>();
        if (shape < 0 || shape > static_cast<int>(VisualShape::kMesh))
          throw std::invalid_argument("not a pickled skograph.Model: a visual of shape " +
                                      std::to_string(shape));
        visual.shape = static_cast<VisualShape>(shape);
        visual.size = vector_of(t[1]);
        visual.mesh_file = t[2].cast<std::string>();
        visual.scale = vector_of(t[3]);
        visual.origin = pose_of(t[4]);
        const std::vector<double> rgba = numbers_of(t[5], 4);
        visual.rgba = Eigen::Vector4d(rgba[0], rgba[1], rgba[2], rgba[3]);
        if (!t[6].is_none()) {
          const py::tuple mesh = t[6].cast<py::tuple>();
          auto triangles = std::make_shared<TriangleMesh>();
          triangles->vertices = mesh[0].cast<std::vector<float>>();
          triangles->triangles = mesh[1].cast<std::vector<std::uint32_t>>();
          const std::size_t vertices = triangles->vertices.size() / 3;
          for (const std::uint32_t index : triangles->triangles)
            if (index >= vertices)
              throw std::invalid_argument(
                  "not a pickled skograph.Model: a mesh triangle names no vertex");
          visual.triangles = std::move(triangles);
        }
        mechanism.links[k].visuals.push_back(std::move(visual));
      }
  }
  for (const py::handle item : in["joints"]) {
    const py::tuple t = item.cast<py::tuple>();
    Joint joint;
    joint.name = t[0].cast<std::string>();
    joint.type = static_cast<JointType>(t[1].cast<int>());
    joint.parent = t[2].cast<int>();
    joint.child = t[3].cast<int>();
    joint.origin = pose_of(t[4]);
    joint.axis = vector_of(t[5]);
    joint.lower = t[6].cast<double>();
    joint.upper = t[7].cast<double>();
    mechanism.joints.push_back(joint);
  }
  for (const py::handle item : in["loops"]) {
    const py::tuple t = item.cast<py::tuple>();
    LoopClosure loop;
    loop.name = t[0].cast<std::string>();
    loop.type = static_cast<LoopType>(t[1].cast<int>());
    loop.parent = t[2].cast<int>();
    loop.child = t[3].cast<int>();
    loop.parent_origin = pose_of(t[4]);
    loop.child_origin = pose_of(t[5]);
    loop.axis = vector_of(t[6]);
    loop.source_line = t[7].cast<int>();
    loop.source_file = t[8].cast<std::string>();
    mechanism.loops.push_back(loop);
  }
  for (const py::handle item : in["couplings"]) {
    const py::tuple t = item.cast<py::tuple>();
    Coupling coupling;
    coupling.name = t[0].cast<std::string>();
    coupling.type = t[1].cast<std::string>();
    coupling.joint_a = t[2].cast<int>();
    coupling.joint_b = t[3].cast<int>();
    coupling.ratio = t[4].cast<double>();
    coupling.further_joints = t[5].cast<std::vector<int>>();
    coupling.further_ratios = t[6].cast<std::vector<double>>();
    coupling.offset = t[7].cast<double>();
    coupling.source_line = t[8].cast<int>();
    mechanism.couplings.push_back(coupling);
  }
  for (const py::handle item : in["frames"]) {
    const py::tuple t = item.cast<py::tuple>();
    mechanism.frames.push_back(
        {t[0].cast<std::string>(), t[1].cast<int>(), pose_of(t[2]), t[3].cast<bool>()});
  }
  mechanism.static_mass = in["static_mass"].cast<double>();
  mechanism.static_first_moment = vector_of(in["static_first_moment"]);
  mechanism.warnings = in["warnings"].cast<std::vector<std::string>>();
  mechanism.independent = in["independent"].cast<std::vector<std::string>>();
  mechanism.preferred_independent = in["preferred_independent"].cast<std::vector<std::string>>();
  mechanism.notes = in["notes"].cast<std::vector<std::string>>();
  // Indices that name no link or joint would index out of bounds: refuse them.
  const int links = static_cast<int>(mechanism.links.size());
  const int joints = static_cast<int>(mechanism.joints.size());
  const auto link_ok = [&](int k, bool world) {
    return (world && k == -1) || (k >= 0 && k < links);
  };
  const auto joint_ok = [&](int j) { return j >= 0 && j < joints; };
  bool valid = true;
  for (const Joint& joint : mechanism.joints)
    valid = valid && link_ok(joint.parent, true) && link_ok(joint.child, false) &&
            static_cast<int>(joint.type) >= 0 &&
            static_cast<int>(joint.type) <= static_cast<int>(JointType::kFloating);
  for (const LoopClosure& loop : mechanism.loops)
    valid = valid && link_ok(loop.parent, true) && link_ok(loop.child, true) &&
            static_cast<int>(loop.type) >= 0 &&
            static_cast<int>(loop.type) <= static_cast<int>(LoopType::kWeld);
  for (const Coupling& coupling : mechanism.couplings) {
    valid = valid && joint_ok(coupling.joint_a) && joint_ok(coupling.joint_b) &&
            coupling.further_joints.size() == coupling.further_ratios.size();
    for (const int j : coupling.further_joints) valid = valid && joint_ok(j);
  }
  for (const Frame& frame : mechanism.frames) valid = valid && link_ok(frame.link, true);
  if (!valid) throw std::invalid_argument("not a pickled skograph.Model: an index out of range");
  bool finite = std::isfinite(mechanism.static_mass);
  for (const Link& link : mechanism.links) finite = finite && std::isfinite(link.mass);
  for (const Joint& joint : mechanism.joints)
    finite = finite && !std::isnan(joint.lower) && !std::isnan(joint.upper);
  for (const Coupling& coupling : mechanism.couplings) {
    finite = finite && std::isfinite(coupling.ratio) && std::isfinite(coupling.offset);
    for (const double ratio : coupling.further_ratios) finite = finite && std::isfinite(ratio);
  }
  if (!finite)
    throw std::invalid_argument("not a pickled skograph.Model: a number that is not finite");
  return mechanism;
}

}  // namespace

py::tuple pickle_model(const PyModel& model) {
  // The file's model (before any base change): its mechanism as the reader gave it.
  const Model& file = model.model.file_model() ? *model.model.file_model() : model.model;
  const int version = file.tree().has_flexible_links() ? kVersion : 1;
  return py::make_tuple(kTag, version, model.model.file(), model.options.strict,
                        model.options.independent, model.options.loops_file, model.options.base,
                        mechanism_dict(file.source_mechanism()), model.options.conditioning_limit);
}

namespace {
std::shared_ptr<PyModel> unpickle_state(const py::tuple& state);
}  // namespace

std::shared_ptr<PyModel> unpickle_model(const py::tuple& state) {
  try {
    return unpickle_state(state);
  } catch (const py::cast_error&) {  // a value of the wrong type somewhere in the state
    throw std::invalid_argument("not a pickled skograph.Model: a value of the wrong type");
  } catch (const py::error_already_set& e) {  // a missing key, a short tuple
    throw std::invalid_argument(std::string("not a pickled skograph.Model: ") + e.what());
  }
}

namespace {

std::shared_ptr<PyModel> unpickle_state(const py::tuple& state) {
  if (state.size() > 0 && py::isinstance<py::str>(state[0]) &&
      state[0].cast<std::string>() == kTag) {
    if (state.size() < 2 || state[1].cast<int>() < 1 || state[1].cast<int>() > kVersion)
      throw std::invalid_argument(
          "a pickled skograph.Model of another format (version " +
          (state.size() < 2 ? std::string("none") : py::str(state[1]).cast<std::string>()) +
          "): this skograph reads versions 1 to " + std::to_string(kVersion));
    // 8 entries: pickled before the conditioning limit travelled (the default).
    if (state.size() != 8 && state.size() != 9)
      throw std::invalid_argument("not a pickled skograph.Model: " + std::to_string(state.size()) +
                                  " entries where 9 belong");
    ReadOptions options;
    options.strict = state[3].cast<bool>();
    options.independent = state[4].cast<std::vector<std::string>>();
    options.loops_file = state[5].cast<std::string>();
    options.base = state[6].cast<std::string>();
    if (state.size() == 9) options.conditioning_limit = state[8].cast<double>();
    const std::string file = state[2].cast<std::string>();
    Model model =
        build_model(mechanism_of(state[7].cast<py::dict>()), file, build_options(options));
    if (!options.base.empty()) model = with_base(model, options.base);
    return std::make_shared<PyModel>(std::move(model), options);
  }
  // Paths (pickles made before the mechanism travelled): load the files again.
  if (state.size() < 4) throw std::invalid_argument("not a pickled skograph.Model");
  ReadOptions options;
  options.strict = state[1].cast<bool>();
  options.independent = state[2].cast<std::vector<std::string>>();
  options.loops_file = state[3].cast<std::string>();
  if (state.size() > 4) options.base = state[4].cast<std::string>();
  return std::make_shared<PyModel>(load_model(state[0].cast<std::string>(), options), options);
}

}  // namespace

}  // namespace skograph::python

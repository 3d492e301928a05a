#include "skograph/io/mjcf_reader.hpp"

#include <mujoco/mujoco.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "mechanism_checks.hpp"
#include "xml_input.hpp"

namespace skograph {

namespace {

using io::fail;
using io::SourceLocation;

// MuJoCo reports fatal errors through the global mju_user_error hook (by default it writes
// MUJOCO_LOG.TXT and exits the process) and warnings through mju_user_warning. While a model is
// compiled the hooks throw and collect instead; the hooks are global, hence the lock.
struct MujocoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
std::mutex mujoco_hooks_lock;
thread_local std::vector<std::string>* mujoco_warnings = nullptr;
void throw_mujoco_error(const char* message) {
  throw MujocoError(message);
}
void collect_mujoco_warning(const char* message) {
  if (mujoco_warnings) mujoco_warnings->emplace_back(message);
}

struct ModelDeleter {
  void operator()(mjModel* model) const { mj_deleteModel(model); }
};
using ModelPointer = std::unique_ptr<mjModel, ModelDeleter>;

// MuJoCo's messages span lines ("XML Error: ...\nElement 'joint', line 4"): the problem as one line
// and the line it names (0 when none).
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string squeezed;
  for (const char c : text)
    if (!(c == ' ' && (squeezed.empty() || squeezed.back() == ' '))) squeezed += c;
  while (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
  return squeezed;
}

InputError mujoco_input_error(const std::string& path, const std::string& message) {
  int line = 0;
  std::smatch match;
  static const std::regex kLine(R"([Ll]ine(?: number)?\s*=?\s*(\d+))");
  if (std::regex_search(message, match, kLine)) line = std::stoi(match[1].str());
  std::string first = message.substr(0, message.find('\n'));
  for (const char* prefix : {"XML Error: ", "Error: "})
    if (first.rfind(prefix, 0) == 0) first = first.substr(std::string(prefix).size());
  if (first.rfind("XML parse error", 0) == 0) {
    static const std::regex kParse(R"(Error=(\w+))");
    first = std::regex_search(message, match, kParse) ? "malformed XML (" + match[1].str() + ")"
                                                      : "malformed XML";
  }
  return InputError(path, line, one_line(first));
}

struct VfsDeleter {
  void operator()(mjVFS* vfs) const {
    mj_deleteVFS(vfs);
    delete vfs;
  }
};
using VfsPointer = std::unique_ptr<mjVFS, VfsDeleter>;

// Compiles the file with the hooks set (files in `vfs` first, when given); MuJoCo's message as an
// InputError.
ModelPointer compile(const std::string& path, std::vector<std::string>& warnings,
                     const mjVFS* vfs = nullptr) {
  const std::lock_guard<std::mutex> lock(mujoco_hooks_lock);
  void (*previous_error)(const char*) = mju_user_error;
  void (*previous_warning)(const char*) = mju_user_warning;
  mju_user_error = throw_mujoco_error;
  mju_user_warning = collect_mujoco_warning;
  mujoco_warnings = &warnings;
  char error[1024] = "";
  ModelPointer model;
  std::string failure;
  try {
    model.reset(mj_loadXML(path.c_str(), vfs, error, sizeof error));
    if (!model) failure = error[0] ? error : "MuJoCo could not compile the model";
  } catch (const MujocoError& e) {
    failure = e.what();
  }
  mju_user_error = previous_error;
  mju_user_warning = previous_warning;
  mujoco_warnings = nullptr;
  if (!failure.empty()) throw mujoco_input_error(path, failure);
  return model;
}

// The mesh files a model's document names that are not on disk, and a body that would take its
// inertia from one of them (a mesh geom and no <inertial>, or inertiafromgeom="true"), if any.
// Only the document itself is read (not its includes).
struct MeshCheck {
  std::vector<std::string> missing;        // the <mesh file> values, as written
  std::vector<std::string> missing_names;  // the names of those <mesh> assets
  std::vector<std::string> missing_paths;  // those files relative to the model's folder
  std::string body_needing_mesh;
};
MeshCheck check_meshes(const std::string& path) {
  MeshCheck check;
  tinyxml2::XMLDocument document;
  if (document.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) return check;
  const tinyxml2::XMLElement* root = document.RootElement();
  if (!root) return check;
  std::string meshdir, inertia_from_geom = "auto";
  for (const tinyxml2::XMLElement* c = root->FirstChildElement("compiler"); c;
       c = c->NextSiblingElement("compiler")) {
    if (const char* dir = c->Attribute("assetdir")) meshdir = dir;
    if (const char* dir = c->Attribute("meshdir")) meshdir = dir;
    if (const char* value = c->Attribute("inertiafromgeom")) inertia_from_geom = value;
  }
  const std::filesystem::path base =
      std::filesystem::path(path).parent_path() / std::filesystem::path(meshdir);
  std::vector<std::string>& missing_names = check.missing_names;
  for (const tinyxml2::XMLElement* asset = root->FirstChildElement("asset"); asset;
       asset = asset->NextSiblingElement("asset"))
    for (const tinyxml2::XMLElement* mesh = asset->FirstChildElement("mesh"); mesh;
         mesh = mesh->NextSiblingElement("mesh")) {
      const char* file = mesh->Attribute("file");
      if (!file) continue;
      std::error_code error;
      const std::filesystem::path where =
          std::filesystem::path(file).is_absolute() ? std::filesystem::path(file) : base / file;
      if (std::filesystem::exists(where, error)) continue;
      check.missing.emplace_back(file);
      // As the view looks for it: relative to the model's folder, through meshdir.
      check.missing_paths.push_back(std::filesystem::path(file).is_absolute()
                                        ? std::string(file)
                                        : (std::filesystem::path(meshdir) / file).string());
      const char* name = mesh->Attribute("name");
      missing_names.push_back(name ? name : std::filesystem::path(file).stem().string());
    }
  if (check.missing.empty()) return check;
  // Bodies whose inertia would come from a missing mesh.
  std::vector<const tinyxml2::XMLElement*> bodies;
  for (const tinyxml2::XMLElement* world = root->FirstChildElement("worldbody"); world;
       world = world->NextSiblingElement("worldbody"))
    bodies.push_back(world);
  for (std::size_t i = 0; i < bodies.size() && check.body_needing_mesh.empty(); ++i) {
    const tinyxml2::XMLElement* body = bodies[i];
    for (const tinyxml2::XMLElement* child = body->FirstChildElement("body"); child;
         child = child->NextSiblingElement("body"))
      bodies.push_back(child);
    if (i == 0 || (body->FirstChildElement("inertial") && inertia_from_geom != "true")) continue;
    for (const tinyxml2::XMLElement* geom = body->FirstChildElement("geom"); geom;
         geom = geom->NextSiblingElement("geom")) {
      const char* mesh = geom->Attribute("mesh");
      if (mesh &&
          std::find(missing_names.begin(), missing_names.end(), mesh) != missing_names.end()) {
        const char* name = body->Attribute("name");
        check.body_needing_mesh = name ? name : "line " + std::to_string(body->GetLineNum());
        break;
      }
    }
  }
  return check;
}

// A tetrahedron in the format of `file`'s extension (OBJ, binary STL), in memory for MuJoCo's
// virtual file system; empty for a format it is not written in.
std::string placeholder_mesh(const std::string& file) {
  std::string extension = std::filesystem::path(file).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const float kVertices[4][3] = {{0, 0, 0}, {0.01f, 0, 0}, {0, 0.01f, 0}, {0, 0, 0.01f}};
  static const int kFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  if (extension == ".obj") {
    std::ostringstream text;
    for (const auto& v : kVertices) text << "v " << v[0] << " " << v[1] << " " << v[2] << "\n";
    for (const auto& f : kFaces)
      text << "f " << f[0] + 1 << " " << f[1] + 1 << " " << f[2] + 1 << "\n";
    return text.str();
  }
  if (extension == ".stl") {
    std::string bytes(84 + 50 * 4, '\0');
    const std::uint32_t count = 4;
    std::memcpy(bytes.data() + 80, &count, 4);
    for (int t = 0; t < 4; ++t)
      for (int k = 0; k < 3; ++k)
        std::memcpy(bytes.data() + 84 + 50 * t + 12 + 12 * k, kVertices[kFaces[t][k]], 12);
    return bytes;
  }
  return "";
}

// The lines of the children of <equality> in document order (what this reader refuses is
// reported there); empty when the document has includes that could hold equalities.
std::vector<int> equality_lines(const std::string& path) {
  std::vector<int> lines;
  tinyxml2::XMLDocument document;
  if (document.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) return lines;
  const tinyxml2::XMLElement* root = document.RootElement();
  if (!root || root->FirstChildElement("include")) return lines;
  for (const tinyxml2::XMLElement* block = root->FirstChildElement("equality"); block;
       block = block->NextSiblingElement("equality"))
    for (const tinyxml2::XMLElement* e = block->FirstChildElement(); e; e = e->NextSiblingElement())
      lines.push_back(e->GetLineNum());
  return lines;
}

Eigen::Vector3d vector_at(const mjtNum* data) {
  return {data[0], data[1], data[2]};
}
Eigen::Matrix3d rotation_at(const mjtNum* quaternion) {  // MuJoCo: w, x, y, z
  return Eigen::Quaterniond(quaternion[0], quaternion[1], quaternion[2], quaternion[3])
      .normalized()
      .toRotationMatrix();
}
Eigen::Isometry3d frame_at(const mjtNum* position, const mjtNum* quaternion) {
  Eigen::Isometry3d frame = Eigen::Isometry3d::Identity();
  frame.linear() = rotation_at(quaternion);
  frame.translation() = vector_at(position);
  return frame;
}
Eigen::Isometry3d translation(const Eigen::Vector3d& offset) {
  Eigen::Isometry3d frame = Eigen::Isometry3d::Identity();
  frame.translation() = offset;
  return frame;
}

std::string object_name(const mjModel* model, int type, int id, const std::string& fallback) {
  const char* name = mj_id2name(model, type, id);
  return name && name[0] ? std::string(name) : fallback;
}

// The mechanism of a compiled model. Per body: the link carrying its mass (last of its joint
// chain) and `in_link`, the MuJoCo body frame in that link's frame.
class MjcfConverter {
 public:
  MjcfConverter(const mjModel* model, std::string path, bool strict)
      : model_(model), path_(std::move(path)), audit_(strict) {}

  Mechanism convert() {
    mechanism_.source = path_;
    mechanism_.name = model_->names[0] ? std::string(model_->names) : std::string();
    const int bodies = model_->nbody;
    body_link_.assign(bodies, -1);
    in_link_.assign(bodies, Eigen::Isometry3d::Identity());
    joint_index_.assign(model_->njnt, -1);
    if (bodies <= 1) fail({path_, 0}, "the model has no bodies besides the world");
    for (int b = 1; b < bodies; ++b) add_body(b);
    add_sites();
    add_visuals();
    add_equalities();
    audit_.report(mechanism_);
    return std::move(mechanism_);
  }

  std::vector<std::string>& warnings() { return mechanism_.warnings; }
  // Mesh assets whose files were missing (placeholders): name -> the file as written.
  void set_missing_meshes(std::vector<std::pair<std::string, std::string>> missing) {
    missing_meshes_ = std::move(missing);
  }

 private:
  int link_of_body(int b) const { return b == 0 ? -1 : body_link_[b]; }
  Eigen::Isometry3d body_in_link(int b) const {
    return b == 0 ? Eigen::Isometry3d::Identity() : in_link_[b];
  }

  int add_link(const std::string& name) {
    Link link;
    link.name = name;
    mechanism_.links.push_back(link);
    return static_cast<int>(mechanism_.links.size()) - 1;
  }

  // MuJoCo's kinematics (mj_kinematics): B_0 = B_parent T(body_pos, body_quat); a hinge or ball
  // turns the body about its anchor p by its position measured from the reference (qpos - qpos0),
  // B_i = B_{i-1} T(p) R T(-p); a slide moves it along its axis. With the link frame
  // L_i = B_i T(p_i) (the anchor, the body's orientation) and skograph's q = qpos - qpos0, each
  // joint's origin in the previous link frame is E_{i-1} T(p_i), and the body frame in L_i is
  // E_i = T(-p_i).
  void add_body(int b) {
    const std::string body_name = object_name(model_, mjOBJ_BODY, b, "body" + std::to_string(b));
    const int parent_body = model_->body_parentid[b];
    int parent_link = link_of_body(parent_body);
    Eigen::Isometry3d previous =
        body_in_link(parent_body) * frame_at(model_->body_pos + 3 * b, model_->body_quat + 4 * b);
    const int first = model_->body_jntadr[b], count = model_->body_jntnum[b];
    if (count == 0) {
      Joint weld;
      weld.name = body_name + "_weld";
      weld.type = JointType::kFixed;
      weld.parent = parent_link;
      weld.origin = previous;
      weld.child = add_link(body_name);
      mechanism_.joints.push_back(weld);
      parent_link = weld.child;
      previous = Eigen::Isometry3d::Identity();
    }
    for (int i = 0; i < count; ++i) {
      const int j = first + i;
      Joint joint;
      joint.name =
          object_name(model_, mjOBJ_JOINT, j, body_name + "_joint" + std::to_string(i + 1));
      const Eigen::Vector3d anchor = vector_at(model_->jnt_pos + 3 * j);
      const Eigen::Vector3d axis = vector_at(model_->jnt_axis + 3 * j);
      const double reference = model_->qpos0[model_->jnt_qposadr[j]];  // limits are in qpos
      Eigen::Isometry3d origin = previous * translation(anchor);
      Eigen::Isometry3d body_frame = translation(-anchor);
      switch (model_->jnt_type[j]) {
        case mjJNT_HINGE:
          joint.type = model_->jnt_limited[j] ? JointType::kRevolute : JointType::kContinuous;
          joint.axis = axis.normalized();
          if (model_->jnt_limited[j]) {
            joint.lower = model_->jnt_range[2 * j] - reference;
            joint.upper = model_->jnt_range[2 * j + 1] - reference;
          }
          break;
        case mjJNT_SLIDE:
          joint.type = JointType::kPrismatic;
          joint.axis = axis.normalized();
          if (model_->jnt_limited[j]) {
            joint.lower = model_->jnt_range[2 * j] - reference;
            joint.upper = model_->jnt_range[2 * j + 1] - reference;
          }
          break;
        case mjJNT_BALL:
          joint.type = JointType::kSpherical;
          break;
        default:  // mjJNT_FREE: MuJoCo places the body frame itself (no anchor)
          joint.type = JointType::kFloating;
          origin = previous;
          body_frame = Eigen::Isometry3d::Identity();
          break;
      }
      joint.parent = parent_link;
      joint.origin = origin;
      joint.child = add_link(i + 1 == count ? body_name : body_name + "/" + joint.name);
      joint_index_[j] = static_cast<int>(mechanism_.joints.size());
      mechanism_.joints.push_back(joint);
      parent_link = joint.child;
      previous = body_frame;
    }
    body_link_[b] = parent_link;
    in_link_[b] = previous;

    // Mass properties: the center of mass and principal axes (body_ipos, body_iquat) in the
    // body frame, moved into the link frame.
    Link& link = mechanism_.links[parent_link];
    link.mass = model_->body_mass[b];
    const Eigen::Isometry3d inertial =
        previous * frame_at(model_->body_ipos + 3 * b, model_->body_iquat + 4 * b);
    link.center_of_mass = inertial.translation();
    const Eigen::Matrix3d principal = vector_at(model_->body_inertia + 3 * b).asDiagonal();
    link.inertia = inertial.linear() * principal * inertial.linear().transpose();
    audit_.check({path_, 0}, link);
  }

  void add_sites() {
    for (int s = 0; s < model_->nsite; ++s) {
      const char* name = mj_id2name(model_, mjOBJ_SITE, s);
      if (!name || !name[0]) continue;
      const int b = model_->site_bodyid[s];
      mechanism_.frames.push_back(
          {name, link_of_body(b),
           body_in_link(b) * frame_at(model_->site_pos + 3 * s, model_->site_quat + 4 * s)});
    }
  }

  // The geoms MuJoCo's viewer shows by default (groups 0 to 2) on the bodies, in their links'
  // frames: a box's size is twice MuJoCo's half sides, a cylinder's and a capsule's length twice
  // the half length; an ellipsoid is a unit sphere scaled by its radii; a mesh takes MuJoCo's
  // own vertices (already in the geom's frame), or its file when that was missing.
  void add_visuals() {
    for (int g = 0; g < model_->ngeom; ++g) {
      const int b = model_->geom_bodyid[g];
      if (b == 0 || model_->geom_group[g] > 2) continue;
      const mjtNum* size = model_->geom_size + 3 * g;
      Visual visual;
      switch (model_->geom_type[g]) {
        case mjGEOM_BOX:
          visual.shape = VisualShape::kBox;
          visual.size = 2.0 * vector_at(size);
          break;
        case mjGEOM_SPHERE:
          visual.shape = VisualShape::kSphere;
          visual.size = {size[0], 0.0, 0.0};
          break;
        case mjGEOM_ELLIPSOID:
          visual.shape = VisualShape::kSphere;
          visual.size = {1.0, 0.0, 0.0};
          visual.scale = vector_at(size);
          break;
        case mjGEOM_CYLINDER:
          visual.shape = VisualShape::kCylinder;
          visual.size = {size[0], 2.0 * size[1], 0.0};
          break;
        case mjGEOM_CAPSULE:
          visual.shape = VisualShape::kCapsule;
          visual.size = {size[0], 2.0 * size[1], 0.0};
          break;
        case mjGEOM_MESH:
          if (!mesh_visual(model_->geom_dataid[g], visual)) continue;
          break;
        default:  // planes, height fields: not bodies' shapes
          continue;
      }
      visual.origin =
          body_in_link(b) * frame_at(model_->geom_pos + 3 * g, model_->geom_quat + 4 * g);
      // The geom's rgba when it is not MuJoCo's default, else its material's (MuJoCo's rule).
      const int material = model_->geom_matid[g];
      const float* rgba = model_->geom_rgba + 4 * g;
      const bool default_rgba =
          rgba[0] == 0.5f && rgba[1] == 0.5f && rgba[2] == 0.5f && rgba[3] == 1.0f;
      if (material >= 0 && default_rgba) rgba = model_->mat_rgba + 4 * material;
      visual.rgba = {rgba[0], rgba[1], rgba[2], rgba[3]};
      Link& link = mechanism_.links[static_cast<std::size_t>(link_of_body(b))];
      const char* name = mj_id2name(model_, mjOBJ_GEOM, g);
      const std::string owner =
          "geom " + (name && name[0] ? "'" + std::string(name) + "'" : std::to_string(g + 1)) +
          " of body '" + object_name(model_, mjOBJ_BODY, b, "") + "'";
      if (io::usable_visual(mechanism_, owner, visual)) link.visuals.push_back(std::move(visual));
    }
  }

  bool mesh_visual(int mesh, Visual& visual) {
    if (mesh < 0 || mesh >= model_->nmesh) return false;
    visual.shape = VisualShape::kMesh;
    const char* name = mj_id2name(model_, mjOBJ_MESH, mesh);
    visual.mesh_file = name ? name : "";
    for (const auto& [missing_name, file] : missing_meshes_)
      if (missing_name == visual.mesh_file) {
        visual.mesh_file = file;  // the placeholder is not the mesh: the view says it is missing
        return true;
      }
    if (const auto found = meshes_.find(mesh); found != meshes_.end()) {
      visual.triangles = found->second;  // one copy for every geom that shows the mesh
      return true;
    }
    auto triangles = std::make_shared<TriangleMesh>();
    const float* vertices = model_->mesh_vert + 3 * model_->mesh_vertadr[mesh];
    triangles->vertices.assign(vertices, vertices + 3 * model_->mesh_vertnum[mesh]);
    const int* faces = model_->mesh_face + 3 * model_->mesh_faceadr[mesh];
    for (int i = 0; i < 3 * model_->mesh_facenum[mesh]; ++i)
      triangles->triangles.push_back(static_cast<std::uint32_t>(faces[i]));
    meshes_[mesh] = triangles;
    visual.triangles = std::move(triangles);
    return true;
  }

  void add_equalities() {
    const std::vector<int> lines = equality_lines(path_);
    for (int e = 0; e < model_->neq; ++e) {
      const int line = static_cast<std::size_t>(e) < lines.size() &&
                               static_cast<int>(lines.size()) == model_->neq
                           ? lines[e]
                           : 0;
      const SourceLocation where{path_, line};
      const mjtNum* data = model_->eq_data + mjNEQDATA * e;
      const int first = model_->eq_obj1id[e], second = model_->eq_obj2id[e];
      const std::string name =
          object_name(model_, mjOBJ_EQUALITY, e, "equality" + std::to_string(e + 1));
      const std::string owner = "equality '" + name + "'";
      if (!model_->eq_active[e]) {
        mechanism_.warnings.push_back(owner + " is inactive (active=\"false\") and not embedded");
        continue;
      }
      switch (model_->eq_type[e]) {
        case mjEQ_CONNECT: {
          // data[0:3]: the anchor in body1; data[3:6]: the same point in body2 at qpos0.
          LoopClosure loop;
          loop.name = name;
          loop.type = LoopType::kSpherical;
          loop.source_line = line;
          loop.parent = link_of_body(first);
          loop.parent_origin = body_in_link(first) * translation(vector_at(data));
          loop.child = link_of_body(second);
          loop.child_origin = body_in_link(second) * translation(vector_at(data + 3));
          mechanism_.loops.push_back(loop);
          break;
        }
        case mjEQ_WELD: {
          // MuJoCo 2.2.2 (engine_core_constraint.c): body1's point data[3:6] meets body2's anchor
          // data[0:3], and q1 * relquat(data[6:10]) = q2.
          LoopClosure loop;
          loop.name = name;
          loop.type = LoopType::kWeld;
          loop.source_line = line;
          loop.parent = link_of_body(first);
          loop.parent_origin = body_in_link(first) * frame_at(data + 3, data + 6);
          loop.child = link_of_body(second);
          loop.child_origin = body_in_link(second) * translation(vector_at(data));
          mechanism_.loops.push_back(loop);
          break;
        }
        case mjEQ_JOINT: {
          const std::string joint1 = object_name(model_, mjOBJ_JOINT, first, "joint1");
          if (second < 0)
            fail(where, owner + " locks joint '" + joint1 +
                            "' (no joint2): skograph embeds couplings of two joints only");
          for (int c = 2; c < 5; ++c)
            if (data[c] != 0.0) {
              std::ostringstream problem;
              problem << owner << " has polycoef terms beyond the linear one (c" << c << " = "
                      << data[c] << "): skograph embeds linear couplings q1 = c0 + c1 q2";
              fail(where, problem.str());
            }
          if (data[1] == 0.0)
            fail(where, owner + " has polycoef c1 = 0, which locks joint '" + joint1 +
                            "' instead of coupling it");
          Coupling coupling;
          coupling.name = name;
          coupling.joint_a = joint_index_[first];
          coupling.joint_b = joint_index_[second];
          coupling.ratio = data[1];
          coupling.offset = data[0];
          coupling.source_line = line;
          mechanism_.couplings.push_back(coupling);
          break;
        }
        case mjEQ_TENDON:
          fail(where, owner + " couples tendons, which skograph does not model");
        default:
          fail(where, owner + " is a distance equality, which MuJoCo no longer supports");
      }
    }
  }

  const mjModel* model_;
  std::string path_;
  io::InertiaAudit audit_;
  Mechanism mechanism_;
  std::vector<int> body_link_;
  std::vector<Eigen::Isometry3d> in_link_;
  std::vector<int> joint_index_;  // MuJoCo joint id -> skograph joint index
  std::vector<std::pair<std::string, std::string>> missing_meshes_;
  std::map<int, std::shared_ptr<const TriangleMesh>> meshes_;  // MuJoCo mesh id -> triangles
};

}  // namespace

Mechanism read_mjcf_file(const std::string& path, const ReadOptions& options) {
  // Bytes and nesting checked before MuJoCo's parser sees the file (io/xml_input.hpp).
  io::read_xml_file(path);
  std::vector<std::string> warnings;
  ModelPointer model;
  std::vector<std::pair<std::string, std::string>> missing_meshes;
  try {
    model = compile(path, warnings);
  } catch (const InputError& e) {
    // Meshes are not dynamics: mesh files that are absent, when every body holding such a mesh
    // has its own <inertial>, are replaced by placeholders in MuJoCo's virtual file system.
    const MeshCheck meshes = check_meshes(path);
    if (meshes.missing.empty()) throw;
    if (!meshes.body_needing_mesh.empty()) {
      const std::string prefix =
          e.source() + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": ";
      std::string problem = std::string(e.what()).substr(prefix.size());
      while (!problem.empty() && (problem.back() == ':' || problem.back() == ' '))
        problem.pop_back();
      throw InputError(e.source(), e.line(),
                       problem + " (the mesh file is missing, and body '" +
                           meshes.body_needing_mesh +
                           "' has no <inertial>: its inertia would come from the mesh)");
    }
    VfsPointer vfs(new mjVFS);
    mj_defaultVFS(vfs.get());
    std::string names;
    for (const std::string& file : meshes.missing) {
      const std::string bytes = placeholder_mesh(file);
      const std::string name = std::filesystem::path(file).filename().string();
      if (bytes.empty() || mj_findFileVFS(vfs.get(), name.c_str()) >= 0) continue;
      if (mj_makeEmptyFileVFS(vfs.get(), name.c_str(), static_cast<int>(bytes.size())) != 0) throw;
      std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name.c_str())], bytes.data(),
                  bytes.size());
      names += (names.empty() ? "" : ", ") + file;
    }
    for (std::size_t i = 0; i < meshes.missing.size(); ++i)
      missing_meshes.emplace_back(meshes.missing_names[i], meshes.missing_paths[i]);
    warnings.clear();
    model = compile(path, warnings, vfs.get());
    warnings.insert(warnings.begin(),
                    std::to_string(meshes.missing.size()) + " mesh file(s) missing (" + names +
                        "): placeholder geometry; the dynamics take every body's <inertial>");
  }
  MjcfConverter converter(model.get(), path, options.strict);
  converter.set_missing_meshes(std::move(missing_meshes));
  Mechanism mechanism = converter.convert();
  for (const std::string& warning : warnings)
    mechanism.warnings.push_back(warning.find("mesh file(s) missing") != std::string::npos
                                     ? warning
                                     : "MuJoCo: " + one_line(warning));
  return mechanism;
}

}  // namespace skograph

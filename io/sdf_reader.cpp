#include "skograph/io/sdf_reader.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sdf/Box.hh>
#include <sdf/Capsule.hh>
#include <sdf/Console.hh>
#include <sdf/Cylinder.hh>
#include <sdf/Ellipsoid.hh>
#include <sdf/Frame.hh>
#include <sdf/Geometry.hh>
#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Link.hh>
#include <sdf/Material.hh>
#include <sdf/Mesh.hh>
#include <sdf/Model.hh>
#include <sdf/Root.hh>
#include <sdf/Sphere.hh>
#include <sdf/Visual.hh>
#include <sdf/World.hh>
#include <set>
#include <vector>

#include "mechanism_checks.hpp"
#include "skograph/graph/disjoint_sets.hpp"
#include "skograph/graph/undirected_spanning_tree.hpp"
#include "skograph/rigid/tree_joint_choice.hpp"
#include "xml_input.hpp"

namespace skograph {

namespace {

using io::fail;
using io::SourceLocation;

// The lines of the model's elements and the checks that sdformat reports without a line: unknown
// joint types and joints naming missing links or frames (TinyXML-2, sdformat's own XML parser).
struct SdfOutline {
  std::map<std::string, int> link_line, joint_line;
  std::set<std::string> frames;
};

std::string child_text(const tinyxml2::XMLElement* element, const char* tag) {
  const tinyxml2::XMLElement* child = element->FirstChildElement(tag);
  const char* text = child ? child->GetText() : nullptr;
  std::string value = text ? text : "";
  const auto first = value.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return value.substr(first, value.find_last_not_of(" \t\r\n") - first + 1);
}

SdfOutline outline_sdf(const std::string& path) {
  // Bytes and nesting checked before any parser sees them (io/xml_input.hpp).
  const std::string text = io::read_xml_file(path);
  tinyxml2::XMLDocument document;
  if (document.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
    fail({path, document.ErrorLineNum()},
         std::string("malformed XML (") + document.ErrorName() + ")");
  }
  const tinyxml2::XMLElement* root = document.RootElement();
  if (!root || std::string(root->Name()) != "sdf")
    fail({path, root ? root->GetLineNum() : 0}, "not an SDF file: the root element is not <sdf>");
  const tinyxml2::XMLElement* model = root->FirstChildElement("model");
  if (!model) {
    const tinyxml2::XMLElement* world = root->FirstChildElement("world");
    model = world ? world->FirstChildElement("model") : nullptr;
  }
  if (!model) fail({path, root->GetLineNum()}, "the file has no <model>");
  for (const char* nested : {"model", "include"})
    if (const tinyxml2::XMLElement* e = model->FirstChildElement(nested))
      fail({path, e->GetLineNum()},
           std::string("nested models (<") + nested + "> in a <model>) are not supported");
  SdfOutline outline;
  for (const tinyxml2::XMLElement* e = model->FirstChildElement("link"); e;
       e = e->NextSiblingElement("link"))
    outline.link_line[e->Attribute("name") ? e->Attribute("name") : ""] = e->GetLineNum();
  for (const tinyxml2::XMLElement* e = model->FirstChildElement("frame"); e;
       e = e->NextSiblingElement("frame"))
    outline.frames.insert(e->Attribute("name") ? e->Attribute("name") : "");
  static const std::set<std::string> kTypes = {"revolute", "continuous", "prismatic", "ball",
                                               "fixed",    "universal",  "revolute2"};
  for (const tinyxml2::XMLElement* e = model->FirstChildElement("joint"); e;
       e = e->NextSiblingElement("joint")) {
    const std::string name = e->Attribute("name") ? e->Attribute("name") : "";
    const std::string type = e->Attribute("type") ? e->Attribute("type") : "";
    const SourceLocation where{path, e->GetLineNum()};
    outline.joint_line[name] = e->GetLineNum();
    if (!kTypes.count(type))
      fail(where, "joint '" + name + "' has type '" + type +
                      "' (skograph reads revolute, continuous, prismatic, ball, fixed, universal "
                      "and revolute2 joints)");
    for (const char* end : {"parent", "child"}) {
      const std::string link = child_text(e, end);
      const tinyxml2::XMLElement* element = e->FirstChildElement(end);
      if (link.empty()) fail(where, "joint '" + name + "' has no <" + end + ">");
      if (link != "world" && !outline.link_line.count(link) && !outline.frames.count(link))
        fail({path, element->GetLineNum()},
             "joint '" + name + "' names missing " + end + " link '" + link + "'");
    }
  }
  return outline;
}

Eigen::Isometry3d isometry(const ignition::math::Pose3d& pose) {
  Eigen::Isometry3d frame = Eigen::Isometry3d::Identity();
  const ignition::math::Quaterniond& q = pose.Rot();
  frame.linear() = Eigen::Quaterniond(q.W(), q.X(), q.Y(), q.Z()).normalized().toRotationMatrix();
  frame.translation() = Eigen::Vector3d(pose.Pos().X(), pose.Pos().Y(), pose.Pos().Z());
  return frame;
}

// sdformat's first error as one line, at the line of the element it names ("name[x]") when known.
[[noreturn]] void fail_with_sdformat_error(const std::string& path, const SdfOutline& outline,
                                           const sdf::Errors& errors) {
  std::string message = errors.front().Message();
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  int line = errors.front().LineNumber().value_or(0);
  std::smatch match;
  static const std::regex kName(R"(name\[([^\]]*)\])");
  if (line == 0 && std::regex_search(message, match, kName)) {
    const std::string name = match[1].str();
    if (outline.joint_line.count(name)) line = outline.joint_line.at(name);
    if (outline.link_line.count(name)) line = outline.link_line.at(name);
  }
  fail({path, line}, "sdformat: " + message);
}

LoopType loop_type_of(sdf::JointType type) {
  switch (type) {
    case sdf::JointType::PRISMATIC:
      return LoopType::kPrismatic;
    case sdf::JointType::BALL:
      return LoopType::kSpherical;
    case sdf::JointType::FIXED:
      return LoopType::kWeld;
    default:
      return LoopType::kRevolute;
  }
}

class SdfConverter {
 public:
  SdfConverter(const sdf::Model& model, std::string path, const SdfOutline& outline,
               const ReadOptions& options)
      : model_(model),
        path_(std::move(path)),
        outline_(outline),
        audit_(options.strict),
        independent_(options.independent) {
    independent_.insert(independent_.end(), options.tree_joints.begin(), options.tree_joints.end());
  }

  Mechanism convert() {
    mechanism_.source = path_;
    mechanism_.name = model_.Name();
    const int links = static_cast<int>(model_.LinkCount());
    if (links == 0) fail({path_, 0}, "the model has no links");
    model_in_world_ = model_.PoseRelativeTo().empty() ? isometry(model_.RawPose())
                                                      : Eigen::Isometry3d::Identity();
    for (int k = 0; k < links; ++k) {
      const sdf::Link& link = *model_.LinkByIndex(static_cast<uint64_t>(k));
      link_index_[link.Name()] = k;
      link_pose_.push_back(resolve(link.SemanticPose()));
    }
    choose_tree();
    in_link_.assign(links, Eigen::Isometry3d::Identity());
    link_of_.assign(links, -1);
    add_links_and_tree_joints();
    add_loops();
    add_frames();
    audit_.report(mechanism_);
    if (choice_.changed()) mechanism_.notes.push_back(tree_joint_choice_note(choice_));
    return std::move(mechanism_);
  }

 private:
  // A pose in the model frame.
  Eigen::Isometry3d resolve(const sdf::SemanticPose& semantic) const {
    ignition::math::Pose3d pose;
    const sdf::Errors errors = semantic.Resolve(pose, "__model__");
    if (!errors.empty()) fail_with_sdformat_error(path_, outline_, errors);
    return isometry(pose);
  }

  int line_of_joint(const std::string& name) const {
    const auto it = outline_.joint_line.find(name);
    return it == outline_.joint_line.end() ? 0 : it->second;
  }

  // The link a joint end names (-1 = world): parent and child may name frames attached to links.
  int joint_end(const sdf::Joint& joint, bool parent) const {
    std::string link;
    const sdf::Errors errors =
        parent ? joint.ResolveParentLink(link) : joint.ResolveChildLink(link);
    if (!errors.empty()) fail_with_sdformat_error(path_, outline_, errors);
    if (link == "world") return -1;
    const auto it = link_index_.find(link);
    if (it == link_index_.end())
      fail({path_, line_of_joint(joint.Name())},
           "joint '" + joint.Name() + "' names missing link '" + link + "'");
    return it->second;
  }

  // The spanning tree (graph/undirected_spanning_tree.hpp, as rigid/tree_joint_choice.hpp chooses
  // it for URDF): universal and revolute2 joints first (they cannot close loops), then the joints
  // the options want independent, then fixed joints, each as long as it closes no cycle; the rest
  // breadth-first from the world, along the joints' directions where it can (1-dof and fixed
  // joints may be walked backwards: reversed). A link no joint connects to the world becomes a
  // root (preferring links that are no joint's child) and the search goes on from it.
  void choose_tree() {
    const int links = static_cast<int>(model_.LinkCount());
    const int joints = static_cast<int>(model_.JointCount());
    const int world = links;
    parent_of_joint_.resize(joints);
    child_of_joint_.resize(joints);
    std::vector<Edge> edges;
    std::vector<int> priority;
    std::vector<char> may_reverse, is_child(links, 0);
    std::set<std::string> wanted;  // joint names, and the joints of dof names "joint:k"
    for (const std::string& name : independent_) {
      wanted.insert(name);
      wanted.insert(joint_of_wanted_name(name));
    }
    for (int j = 0; j < joints; ++j) {
      const sdf::Joint& joint = *model_.JointByIndex(static_cast<uint64_t>(j));
      parent_of_joint_[j] = joint_end(joint, true);
      child_of_joint_[j] = joint_end(joint, false);
      if (child_of_joint_[j] < 0)
        fail({path_, line_of_joint(joint.Name())},
             "joint '" + joint.Name() + "' has the world as its child");
      if (parent_of_joint_[j] == child_of_joint_[j])
        fail({path_, line_of_joint(joint.Name())},
             "joint '" + joint.Name() + "' connects a link to itself");
      edges.emplace_back(parent_of_joint_[j] < 0 ? world : parent_of_joint_[j], child_of_joint_[j]);
      const sdf::JointType type = joint.Type();
      const bool two_axes = type == sdf::JointType::UNIVERSAL || type == sdf::JointType::REVOLUTE2;
      priority.push_back(tree_joint_priority(two_axes, wanted.count(joint.Name()) > 0,
                                             type == sdf::JointType::FIXED));
      may_reverse.push_back(!two_axes && type != sdf::JointType::BALL);
      is_child[child_of_joint_[j]] = 1;
    }
    // One root per set of links no joint connects to the world: its first link (file order)
    // that is no joint's child, else its first link.
    DisjointSets connected(links + 1);
    for (const Edge& edge : edges) connected.join(edge.first, edge.second);
    std::vector<char> has_root(static_cast<std::size_t>(links + 1), 0);
    has_root[static_cast<std::size_t>(connected.find(world))] = 1;
    auto add_root = [&](int k) {  // a floating (or, static, welded) joint from the world
      roots_.push_back(k);
      edges.emplace_back(world, k);
      priority.push_back(-1);
      may_reverse.push_back(0);
    };
    for (const bool prefer_roots : {true, false})
      for (int k = 0; k < links; ++k) {
        const int set = connected.find(k);
        if (has_root[static_cast<std::size_t>(set)] || (prefer_roots && is_child[k])) continue;
        has_root[static_cast<std::size_t>(set)] = 1;
        add_root(k);
      }
    // A link reached only against a joint that is never walked backwards (ball, universal,
    // revolute2) becomes a root too, as before the tree was chosen undirected; one search per
    // such root (rare).
    UndirectedSpanningTree tree =
        undirected_spanning_tree(links + 1, edges, priority, 3, world, may_reverse);
    for (;;) {
      int unreached = -1;
      for (const bool prefer_roots : {true, false})
        for (int k = 0; k < links && unreached < 0; ++k)
          if (!tree.reached(k) && !(prefer_roots && is_child[k])) unreached = k;
      if (unreached < 0) break;
      add_root(unreached);
      tree = undirected_spanning_tree(links + 1, edges, priority, 3, world, may_reverse);
    }
    tree_joint_of_.assign(links, -1);
    is_tree_joint_.assign(joints, 0);
    tree_child_of_joint_.assign(joints, -1);
    for (int k = 0; k < links; ++k) {
      const int e = tree.parent_edge[static_cast<std::size_t>(k)];
      if (e < 0 || e >= joints) continue;
      tree_joint_of_[k] = e;
      is_tree_joint_[e] = 1;
      tree_child_of_joint_[e] = k;
    }
    for (int j = 0; j < joints; ++j) {
      if (!is_tree_joint_[j] || tree_child_of_joint_[j] == child_of_joint_[j]) continue;
      const sdf::Joint& joint = *model_.JointByIndex(static_cast<uint64_t>(j));
      if (!may_reverse[static_cast<std::size_t>(j)])
        fail({path_, line_of_joint(joint.Name())},
             "joint '" + joint.Name() + "' would have to be reversed to reach link '" +
                 model_.LinkByIndex(static_cast<uint64_t>(tree_child_of_joint_[j]))->Name() +
                 "' from the world; skograph reverses 1-dof and fixed joints only");
      choice_.reversed.push_back(joint.Name());
    }
    for (int j = 0; j < joints; ++j) {
      if (is_tree_joint_[j]) continue;
      choice_.cut.push_back(model_.JointByIndex(static_cast<uint64_t>(j))->Name());
      if (priority[static_cast<std::size_t>(j)] == 1)
        choice_.wanted_cut.push_back(choice_.cut.back());
    }
  }

  int add_link(const std::string& name) {
    Link link;
    link.name = name;
    mechanism_.links.push_back(link);
    return static_cast<int>(mechanism_.links.size()) - 1;
  }

  // Links in file order, joints: the roots' floating or welding joints first, then the tree joints
  // in file order (a child link's frame is the joint frame; in_link_ is the SDF link frame there).
  void add_links_and_tree_joints() {
    const int links = static_cast<int>(model_.LinkCount());
    for (int k = 0; k < links; ++k) {
      const int j = tree_joint_of_[k];
      if (j >= 0) {
        const sdf::Joint& joint = *model_.JointByIndex(static_cast<uint64_t>(j));
        const Eigen::Isometry3d joint_pose = resolve(joint.SemanticPose());
        in_link_[k] = joint_pose.inverse() * link_pose_[k];
      }
    }
    std::vector<int> cross_of(model_.JointCount(), -1);
    for (int k = 0; k < links; ++k) {
      const sdf::JointType type = tree_joint_of_[k] < 0
                                      ? sdf::JointType::INVALID
                                      : model_.JointByIndex(tree_joint_of_[k])->Type();
      if (type == sdf::JointType::UNIVERSAL || type == sdf::JointType::REVOLUTE2)
        cross_of[tree_joint_of_[k]] =
            add_link(model_.JointByIndex(tree_joint_of_[k])->Name() + "/cross");
      link_of_[k] = add_link(model_.LinkByIndex(static_cast<uint64_t>(k))->Name());
      // The link's name names the SDF link frame, wherever the joint frame put the link frame.
      mechanism_.links[static_cast<std::size_t>(link_of_[k])].declared_frame = in_link_[k];
      add_inertial(k);
      add_visuals(k);
    }
    for (const int k : roots_) {
      Joint joint;
      const std::string name = model_.LinkByIndex(static_cast<uint64_t>(k))->Name();
      joint.name = name + (model_.Static() ? "_weld" : "_floating");
      joint.type = model_.Static() ? JointType::kFixed : JointType::kFloating;
      joint.parent = -1;
      joint.child = link_of_[k];
      joint.origin = model_in_world_ * link_pose_[k];
      mechanism_.joints.push_back(joint);
    }
    for (int j = 0; j < static_cast<int>(model_.JointCount()); ++j) {
      if (!is_tree_joint_[j]) continue;
      const sdf::Joint& joint = *model_.JointByIndex(static_cast<uint64_t>(j));
      // A reversed joint: the same joint frame, the links swapped, the axis turned (the motion by
      // q about -axis is the inverse of the one about axis: q keeps its meaning).
      const int child = tree_child_of_joint_[j];
      const bool reversed = child != child_of_joint_[j];
      const int parent = reversed ? child_of_joint_[j] : parent_of_joint_[j];
      if (reversed)  // the joint's name keeps naming its frame on the file's child link
        mechanism_.frames.push_back({joint.Name(), link_of_[parent],
                                     frame_in_link(parent, resolve(joint.SemanticPose())), true});
      Joint tree_joint;
      tree_joint.name = joint.Name();
      tree_joint.parent = parent < 0 ? -1 : link_of_[parent];
      tree_joint.child = link_of_[child];
      tree_joint.origin = frame_in_link(parent, resolve(joint.SemanticPose()));
      const SourceLocation where{path_, line_of_joint(joint.Name())};
      const std::string owner = "joint '" + joint.Name() + "'";
      switch (joint.Type()) {
        case sdf::JointType::FIXED:
          tree_joint.type = JointType::kFixed;
          break;
        case sdf::JointType::BALL:
          tree_joint.type = JointType::kSpherical;
          break;
        case sdf::JointType::PRISMATIC:
        case sdf::JointType::REVOLUTE:
        case sdf::JointType::CONTINUOUS:
          tree_joint.type = joint.Type() == sdf::JointType::PRISMATIC  ? JointType::kPrismatic
                            : joint.Type() == sdf::JointType::REVOLUTE ? JointType::kRevolute
                                                                       : JointType::kContinuous;
          tree_joint.axis = (reversed ? -1.0 : 1.0) * axis_of(joint, 0, where, owner);
          if (tree_joint.type != JointType::kContinuous) {
            tree_joint.lower = joint.Axis(0)->Lower();
            tree_joint.upper = joint.Axis(0)->Upper();
          }
          break;
        default: {  // universal, revolute2: two revolutes through a massless cross link
          Joint first = tree_joint, second = tree_joint;
          first.name = joint.Name() + ":0";
          first.type = JointType::kContinuous;
          first.axis = axis_of(joint, 0, where, owner);
          first.child = cross_of[j];
          second.name = joint.Name() + ":1";
          second.type = JointType::kContinuous;
          second.axis = axis_of(joint, 1, where, owner);
          second.parent = cross_of[j];
          second.origin = Eigen::Isometry3d::Identity();
          mechanism_.joints.push_back(first);
          mechanism_.joints.push_back(second);
          continue;
        }
      }
      mechanism_.joints.push_back(tree_joint);
    }
  }

  // A frame given in the model frame, in the skograph frame of `link` (-1: the world).
  Eigen::Isometry3d frame_in_link(int link, const Eigen::Isometry3d& in_model) const {
    if (link < 0) return model_in_world_ * in_model;
    return in_link_[link] * link_pose_[link].inverse() * in_model;
  }

  Eigen::Vector3d axis_of(const sdf::Joint& joint, unsigned index, const SourceLocation& where,
                          const std::string& owner) const {
    const sdf::JointAxis* axis = joint.Axis(index);
    if (!axis) fail(where, owner + " has no <axis" + (index ? "2" : "") + ">");
    ignition::math::Vector3d xyz;
    const sdf::Errors errors = axis->ResolveXyz(xyz);  // in the joint frame
    if (!errors.empty()) fail_with_sdformat_error(path_, outline_, errors);
    return io::unit_axis(where, owner, Eigen::Vector3d(xyz.X(), xyz.Y(), xyz.Z()));
  }

  // Link k's <visual> elements in its skograph link frame: boxes, cylinders, spheres, capsules,
  // ellipsoids (a unit sphere scaled by the radii) and meshes, with their material's diffuse
  // colour. Planes and height maps are not a body's shape.
  void add_visuals(int k) {
    const sdf::Link& source = *model_.LinkByIndex(static_cast<uint64_t>(k));
    Link& link = mechanism_.links[link_of_[k]];
    const auto line = outline_.link_line.find(source.Name());
    const SourceLocation where{path_, line == outline_.link_line.end() ? 0 : line->second};
    for (uint64_t v = 0; v < source.VisualCount(); ++v) {
      const sdf::Visual& sdf_visual = *source.VisualByIndex(v);
      const sdf::Geometry* geometry = sdf_visual.Geom();
      if (!geometry) continue;
      Visual visual;
      auto vector_of = [](const ignition::math::Vector3d& value) {
        return Eigen::Vector3d(value.X(), value.Y(), value.Z());
      };
      if (const sdf::Box* box = geometry->BoxShape()) {
        visual.shape = VisualShape::kBox;
        visual.size = vector_of(box->Size());
      } else if (const sdf::Cylinder* cylinder = geometry->CylinderShape()) {
        visual.shape = VisualShape::kCylinder;
        visual.size = {cylinder->Radius(), cylinder->Length(), 0.0};
      } else if (const sdf::Capsule* capsule = geometry->CapsuleShape()) {
        visual.shape = VisualShape::kCapsule;
        visual.size = {capsule->Radius(), capsule->Length(), 0.0};
      } else if (const sdf::Sphere* sphere = geometry->SphereShape()) {
        visual.shape = VisualShape::kSphere;
        visual.size = {sphere->Radius(), 0.0, 0.0};
      } else if (const sdf::Ellipsoid* ellipsoid = geometry->EllipsoidShape()) {
        visual.shape = VisualShape::kSphere;
        visual.size = {1.0, 0.0, 0.0};
        visual.scale = vector_of(ellipsoid->Radii());
      } else if (const sdf::Mesh* mesh = geometry->MeshShape()) {
        visual.shape = VisualShape::kMesh;
        visual.mesh_file = mesh->Uri();
        visual.scale = vector_of(mesh->Scale());
      } else {
        continue;
      }
      visual.origin = in_link_[k] * link_pose_[k].inverse() * resolve(sdf_visual.SemanticPose());
      // sdformat gives a material without <diffuse> (a script, a PBR block) opaque black: taken
      // as no colour, as the URDF reader does.
      if (const sdf::Material* material = sdf_visual.Material()) {
        const ignition::math::Color colour = material->Diffuse();
        if (!(colour.R() == 0.0f && colour.G() == 0.0f && colour.B() == 0.0f && colour.A() == 1.0f))
          visual.rgba = {colour.R(), colour.G(), colour.B(), colour.A()};
      }
      const std::string owner = "link '" + source.Name() + "' (line " + std::to_string(where.line) +
                                ") visual '" + sdf_visual.Name() + "'";
      if (io::usable_visual(mechanism_, owner, visual)) link.visuals.push_back(std::move(visual));
    }
  }

  void add_inertial(int k) {
    const sdf::Link& source = *model_.LinkByIndex(static_cast<uint64_t>(k));
    const ignition::math::Inertiald& inertial = source.Inertial();
    const ignition::math::MassMatrix3d& matrix = inertial.MassMatrix();
    Link& link = mechanism_.links[link_of_[k]];
    link.mass = matrix.Mass();
    const Eigen::Isometry3d frame = in_link_[k] * isometry(inertial.Pose());
    const ignition::math::Vector3d diagonal = matrix.DiagonalMoments();
    const ignition::math::Vector3d off = matrix.OffDiagonalMoments();  // ixy, ixz, iyz
    Eigen::Matrix3d inertia;
    inertia << diagonal.X(), off.X(), off.Y(), off.X(), diagonal.Y(), off.Z(), off.Y(), off.Z(),
        diagonal.Z();
    link.center_of_mass = frame.translation();
    link.inertia = frame.linear() * inertia * frame.linear().transpose();
    const auto line = outline_.link_line.find(source.Name());
    audit_.check({path_, line == outline_.link_line.end() ? 0 : line->second}, link);
  }

  // Joints that close a cycle: loop closures whose two closure frames are the joint frame.
  void add_loops() {
    for (int j = 0; j < static_cast<int>(model_.JointCount()); ++j) {
      if (is_tree_joint_[j]) continue;
      const sdf::Joint& joint = *model_.JointByIndex(static_cast<uint64_t>(j));
      const SourceLocation where{path_, line_of_joint(joint.Name())};
      const std::string owner = "joint '" + joint.Name() + "'";
      if (joint.Type() == sdf::JointType::UNIVERSAL || joint.Type() == sdf::JointType::REVOLUTE2)
        fail(where, owner + " closes a loop and is a " +
                        (joint.Type() == sdf::JointType::UNIVERSAL ? "universal" : "revolute2") +
                        " joint: skograph closes loops with revolute, continuous, prismatic, "
                        "ball and fixed joints (make it part of the tree by reordering the "
                        "joints)");
      const Eigen::Isometry3d joint_pose = resolve(joint.SemanticPose());
      const int parent = parent_of_joint_[j], child = child_of_joint_[j];
      LoopClosure loop;
      loop.name = joint.Name();
      loop.type = loop_type_of(joint.Type());
      loop.source_line = where.line;
      loop.parent = parent < 0 ? -1 : link_of_[parent];
      loop.child = link_of_[child];
      loop.parent_origin = frame_in_link(parent, joint_pose);
      loop.child_origin = frame_in_link(child, joint_pose);
      if (loop.type == LoopType::kRevolute || loop.type == LoopType::kPrismatic)
        loop.axis = axis_of(joint, 0, where, owner);
      mechanism_.loops.push_back(loop);
    }
  }

  void add_frames() {
    for (uint64_t f = 0; f < model_.FrameCount(); ++f) {
      const sdf::Frame& frame = *model_.FrameByIndex(f);
      std::string body;
      const sdf::Errors errors = frame.ResolveAttachedToBody(body);
      if (!errors.empty()) fail_with_sdformat_error(path_, outline_, errors);
      const auto it = link_index_.find(body);
      const int link = it == link_index_.end() ? -1 : it->second;
      mechanism_.frames.push_back({frame.Name(), link < 0 ? -1 : link_of_[link],
                                   frame_in_link(link, resolve(frame.SemanticPose()))});
    }
  }

  const sdf::Model& model_;
  std::string path_;
  const SdfOutline& outline_;
  io::InertiaAudit audit_;
  Mechanism mechanism_;
  Eigen::Isometry3d model_in_world_ = Eigen::Isometry3d::Identity();
  std::map<std::string, int> link_index_;     // SDF link name -> SDF link index
  std::vector<Eigen::Isometry3d> link_pose_;  // SDF link frame in the model frame
  std::vector<Eigen::Isometry3d> in_link_;    // SDF link frame in its skograph link frame
  std::vector<int> link_of_;                  // SDF link index -> skograph link index
  std::vector<int> parent_of_joint_, child_of_joint_, tree_joint_of_, roots_;
  std::vector<int>
      tree_child_of_joint_;  // the link a tree joint brings (its child unless reversed)
  std::vector<char> is_tree_joint_;
  std::vector<std::string> independent_;  // ReadOptions::independent: kept in the tree
  TreeJointChoice choice_;
};

}  // namespace

Mechanism read_sdf_file(const std::string& path, const ReadOptions& options) {
  const SdfOutline outline = outline_sdf(path);
  sdf::Console::Instance()->SetQuiet(true);
  sdf::Root root;
  sdf::Errors errors;
  try {
    errors = root.Load(path);
  } catch (const std::exception& e) {  // sdformat's own parsing throws, e.g. std::stoi of a version
    fail({path, 0}, std::string("sdformat could not read the file (") + e.what() + ")");
  }
  if (!errors.empty()) fail_with_sdformat_error(path, outline, errors);
  const sdf::Model* model = root.Model();
  if (!model && root.WorldCount() > 0 && root.WorldByIndex(0)->ModelCount() > 0)
    model = root.WorldByIndex(0)->ModelByIndex(0);
  if (!model) fail({path, 0}, "the file has no <model>");
  SdfConverter converter(*model, path, outline, options);
  return converter.convert();
}

}  // namespace skograph

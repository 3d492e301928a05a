#include "skograph/io/urdf_reader.hpp"

#include <console_bridge/console.h>
#include <tinyxml.h>

#include <urdf_parser/urdf_parser.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>

#include "mechanism_checks.hpp"
#include "skograph/graph/disjoint_sets.hpp"
#include "skograph/graph/text_input.hpp"
#include "skograph/rigid/tree_joint_choice.hpp"
#include "urdf_outline.hpp"
#include "xml_input.hpp"

namespace skograph {

namespace {

using io::CouplingTag;
using io::fail;
using io::LoopTag;
using io::MimicTag;
using io::outline_urdf;
using io::SourceLocation;
using io::UrdfOutline;

// Keeps urdfdom's first error message instead of printing it, so errors stay one line.
class FirstErrorHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR && first_error.empty())
      first_error = text;
  }
  std::string first_error;
};

Eigen::Vector3d vector_of(const urdf::Vector3& v) {
  return {v.x, v.y, v.z};
}

Eigen::Isometry3d frame_of(const urdf::Pose& pose) {
  const Eigen::Quaterniond rotation(pose.rotation.w, pose.rotation.x, pose.rotation.y,
                                    pose.rotation.z);
  Eigen::Isometry3d frame = Eigen::Isometry3d::Identity();
  frame.linear() = rotation.normalized().toRotationMatrix();
  frame.translation() = vector_of(pose.position);
  return frame;
}

void require_finite_pose(const SourceLocation& where, const std::string& what,
                         const urdf::Pose& pose) {
  const urdf::Rotation& r = pose.rotation;
  io::require_finite(where, what + " xyz", vector_of(pose.position));
  if (!Eigen::Vector4d(r.x, r.y, r.z, r.w).allFinite())
    fail(where, what + " rpy has a component that is not a finite number");
}

// A link's <visual> elements: boxes, cylinders, spheres and meshes (urdfdom knows no other
// shape), each with its <origin> and its material's colour.
std::vector<Visual> visuals_of(const urdf::Link& urdf_link, int line, Mechanism& mechanism) {
  std::vector<Visual> visuals;
  int number = 0;
  for (const urdf::VisualSharedPtr& urdf_visual : urdf_link.visual_array) {
    if (!urdf_visual || !urdf_visual->geometry) continue;
    const std::string owner = "link '" + urdf_link.name + "' (line " + std::to_string(line) +
                              ") visual " + std::to_string(++number);
    Visual visual;
    visual.origin = frame_of(urdf_visual->origin);
    const urdf::Geometry& geometry = *urdf_visual->geometry;
    switch (geometry.type) {
      case urdf::Geometry::BOX:
        visual.shape = VisualShape::kBox;
        visual.size = vector_of(static_cast<const urdf::Box&>(geometry).dim);
        break;
      case urdf::Geometry::CYLINDER: {
        const auto& cylinder = static_cast<const urdf::Cylinder&>(geometry);
        visual.shape = VisualShape::kCylinder;
        visual.size = {cylinder.radius, cylinder.length, 0.0};
        break;
      }
      case urdf::Geometry::SPHERE:
        visual.shape = VisualShape::kSphere;
        visual.size = {static_cast<const urdf::Sphere&>(geometry).radius, 0.0, 0.0};
        break;
      case urdf::Geometry::MESH: {
        const auto& mesh = static_cast<const urdf::Mesh&>(geometry);
        visual.shape = VisualShape::kMesh;
        visual.mesh_file = mesh.filename;
        visual.scale = vector_of(mesh.scale);
        break;
      }
    }
    if (urdf_visual->material) {
      const urdf::Color& c = urdf_visual->material->color;
      // urdfdom gives a material without <color> (a texture, a name only) opaque black: taken as
      // no colour, so the picture's own shows (and black parts stay visible).
      if (!(c.r == 0.0f && c.g == 0.0f && c.b == 0.0f && c.a == 1.0f))
        visual.rgba = {c.r, c.g, c.b, c.a};
    }
    if (io::usable_visual(mechanism, owner, visual)) visuals.push_back(std::move(visual));
  }
  return visuals;
}

JointType joint_type_of(int urdf_type) {
  switch (urdf_type) {
    case urdf::Joint::REVOLUTE:
      return JointType::kRevolute;
    case urdf::Joint::CONTINUOUS:
      return JointType::kContinuous;
    case urdf::Joint::PRISMATIC:
      return JointType::kPrismatic;
    case urdf::Joint::FLOATING:
      return JointType::kFloating;
    case urdf::Joint::PLANAR:
      return JointType::kPlanar;
    default:
      return JointType::kFixed;
  }
}

// URDF <mimic> tags as gear couplings q[b] = k q[a] + c (rigid/mechanism.hpp). A tag that cannot
// be a coupling (the mimicked joint missing or fixed, a fixed or multi-dof joint, multiplier 0,
// which would lock the joint) is refused at its line under `strict`; otherwise it is ignored with
// a warning naming the line, and the joint moves on its own, as robot tools that skip <mimic> do.
void add_mimic_couplings(const UrdfOutline& outline, const std::string& source, bool strict,
                         Mechanism& mechanism) {
  std::string ignored;
  int ignored_count = 0;
  for (const MimicTag& tag : outline.mimics) {
    const std::string owner = "joint '" + tag.joint + "'";
    const int b = mechanism.find_joint(tag.joint), a = mechanism.find_joint(tag.mimicked);
    std::string problem;
    if (tag.mimicked.empty())
      problem = owner + " has a <mimic> without a joint";
    else if (a < 0)
      problem = owner + " mimics missing joint '" + tag.mimicked + "'";
    else if (a == b)
      problem = owner + " mimics itself";
    else if (mechanism.joints[b].type == JointType::kFixed)
      problem = owner + " is fixed and cannot mimic joint '" + tag.mimicked + "'";
    else if (mechanism.joints[a].type == JointType::kFixed)
      problem = owner + " mimics fixed joint '" + tag.mimicked + "', which has no motion";
    else if (joint_dof_count(mechanism.joints[b].type) != 1 ||
             joint_dof_count(mechanism.joints[a].type) != 1)
      problem = owner + " mimics joint '" + tag.mimicked +
                "', but <mimic> couples revolute, continuous and prismatic joints";
    else if (tag.multiplier == 0.0)
      problem = owner + " mimics joint '" + tag.mimicked +
                "' with multiplier 0, which locks the joint instead of coupling it";
    if (!problem.empty()) {
      if (strict) fail({source, tag.line}, problem + " (--strict refuses such <mimic> tags)");
      ignored +=
          (ignored.empty() ? "" : ", ") + ("line " + std::to_string(tag.line) + ": ") + problem;
      ++ignored_count;
      continue;
    }
    Coupling coupling;
    coupling.name = tag.joint;
    coupling.joint_a = b;
    coupling.joint_b = a;
    coupling.ratio = tag.multiplier;
    coupling.offset = tag.offset;
    coupling.source_line = tag.line;
    mechanism.couplings.push_back(coupling);
  }
  if (ignored_count > 0)
    mechanism.warnings.push_back(
        std::to_string(ignored_count) +
        (ignored_count == 1 ? " <mimic> tag ignored" : " <mimic> tags ignored") +
        " (the joints move on their own; --strict refuses them): " + ignored);
}

// URDF+ loops and couplings (the generalized_rbda format) into the mechanism, and the preferred
// independent coordinates: the joints the file marks independent (missing: true, as that format
// says) when it marks any, then the masters of <mimic> joints.
void add_urdf_plus(const UrdfOutline& outline, const std::string& source, Mechanism& m) {
  auto link_of = [&](const std::string& name) { return name == "world" ? -1 : m.find_link(name); };
  for (const LoopTag& tag : outline.loops) {
    LoopClosure loop;
    loop.name = tag.name;
    loop.type = tag.type == "prismatic"   ? LoopType::kPrismatic
                : tag.type == "fixed"     ? LoopType::kWeld
                : tag.type == "spherical" ? LoopType::kSpherical
                                          : LoopType::kRevolute;
    loop.parent = link_of(tag.links[0]);
    loop.child = link_of(tag.links[1]);
    // The file's link frames, which a reversed joint into the link moved (declared_frame).
    loop.parent_origin =
        loop.parent < 0
            ? tag.origins[0]
            : m.links[static_cast<std::size_t>(loop.parent)].declared_frame * tag.origins[0];
    loop.child_origin =
        loop.child < 0
            ? tag.origins[1]
            : m.links[static_cast<std::size_t>(loop.child)].declared_frame * tag.origins[1];
    if (loop.type == LoopType::kRevolute || loop.type == LoopType::kPrismatic)
      loop.axis = tag.axis.normalized();
    loop.source_line = tag.line;
    m.loops.push_back(loop);
  }
  for (const CouplingTag& tag : outline.couplings) {
    // The format's rate relation: the coordinates of the joints on the path from the links'
    // nearest common ancestor to the successor sum to ratio times those on the path to the
    // predecessor. The successor's own joint is the coupling's first; one joint on each side is
    // a gear, more a differential.
    auto path = [&](int link) {
      std::vector<int> joints;
      for (int l = link; l >= 0;) {
        const int j = m.parent_joint(l);
        if (j < 0) break;
        joints.push_back(j);
        l = m.joints[static_cast<std::size_t>(j)].parent;
      }
      return joints;  // from the link up to the root
    };
    std::vector<int> predecessor = path(link_of(tag.links[0]));
    std::vector<int> successor = path(link_of(tag.links[1]));
    while (!predecessor.empty() && !successor.empty() && predecessor.back() == successor.back()) {
      predecessor.pop_back();  // the common part above the nearest common ancestor
      successor.pop_back();
    }
    std::erase_if(predecessor, [&](int j) {
      return m.joints[static_cast<std::size_t>(j)].type == JointType::kFixed;
    });
    std::erase_if(successor, [&](int j) {
      return m.joints[static_cast<std::size_t>(j)].type == JointType::kFixed;
    });
    if (predecessor.empty() || successor.empty())
      fail({source, tag.line}, "coupling '" + tag.name +
                                   "': one of its links lies on the other's path to the root, so "
                                   "no joint lies on that side of their common ancestor");
    Coupling coupling;
    coupling.name = tag.name;
    coupling.joint_a = successor.front();
    std::vector<std::pair<int, double>> terms;
    for (const int j : predecessor) terms.emplace_back(j, tag.ratio);
    for (std::size_t i = 1; i < successor.size(); ++i) terms.emplace_back(successor[i], -1.0);
    coupling.joint_b = terms.front().first;
    coupling.ratio = terms.front().second;
    for (std::size_t i = 1; i < terms.size(); ++i) {
      coupling.further_joints.push_back(terms[i].first);
      coupling.further_ratios.push_back(terms[i].second);
    }
    coupling.type = terms.size() == 1 ? "gear" : "differential";
    coupling.source_line = tag.line;
    m.couplings.push_back(coupling);
  }
  if (!outline.independent.empty())
    for (const auto& [name, line] : outline.joints) {
      const auto marked = outline.independent.find(name);
      const int j = m.find_joint(name);
      if ((marked == outline.independent.end() || marked->second) && j >= 0 &&
          m.joints[static_cast<std::size_t>(j)].type != JointType::kFixed)
        m.preferred_independent.push_back(name);
    }
  for (const Coupling& coupling : m.couplings)  // a <mimic>'s master before its followers
    if (coupling.joint_b >= 0 && coupling.source_line > 0 &&
        std::find_if(outline.mimics.begin(), outline.mimics.end(), [&](const MimicTag& mimic) {
          return mimic.joint == coupling.name;
        }) != outline.mimics.end())
      m.preferred_independent.push_back(m.joints[static_cast<std::size_t>(coupling.joint_b)].name);
}

// A file whose joints form no tree: the tree keeps the joints <mimic> couples (read before) and
// those the user wants independent (--independent, a loop file's name_mot, URDF+ independent); the
// other cycles are cut (rigid/tree_joint_choice.hpp) into loops declared at their joint's line.
TreeJointChoice choose_tree(const UrdfOutline& outline, const std::string& source,
                            const ReadOptions& options, Mechanism& mechanism) {
  std::vector<std::string> wanted = options.independent;
  wanted.insert(wanted.end(), options.tree_joints.begin(), options.tree_joints.end());
  if (!outline.independent.empty())
    for (const auto& [name, line] : outline.joints) {
      const auto marked = outline.independent.find(name);
      if (marked == outline.independent.end() || marked->second) wanted.push_back(name);
    }
  const std::size_t first_cut = mechanism.loops.size();
  TreeJointChoice choice;
  try {
    choice = choose_tree_joints(mechanism, wanted);
  } catch (const TreeJointChoiceError& e) {
    const auto& lines = e.joint().empty() ? outline.link_line : outline.joint_line;
    const auto line = lines.find(e.joint().empty() ? e.link() : e.joint());
    fail({source, line == lines.end() ? 0 : line->second}, e.what());
  }
  for (std::size_t i = first_cut; i < mechanism.loops.size(); ++i)
    mechanism.loops[i].source_line = outline.joint_line.at(mechanism.loops[i].name);
  return choice;
}

}  // namespace

Mechanism parse_urdf(const std::string& text, const std::string& source,
                     const ReadOptions& options) {
  // TinyXML and urdfdom read past a character cut short and recurse once per nesting level.
  io::check_xml_text(text, source);
  const UrdfOutline outline = outline_urdf(text, source);

  FirstErrorHandler handler;
  console_bridge::useOutputHandler(&handler);
  console_bridge::setLogLevel(console_bridge::CONSOLE_BRIDGE_LOG_ERROR);
  const urdf::ModelInterfaceSharedPtr model =
      urdf::parseURDF(outline.urdfdom_text.empty() ? text : outline.urdfdom_text);
  console_bridge::restorePreviousOutputHandler();
  if (!model)
    fail({source, 0},
         "invalid URDF: " + (handler.first_error.empty() ? std::string("rejected by urdfdom")
                                                         : handler.first_error));

  Mechanism mechanism;
  mechanism.name = model->getName();
  mechanism.source = source;
  const std::string root = !outline.root.empty() ? outline.root
                           : model->getRoot()    ? model->getRoot()->name
                                                 : outline.links[0].first;
  const bool world_root = root == "world";
  io::InertiaAudit audit(options.strict);
  if (!world_root && outline.link_line.count("world"))
    fail({source, outline.link_line.at("world")},
         "link 'world' names the inertial frame and must be the root link");
  for (const auto& [name, line] : outline.links) {
    if (world_root && name == "world") continue;  // the inertial frame, not a body
    const urdf::LinkConstSharedPtr urdf_link = model->getLink(name);
    Link link;
    link.name = name;
    if (urdf_link && urdf_link->inertial) {
      const urdf::Inertial& in = *urdf_link->inertial;
      const SourceLocation where{source, line};
      require_finite_pose(where, "link '" + name + "' inertial origin", in.origin);
      const Eigen::Isometry3d inertial_frame = frame_of(in.origin);
      Eigen::Matrix3d inertia;
      inertia << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      link.mass = in.mass;
      link.center_of_mass = inertial_frame.translation();
      // About the COM still; only the axes change: I_link = R I_inertial R^T.
      link.inertia = inertial_frame.linear() * inertia * inertial_frame.linear().transpose();
      if (!inertia.allFinite())
        fail(where, "link '" + name + "' inertia has an entry that is not a finite number");
      audit.check(where, link);
    }
    if (urdf_link) link.visuals = visuals_of(*urdf_link, line, mechanism);
    mechanism.links.push_back(link);
  }

  std::unordered_map<std::string, int> link_index;  // Mechanism::find_link is a linear search
  link_index.reserve(mechanism.links.size());
  for (size_t k = 0; k < mechanism.links.size(); ++k)
    link_index.emplace(mechanism.links[k].name, static_cast<int>(k));
  std::vector<int> joint_lines;
  if (!world_root) {
    std::string name = root + "_to_world";
    while (outline.joint_line.count(name)) name += "_";
    Joint weld;
    weld.name = name;
    weld.type = JointType::kFixed;
    weld.parent = -1;
    weld.child = link_index.at(root);
    mechanism.joints.push_back(weld);
    joint_lines.push_back(0);
  }
  for (const auto& [name, line] : outline.joints) {
    const urdf::JointConstSharedPtr urdf_joint = model->getJoint(name);
    const SourceLocation where{source, line};
    // Names reach urdfdom through a rewritten document when joints were set aside; a name whose
    // character references read differently there is not found.
    if (!urdf_joint) fail(where, "joint '" + name + "' is not in the model urdfdom read");
    Joint joint;
    joint.name = name;
    joint.type = joint_type_of(urdf_joint->type);
    const auto parent = link_index.find(urdf_joint->parent_link_name);
    if (!(urdf_joint->parent_link_name == "world" && world_root) && parent == link_index.end())
      fail(where, "joint '" + name + "' names parent link '" + urdf_joint->parent_link_name +
                      "', which is not in the model urdfdom read");
    joint.parent = parent == link_index.end() ? -1 : parent->second;
    const auto set_aside = outline.set_aside_child.find(name);
    const auto child =
        link_index.find(set_aside == outline.set_aside_child.end() ? urdf_joint->child_link_name
                                                                   : set_aside->second);
    joint.child = child == link_index.end() ? -1 : child->second;
    if (joint.child < 0) fail(where, "joint '" + name + "' has the world as its child");
    require_finite_pose(where, "joint '" + name + "' origin",
                        urdf_joint->parent_to_joint_origin_transform);
    joint.origin = frame_of(urdf_joint->parent_to_joint_origin_transform);
    if (joint_dof_count(joint.type) > 0 && joint.type != JointType::kFloating)
      joint.axis = io::unit_axis(where, "joint '" + name + "'", vector_of(urdf_joint->axis));
    if (urdf_joint->limits &&
        (joint.type == JointType::kRevolute || joint.type == JointType::kPrismatic)) {
      io::require_finite(where, "joint '" + name + "' lower limit", urdf_joint->limits->lower);
      io::require_finite(where, "joint '" + name + "' upper limit", urdf_joint->limits->upper);
      joint.lower = urdf_joint->limits->lower;
      joint.upper = urdf_joint->limits->upper;
    }
    mechanism.joints.push_back(joint);
    joint_lines.push_back(line);
  }
  add_mimic_couplings(outline, source, options.strict, mechanism);
  if (!outline.urdfdom_text.empty()) {
    const TreeJointChoice choice = choose_tree(outline, source, options, mechanism);
    // URDF+ couplings relate the coordinates along the file's paths between two links; a
    // reversed joint on such a path would turn its term around.
    if (!outline.couplings.empty() && !choice.reversed.empty())
      fail({source, outline.couplings.front().line},
           "coupling '" + outline.couplings.front().name +
               "': URDF+ couplings follow the file's joint directions, and this file's tree "
               "reverses joint '" +
               choice.reversed.front() + "' (declare the loops with <loop>)");
    joint_lines.clear();
    for (const Joint& joint : mechanism.joints) {
      const auto line = outline.joint_line.find(joint.name);
      joint_lines.push_back(line == outline.joint_line.end() ? 0 : line->second);
    }
  }
  io::check_tree(source, mechanism, joint_lines);
  add_urdf_plus(outline, source, mechanism);
  audit.report(mechanism);
  return mechanism;
}

Mechanism read_urdf_file(const std::string& path, const ReadOptions& options) {
  return parse_urdf(read_file_bytes(path), path, options);
}

}  // namespace skograph

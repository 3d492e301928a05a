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
#include "xml_input.hpp"

namespace skograph {

namespace {

using io::fail;
using io::SourceLocation;

// Keeps urdfdom's first error message instead of printing it, so errors stay one line.
class FirstErrorHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR && first_error.empty())
      first_error = text;
  }
  std::string first_error;
};

// A <mimic joint="a" multiplier="k" offset="c"/> on a joint: q = k q[a] + c.
struct MimicTag {
  std::string joint;  // the mimicking joint (the one carrying the tag)
  std::string mimicked;
  double multiplier = 1.0, offset = 0.0;
  int line = 0;
};

// URDF+ (the generalized_rbda project's URDF extension): a <loop> closing the tree between two
// links, a <coupling> gearing two links' joints, a joint's independent="true|false".
struct LoopTag {
  std::string name, type;
  std::string links[2];  // predecessor, successor
  Eigen::Isometry3d origins[2] = {Eigen::Isometry3d::Identity(), Eigen::Isometry3d::Identity()};
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();
  int line = 0;
};
struct CouplingTag {
  std::string name;
  std::string links[2];  // predecessor, successor
  double ratio = 1.0;
  int line = 0;
};

// Elements of the document in order, with their lines (the pre-scan).
struct UrdfOutline {
  std::vector<std::pair<std::string, int>> links;   // name, line
  std::vector<std::pair<std::string, int>> joints;  // name, line
  std::unordered_map<std::string, int> link_line, joint_line;
  std::vector<MimicTag> mimics;  // in joint order
  std::vector<LoopTag> loops;
  std::vector<CouplingTag> couplings;
  // Joints with an `independent` attribute: name -> value; the others default to true.
  std::unordered_map<std::string, bool> independent;
  // When the joints form no tree (issue 26 part 5): the joints set aside from urdfdom's tree
  // building (a second parent of a link, a joint closing a cycle) with their real child link,
  // the root urdfdom sees and the document it reads (the set-aside joints hang a placeholder leaf
  // each, the other roots hang from that root by placeholder fixed joints). Empty: the file as is.
  std::unordered_map<std::string, std::string> set_aside_child;
  std::string root;
  std::string urdfdom_text;
};

const char* const kJointTypes[] = {"revolute", "continuous", "prismatic",
                                   "fixed",    "floating",   "planar"};

std::string attribute(const TiXmlElement* element, const char* name) {
  const char* value = element->Attribute(name);
  return value ? value : "";
}

// The numeric attributes of URDF elements (tag, attributes).
const std::map<std::string, std::vector<std::string>>& numeric_attributes() {
  static const std::map<std::string, std::vector<std::string>> kNumeric = {
      {"origin", {"xyz", "rpy"}},
      {"axis", {"xyz"}},
      {"mass", {"value"}},
      {"inertia", {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}},
      {"limit", {"lower", "upper", "effort", "velocity"}},
      {"mimic", {"multiplier", "offset"}},
      {"ratio", {"value"}}};
  return kNumeric;
}

// Every number in the document must be finite (urdfdom reads "nan" as a parse failure without a
// line, and some of its parse failures leave zeros behind): checked here with the element's line.
void check_numbers(const TiXmlElement* element, const std::string& source) {
  for (const TiXmlElement* e = element->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const auto it = numeric_attributes().find(e->Value());
    if (it != numeric_attributes().end()) {
      for (const std::string& name : it->second) {
        const char* value = e->Attribute(name.c_str());
        if (!value) continue;
        // Whitespace-separated tokens, each one whole number for strtod (no stream per value:
        // a 10^6-link file has 10^7 of them).
        for (const char* p = value;;) {
          while (*p != '\0' && std::isspace(static_cast<unsigned char>(*p))) ++p;
          if (*p == '\0') break;
          const char* start = p;
          while (*p != '\0' && !std::isspace(static_cast<unsigned char>(*p))) ++p;
          char* end = nullptr;
          const double number = std::strtod(start, &end);
          if (end == p && std::isfinite(number)) continue;
          const std::string what =
              "<" + std::string(e->Value()) + "> " + name + " '" + std::string(start, p) + "'";
          fail({source, e->Row()},
               what + (end != p ? " is not a number" : " is not a finite number"));
        }
      }
    }
    check_numbers(e, source);
  }
}

// Three numbers of an attribute (checked finite by check_numbers), zeros when absent.
Eigen::Vector3d three_numbers(const TiXmlElement* element, const char* name,
                              const std::string& source) {
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  const char* text = element->Attribute(name);
  if (!text) return v;
  std::istringstream in(text);
  for (int i = 0; i < 3; ++i)
    if (!(in >> v[i]))
      fail({source, element->Row()},
           "<" + std::string(element->Value()) + "> " + name + " must hold 3 numbers");
  std::string rest;
  if (in >> rest)
    fail({source, element->Row()},
         "<" + std::string(element->Value()) + "> " + name + " must hold 3 numbers");
  return v;
}

// The <loop> and <coupling> children of <robot> (URDF+, the generalized_rbda format): names,
// ends, origins, axis, ratio, with their lines. Their links are checked when the mechanism is.
void read_urdf_plus(const TiXmlElement* robot, const std::string& source, UrdfOutline& outline) {
  std::set<std::string> names;
  auto named = [&](const TiXmlElement* e, const char* tag) {
    const std::string name = attribute(e, "name");
    if (name.empty()) fail({source, e->Row()}, std::string("<") + tag + "> without a name");
    if (!names.insert(name).second)
      fail({source, e->Row()}, std::string("<") + tag + "> name '" + name +
                                   "' is taken by another <loop> or <coupling>");
    return name;
  };
  auto ends = [&](const TiXmlElement* e, const std::string& owner, std::string links[2],
                  Eigen::Isometry3d* origins) {
    const char* tags[2] = {"predecessor", "successor"};
    for (int i = 0; i < 2; ++i) {
      const TiXmlElement* end = e->FirstChildElement(tags[i]);
      if (!end) fail({source, e->Row()}, owner + " has no <" + tags[i] + ">");
      links[i] = attribute(end, "link");
      if (!outline.link_line.count(links[i]))
        fail({source, end->Row()},
             owner + " " + tags[i] + " names missing link '" + links[i] + "'");
      if (origins == nullptr) continue;
      if (const TiXmlElement* origin = end->FirstChildElement("origin"))
        origins[i] = io::frame_from_xyz_rpy(three_numbers(origin, "xyz", source),
                                            three_numbers(origin, "rpy", source));
    }
    if (links[0] == links[1])
      fail({source, e->Row()}, owner + " joins link '" + links[0] + "' to itself");
  };
  for (const TiXmlElement* e = robot->FirstChildElement("loop"); e;
       e = e->NextSiblingElement("loop")) {
    LoopTag loop;
    loop.name = named(e, "loop");
    loop.line = e->Row();
    const std::string owner = "loop '" + loop.name + "'";
    loop.type = attribute(e, "type");
    for (char& c : loop.type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const std::set<std::string> kTypes = {"revolute", "continuous", "prismatic", "fixed",
                                                 "spherical"};
    if (!kTypes.count(loop.type))
      fail({source, e->Row()},
           owner + " has type '" + attribute(e, "type") +
               "' (expected revolute, continuous, prismatic, fixed or spherical; a planar loop "
               "joint is not supported)");
    ends(e, owner, loop.links, loop.origins);
    if (const TiXmlElement* axis = e->FirstChildElement("axis"))
      loop.axis = three_numbers(axis, "xyz", source);
    if ((loop.type != "fixed" && loop.type != "spherical") && loop.axis.norm() < 1e-12)
      fail({source, e->Row()}, owner + " has a zero axis");
    outline.loops.push_back(loop);
  }
  for (const TiXmlElement* e = robot->FirstChildElement("coupling"); e;
       e = e->NextSiblingElement("coupling")) {
    CouplingTag coupling;
    coupling.name = named(e, "coupling");
    coupling.line = e->Row();
    const std::string owner = "coupling '" + coupling.name + "'";
    ends(e, owner, coupling.links, nullptr);
    if (const TiXmlElement* ratio = e->FirstChildElement("ratio")) {
      if (!ratio->Attribute("value")) fail({source, ratio->Row()}, owner + " <ratio> has no value");
      coupling.ratio = std::strtod(ratio->Attribute("value"), nullptr);
      if (coupling.ratio == 0.0) fail({source, ratio->Row()}, owner + " ratio must not be zero");
    }
    outline.couplings.push_back(coupling);
  }
}

// The joints urdfdom cannot build a tree with (issue 26 part 5): in file order, a joint whose
// child already has a parent, or whose links are already connected, is set aside; the links left
// without a parent are roots. When there is more than one root or a set-aside joint, the document
// urdfdom reads is rewritten: each set-aside joint gets a placeholder leaf as its child (urdfdom
// still reads its origin, axis and limits), the other roots hang from the chosen one ("world"
// when it is a root) by placeholder fixed joints; parse_urdf drops the placeholders and
// choose_tree_joints decides the tree.
void set_aside_cycles(TiXmlDocument& document,
                      const std::vector<std::array<std::string, 2>>& joint_ends,
                      UrdfOutline& outline) {
  std::unordered_map<std::string, int> index;
  index.reserve(outline.links.size());
  for (const auto& [name, line] : outline.links)
    index.emplace(name, static_cast<int>(index.size()));
  DisjointSets components(static_cast<int>(outline.links.size()));
  std::vector<char> has_parent(outline.links.size(), 0);
  for (std::size_t j = 0; j < joint_ends.size(); ++j) {
    const int parent = index.at(joint_ends[j][0]), child = index.at(joint_ends[j][1]);
    if (has_parent[static_cast<std::size_t>(child)] || !components.join(parent, child)) {
      outline.set_aside_child.emplace(outline.joints[j].first, joint_ends[j][1]);
      continue;
    }
    has_parent[static_cast<std::size_t>(child)] = 1;
  }
  std::vector<std::string> roots;
  for (const auto& [name, line] : outline.links)
    if (!has_parent[static_cast<std::size_t>(index.at(name))]) roots.push_back(name);
  if (outline.set_aside_child.empty() && roots.size() <= 1) return;
  outline.root = std::find(roots.begin(), roots.end(), "world") != roots.end() ? "world" : roots[0];

  TiXmlElement* robot = document.RootElement();
  int placeholders = 0;
  auto placeholder = [&] {
    std::string name = "skograph_placeholder_" + std::to_string(placeholders++);
    while (outline.link_line.count(name) || outline.joint_line.count(name)) name += "_";
    return name;
  };
  auto element = [](const char* tag, const std::string& name) {
    TiXmlElement e(tag);
    e.SetAttribute("name", name);
    return e;
  };
  for (TiXmlElement* e = robot->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint")) {
    if (!outline.set_aside_child.count(attribute(e, "name"))) continue;
    const std::string leaf = placeholder();
    e->FirstChildElement("child")->SetAttribute("link", leaf);
    robot->InsertEndChild(element("link", leaf));
  }
  for (const std::string& root : roots) {
    if (root == outline.root) continue;
    TiXmlElement joint = element("joint", placeholder());
    joint.SetAttribute("type", "fixed");
    TiXmlElement parent("parent"), child("child");
    parent.SetAttribute("link", outline.root);
    child.SetAttribute("link", root);
    joint.InsertEndChild(parent);
    joint.InsertEndChild(child);
    robot->InsertEndChild(joint);
  }
  TiXmlPrinter printer;
  document.Accept(&printer);
  outline.urdfdom_text = printer.CStr();
}

// Names, lines and the structural checks urdfdom would only answer with a null model: unknown
// joint types, joints naming missing links, links joined to themselves, duplicate names; the
// joints urdfdom cannot build its tree with are set aside (set_aside_cycles).
UrdfOutline outline_urdf(const std::string& text, const std::string& source) {
  TiXmlDocument document;
  document.Parse(text.c_str());
  if (document.Error())
    fail({source, document.ErrorRow() > 0 ? document.ErrorRow() : 0},
         std::string("malformed XML: ") + document.ErrorDesc());
  const TiXmlElement* robot = document.RootElement();
  if (!robot || std::string(robot->Value()) != "robot")
    fail({source, robot ? robot->Row() : 0}, "not a URDF file: the root element is not <robot>");
  check_numbers(robot, source);
  UrdfOutline outline;
  for (const TiXmlElement* e = robot->FirstChildElement("link"); e;
       e = e->NextSiblingElement("link")) {
    const std::string name = attribute(e, "name");
    if (name.empty()) fail({source, e->Row()}, "<link> without a name");
    if (outline.link_line.count(name))
      fail({source, e->Row()}, "link '" + name + "' defined twice");
    outline.link_line[name] = e->Row();
    outline.links.emplace_back(name, e->Row());
  }
  if (outline.links.empty()) fail({source, robot->Row()}, "the robot has no links");
  std::vector<std::array<std::string, 2>> joint_ends;  // parent, child link of each joint
  for (const TiXmlElement* e = robot->FirstChildElement("joint"); e;
       e = e->NextSiblingElement("joint")) {
    const SourceLocation where{source, e->Row()};
    const std::string name = attribute(e, "name");
    if (name.empty()) fail(where, "<joint> without a name");
    if (outline.joint_line.count(name)) fail(where, "joint '" + name + "' defined twice");
    const std::string type = attribute(e, "type");
    bool known = false;
    for (const char* t : kJointTypes) known = known || type == t;
    if (!known)
      fail(where, "joint '" + name + "' has unknown type '" + type +
                      "' (expected revolute, continuous, prismatic, fixed, floating or planar)");
    std::string ends[2];
    const char* tags[2] = {"parent", "child"};
    for (int i = 0; i < 2; ++i) {
      const TiXmlElement* end = e->FirstChildElement(tags[i]);
      if (!end) fail(where, "joint '" + name + "' has no <" + tags[i] + ">");
      ends[i] = attribute(end, "link");
      if (!outline.link_line.count(ends[i]))
        fail({source, end->Row()},
             "joint '" + name + "' names missing " + tags[i] + " link '" + ends[i] + "'");
    }
    // urdfdom links a joint's links by shared pointers: a link that is its own parent would never
    // be freed (LeakSanitizer), so it is refused before it runs; a second parent and a cycle are
    // set aside from the document urdfdom reads (set_aside_cycles).
    if (ends[0] == ends[1])
      fail(where, "joint '" + name + "' connects link '" + ends[0] + "' to itself");
    joint_ends.push_back({ends[0], ends[1]});
    outline.joint_line[name] = e->Row();
    outline.joints.emplace_back(name, e->Row());
    if (const char* independent = e->Attribute("independent")) {  // URDF+
      std::string value = independent;
      for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (value != "true" && value != "false")
        fail(where, "joint '" + name + "' has independent=\"" + std::string(independent) +
                        "\" (expected true or false)");
      outline.independent[name] = value == "true";
    }
    if (const TiXmlElement* mimic = e->FirstChildElement("mimic")) {
      MimicTag tag;
      tag.joint = name;
      tag.mimicked = attribute(mimic, "joint");
      tag.line = mimic->Row();
      // Numbers were checked by check_numbers; URDF's defaults are multiplier 1, offset 0.
      if (mimic->Attribute("multiplier"))
        tag.multiplier = std::strtod(mimic->Attribute("multiplier"), nullptr);
      if (mimic->Attribute("offset")) tag.offset = std::strtod(mimic->Attribute("offset"), nullptr);
      outline.mimics.push_back(tag);
    }
  }
  read_urdf_plus(robot, source, outline);
  set_aside_cycles(document, joint_ends, outline);
  return outline;
}

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

// The URDF reader's first pass (io/urdf_outline.hpp).
#include "urdf_outline.hpp"

#include <tinyxml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "mechanism_checks.hpp"
#include "skograph/graph/disjoint_sets.hpp"
#include "skograph/graph/text_input.hpp"
#include "xml_input.hpp"

namespace skograph::io {

namespace {

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

// The joints urdfdom cannot build a tree with: in file order, a joint whose
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

}  // namespace

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

}  // namespace skograph::io

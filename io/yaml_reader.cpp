#include "skograph/io/yaml_reader.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "flexible_section.hpp"
#include "mechanism_checks.hpp"
#include "skograph/graph/text_input.hpp"
#include "skograph/io/loop_file.hpp"
#include "skograph/io/urdf_reader.hpp"
#include "yaml_input.hpp"

namespace skograph {

namespace {

using io::fail;
using io::load_yaml;
using io::SourceLocation;
using io::YamlReader;

// Link and joint indices by name (Mechanism::find_link is a linear search).
struct NameIndex {
  std::unordered_map<std::string, int> links, joints;
  static int find(const std::unordered_map<std::string, int>& map, const std::string& name) {
    const auto it = map.find(name);
    return it == map.end() ? -1 : it->second;
  }
};

JointType joint_type_named(const YamlReader& reader, const YAML::Node& node,
                           const std::string& owner) {
  const std::string type = reader.text(node, owner + " type");
  static const std::map<std::string, JointType> kTypes = {
      {"fixed", JointType::kFixed},           {"revolute", JointType::kRevolute},
      {"continuous", JointType::kContinuous}, {"prismatic", JointType::kPrismatic},
      {"planar", JointType::kPlanar},         {"spherical", JointType::kSpherical},
      {"floating", JointType::kFloating},     {"free", JointType::kFloating}};
  const auto it = kTypes.find(type);
  if (it == kTypes.end())
    fail(reader.at(node),
         owner + " has unknown type '" + type +
             "' (expected fixed, revolute, continuous, prismatic, planar, spherical, "
             "floating or free)");
  return it->second;
}

void read_links(const YamlReader& reader, const YAML::Node& list, Mechanism& mechanism,
                std::vector<int>& link_lines, NameIndex& index, io::InertiaAudit& audit,
                std::vector<io::FlexibleSection>& flexible) {
  if (!list.IsSequence()) fail(reader.at(list), "'links' must be a list");
  for (const YAML::Node& node : list) {
    reader.check_keys(node, "a link", {"name", "mass", "com", "inertia", "flexible"}, {"name"});
    Link link;
    link.name = reader.text(node["name"], "link name");
    const std::string owner = "link '" + link.name + "'";
    if (link.name == "world")
      fail(reader.at(node["name"]), "'world' is the inertial frame, not a link name");
    if (!index.links.emplace(link.name, static_cast<int>(mechanism.links.size())).second)
      fail(reader.at(node["name"]), owner + " defined twice");
    if (node["mass"] || node["inertia"] || node["com"]) {
      if (!node["mass"]) fail(reader.at(node), owner + " has inertia data but no 'mass'");
      if (!node["inertia"]) fail(reader.at(node), owner + " has a mass but no 'inertia'");
      link.mass = reader.number(node["mass"], owner + " mass");
      if (node["com"]) link.center_of_mass = reader.vector3(node["com"], owner + " com");
      const YAML::Node inertia = node["inertia"];
      reader.check_keys(inertia, owner + " inertia", {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"},
                        {"ixx", "iyy", "izz"});
      auto entry = [&](const char* key) {
        return inertia[key] ? reader.number(inertia[key], owner + " " + key) : 0.0;
      };
      link.inertia << entry("ixx"), entry("ixy"), entry("ixz"), entry("ixy"), entry("iyy"),
          entry("iyz"), entry("ixz"), entry("iyz"), entry("izz");
      if (link.mass < 0.0)
        fail(reader.at(node["mass"]), owner + " has negative mass " + node["mass"].Scalar());
      audit.check(reader.at(inertia), link);
    }
    if (node["flexible"])  // given to the link once its joints and loops are known
      flexible.push_back({static_cast<int>(mechanism.links.size()), node["flexible"],
                          static_cast<bool>(node["mass"] || node["inertia"] || node["com"])});
    mechanism.links.push_back(link);
    link_lines.push_back(reader.at(node).line);
  }
}

int link_named(const YamlReader& reader, const YAML::Node& node, const NameIndex& index,
               const std::string& what, bool world_allowed) {
  const std::string name = reader.text(node, what);
  if (name == "world") {
    if (!world_allowed) fail(reader.at(node), what + " cannot be 'world'");
    return -1;
  }
  const int link = NameIndex::find(index.links, name);
  if (link < 0) fail(reader.at(node), what + " names unknown link '" + name + "'");
  return link;
}

void read_joints(const YamlReader& reader, const YAML::Node& list, Mechanism& mechanism,
                 std::vector<int>& joint_lines, NameIndex& index) {
  if (!list.IsSequence()) fail(reader.at(list), "'joints' must be a list");
  for (const YAML::Node& node : list) {
    reader.check_keys(node, "a joint",
                      {"name", "type", "parent", "child", "origin", "axis", "limits"},
                      {"name", "type", "parent", "child"});
    Joint joint;
    joint.name = reader.text(node["name"], "joint name");
    const std::string owner = "joint '" + joint.name + "'";
    if (!index.joints.emplace(joint.name, static_cast<int>(mechanism.joints.size())).second)
      fail(reader.at(node["name"]), owner + " defined twice");
    joint.type = joint_type_named(reader, node["type"], owner);
    joint.parent = link_named(reader, node["parent"], index, owner + " parent", true);
    joint.child = link_named(reader, node["child"], index, owner + " child", false);
    if (node["origin"]) joint.origin = reader.frame(node["origin"], owner + " origin");
    if (node["axis"])
      joint.axis = io::unit_axis(reader.at(node["axis"]), owner,
                                 reader.vector3(node["axis"], owner + " axis"));
    if (node["limits"]) {
      reader.check_keys(node["limits"], owner + " limits",
                        {"lower", "upper", "effort", "velocity"});
      if (node["limits"]["lower"])
        joint.lower = reader.number(node["limits"]["lower"], owner + " lower limit");
      if (node["limits"]["upper"])
        joint.upper = reader.number(node["limits"]["upper"], owner + " upper limit");
      if (node["limits"]["effort"])
        reader.number(node["limits"]["effort"], owner + " effort limit");
      if (node["limits"]["velocity"])
        reader.number(node["limits"]["velocity"], owner + " velocity limit");
    }
    mechanism.joints.push_back(joint);
    joint_lines.push_back(reader.at(node).line);
  }
}

void read_loops(const YamlReader& reader, const YAML::Node& list, Mechanism& mechanism,
                const NameIndex& index) {
  if (!list.IsSequence()) fail(reader.at(list), "'loops' must be a list");
  static const std::map<std::string, LoopType> kTypes = {{"revolute", LoopType::kRevolute},
                                                         {"prismatic", LoopType::kPrismatic},
                                                         {"spherical", LoopType::kSpherical},
                                                         {"weld", LoopType::kWeld}};
  std::set<std::string> names;
  for (const YAML::Node& node : list) {
    reader.check_keys(node, "a loop",
                      {"name", "type", "parent", "child", "origin", "child_origin", "axis"},
                      {"name", "type", "parent", "child"});
    LoopClosure loop;
    loop.name = reader.text(node["name"], "loop name");
    loop.source_line = reader.at(node).line;
    const std::string owner = "loop '" + loop.name + "'";
    if (!names.insert(loop.name).second) fail(reader.at(node["name"]), owner + " defined twice");
    const std::string type = reader.text(node["type"], owner + " type");
    const auto it = kTypes.find(type);
    if (it == kTypes.end())
      fail(reader.at(node["type"]), owner + " has unknown type '" + type +
                                        "' (expected revolute, prismatic, spherical or weld)");
    loop.type = it->second;
    loop.parent = link_named(reader, node["parent"], index, owner + " parent", true);
    loop.child = link_named(reader, node["child"], index, owner + " child", true);
    if (loop.parent == loop.child)
      fail(reader.at(node["child"]), owner + " connects a link (or the world) to itself");
    if (node["origin"]) loop.parent_origin = reader.frame(node["origin"], owner + " origin");
    if (node["child_origin"])
      loop.child_origin = reader.frame(node["child_origin"], owner + " child_origin");
    if (node["axis"])
      loop.axis = io::unit_axis(reader.at(node["axis"]), owner,
                                reader.vector3(node["axis"], owner + " axis"));
    mechanism.loops.push_back(loop);
  }
}

void read_couplings(const YamlReader& reader, const YAML::Node& list, Mechanism& mechanism,
                    const NameIndex& index) {
  if (!list.IsSequence()) fail(reader.at(list), "'couplings' must be a list");
  std::set<std::string> names;
  for (const YAML::Node& node : list) {
    reader.check_keys(node, "a coupling", {"name", "type", "joints", "ratio", "ratios", "offset"},
                      {"name", "joints"});
    Coupling coupling;
    coupling.name = reader.text(node["name"], "coupling name");
    coupling.source_line = reader.at(node).line;
    const std::string owner = "coupling '" + coupling.name + "'";
    if (!names.insert(coupling.name).second)
      fail(reader.at(node["name"]), owner + " defined twice");
    if (node["type"]) coupling.type = reader.text(node["type"], owner + " type");
    if (coupling.type != "gear" && coupling.type != "differential")
      fail(reader.at(node["type"]),
           owner + " has unknown type '" + coupling.type + "' (expected gear or differential)");
    const bool gear = coupling.type == "gear";
    // gear: joints [motor, link] and ratio (q_motor = ratio q_link + offset); differential:
    // joints [a, b, c, ...] and ratios [r_b, r_c, ...] (q_a = r_b q_b + r_c q_c + ... + offset).
    if (gear ? (!node["ratio"] || node["ratios"]) : (!node["ratios"] || node["ratio"]))
      fail(reader.at(node), owner + (gear ? " needs 'ratio' (a gear's one ratio)"
                                          : " needs 'ratios' (one per joint after the first)"));
    const YAML::Node joints = node["joints"];
    if (!joints.IsSequence() || (gear ? joints.size() != 2 : joints.size() < 3))
      fail(reader.at(joints), owner + (gear ? " joints must be a list of two joint names "
                                              "[motor, link]"
                                            : " joints must be a list of three or more joint "
                                              "names [a, b, c, ...]"));
    std::vector<int> ends;
    for (std::size_t i = 0; i < joints.size(); ++i) {
      const std::string name = reader.text(joints[i], owner + " joint");
      ends.push_back(NameIndex::find(index.joints, name));
      if (ends.back() < 0)
        fail(reader.at(joints[i]), owner + " names unknown joint '" + name + "'");
      if (joint_dof_count(mechanism.joints[ends.back()].type) == 0)
        fail(reader.at(joints[i]),
             owner + " names fixed joint '" + name + "', which has no motion");
      if (std::find(ends.begin(), ends.end() - 1, ends.back()) != ends.end() - 1)
        fail(reader.at(joints), owner + " couples joint '" + name + "' to itself");
    }
    const Joint& a = mechanism.joints[ends[0]];
    for (std::size_t i = 1; i < ends.size(); ++i) {
      const Joint& b = mechanism.joints[ends[i]];
      if (joint_dof_count(a.type) != joint_dof_count(b.type))
        fail(reader.at(joints), owner + " couples joints with different dof counts ('" + a.name +
                                    "' has " + std::to_string(joint_dof_count(a.type)) + ", '" +
                                    b.name + "' has " + std::to_string(joint_dof_count(b.type)) +
                                    ")");
    }
    coupling.joint_a = ends[0];
    coupling.joint_b = ends[1];
    if (gear) {
      coupling.ratio = reader.number(node["ratio"], owner + " ratio");
      if (coupling.ratio == 0.0) fail(reader.at(node["ratio"]), owner + " ratio must not be zero");
    } else {
      const YAML::Node ratios = node["ratios"];
      if (!ratios.IsSequence() || ratios.size() != joints.size() - 1)
        fail(reader.at(ratios), owner + " ratios must be a list of " +
                                    std::to_string(joints.size() - 1) +
                                    " numbers, one per joint after the first");
      coupling.ratio = reader.number(ratios[0], owner + " ratio");
      for (std::size_t i = 2; i < ends.size(); ++i) {
        coupling.further_joints.push_back(ends[i]);
        coupling.further_ratios.push_back(reader.number(ratios[i - 1], owner + " ratio"));
      }
    }
    if (node["offset"]) coupling.offset = reader.number(node["offset"], owner + " offset");
    mechanism.couplings.push_back(coupling);
  }
}

}  // namespace

namespace {

Mechanism parse_yaml_document(const std::string& text, const std::string& source,
                              const std::string& base_directory, const ReadOptions& options) {
  const YAML::Node root = load_yaml(text, source);
  const YamlReader reader(source);
  if (!root.IsMap())
    fail({source, root.IsNull() ? 1 : reader.at(root).line},
         "not a mechanism: expected a mapping with 'links' and 'joints' (or 'urdf')");
  if (root["closed_loop"])
    fail(reader.at(root["closed_loop"]),
         "this is a loop file (closed_loop, type, name_mot), not a model: pass it with --loops "
         "beside its URDF (skograph dynamics robot.urdf --loops " +
             source + ")");
  reader.check_keys(root, "the mechanism",
                    {"name", "urdf", "loops_file", "links", "joints", "loops", "couplings",
                     "independent", "flexible"});

  Mechanism mechanism;
  std::vector<int> joint_lines, link_lines;
  NameIndex index;
  io::InertiaAudit audit(options.strict);
  std::vector<io::FlexibleSection> flexible;
  if (root["flexible"] && !root["urdf"])
    fail(reader.at(root["flexible"]),
         "a top-level 'flexible' map goes with 'urdf'; give a link's 'flexible' on the link");
  if (root["urdf"]) {
    if (root["links"] || root["joints"])
      fail(reader.at(root["urdf"]), "give either 'urdf' or 'links' and 'joints', not both");
    const std::string relative = reader.text(root["urdf"], "urdf");
    const std::filesystem::path path =
        std::filesystem::path(relative).is_absolute() || base_directory.empty()
            ? std::filesystem::path(relative)
            : std::filesystem::path(base_directory) / relative;
    try {
      mechanism = read_urdf_file(path.string(), options);
    } catch (const InputError& e) {  // the line names this file first, then the URDF's problem
      fail(reader.at(root["urdf"]), std::string("in its urdf: ") + e.what());
    }
    for (size_t k = 0; k < mechanism.links.size(); ++k)
      index.links.emplace(mechanism.links[k].name, static_cast<int>(k));
    for (size_t j = 0; j < mechanism.joints.size(); ++j)
      index.joints.emplace(mechanism.joints[j].name, static_cast<int>(j));
    if (root["flexible"]) {  // {LINK: section}: the URDF's mass data stay the rigid invariants
      reader.require_map(root["flexible"], "'flexible'");
      for (const auto& entry : root["flexible"]) {
        const int link = link_named(reader, entry.first, index, "flexible link", false);
        const Link& data = mechanism.links[static_cast<std::size_t>(link)];
        flexible.push_back({link, entry.second, data.mass != 0.0 || !data.inertia.isZero()});
      }
    }
  } else {
    if (!root["links"] || !root["joints"])
      fail(reader.at(root), "the mechanism needs 'links' and 'joints' (or 'urdf')");
    read_links(reader, root["links"], mechanism, link_lines, index, audit, flexible);
    if (mechanism.links.empty()) fail(reader.at(root["links"]), "the mechanism has no links");
    read_joints(reader, root["joints"], mechanism, joint_lines, index);
    io::check_tree(source, mechanism, joint_lines, link_lines);
  }
  if (root["name"]) mechanism.name = reader.text(root["name"], "name");
  mechanism.source = source;
  if (root["loops"]) read_loops(reader, root["loops"], mechanism, index);
  if (root["couplings"]) read_couplings(reader, root["couplings"], mechanism, index);
  if (root["loops_file"]) {  // a loop file (io/loop_file.hpp), beside this file like `urdf:`
    const std::string relative = reader.text(root["loops_file"], "loops_file");
    const std::filesystem::path path =
        std::filesystem::path(relative).is_absolute() || base_directory.empty()
            ? std::filesystem::path(relative)
            : std::filesystem::path(base_directory) / relative;
    LoopFile::read(path.string()).apply(mechanism);
  }
  io::apply_flexible_sections(reader, flexible, base_directory, mechanism);
  if (root["independent"]) {  // the coordinates to keep independent (actuated joints)
    const YAML::Node list = root["independent"];
    if (!list.IsSequence())
      fail(reader.at(list), "'independent' must be a list of joint (or dof) names");
    for (const YAML::Node& item : list) {
      const std::string name = reader.text(item, "independent");
      try {
        named_dofs(mechanism, {name});
      } catch (const std::invalid_argument& e) {
        fail(reader.at(item), e.what());
      }
      mechanism.independent.push_back(name);
    }
  }
  audit.report(mechanism);
  return mechanism;
}

}  // namespace

Mechanism parse_yaml(const std::string& text, const std::string& source,
                     const std::string& base_directory, const ReadOptions& options) {
  check_text_bytes(text, source);
  try {
    return parse_yaml_document(text, source, base_directory, options);
  } catch (const YAML::Exception& e) {  // anything yaml-cpp refuses past the parse: one line
    throw InputError(source, e.mark.is_null() ? 0 : e.mark.line + 1,
                     "YAML: " + e.msg + io::yaml_place(e.mark));
  }
}

Mechanism read_yaml_file(const std::string& path, const ReadOptions& options) {
  return parse_yaml(read_file_bytes(path), path, std::filesystem::path(path).parent_path().string(),
                    options);
}

}  // namespace skograph

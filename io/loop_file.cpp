// The example-parallel-robots loop files (io/loop_file.hpp).
#include "skograph/io/loop_file.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "yaml_input.hpp"

namespace skograph {

namespace {

using io::fail;
using io::YamlReader;

std::string uppercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// The names of a YAML list, each with its node (for lines).
std::vector<std::pair<std::string, YAML::Node>> name_list(const YamlReader& reader,
                                                          const YAML::Node& list,
                                                          const std::string& what) {
  if (!list.IsSequence()) fail(reader.at(list), "'" + what + "' must be a list");
  std::vector<std::pair<std::string, YAML::Node>> names;
  for (const YAML::Node& item : list) names.emplace_back(reader.text(item, what + " entry"), item);
  return names;
}

Eigen::Vector3d unit_axis(char letter) {
  return letter == 'X'   ? Eigen::Vector3d::UnitX()
         : letter == 'Y' ? Eigen::Vector3d::UnitY()
                         : Eigen::Vector3d::UnitZ();
}

// joint_name / joint_type: SPHERICAL, UJOINT_ab, FIXED.
void convert_joints(const YamlReader& reader, const YAML::Node& names_node,
                    const YAML::Node& types_node, Mechanism& m) {
  const auto names = name_list(reader, names_node, "joint_name");
  const auto types = name_list(reader, types_node, "joint_type");
  if (names.size() != types.size())
    fail(reader.at(types_node), "'joint_type' has " + std::to_string(types.size()) +
                                    " entries and 'joint_name' " + std::to_string(names.size()) +
                                    ": one type per joint");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& [name, name_node] = names[i];
    const auto& [type_text, type_node] = types[i];
    const std::string type = uppercase(type_text);
    const bool universal = type.size() == 9 && type.rfind("UJOINT_", 0) == 0 &&
                           std::string("XYZ").find(type[7]) != std::string::npos &&
                           std::string("XYZ").find(type[8]) != std::string::npos &&
                           type[7] != type[8];
    if (type != "SPHERICAL" && type != "FIXED" && !universal)
      fail(reader.at(type_node), "joint_type '" + type_text +
                                     "' is not SPHERICAL, FIXED or UJOINT_ab (a, b two of X, Y, "
                                     "Z: UJOINT_XY, UJOINT_ZY, ...)");
    const int j = m.find_joint(name);
    if (j < 0) {  // published files carry such typos; the loader they come with skips them
      m.warnings.push_back(reader.source() + ":" + std::to_string(reader.at(name_node).line) +
                           ": joint_name '" + name + "' names no joint of the model: it stays as " +
                           "the model says");
      continue;
    }
    for (const Coupling& coupling : m.couplings)
      if ((coupling.joint_a == j || coupling.joint_b == j) && type != "FIXED" &&
          !(type == "SPHERICAL" &&
            m.joints[static_cast<std::size_t>(j)].type == JointType::kSpherical))
        fail(reader.at(name_node), "joint_name '" + name + "' is coupled ('" + coupling.name +
                                       "'): it cannot become a " + type + " joint");
    Joint& joint = m.joints[static_cast<std::size_t>(j)];
    if (type == "SPHERICAL") {
      joint.type = JointType::kSpherical;
    } else if (type == "FIXED") {
      joint.type = JointType::kFixed;
    } else {
      // Two revolutes through a massless cross: about the joint frame's a axis, then about the
      // moving frame's b axis.
      const std::string first = name + "_" + type[7], second = name + "_" + type[8];
      const std::string cross = name + "_cross";
      for (const std::string& taken : {first, second})
        if (m.find_joint(taken) >= 0)
          fail(reader.at(name_node), "joint_name '" + name + "' as " + type + " needs joint '" +
                                         taken + "', which the model has already");
      if (m.find_link(cross) >= 0)
        fail(reader.at(name_node), "joint_name '" + name + "' as " + type + " needs link '" +
                                       cross + "', which the model has already");
      Link link;
      link.name = cross;
      m.links.push_back(link);
      const int cross_link = static_cast<int>(m.links.size()) - 1;
      Joint outer = joint, inner;
      outer.name = first;
      outer.type = JointType::kRevolute;
      outer.child = cross_link;
      outer.axis = unit_axis(type[7]);
      inner.name = second;
      inner.type = JointType::kRevolute;
      inner.parent = cross_link;
      inner.child = joint.child;
      inner.axis = unit_axis(type[8]);
      inner.lower = joint.lower;
      inner.upper = joint.upper;
      m.joints[static_cast<std::size_t>(j)] = outer;
      m.joints.push_back(inner);
    }
  }
}

// A frame of closed_loop: a link (or a named frame) at its own origin, or a joint meaning its
// child link's frame; "world" is the inertial frame.
bool locate(const Mechanism& m, const std::string& name, int& link, Eigen::Isometry3d& pose,
            std::string& ambiguity) {
  pose.setIdentity();
  if (name == "world") {
    link = -1;
    return true;
  }
  const int joint = m.find_joint(name);
  int named_link = -1;
  Eigen::Isometry3d named_pose;
  const bool named = m.locate_frame(name, named_link, named_pose);
  if (named && joint >= 0 &&
      (m.joints[static_cast<std::size_t>(joint)].child != named_link || !named_pose.isApprox(pose)))
    ambiguity = "both a link (or frame) and a joint with another frame are named '" + name + "'";
  if (named) {
    link = named_link;
    pose = named_pose;
    return true;
  }
  if (joint < 0) return false;
  link = m.joints[static_cast<std::size_t>(joint)].child;
  return true;
}

void add_loops(const YamlReader& reader, const YAML::Node& pairs, const YAML::Node& types_node,
               Mechanism& m) {
  if (!pairs.IsSequence()) fail(reader.at(pairs), "'closed_loop' must be a list of frame pairs");
  const auto types = name_list(reader, types_node, "type");
  if (types.size() != pairs.size())
    fail(reader.at(types_node), "'type' has " + std::to_string(types.size()) +
                                    " entries and 'closed_loop' " + std::to_string(pairs.size()) +
                                    " pairs: one type per pair");
  std::set<std::string> taken;
  for (const LoopClosure& loop : m.loops) taken.insert(loop.name);
  int number = 0;
  for (std::size_t i = 0; i < types.size(); ++i) {
    const YAML::Node pair = pairs[i];
    const std::string what = "closed_loop pair " + std::to_string(i + 1);
    if (!pair.IsSequence() || pair.size() != 2)
      fail(reader.at(pair), what + " must be a list of two frame names");
    const std::string type = uppercase(types[i].first);
    if (type != "6D" && type != "3D")
      fail(reader.at(types[i].second),
           "type '" + types[i].first + "' of " + what + " is not 6d or 3d");
    LoopClosure loop;
    do loop.name = "loop" + std::to_string(++number);
    while (taken.count(loop.name));
    taken.insert(loop.name);
    loop.type = type == "6D" ? LoopType::kWeld : LoopType::kSpherical;
    loop.source_line = reader.at(pair).line;
    loop.source_file = reader.source();
    for (int end = 0; end < 2; ++end) {
      const std::string name = reader.text(pair[end], what + " frame");
      int link = -1;
      Eigen::Isometry3d pose;
      std::string ambiguity;
      if (!locate(m, name, link, pose, ambiguity))
        fail(reader.at(pair[end]),
             what + " names '" + name + "': no link, joint or frame of the model has that name");
      if (!ambiguity.empty()) fail(reader.at(pair[end]), what + ": " + ambiguity);
      (end == 0 ? loop.parent : loop.child) = link;
      (end == 0 ? loop.parent_origin : loop.child_origin) = pose;
    }
    m.loops.push_back(loop);
  }
}

// name_mot: the preferred independent coordinates, most wanted first; a joint a <mimic> makes
// follow another is dropped with a note (its master is the coordinate), a fixed one too.
void prefer_actuated(const YamlReader& reader, const YAML::Node& list, Mechanism& m) {
  std::vector<std::string> preferred, followers;
  for (const auto& [name, node] : name_list(reader, list, "name_mot")) {
    try {
      named_dofs(m, {name});
    } catch (const std::invalid_argument&) {
      const int j = m.find_joint(name);
      if (j < 0) fail(reader.at(node), "name_mot '" + name + "' is not a joint of the model");
      m.notes.push_back("name_mot '" + name + "' is a fixed joint: not an independent coordinate");
      continue;
    }
    const int j = m.find_joint(name);
    const auto follower = std::find_if(m.couplings.begin(), m.couplings.end(),
                                       [&](const Coupling& c) { return j >= 0 && c.joint_a == j; });
    if (follower != m.couplings.end()) {
      followers.push_back("'" + name + "' (of '" +
                          m.joints[static_cast<std::size_t>(follower->joint_b)].name + "')");
      continue;
    }
    preferred.push_back(name);
  }
  if (!followers.empty()) {
    std::string names;
    for (const std::string& follower : followers) names += (names.empty() ? "" : ", ") + follower;
    m.notes.push_back("name_mot " + names + (followers.size() > 1 ? " follow" : " follows") +
                      " a master joint through <mimic>: the masters are the independent "
                      "coordinates instead");
  }
  m.preferred_independent.insert(m.preferred_independent.begin(), preferred.begin(),
                                 preferred.end());
}

}  // namespace

struct LoopFile::Document {
  YAML::Node root;
};

LoopFile LoopFile::parse(const std::string& text, const std::string& source) {
  check_text_bytes(text, source);
  LoopFile file;
  file.source_ = source;
  auto document = std::make_shared<Document>();
  document->root = io::load_yaml(text, source);
  const YAML::Node root = document->root;
  file.document_ = std::move(document);
  if (!root.IsMap() || !root["name_mot"]) return file;
  try {
    for (const auto& [name, node] : name_list(YamlReader(source), root["name_mot"], "name_mot"))
      file.actuated_.push_back(name);
  } catch (const InputError&) {  // reported by apply, at its line
    file.actuated_.clear();
  } catch (const YAML::Exception&) {
    file.actuated_.clear();
  }
  return file;
}

LoopFile LoopFile::read(const std::string& path) {
  return parse(read_file_bytes(path), path);
}

void LoopFile::apply(Mechanism& mechanism) const {
  const std::string& source = source_;
  try {
    const YAML::Node root = document_->root;
    const YamlReader reader(source);
    if (!root.IsMap())
      fail({source, root.IsNull() ? 1 : reader.at(root).line},
           "not a loop file: expected a mapping with 'closed_loop' and 'type'");
    reader.check_keys(root, "the loop file",
                      {"closed_loop", "type", "name_mot", "joint_name", "joint_type"},
                      {"closed_loop", "type"});
    if (root["joint_name"] || root["joint_type"]) {
      if (!root["joint_name"] || !root["joint_type"])
        fail(reader.at(root), "'joint_name' and 'joint_type' go together");
      convert_joints(reader, root["joint_name"], root["joint_type"], mechanism);
    }
    add_loops(reader, root["closed_loop"], root["type"], mechanism);
    if (root["name_mot"]) prefer_actuated(reader, root["name_mot"], mechanism);
  } catch (const YAML::Exception& e) {  // anything yaml-cpp refuses past the parse: one line
    throw InputError(source, e.mark.is_null() ? 0 : e.mark.line + 1,
                     "YAML: " + e.msg + io::yaml_place(e.mark));
  }
}

}  // namespace skograph

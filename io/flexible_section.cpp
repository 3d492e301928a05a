// A link's `flexible:` section (io/flexible_section.hpp).
#include "flexible_section.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "modal_input.hpp"
#include "skograph/io/modal_file.hpp"
#include "skograph/rigid/beam_modes.hpp"

namespace skograph::io {

namespace {

// Modal coordinates in one model, all flexible links together (a modal data file holds at most as
// many): bounds the work the checks do.
constexpr std::size_t kMostModes = 1000;

// A matrix written as a list of rows of numbers, every row as long as the first.
Eigen::MatrixXd matrix(const YamlReader& reader, const YAML::Node& node, const std::string& what) {
  if (!node.IsSequence() || node.size() == 0)
    fail(reader.at(node), what + " must be a list of rows (each a list of numbers)");
  if (node.size() > kMostModes)
    fail(reader.at(node), what + " has " + std::to_string(node.size()) + " rows (at most " +
                              std::to_string(kMostModes) + ")");
  Eigen::Index columns = -1;
  Eigen::MatrixXd result;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node row = node[i];
    if (!row.IsSequence() || row.size() == 0)
      fail(reader.at(row), what + " row " + std::to_string(i + 1) + " must be a list of numbers");
    if (row.size() > kMostModes)
      fail(reader.at(row), what + " row " + std::to_string(i + 1) + " has " +
                               std::to_string(row.size()) + " numbers (at most " +
                               std::to_string(kMostModes) + ")");
    if (columns < 0) {
      columns = static_cast<Eigen::Index>(row.size());
      result.resize(static_cast<Eigen::Index>(node.size()), columns);
    }
    if (static_cast<Eigen::Index>(row.size()) != columns)
      fail(reader.at(row), what + " row " + std::to_string(i + 1) + " has " +
                               std::to_string(row.size()) + " numbers and row 1 " +
                               std::to_string(columns));
    for (std::size_t j = 0; j < row.size(); ++j)
      result(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          reader.number(row[j], what);
  }
  return result;
}

Eigen::VectorXd vector(const YamlReader& reader, const YAML::Node& node, const std::string& what) {
  if (!node.IsSequence() || node.size() == 0)
    fail(reader.at(node), what + " must be a list of numbers, one per mode");
  if (node.size() > kMostModes)
    fail(reader.at(node), what + " has " + std::to_string(node.size()) + " entries (at most " +
                              std::to_string(kMostModes) + ")");
  Eigen::VectorXd result(static_cast<Eigen::Index>(node.size()));
  for (std::size_t i = 0; i < node.size(); ++i)
    result(static_cast<Eigen::Index>(i)) = reader.number(node[i], what);
  return result;
}

ModalBody fields_body(const YamlReader& reader, const YAML::Node& section,
                      const std::string& owner) {
  ModalFields fields;
  fields.where = reader.at(section);
  const auto read_matrix = [&](const char* key, std::optional<Located<Eigen::MatrixXd>>& field) {
    if (section[key])
      field = Located<Eigen::MatrixXd>{matrix(reader, section[key], owner + " " + key),
                                       reader.at(section[key])};
  };
  const auto read_vector = [&](const char* key, std::optional<Located<Eigen::VectorXd>>& field) {
    if (section[key])
      field = Located<Eigen::VectorXd>{vector(reader, section[key], owner + " " + key),
                                       reader.at(section[key])};
  };
  read_matrix("modal_mass", fields.modal_mass);
  read_matrix("modal_stiffness", fields.modal_stiffness);
  read_matrix("modal_damping", fields.modal_damping);
  read_matrix("coupling", fields.coupling);
  read_vector("frequencies_hz", fields.frequencies_hz);
  read_vector("damping_ratios", fields.damping_ratios);
  if (section["nodes"]) {
    reader.require_map(section["nodes"], owner + " nodes");
    std::set<std::string> names;
    for (const auto& entry : section["nodes"]) {
      const std::string name = reader.text(entry.first, owner + " node name");
      if (!names.insert(name).second)
        fail(reader.at(entry.first), owner + " node '" + name + "' given twice");
      fields.nodes.push_back({name, matrix(reader, entry.second, owner + " node '" + name + "'"),
                              reader.at(entry.first).line});
    }
  }
  return assemble_modal_body(fields);
}

// Where a joint or loop frame at `position` (link axes) sits along a beam from the link origin
// along `axis`: its distance from the hinge, which must be on the axis within [0, L].
double station(const SourceLocation& where, const std::string& owner, const std::string& attached,
               const Eigen::Vector3d& position, int axis, double length) {
  const double along = position(axis);
  const double tolerance = 1e-9 * length;
  Eigen::Vector3d across = position;
  across(axis) = 0.0;
  if (across.norm() > tolerance || along < -tolerance || along > length + tolerance)
    fail(where, owner + ": " + attached + " attaches off the beam (it must lie on the link's " +
                    std::string(1, static_cast<char>('x' + axis)) +
                    " axis between 0 and the length " + std::to_string(length) + ")");
  return std::clamp(along, 0.0, length);
}

// The joints (by name, with their frames' positions in the link) and loop frames on `link`, its
// own hinge aside: where nodes must be.
struct Attachment {
  std::string name, what;
  Eigen::Vector3d position;
};
std::vector<Attachment> attachments(const Mechanism& mechanism, int link) {
  std::vector<Attachment> found;
  for (const Joint& joint : mechanism.joints)
    if (joint.parent == link)
      found.push_back({joint.name, "joint '" + joint.name + "'", joint.origin.translation()});
  for (const LoopClosure& loop : mechanism.loops) {
    if (loop.parent == link)
      found.push_back({loop.name, "loop '" + loop.name + "'", loop.parent_origin.translation()});
    if (loop.child == link)
      found.push_back({loop.name, "loop '" + loop.name + "'", loop.child_origin.translation()});
  }
  return found;
}

void apply_beam(const YamlReader& reader, const YAML::Node& node, const FlexibleSection& section,
                Mechanism& mechanism, const std::string& owner) {
  reader.check_keys(node, owner + " beam",
                    {"length", "EI_y", "EI_z", "rho_A", "modes", "axis", "radius", "damping_ratio"},
                    {"length", "EI_y", "EI_z", "rho_A", "modes"});
  BeamSpec beam;
  const auto positive = [&](const char* key) {
    const double value = reader.number(node[key], owner + " beam " + key);
    if (!(value > 0.0)) fail(reader.at(node[key]), owner + " beam " + key + " must be positive");
    return value;
  };
  beam.length = positive("length");
  // `rigid`: the beam does not bend in that plane (infinite stiffness, no modes there).
  const auto stiffness = [&](const char* key) {
    const YAML::Node value = node[key];
    if (value.IsScalar() && value.Scalar() == "rigid")
      return std::numeric_limits<double>::infinity();
    return positive(key);
  };
  beam.stiffness_y = stiffness("EI_y");
  beam.stiffness_z = stiffness("EI_z");
  beam.mass_per_length = positive("rho_A");
  beam.radius = node["radius"] ? positive("radius") : beam.length / 50.0;
  const double modes = reader.number(node["modes"], owner + " beam modes");
  if (modes != std::floor(modes) || modes < 0 || modes > 20)
    fail(reader.at(node["modes"]),
         owner + " beam modes must be a whole number from 0 to 20 (modes per bending plane)");
  beam.modes = static_cast<int>(modes);
  if (node["axis"]) {
    const std::string axis = reader.text(node["axis"], owner + " beam axis");
    if (axis != "x" && axis != "y" && axis != "z")
      fail(reader.at(node["axis"]), owner + " beam axis must be x, y or z");
    beam.axis = axis[0] - 'x';
  }
  double damping_ratio = 0.0;
  if (node["damping_ratio"]) {
    damping_ratio = reader.number(node["damping_ratio"], owner + " beam damping_ratio");
    if (damping_ratio < 0.0)
      fail(reader.at(node["damping_ratio"]), owner + " beam damping_ratio must not be negative");
  }
  if (section.has_mass_data)
    fail(reader.at(node), owner +
                              " has mass data and a beam: the beam gives the link's mass, "
                              "centre of mass and inertia (remove one)");
  const std::vector<Attachment> attached = attachments(mechanism, section.link);
  std::vector<double> stations;
  for (const Attachment& entry : attached)
    stations.push_back(
        station(reader.at(node), owner, entry.what, entry.position, beam.axis, beam.length));
  BeamModes modes_data;
  try {
    modes_data = clamped_free_beam(beam, stations);
  } catch (const std::invalid_argument& e) {
    fail(reader.at(node), owner + " beam: " + e.what());
  }
  Link& link = mechanism.links[static_cast<std::size_t>(section.link)];
  link.mass = modes_data.mass;
  link.center_of_mass = modes_data.center_of_mass;
  link.inertia = modes_data.inertia_about_center;
  if (modes_data.frequencies.size() == 0) return;  // no modes: a rigid beam
  auto body = std::make_shared<ModalBody>();
  body->modal_mass = modes_data.modal_mass;
  body->modal_stiffness = modes_data.modal_stiffness;
  body->modal_damping =
      (2.0 * damping_ratio * modes_data.frequencies.array()).matrix().asDiagonal();
  body->coupling = modes_data.coupling;
  body->source_file = reader.source();
  body->source_line = reader.at(node).line;
  for (std::size_t i = 0; i < attached.size(); ++i)
    body->nodes.push_back({attached[i].name, modes_data.influence[i], body->source_line});
  link.flexible = std::move(body);
}

// Every node names the link's own joint or something attached to it; everything attached has one.
// `attached` are the link's attachments; `data_file` the modal data file the nodes came from
// ("" when they came from this file).
void check_nodes(const SourceLocation& where, const Mechanism& mechanism, int link,
                 const std::vector<Attachment>& attached, const ModalBody& body,
                 const std::string& owner, const std::string& data_file) {
  std::set<std::string> names;
  for (const Attachment& entry : attached) names.insert(entry.name);
  for (const Joint& joint : mechanism.joints)
    if (joint.child == link) names.insert(joint.name);
  for (const ModalNode& node : body.nodes)
    if (!names.count(node.name))
      fail(data_file.empty() ? SourceLocation{where.source, node.source_line} : where,
           owner + " node '" + node.name +
               "' names no joint or loop of the link (its own joint, a joint whose parent it is, "
               "or a loop on it)" +
               (data_file.empty()
                    ? std::string()
                    : " (line " + std::to_string(node.source_line) + " of " + data_file + ")"));
  std::set<std::string> nodes;
  for (const ModalNode& node : body.nodes) nodes.insert(node.name);
  for (const Attachment& entry : attached)
    if (!nodes.count(entry.name))
      fail(where, owner + " is flexible but " + entry.what +
                      " attaches to it without a node: give its 6 x nmd influence under 'nodes'" +
                      (data_file.empty() ? std::string() : " (in " + data_file + ")"));
}

}  // namespace

void apply_flexible_sections(const YamlReader& reader, const std::vector<FlexibleSection>& sections,
                             const std::string& base_directory, Mechanism& mechanism) {
  std::size_t total_modes = 0;
  std::set<int> flexible_links;
  for (const FlexibleSection& section : sections) {
    Link& link = mechanism.links[static_cast<std::size_t>(section.link)];
    const std::string owner = "link '" + link.name + "'";
    const YAML::Node& node = section.node;
    if (!flexible_links.insert(section.link).second)
      fail(reader.at(node), owner + " is given 'flexible' twice");
    reader.check_keys(node, owner + " flexible",
                      {"modal_mass", "modal_stiffness", "frequencies_hz", "modal_damping",
                       "damping_ratios", "coupling", "nodes", "file", "beam"});
    bool fields = false;
    for (const char* key : {"modal_mass", "modal_stiffness", "frequencies_hz", "modal_damping",
                            "damping_ratios", "coupling", "nodes"})
      fields = fields || node[key];
    const int given = (node["beam"] ? 1 : 0) + (node["file"] ? 1 : 0) + (fields ? 1 : 0);
    if (given != 1)
      fail(reader.at(node), owner +
                                " flexible: give the modal fields, a 'file' or a 'beam', "
                                "one of the three");
    std::string data_file;  // the modal data file the body came from, if any
    if (node["beam"]) {
      apply_beam(reader, node["beam"], section, mechanism, owner);
      if (!link.flexible) continue;
    } else if (node["file"]) {
      const std::string relative = reader.text(node["file"], owner + " flexible file");
      const std::filesystem::path path =
          std::filesystem::path(relative).is_absolute() || base_directory.empty()
              ? std::filesystem::path(relative)
              : std::filesystem::path(base_directory) / relative;
      ModalBody body;
      try {  // the line names this file first, then the modal data file's problem
        body = read_modal_file(path.string());
      } catch (const InputError& e) {
        fail(reader.at(node["file"]), owner + " flexible file: " + e.what());
      }
      data_file = path.string();
      body.source_file = reader.source();
      body.source_line = reader.at(node["file"]).line;
      link.flexible = std::make_shared<const ModalBody>(std::move(body));
    } else {
      link.flexible = std::make_shared<const ModalBody>(fields_body(reader, node, owner));
    }
    const ModalBody& body = *link.flexible;
    total_modes += static_cast<std::size_t>(body.modes());
    if (total_modes > kMostModes)
      fail(reader.at(node), "more than " + std::to_string(kMostModes) +
                                " modal coordinates in the model (the flexible links up to " +
                                owner + ")");
    // Charged to the data: the section, the beam, or the line naming the modal data file.
    const SourceLocation data{body.source_file, body.source_line};
    check_nodes(data, mechanism, section.link, attachments(mechanism, section.link), body, owner,
                data_file);
    const std::string problem =
        flexible_body_mass_problem(body, link.mass, link.center_of_mass, link.inertia);
    if (!problem.empty())
      fail(data, owner + " flexible: " + problem +
                     (data_file.empty() ? std::string() : " (" + data_file + ")"));
  }
}

}  // namespace skograph::io

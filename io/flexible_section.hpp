// A link's `flexible:` section in the YAML format (docs/flexible-bodies.md): the modal fields, a
// modal data file, or a uniform beam, given to the link once the joints and loops attached to it
// are known. Not installed.
#pragma once

#include <string>
#include <vector>

#include "yaml_input.hpp"

namespace skograph::io {

struct FlexibleSection {
  int link = -1;
  YAML::Node node;             // the section: {modal_mass, ..., nodes} | {file} | {beam}
  bool has_mass_data = false;  // the link's mass, com or inertia were given (a beam's are its own)
};

// Gives each section's link its modal data (Link::flexible; a beam's link also its rigid
// invariants) and checks it against the mechanism: every node names the link's own joint, a child
// joint or a loop on the link; every child joint and loop on the link has a node (a beam's nodes
// are computed at them); the (6 + nmd)-square mass matrix is positive definite. InputError naming
// the file and line otherwise. A modal data file is found relative to `base_directory`.
void apply_flexible_sections(const YamlReader& reader, const std::vector<FlexibleSection>& sections,
                             const std::string& base_directory, Mechanism& mechanism);

}  // namespace skograph::io

// The native YAML mechanism format (yaml-cpp): everything URDF says plus spherical and free joints,
// loop closures and joint couplings. Schema and example: docs/mechanisms.md ("The native YAML
// format").
//
// Top-level keys: name, urdf (a URDF file, relative to the YAML file's folder, giving the links
// and tree joints) or links + joints, loops, couplings. Unknown keys are rejected (a misspelled
// optional key would otherwise be silently ignored). Every error throws
// skograph::InputError(file, line, problem) with the 1-based line of the offending node; errors in
// a referenced URDF name the URDF file.
#pragma once

#include <string>

#include "skograph/io/read_options.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph {

Mechanism read_yaml_file(const std::string& path, const ReadOptions& options = {});
// `base_directory` resolves a relative `urdf:` path ("" = the current directory).
Mechanism parse_yaml(const std::string& text, const std::string& source,
                     const std::string& base_directory = "", const ReadOptions& options = {});

}  // namespace skograph

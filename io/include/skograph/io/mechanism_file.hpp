// Reads a mechanism by file extension: .urdf (URDF), .yaml / .yml (native YAML format), .xml /
// .mjcf (MuJoCo's MJCF, compiled by libmujoco), .sdf (SDFormat, through libsdformat).
//
// What each format brings in (README "Model formats"): the tree of links and joints from all of
// them; loops from YAML (loops:), MJCF (<equality> connect and weld) and SDF (joints that close a
// cycle); couplings from YAML (couplings:), URDF (<mimic>) and MJCF (<equality><joint>); named
// frames from MJCF sites and SDF frames. Massless links and physically inconsistent inertias are
// treated alike in every format (io/mechanism_checks.hpp: InertiaAudit, ReadOptions::strict).
#pragma once

#include <string>

#include "skograph/io/read_options.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// The model file format named by a path's extension (case-insensitive).
enum class ModelFormat { kNone, kUrdf, kYaml, kMjcf, kSdf };
ModelFormat model_format(const std::string& path);

// True for the extensions read_mechanism_file() accepts.
bool is_mechanism_file(const std::string& path);
// Throws InputError(path, 0, ...) for other extensions.
Mechanism read_mechanism_file(const std::string& path, const ReadOptions& options = {});

}  // namespace skograph

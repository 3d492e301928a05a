// Reads a mechanism by file extension: .urdf (URDF), .yaml / .yml (native YAML format).
#pragma once

#include <string>

#include "rigid/mechanism.hpp"

namespace skograph {

// True for the extensions read_mechanism_file() accepts.
bool is_mechanism_file(const std::string& path);
// Throws InputError(path, 0, ...) for other extensions.
Mechanism read_mechanism_file(const std::string& path);

}  // namespace skograph

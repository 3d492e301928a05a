// Reads a mechanism by file extension: .urdf (URDF), .yaml / .yml (native YAML format).
#pragma once

#include <string>

#include "rigid/mechanism.hpp"

namespace skograph {

// True for the extensions read_mechanism_file() accepts.
bool is_mechanism_file(const std::string& path);
// Throws InputError(path, 0, ...) for other extensions.
Mechanism read_mechanism_file(const std::string& path);

// The mechanism without its massless leaf links on fixed joints (URDF tool and sensor frames),
// repeatedly, so that chains of such frames go too. A loop naming such a frame moves to the nearest
// kept ancestor link, its closure frame composed through the fixed joints (the same frame in
// space); links of coupled joints move, so they stay. These
// links carry no inertia and no motion of their own, so the dynamics are unchanged; rigid-body
// models require a positive mass on every link.
Mechanism without_massless_fixed_leaves(const Mechanism& mechanism);

}  // namespace skograph

// Reads a mechanism by file extension: .urdf (URDF), .yaml / .yml (native YAML format).
#pragma once

#include <string>

#include "rigid/mechanism.hpp"

namespace skograph {

// True for the extensions read_mechanism_file() accepts.
bool is_mechanism_file(const std::string& path);
// Throws InputError(path, 0, ...) for other extensions.
Mechanism read_mechanism_file(const std::string& path);

// The mechanism without its massless links on fixed joints (URDF tool and sensor frames, a
// massless base link welded to the world): their child joints, loops and closure frames move to the
// nearest kept ancestor link (or the world), their frames composed through the fixed joints (the
// same frames in space). Massless links carry no inertia and, on fixed joints, no motion of their
// own, so the dynamics are unchanged; rigid-body models require a positive mass on every link.
// A coupled fixed joint (refused by ClosedChainModel) is left in place.
Mechanism without_massless_fixed_links(const Mechanism& mechanism);

}  // namespace skograph

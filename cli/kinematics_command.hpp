// `skograph kinematics MODEL [--state S.json] [--frames a,b|all] [--json]`: poses, velocities and
// accelerations of every frame, Jacobians of the named ones, the centre of mass, the energies, and
// for closed chains the Jacobians in the independent coordinates and the singularity measures
// (model/kinematics.hpp; docs/kinematics.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int kinematics_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

// `skograph operators MODEL [--state S.json] [--frames a,b|all] [--json]`: the operators of part II
// at the state (model/operators.hpp; docs/operators.md): log det M, M^-1 by the innovations
// factorization, the innovations factors and their inverse, the Riccati D per joint, and the
// operational-space inertia and compliance of the named frames. Closed chains: of the
// constraint-embedded model (M_R), as `skograph export`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int operators_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

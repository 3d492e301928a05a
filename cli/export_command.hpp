// `skograph export MODEL [--state S.json] --mass M.mtx [--factor L.mtx] [--perm P.txt]
//  [--kernel E.mtx] [--resolvent A.mtx] [--ordering canonical|root-first|amd|metis]`:
// the sparse mass matrix of a tree model at a state, its CHOLMOD factor and the operators E_A and
// A, as Matrix Market files for other solvers (sparse/).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int export_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

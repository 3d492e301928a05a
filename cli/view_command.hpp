// skograph view MODEL [--state S.json] [--sweep DOF=LO:HI:N | --trajectory T.csv]
// [--out view.html]: the 3D view of the mechanism as one self-contained HTML page
// (report/view_scene.hpp).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace skograph::cli {

int view_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli

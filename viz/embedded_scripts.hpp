// The scripts the 3D view's page inlines, compiled in from their files (viz/CMakeLists.txt).
#pragma once

#include <string>

namespace skograph::viz::embedded {

std::string three_js();           // three.min.js of Debian's libjs-three
std::string orbit_controls_js();  // its examples/js/controls/OrbitControls.js
std::string view_page_js();       // viz/view_page.js, the viewer

}  // namespace skograph::viz::embedded

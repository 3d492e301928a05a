// The 3D view of a mechanism as one self-contained HTML page: three.js (Debian's libjs-three),
// its orbit controls and the viewer (viz/view_page.js) inlined, the scene embedded as JSON. The
// page makes no network request and opens from disk. What the scene holds and how it is built
// from a model: report/view_scene.hpp; the page's controls: docs/pictures.md.
#pragma once

#include <string>
#include <vector>

namespace skograph::viz {

struct LegendEntry {
  std::string colour;  // CSS colour
  std::string text;
};

// `scene_json` is the scene (any JSON text: each "<" is written "\u003c" so that it cannot end
// its script element);
// `legend` and `notes` are shown beside the view, HTML-escaped.
std::string view_page(const std::string& title, const std::string& scene_json,
                      const std::vector<LegendEntry>& legend,
                      const std::vector<std::string>& notes);

}  // namespace skograph::viz

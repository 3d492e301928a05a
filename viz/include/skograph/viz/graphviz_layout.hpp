// In-process Graphviz (cgraph + gvc): lays out DOT text with the `dot` engine and renders it to
// SVG, PNG or PDF bytes.
//
// cgraph is not thread safe, not even for reads (pitfalls.md), so every Graphviz call goes through
// one process-wide mutex; the context (plugins loaded once) lives for the whole process. Graphviz
// reports problems through a global error hook, which is captured (under the same mutex) instead
// of being printed on stderr.
#pragma once

#include <string>

#include "skograph/viz/image_format.hpp"

namespace skograph::viz {

// Lays out `dot` (a complete DOT graph) and renders it as `format` (svg, png or pdf; dot returns
// the text unchanged). Throws std::runtime_error with Graphviz's message when the text does not
// parse, the layout fails (e.g. the plugin configuration config6a is missing: run `dot -c`) or
// the renderer is not available.
std::string render_dot(const std::string& dot, ImageFormat format);

}  // namespace skograph::viz

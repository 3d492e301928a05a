#include "skograph/report/html_report.hpp"

#include "skograph/graph/text_input.hpp"

#include <sstream>
#include <string_view>

namespace skograph::report {

namespace {

std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const auto byte = [&](std::size_t k) {
      return k < bytes.size() ? static_cast<unsigned>(static_cast<unsigned char>(bytes[k])) : 0u;
    };
    const unsigned triple = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += kDigits[(triple >> 18) & 63];
    out += kDigits[(triple >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(triple >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kDigits[triple & 63] : '=';
  }
  return out;
}

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One line of plain words under each picture.
std::string caption(const std::string& name) {
  if (name.rfind("digraph.", 0) == 0)
    return "The standard digraph: bodies as nodes, joints as edges, numbered strictly "
           "canonically (a parent's number exceeds its children's). Loops and couplings are the "
           "cut edges; the bodies they tie together are boxed as aggregates.";
  if (name.rfind("spanning-tree.", 0) == 0)
    return "The tree of joints alone: loops and couplings cut.";
  if (name.rfind("aggregated.", 0) == 0)
    return "Each aggregate (the bodies a loop or coupling ties together) as one node: the tree "
           "the constraint-embedded dynamics runs on.";
  if (name.rfind("segments.", 0) == 0)
    return "Serial segments: the unbranched chains of bodies; each is a diagonal block of M.";
  if (name == "sparsity-M.png")
    return "The joint-space mass matrix M: entry (i, j) is nonzero when joint i is joint j, its "
           "ancestor or its descendant.";
  if (name == "sparsity-E.png")
    return "The SKO kernel E_A: the tree's edges as 6 x 6 blocks, each body linked to its parent.";
  if (name == "sparsity-A.png")
    return "A = (I - E_A)^-1: each body's row is nonzero at itself and the bodies outboard of it.";
  if (name == "sparsity-L.png")
    return "The Cholesky factor of M in the canonical order; fill-in, if any, in red.";
  if (name == "sparsity-M_R.png")
    return "The mass matrix in the closed chain's independent coordinates: one block per "
           "aggregate.";
  if (name == "view.html")
    return "The mechanism in 3D at the state: links as the boxes of their inertia, each loop's two "
           "frames in one colour, the centre of mass. Drag to turn, wheel to zoom.";
  return "";
}

// Pan (drag) and zoom (wheel) of every inline SVG through its viewBox; double-click resets.
constexpr const char* kScript = R"(
document.querySelectorAll('.zoom svg').forEach(function (svg) {
  var box = svg.viewBox.baseVal;
  if (!box || !box.width) return;
  var home = [box.x, box.y, box.width, box.height], drag = null;
  svg.style.maxWidth = svg.getAttribute('width');  // never larger than drawn
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  svg.addEventListener('wheel', function (e) {
    e.preventDefault();
    var f = e.deltaY < 0 ? 0.8 : 1.25, r = svg.getBoundingClientRect();
    var x = box.x + (e.clientX - r.left) / r.width * box.width;
    var y = box.y + (e.clientY - r.top) / r.height * box.height;
    box.x = x - (x - box.x) * f; box.y = y - (y - box.y) * f;
    box.width *= f; box.height *= f;
  }, {passive: false});
  svg.addEventListener('pointerdown', function (e) {
    drag = [e.clientX, e.clientY];
    svg.setPointerCapture(e.pointerId);
  });
  svg.addEventListener('pointermove', function (e) {
    if (!drag) return;
    var r = svg.getBoundingClientRect();
    box.x -= (e.clientX - drag[0]) / r.width * box.width;
    box.y -= (e.clientY - drag[1]) / r.height * box.height;
    drag = [e.clientX, e.clientY];
  });
  svg.addEventListener('pointerup', function () { drag = null; });
  svg.addEventListener('dblclick', function () {
    box.x = home[0]; box.y = home[1]; box.width = home[2]; box.height = home[3];
  });
});
document.body.setAttribute('data-ready', '1');
)";

constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", sans-serif; margin: 1.5em auto; max-width: 70em;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table.summary td { padding: 0.1em 1em 0.1em 0; vertical-align: top; }
table.summary td:first-child { font-weight: bold; white-space: nowrap; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
figure { margin: 1.2em 0; border-top: 1px solid #ddd; padding-top: 0.6em; }
figcaption { margin-bottom: 0.5em; }
.zoom { border: 1px solid #ccc; overflow: hidden; cursor: grab; }
.zoom svg { width: 100%; height: auto; max-height: 85vh; display: block; margin: 0 auto; }
img { max-width: 100%; height: auto; }
iframe.view { width: 100%; height: 560px; border: 1px solid #ccc; }
.hint { color: #666; font-size: 0.85em; }
)";

}  // namespace

std::string html_report(const std::string& report_text, const nlohmann::ordered_json& report,
                        const std::vector<std::pair<std::string, std::string>>& pictures) {
  std::ostringstream html;
  const std::string name = report.value("name", std::string("model"));
  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<title>skograph analyze: " << html_escaped(name) << "</title>\n<style>" << kStyle
       << "</style>\n</head>\n<body>\n<h1>skograph analyze: " << html_escaped(name) << "</h1>\n"
       << "<p>" << html_escaped(report.value("source", std::string())) << "</p>\n";

  // report.txt: a top-level line followed by indented lines is a table of its own (h2 + pre);
  // the other top-level lines form the summary.
  std::vector<std::string> lines;
  std::istringstream in(report_text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::ostringstream summary, sections;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty() || line.rfind("pictures:", 0) == 0) continue;
    std::size_t end = i + 1;
    while (end < lines.size() && lines[end].rfind("  ", 0) == 0) ++end;
    if (end == i + 1) {
      const std::size_t colon = line.find(": ");
      const std::string key = colon == std::string::npos ? line : line.substr(0, colon);
      const std::string value = colon == std::string::npos ? "" : line.substr(colon + 2);
      summary << "<tr><td>" << html_escaped(key) << "</td><td>" << html_escaped(value)
              << "</td></tr>\n";
      continue;
    }
    sections << "<h2>" << html_escaped(line) << "</h2>\n<pre>";
    for (std::size_t k = i + 1; k < end; ++k) sections << html_escaped(lines[k].substr(2)) << "\n";
    sections << "</pre>\n";
    i = end - 1;
  }
  html << "<table class=\"summary\">\n" << summary.str() << "</table>\n" << sections.str();

  html << "<h2>Pictures</h2>\n<p class=\"hint\">Diagrams: drag to pan, wheel to zoom, double-click "
          "to reset; each picture's name links to its file.</p>\n";
  for (const auto& [file, bytes] : pictures) {
    html << "<figure id=\"" << html_escaped(file) << "\">\n<figcaption><a href=\""
         << html_escaped(file) << "\">" << html_escaped(file)
         << "</a>: " << html_escaped(caption(file)) << "</figcaption>\n";
    if (ends_with(file, ".svg")) {
      const std::size_t start = bytes.find("<svg");
      html << "<div class=\"zoom\">\n"
           << (start == std::string::npos ? std::string() : bytes.substr(start)) << "</div>\n";
    } else if (ends_with(file, ".html")) {
      // The view's own page, kept apart from this one's scripts and styles.
      html << "<iframe class=\"view\" title=\"" << html_escaped(file) << "\" srcdoc=\""
           << html_escaped(bytes) << "\"></iframe>\n";
    } else if (ends_with(file, ".png")) {
      html << "<img alt=\"" << html_escaped(file) << "\" src=\"data:image/png;base64,"
           << base64(bytes) << "\">\n";
    } else {
      html << "<p>Too large to lay out here: the DOT text is in <a href=\"" << html_escaped(file)
           << "\">" << html_escaped(file) << "</a> (Graphviz draws it: dot -Tsvg "
           << html_escaped(file) << ").</p>\n";
    }
    html << "</figure>\n";
  }
  html << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return html.str();
}

}  // namespace skograph::report

#include "skograph/viz/view_page.hpp"

#include "embedded_scripts.hpp"
#include "skograph/graph/text_input.hpp"

namespace skograph::viz {

namespace {

// Text inside a <script> element ends at the first "</script": every "</" of a script is written
// "<\/", which JavaScript strings read as "</" (three.js and the viewer hold none outside
// strings, and no "<!--").
std::string script_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}

// JSON inside a <script> element: every "<" (JSON has one only inside strings) written "\u003c",
// so that no name can end the element or open "<!--" (which would make the parser pass over
// the page's own "</script>").
std::string json_script_text(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

constexpr const char* kStyle = R"css(
html, body { margin: 0; height: 100%; font: 13px "DejaVu Sans", sans-serif; color: #222; }
#view { position: absolute; left: 0; top: 0; right: 260px; bottom: 44px; }
#side { position: absolute; top: 0; right: 0; width: 244px; bottom: 0; padding: 8px;
        overflow: auto; border-left: 1px solid #ddd; background: #fafafa; }
#side h1 { font-size: 15px; margin: 0 0 8px 0; word-break: break-all; }
#side .swatch { display: inline-block; width: 11px; height: 11px; margin-right: 6px;
                border: 1px solid #666; vertical-align: middle; }
#side li { list-style: none; margin: 3px 0; }
#side ul { padding: 0; margin: 0 0 10px 0; }
#side .note { color: #8a4b00; margin: 6px 0; }
#bar { position: absolute; left: 0; right: 260px; bottom: 0; height: 44px; display: flex;
       align-items: center; gap: 10px; padding: 0 10px; border-top: 1px solid #ddd; }
#frame { flex: 1; }
#joints h2 { font-size: 13px; margin: 10px 0 4px 0; }
#joints label { display: block; font-size: 11px; margin: 2px 0; word-break: break-all; }
#joints input { width: 100%; margin: 0; }
#tooltip { position: fixed; display: none; background: #fff; border: 1px solid #999;
           padding: 2px 5px; pointer-events: none; }
)css";

}  // namespace

std::string view_page(const std::string& title, const std::string& scene_json,
                      const std::vector<LegendEntry>& legend,
                      const std::vector<std::string>& notes) {
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<title>" + html_escaped(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n";
  page += "<body>\n<div id=\"view\"></div>\n<div id=\"side\">\n<h1>" + html_escaped(title) +
          "</h1>\n<ul id=\"legend\">\n";
  for (const LegendEntry& entry : legend)
    page += "<li><span class=\"swatch\" style=\"background:" + html_escaped(entry.colour) +
            "\"></span>" + html_escaped(entry.text) + "</li>\n";
  page += "</ul>\n<label><input type=\"checkbox\" id=\"show-frames\"> link frames</label><br>\n";
  page += "<label><input type=\"checkbox\" id=\"show-axes\"> joint axes</label>\n";
  for (const std::string& note : notes)
    page += "<p class=\"note\">" + html_escaped(note) + "</p>\n";
  page +=
      "<div id=\"joints\"></div>\n</div>\n<div id=\"bar\"><button id=\"play\">play</button>"
      "<input type=\"range\" id=\"frame\" min=\"0\" max=\"0\" step=\"1\" value=\"0\">"
      "<span id=\"time\"></span><label>speed <select id=\"speed\">"
      "<option value=\"0.25\">0.25x</option><option value=\"0.5\">0.5x</option>"
      "<option value=\"1\" selected>1x</option><option value=\"2\">2x</option>"
      "<option value=\"4\">4x</option></select></label></div>\n"
      "<div id=\"tooltip\"></div>\n";
  page += "<script>" + script_text(embedded::three_js()) + "</script>\n";
  page += "<script>" + script_text(embedded::orbit_controls_js()) + "</script>\n";
  page += "<script type=\"application/json\" id=\"scene\">" + json_script_text(scene_json) +
          "</script>\n";
  page += "<script>" + script_text(embedded::view_page_js()) + "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace skograph::viz

// The 3D view's page: three.js, its controls and the viewer inlined, the scene's JSON unable to
// end its script element whatever names it holds.
#include "skograph/viz/view_page.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace skograph::viz {
namespace {

TEST(ViewPage, NoNameEndsTheScenesScriptElement) {
  // "<!--<script>" would make the HTML parser pass over the page's own "</script>".
  const std::string name = "a<!--<script></script>\\u003c&\"";
  const std::string scene = nlohmann::json{{"name", name}}.dump();
  const std::string page = view_page("t<i>", scene, {{"#ff0000", "red <b>"}}, {"a & b"});
  const std::string open = "<script type=\"application/json\" id=\"scene\">";
  const std::size_t start = page.find(open) + open.size();
  const std::size_t end = page.find("</script>", start);
  const std::string text = page.substr(start, end - start);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text)["name"], name);
  // The viewer's script follows, and the texts are escaped.
  EXPECT_NE(page.find("window.skographView", end), std::string::npos);
  EXPECT_NE(page.find("<title>t&lt;i&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("red &lt;b&gt;"), std::string::npos);
  EXPECT_NE(page.find("a &amp; b"), std::string::npos);
  // three.js r111 and its orbit controls, once each.
  EXPECT_NE(page.find("REVISION=\"111\""), std::string::npos);
  EXPECT_EQ(page.find("REVISION=\"111\"", page.find("REVISION=\"111\"") + 1), std::string::npos);
  EXPECT_NE(page.find("var OrbitControls = function"), std::string::npos);
}

}  // namespace
}  // namespace skograph::viz

// check_xml_nesting: the depth counted by the tag scan equals the depth of the tree TinyXML-2
// builds (an independent parser) on documents with comments, CDATA, declarations and
// attribute values holding '<' and '>', and the limit is exact.
#include "io/xml_input.hpp"

#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <string>

#include "skograph/graph/digraph.hpp"

namespace skograph {
namespace {

int tree_depth(const tinyxml2::XMLElement* element) {
  int deepest = 0;
  for (const auto* child = element->FirstChildElement(); child; child = child->NextSiblingElement())
    deepest = std::max(deepest, tree_depth(child));
  return deepest + 1;
}

// A document nested `levels` deep, with distractions at every level.
std::string nested_document(int levels) {
  std::string text = "<?xml version=\"1.0\"?>\n<!-- <a><b><c> -->\n";
  for (int k = 0; k < levels; ++k)
    text += "<e" + std::to_string(k) +
            " note=\"x > y &lt;z>\" other='/>'>\n<![CDATA[<q><r>]]><empty/>\n";
  for (int k = levels - 1; k >= 0; --k) text += "</e" + std::to_string(k) + ">\n";
  return text;
}

bool accepted(const std::string& text) {
  try {
    io::check_xml_nesting(text, "m.urdf");
    return true;
  } catch (const InputError&) {
    return false;
  }
}

TEST(XmlInput, CountsTheDepthTinyXml2Builds) {
  for (int levels : {1, 2, 50, 98}) {
    const std::string text = nested_document(levels);
    tinyxml2::XMLDocument document;
    ASSERT_EQ(document.Parse(text.c_str()), tinyxml2::XML_SUCCESS) << levels;
    // The innermost level holds <empty/>: one more level than the <eK> elements.
    ASSERT_EQ(tree_depth(document.RootElement()), levels + 1);
    EXPECT_TRUE(accepted(text)) << levels;
  }
  // 99 <eK> levels plus <empty/> is 100: the limit; 100 levels plus <empty/> is 101.
  EXPECT_TRUE(accepted(nested_document(99)));
  EXPECT_FALSE(accepted(nested_document(100)));
}

TEST(XmlInput, NamesTheLineOfTheFirstElementTooDeep) {
  std::string text = "<robot>\n";
  for (int k = 0; k < 200; ++k) text += "<x>\n";
  try {
    io::check_xml_nesting(text, "m.urdf");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    // <robot> is level 1 on line 1; the <x> on line 101 opens level 101.
    EXPECT_EQ(e.line(), 101);
    EXPECT_STREQ(e.what(), "m.urdf:101: malformed XML: elements nested deeper than 100 levels");
  }
}

}  // namespace
}  // namespace skograph

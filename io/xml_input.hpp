// What the XML readers (URDF through TinyXML and urdfdom, MJCF through MuJoCo, SDF through
// sdformat) are given only after it has been checked: text bytes (graph/text_input.hpp)
// and element nesting. TinyXML and urdfdom recurse once per level and overflow the stack on
// elements nested 10^5 deep; TinyXML-2 stops at 100 levels with a bare error code.
#pragma once

#include <string>
#include <string_view>

namespace skograph::io {

// The nesting limit of every XML model file (TinyXML-2's own; robot files use fewer than 10).
inline constexpr int kMaxXmlNesting = 100;

// Throws InputError(source, line, "elements nested deeper than 100 levels") at the first element
// that opens level kMaxXmlNesting + 1. A scan of tags only: comments, CDATA, processing
// instructions, declarations and quoted attribute values are skipped; anything malformed is left
// to the parser.
void check_xml_nesting(std::string_view text, const std::string& source);

// check_text_bytes, then check_xml_nesting.
void check_xml_text(std::string_view text, const std::string& source);

// The whole file, checked by check_xml_text.
std::string read_xml_file(const std::string& path);

}  // namespace skograph::io

// Checks of picture files written by skograph, from the formats' definitions: XML
// well-formedness (SVG), the PNG signature and IHDR chunk, the PDF header.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace skograph::test {

// Well-formed XML in the sense the tests need: one root element, every start tag closed by the
// matching end tag in nesting order, attribute values quoted, comments / processing instructions /
// CDATA / DOCTYPE skipped. Returns "" when well formed, else what is wrong.
inline std::string xml_problem(const std::string& text) {
  std::vector<std::string> open;
  int roots = 0;
  size_t i = 0;
  auto skip_past = [&](const char* end) {
    const size_t found = text.find(end, i);
    if (found == std::string::npos) return false;
    i = found + std::string(end).size();
    return true;
  };
  while (i < text.size()) {
    if (text[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(text[i])))
        return "text outside the root element at " + std::to_string(i);
      ++i;
      continue;
    }
    if (text.compare(i, 4, "<!--") == 0) {
      if (!skip_past("-->")) return "unterminated comment";
    } else if (text.compare(i, 9, "<![CDATA[") == 0) {
      if (!skip_past("]]>")) return "unterminated CDATA";
    } else if (text.compare(i, 2, "<?") == 0) {
      if (!skip_past("?>")) return "unterminated processing instruction";
    } else if (text.compare(i, 2, "<!") == 0) {
      if (!skip_past(">")) return "unterminated declaration";
    } else {
      // A tag: scan to its '>' outside quoted attribute values.
      size_t j = i + 1;
      char quote = 0;
      for (; j < text.size(); ++j) {
        if (quote) {
          if (text[j] == quote) quote = 0;
        } else if (text[j] == '"' || text[j] == '\'') {
          if (text[j - 1] != '=') return "attribute value not after '=' at " + std::to_string(j);
          quote = text[j];
        } else if (text[j] == '>') {
          break;
        }
      }
      if (j == text.size()) return "unterminated tag at " + std::to_string(i);
      const std::string tag = text.substr(i + 1, j - i - 1);
      i = j + 1;
      const bool closing = !tag.empty() && tag[0] == '/';
      const bool empty = !tag.empty() && tag.back() == '/';
      const size_t name_begin = closing ? 1 : 0;
      size_t name_end = name_begin;
      while (name_end < tag.size() && !std::isspace(static_cast<unsigned char>(tag[name_end])) &&
             tag[name_end] != '/')
        ++name_end;
      const std::string name = tag.substr(name_begin, name_end - name_begin);
      if (name.empty()) return "tag without a name";
      if (closing) {
        if (open.empty() || open.back() != name)
          return "</" + name + "> does not close <" + (open.empty() ? "" : open.back()) + ">";
        open.pop_back();
      } else {
        if (open.empty() && ++roots > 1) return "more than one root element";
        if (!empty) open.push_back(name);
      }
    }
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  if (roots != 1) return "no root element";
  return "";
}

// Width and height from a PNG's IHDR chunk, or {-1, -1} when the signature or the chunk is wrong.
struct PngSize {
  int width = -1, height = -1;
};
inline PngSize png_size(const std::string& bytes) {
  static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 24) return {};
  for (int k = 0; k < 8; ++k)
    if (static_cast<unsigned char>(bytes[k]) != kSignature[k]) return {};
  if (bytes.compare(12, 4, "IHDR") != 0) return {};
  auto big_endian = [&](size_t at) {
    std::uint32_t value = 0;
    for (size_t k = 0; k < 4; ++k) value = (value << 8) | static_cast<unsigned char>(bytes[at + k]);
    return static_cast<int>(value);
  };
  if (big_endian(8) != 13) return {};  // IHDR data length
  return {big_endian(16), big_endian(20)};
}

inline bool is_pdf(const std::string& bytes) {
  return bytes.compare(0, 5, "%PDF-") == 0 && bytes.find("%%EOF") != std::string::npos;
}

}  // namespace skograph::test

#include "xml_input.hpp"

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/text_input.hpp"

namespace skograph::io {

namespace {

// Scans XML markup, counting lines; each skip stops at the end of the text.
class XmlScanner {
 public:
  explicit XmlScanner(std::string_view text) : text_(text) {}

  bool done() const { return position_ >= text_.size(); }
  int line() const { return line_; }
  bool starts_with(std::string_view prefix) const {
    return text_.substr(position_, prefix.size()) == prefix;
  }
  char peek() const { return text_[position_]; }
  void advance(std::size_t count = 1) {
    for (std::size_t k = 0; k < count && !done(); ++k)
      if (text_[position_++] == '\n') ++line_;
  }
  // Moves past the next occurrence of `end` (or to the end of the text).
  void skip_past(std::string_view end) {
    while (!done() && !starts_with(end)) advance();
    advance(end.size());
  }
  // Moves past the '>' closing a tag, skipping quoted attribute values; true when the tag closes
  // itself ("/>").
  bool skip_tag() {
    char previous = '\0';
    while (!done()) {
      const char c = peek();
      if (c == '"' || c == '\'') {
        advance();
        while (!done() && peek() != c) advance();
        advance();
        previous = c;
        continue;
      }
      advance();
      if (c == '>') return previous == '/';
      previous = c;
    }
    return false;
  }

 private:
  std::string_view text_;
  std::size_t position_ = 0;
  int line_ = 1;
};

}  // namespace

void check_xml_nesting(std::string_view text, const std::string& source) {
  XmlScanner scanner(text);
  int depth = 0;
  while (!scanner.done()) {
    if (scanner.peek() != '<') {
      scanner.advance();
    } else if (scanner.starts_with("<!--")) {
      scanner.skip_past("-->");
    } else if (scanner.starts_with("<![CDATA[")) {
      scanner.skip_past("]]>");
    } else if (scanner.starts_with("<?")) {
      scanner.skip_past("?>");
    } else if (scanner.starts_with("<!")) {
      scanner.skip_tag();  // <!DOCTYPE ...>: robot files carry no internal subset
    } else if (scanner.starts_with("</")) {
      scanner.skip_tag();
      if (depth > 0) --depth;
    } else {
      const int line = scanner.line();
      const bool closes_itself = scanner.skip_tag();
      if (depth + 1 > kMaxXmlNesting)
        throw InputError(source, line,
                         "malformed XML: elements nested deeper than " +
                             std::to_string(kMaxXmlNesting) + " levels");
      if (!closes_itself) ++depth;
    }
  }
}

void check_xml_text(std::string_view text, const std::string& source) {
  check_text_bytes(text, source);
  check_xml_nesting(text, source);
}

std::string read_xml_file(const std::string& path) {
  std::string text = read_text_file(path);
  check_xml_nesting(text, path);
  return text;
}

}  // namespace skograph::io

#include "skograph/graph/text_input.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "skograph/graph/digraph.hpp"

namespace skograph {

namespace {

// Length of the well-formed UTF-8 sequence starting at text[i] (RFC 3629, table 3-7 of the
// Unicode standard), 0 when it is not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

std::string printable(std::string_view text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // A well-formed multi-byte UTF-8 character stays as it is.
    const std::size_t length = c >= 0x80 ? utf8_sequence_length(text, i) : 1;
    if (length > 1) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

void check_text_bytes(std::string_view text, const std::string& source) {
  int line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\0') throw InputError(source, line, "NUL byte: not a text file");
    if (c == '\n') ++line;
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      // A lead byte whose continuation bytes run to the end of the file: a character cut short.
      std::size_t next = i + 1;
      while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
      const bool cut_short = static_cast<unsigned char>(c) >= 0xC2 &&
                             static_cast<unsigned char>(c) <= 0xF4 && next == text.size();
      throw InputError(source, line,
                       std::string("invalid UTF-8 (byte ") + hex +
                           (cut_short ? ": a character cut short by the end of the file)" : ")"));
    }
    i += length;
  }
}

bool is_text(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = text[i] == '\0' ? 0 : utf8_sequence_length(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string read_file_bytes(const std::string& path) {
  // Regular files and pipes (a shell's <(...)) only: a directory cannot be read, and a device such
  // as /dev/zero or a terminal never ends.
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0) {
    if (S_ISDIR(status.st_mode)) throw InputError(path, 0, "is a directory, not a file");
    if (!S_ISREG(status.st_mode) && !S_ISFIFO(status.st_mode))
      throw InputError(path, 0, "not a regular file (a device or a socket)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open the file (missing or unreadable)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "cannot read the file");
  // Every input format needs some content: say so rather than let a parser describe nothing.
  if (text.view().empty()) throw InputError(path, 0, "the file is empty");
  return std::move(text).str();
}

std::string read_text_file(const std::string& path) {
  std::string bytes = read_file_bytes(path);
  check_text_bytes(bytes, path);
  return bytes;
}

std::string html_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace skograph

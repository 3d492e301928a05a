// The bytes every text reader accepts before a parser sees them. Parsers such as
// TinyXML read past the end of a text that stops inside a multi-byte character, and names that are
// not UTF-8 cannot be written to JSON; both are refused here, once, with the file and the line.
#pragma once

#include <string>
#include <string_view>

namespace skograph {

// `text` fit for a one-line message: newlines, tabs and other control bytes and bytes that are
// not well-formed UTF-8 (as check_text_bytes decides) escaped ("\n", "\t", "\xff"); UTF-8
// characters kept.
std::string printable(std::string_view text);

// `text` for HTML text or a double-quoted attribute: & < > " as entities, everything else as it
// is (the pages skograph writes: analyze's index.html, the 3D view).
std::string html_escaped(std::string_view text);

// Throws InputError(source, line, ...) at the first NUL byte ("NUL byte: not a text file") or the
// first byte that is not well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF; a sequence cut short by the end of the file is reported too). A byte-order
// mark is well-formed and allowed.
void check_text_bytes(std::string_view text, const std::string& source);

// True when check_text_bytes accepts `text` (for names decoded from escapes, e.g. YAML "\ud800").
bool is_text(std::string_view text);

// The whole file as it is; InputError "cannot open the file" when it cannot be read, for a
// directory or a device (only regular files and pipes are read), and "the file is empty" (every
// input format needs some content).
std::string read_file_bytes(const std::string& path);
// The whole file, checked by check_text_bytes.
std::string read_text_file(const std::string& path);

}  // namespace skograph

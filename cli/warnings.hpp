// Warnings and notes of a command run (inconsistent inertias accepted, massless moving joints,
// ...): one line per file, printed when the command succeeds and dropped when it fails, so that bad
// input stays exactly one line on stderr (cli/commands.hpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "skograph/model/dynamics.hpp"

namespace skograph::cli {

// Remembers `items` about `file` ("FILE: item; item"); nothing when items is empty. Items about a
// file already warned about join its line.
void add_warnings(const std::string& file, const std::vector<std::string>& items);
// A note about `file` (e.g. one aggregate holds the whole mechanism), printed like the warnings.
void add_note(const std::string& file, const std::string& text);
// The warnings and notes of a closed state (model/model.hpp: state_messages) about `file`.
void add_state_messages(const std::string& file, const StateMessages& messages);
// "skograph COMMAND: warning: FILE: ..." (and "note: FILE: ...") per file, then forgets them.
void flush_warnings(const std::string& command, std::ostream& err);
void discard_warnings();

}  // namespace skograph::cli

#include "warnings.hpp"

#include <ostream>
#include <utility>

#include "usage.hpp"

namespace skograph::cli {

namespace {
struct PendingLine {
  std::string kind, file, text;
};
// Per kind and file, in the order first reported.
std::vector<PendingLine>& pending() {
  static thread_local std::vector<PendingLine> lines;
  return lines;
}

void add_items(const std::string& kind, const std::string& file,
               const std::vector<std::string>& items) {
  for (const std::string& item : items) {
    std::string* line = nullptr;
    for (auto& pending_line : pending())
      if (pending_line.kind == kind && pending_line.file == file) line = &pending_line.text;
    if (line)
      *line += "; " + item;
    else
      pending().push_back({kind, file, item});
  }
}
}  // namespace

void add_warnings(const std::string& file, const std::vector<std::string>& items) {
  add_items("warning", file, items);
}

void add_note(const std::string& file, const std::string& text) {
  add_items("note", file, {text});
}

void add_state_messages(const std::string& file, const StateMessages& messages) {
  add_items("warning", file, messages.warnings);
  add_items("note", file, messages.notes);
}

void flush_warnings(const std::string& command, std::ostream& err) {
  for (const auto& line : pending())
    print_line(err, command, line.kind + ": " + line.file + ": " + line.text);
  pending().clear();
}

void discard_warnings() {
  pending().clear();
}

}  // namespace skograph::cli

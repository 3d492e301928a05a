#include "cli/warnings.hpp"

#include <ostream>
#include <utility>

#include "cli/usage.hpp"

namespace skograph::cli {

namespace {
// Per file, in the order first warned about.
std::vector<std::pair<std::string, std::string>>& pending() {
  static thread_local std::vector<std::pair<std::string, std::string>> lines;
  return lines;
}
}  // namespace

void add_warnings(const std::string& file, const std::vector<std::string>& items) {
  for (const std::string& item : items) {
    std::string* line = nullptr;
    for (auto& [name, text] : pending())
      if (name == file) line = &text;
    if (line)
      *line += "; " + item;
    else
      pending().emplace_back(file, item);
  }
}

void flush_warnings(const std::string& command, std::ostream& err) {
  for (const auto& [file, text] : pending())
    print_line(err, command, "warning: " + file + ": " + text);
  pending().clear();
}

void discard_warnings() {
  pending().clear();
}

}  // namespace skograph::cli

#include "cli/json_output.hpp"

namespace skograph::cli {

namespace {

bool is_flat(const nlohmann::ordered_json& value, int depth) {
  if (!value.is_structured()) return true;
  if (value.is_object() || depth == 0) return false;
  for (const auto& element : value)
    if (!is_flat(element, depth - 1)) return false;
  return true;
}

void write(const nlohmann::ordered_json& value, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent) + 2, ' ');
  if (value.is_object() && !value.empty()) {
    out += "{\n";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!first) out += ",\n";
      first = false;
      out += pad + nlohmann::ordered_json(it.key()).dump() + ": ";
      write(it.value(), indent + 2, out);
    }
    out += "\n" + std::string(static_cast<size_t>(indent), ' ') + "}";
  } else if (value.is_array() && !value.empty() && !is_flat(value, 2)) {
    out += "[\n";
    bool first = true;
    for (const auto& element : value) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      write(element, indent + 2, out);
    }
    out += "\n" + std::string(static_cast<size_t>(indent), ' ') + "]";
  } else if (value.is_array()) {
    out += "[";
    bool first = true;
    for (const auto& element : value) {
      if (!first) out += ", ";
      first = false;
      write(element, indent, out);
    }
    out += "]";
  } else {
    out += value.dump();
  }
}

}  // namespace

std::string format_json(const nlohmann::ordered_json& value) {
  std::string out;
  write(value, 0, out);
  return out + "\n";
}

}  // namespace skograph::cli

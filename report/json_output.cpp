#include "skograph/report/json_output.hpp"

namespace skograph::report {

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
      out += pad;
      append_json_string(out, it.key());
      out += ": ";
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
    out += value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  static const char* const kHex = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          if (c < 0x20) {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 15];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence as is; anything else one replacement character per byte.
    const int length = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    bool valid = length > 0 && i + static_cast<std::size_t>(length) <= text.size();
    for (int k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (valid) {
      out.append(text.substr(i, static_cast<std::size_t>(length)));
      i += static_cast<std::size_t>(length);
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    }
  }
  out += '"';
}

void append_distinct(nlohmann::ordered_json& object, std::string key,
                     nlohmann::ordered_json value) {
  if (object.is_null()) object = nlohmann::ordered_json::object();
  // ordered_map is a std::vector of pairs: append without the duplicate search.
  auto& pairs = object.get_ref<nlohmann::ordered_json::object_t&>();
  static_cast<std::vector<nlohmann::ordered_json::object_t::value_type>&>(pairs).emplace_back(
      std::move(key), std::move(value));
}

std::string format_json(const nlohmann::ordered_json& value) {
  std::string out;
  write(value, 0, out);
  return out + "\n";
}
nlohmann::ordered_json vector_json(const Eigen::Ref<const Eigen::VectorXd>& v) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) list.push_back(v(i));
  return list;
}

nlohmann::ordered_json matrix_json(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace skograph::report

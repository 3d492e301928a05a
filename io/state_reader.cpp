#include "skograph/io/state_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/text_input.hpp"

namespace skograph {

namespace {

// 1-based line of a byte offset into the text.
int line_of_byte(const std::string& text, std::size_t byte) {
  const std::size_t end = std::min(byte, text.size());
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

// nlohmann's message in plain words: "[json.exception.parse_error.101] parse error at line 1,
// column 14: syntax error while parsing object - unexpected ']'; expected '}'" becomes
// "unexpected ']' at line 1, column 14 (expected '}')".
std::string plain_parse_error(const std::string& what) {
  std::string text = what;
  if (text.rfind("[json.exception.", 0) == 0 && text.find("] ") != std::string::npos)
    text = text.substr(text.find("] ") + 2);
  std::string place;
  const std::string at = "parse error at line ";
  if (const std::size_t start = text.find(at); start != std::string::npos) {
    const std::size_t colon = text.find(": ", start);
    if (colon != std::string::npos) {
      place = "line " + text.substr(start + at.size(), colon - start - at.size());
      text = text.substr(colon + 2);
    }
  }
  if (const std::size_t dash = text.find(" - "); dash != std::string::npos)
    text = text.substr(dash + 3);  // "syntax error while parsing value - " says nothing more
  std::string detail;
  if (const std::size_t semicolon = text.find("; "); semicolon != std::string::npos) {
    detail = text.substr(semicolon + 2);
    text = text.substr(0, semicolon);
  }
  return text + (place.empty() ? "" : " at " + place) + (detail.empty() ? "" : " (" + detail + ")");
}

// A number out of double's range ("number overflow parsing '1e999'"): InputError "number 1e999
// out of range at line 1, column 13", the place found in the text.
InputError out_of_range_number(const std::string& source, const std::string& what,
                               const std::string& text) {
  const std::size_t open = what.find('\''), close = what.rfind('\'');
  if (open == std::string::npos || close <= open)
    return InputError(source, 0, "malformed JSON: a number out of range");
  const std::string number = what.substr(open + 1, close - open - 1);
  std::string message = "malformed JSON: number " + number + " out of range";
  const std::size_t byte = text.find(number);
  if (byte == std::string::npos) return InputError(source, 0, message);
  const std::size_t line_start = text.rfind('\n', byte);
  const std::size_t column = line_start == std::string::npos ? byte + 1 : byte - line_start;
  const int line = line_of_byte(text, byte);
  return InputError(
      source, line,
      message + " at line " + std::to_string(line) + ", column " + std::to_string(column));
}

double finite_number(const nlohmann::json& value, const std::string& source,
                     const std::string& what) {
  if (!value.is_number()) throw InputError(source, 0, what + " must be a number");
  const double number = value.get<double>();
  if (!std::isfinite(number)) throw InputError(source, 0, what + " is not a finite number");
  return number;
}

// A flexible link's modal coordinates in `values` (in dof order): "LINK:eta" with all of them as an
// array, or "LINK:etaK" with the K-th alone (1-based), placed after its joint's dofs.
void read_modal_values(const nlohmann::json& value, const std::string& key, const std::string& name,
                       const std::string& source, const Mechanism& mechanism,
                       const std::vector<int>& first_dof, Eigen::VectorXd& values) {
  const std::string unknown = "\"" + key + "\" names unknown joint '" + name + "'";
  const std::size_t colon = name.rfind(":eta");
  if (colon == std::string::npos) throw InputError(source, 0, unknown);
  const int link = mechanism.find_link(name.substr(0, colon));
  const int j = link < 0 ? -1 : mechanism.parent_joint(link);
  const int modes = j < 0 ? 0 : child_mode_count(mechanism, j);
  if (modes == 0) throw InputError(source, 0, unknown);
  const int first = first_dof[static_cast<std::size_t>(j)] +
                    joint_dof_count(mechanism.joints[static_cast<std::size_t>(j)].type);
  const std::string what = "\"" + key + "\" of '" + name + "'";
  const std::string index = name.substr(colon + 4);
  if (index.empty()) {
    if (!value.is_array() || static_cast<int>(value.size()) != modes)
      throw InputError(source, 0,
                       what + " must be an array of " + std::to_string(modes) +
                           " numbers (the link's modal coordinates)");
    for (int i = 0; i < modes; ++i) values(first + i) = finite_number(value[i], source, what);
    return;
  }
  int mode = 0;
  for (const char c : index) {
    if (c < '0' || c > '9' || mode > modes) throw InputError(source, 0, unknown);
    mode = 10 * mode + (c - '0');
  }
  if (mode < 1 || mode > modes || index[0] == '0')
    throw InputError(source, 0,
                     what + ": link '" + name.substr(0, colon) + "' has modal coordinates " +
                         name.substr(0, colon) + ":eta1 to :eta" + std::to_string(modes));
  values(first + mode - 1) = finite_number(value, source, what);
}

// Fills `values` (in dof order) from {joint: value or [values]}, and a flexible link's modal
// coordinates (read_modal_values).
void read_joint_values(const nlohmann::json& object, const std::string& key,
                       const std::string& source, const Mechanism& mechanism,
                       const std::vector<int>& first_dof, Eigen::VectorXd& values) {
  if (!object.is_object())
    throw InputError(source, 0, "\"" + key + "\" must be an object {joint: value}");
  for (const auto& [name, value] : object.items()) {
    const int j = mechanism.find_joint(name);
    if (j < 0) {
      read_modal_values(value, key, name, source, mechanism, first_dof, values);
      continue;
    }
    const std::string what = "\"" + key + "\" of joint '" + name + "'";
    const int dofs = joint_dof_count(mechanism.joints[j].type);
    if (dofs == 0) throw InputError(source, 0, what + ": a fixed joint has no coordinates");
    if (dofs == 1) {
      values(first_dof[j]) = finite_number(value, source, what);
      continue;
    }
    if (!value.is_array() || static_cast<int>(value.size()) != dofs)
      throw InputError(source, 0,
                       what + " must be an array of " + std::to_string(dofs) + " numbers (" +
                           joint_type_name(mechanism.joints[j].type) + " joint)");
    for (int i = 0; i < dofs; ++i) values(first_dof[j] + i) = finite_number(value[i], source, what);
  }
}

}  // namespace

MechanismState zero_state(const Mechanism& mechanism) {
  const auto n = static_cast<Eigen::Index>(dof_names(mechanism).size());
  MechanismState state;
  state.q = state.qd = state.tau = state.qdd = Eigen::VectorXd::Zero(n);
  return state;
}

MechanismState parse_state(const std::string& text, const std::string& source,
                           const Mechanism& mechanism) {
  check_text_bytes(text, source);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source, line_of_byte(text, e.byte > 0 ? e.byte - 1 : 0),
                     "malformed JSON: " + plain_parse_error(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {  // a number out of double's range
    throw out_of_range_number(source, e.what(), text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source, 0, "malformed JSON: " + plain_parse_error(e.what()));
  }
  if (!document.is_object()) throw InputError(source, 1, "a state must be a JSON object");
  MechanismState state = zero_state(mechanism);
  std::vector<int> first_dof;
  int dof = 0;
  for (std::size_t j = 0; j < mechanism.joints.size(); ++j) {
    first_dof.push_back(dof);
    dof += joint_coordinate_count(mechanism, static_cast<int>(j));
  }
  for (const auto& [key, value] : document.items()) {
    if (key == "gravity") {
      if (!value.is_array() || value.size() != 3)
        throw InputError(source, 0, "\"gravity\" must be an array of 3 numbers");
      for (int i = 0; i < 3; ++i) state.gravity(i) = finite_number(value[i], source, "\"gravity\"");
    } else if (key == "q") {
      read_joint_values(value, key, source, mechanism, first_dof, state.q);
    } else if (key == "qd") {
      read_joint_values(value, key, source, mechanism, first_dof, state.qd);
    } else if (key == "tau") {
      read_joint_values(value, key, source, mechanism, first_dof, state.tau);
    } else if (key == "qdd") {
      read_joint_values(value, key, source, mechanism, first_dof, state.qdd);
      state.has_qdd = true;
    } else {
      throw InputError(source, 0,
                       "unknown key \"" + key + "\" (expected gravity, q, qd, tau, qdd)");
    }
  }
  return state;
}

MechanismState read_state_file(const std::string& path, const Mechanism& mechanism) {
  return parse_state(read_file_bytes(path), path, mechanism);
}

std::string state_text(const Mechanism& mechanism, const MechanismState& state, bool with_qdd) {
  // Written directly (O(n); an ordered_json object searches its keys on every insertion).
  std::ostringstream text;
  text << std::setprecision(17);
  text << "{\n  \"gravity\": [" << state.gravity.x() << ", " << state.gravity.y() << ", "
       << state.gravity.z() << "]";
  auto joint_values = [&](const char* key, const Eigen::VectorXd& values) {
    text << ",\n  \"" << key << "\": {";
    int offset = 0;
    bool first = true;
    // One entry per moving joint, then "LINK:eta": [...] for a flexible child link's modes.
    auto entry = [&](const std::string& name, int dofs, bool array) {
      text << (first ? "\n    " : ",\n    ")
           << nlohmann::json(name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
           << ": ";
      if (array) text << "[";
      for (int i = 0; i < dofs; ++i) text << (i ? ", " : "") << values(offset + i);
      if (array) text << "]";
      first = false;
      offset += dofs;
    };
    for (std::size_t j = 0; j < mechanism.joints.size(); ++j) {
      const Joint& joint = mechanism.joints[j];
      const int dofs = joint_dof_count(joint.type);
      if (dofs > 0) entry(joint.name, dofs, dofs > 1);
      if (const int modes = child_mode_count(mechanism, static_cast<int>(j)); modes > 0)
        entry(mechanism.links[static_cast<std::size_t>(joint.child)].name + ":eta", modes, true);
    }
    text << (first ? "}" : "\n  }");
  };
  joint_values("q", state.q);
  joint_values("qd", state.qd);
  joint_values("tau", state.tau);
  if (with_qdd) joint_values("qdd", state.qdd);
  text << "\n}\n";
  return text.str();
}

}  // namespace skograph

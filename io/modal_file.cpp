// The modal data file (io/modal_file.hpp) and the checks both sources of modal data share
// (io/modal_input.hpp).
#include "skograph/io/modal_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "modal_input.hpp"
#include "skograph/graph/text_input.hpp"

namespace skograph {

namespace io {

namespace {

// Square of size `size` with nothing off its diagonal.
bool diagonal_of_size(const Eigen::MatrixXd& matrix, Eigen::Index size) {
  if (matrix.rows() != size || matrix.cols() != size) return false;
  for (Eigen::Index j = 0; j < size; ++j)
    for (Eigen::Index i = 0; i < size; ++i)
      if (i != j && matrix(i, j) != 0.0) return false;
  return true;
}

template <typename Value>
const SourceLocation& where_of(const std::optional<Located<Value>>& field,
                               const SourceLocation& otherwise) {
  return field ? field->where : otherwise;
}

}  // namespace

ModalBody assemble_modal_body(const ModalFields& fields) {
  const SourceLocation& at = fields.where;
  Eigen::Index modes = 0;
  if (fields.modal_mass)
    modes = fields.modal_mass->value.rows();
  else if (fields.modal_stiffness)
    modes = fields.modal_stiffness->value.rows();
  else if (fields.frequencies_hz)
    modes = fields.frequencies_hz->value.size();
  if (fields.modal_stiffness && fields.frequencies_hz)
    fail(fields.frequencies_hz->where, "give 'modal_stiffness' or 'frequencies_hz', not both");
  if (!fields.modal_stiffness && !fields.frequencies_hz)
    fail(at, "the modal data has no 'modal_stiffness' or 'frequencies_hz'");
  if (fields.modal_damping && fields.damping_ratios)
    fail(fields.damping_ratios->where, "give 'modal_damping' or 'damping_ratios', not both");
  if (!fields.coupling) fail(at, "the modal data has no 'coupling' (6 rows, one column per mode)");
  if (modes == 0) fail(where_of(fields.modal_mass, at), "the modal data has no modes");

  ModalBody body;
  body.source_file = at.source;
  body.source_line = at.line;
  body.modal_mass =
      fields.modal_mass ? fields.modal_mass->value : Eigen::MatrixXd::Identity(modes, modes);
  body.coupling = fields.coupling->value;
  body.nodes = fields.nodes;
  // The modal mass first: frequencies and damping ratios are read against it.
  const std::string mass_problem = modal_mass_problem(body.modal_mass);
  if (!mass_problem.empty()) fail(where_of(fields.modal_mass, at), mass_problem);
  const auto per_mode = [&](const Located<Eigen::VectorXd>& field, const std::string& what) {
    if (field.value.size() != modes)
      fail(field.where, "'" + what + "' has " + std::to_string(field.value.size()) +
                            " entries, not one per mode (" + std::to_string(modes) + ")");
    if (!field.value.allFinite() || field.value.minCoeff() < 0.0)
      fail(field.where, "'" + what + "' has an entry that is negative or not finite");
    if (!diagonal_of_size(body.modal_mass, modes))
      fail(field.where, "'" + what +
                            "' needs a diagonal modal mass (modes that are not mass-orthogonal "
                            "have no frequencies of their own: give the matrix)");
  };
  if (fields.frequencies_hz) {
    per_mode(*fields.frequencies_hz, "frequencies_hz");
    const Eigen::ArrayXd omega = 2.0 * M_PI * fields.frequencies_hz->value.array();
    body.modal_stiffness =
        (omega.square() * body.modal_mass.diagonal().array()).matrix().asDiagonal();
  } else {
    body.modal_stiffness = fields.modal_stiffness->value;
  }
  if (fields.damping_ratios) {
    per_mode(*fields.damping_ratios, "damping_ratios");
    if (!diagonal_of_size(body.modal_stiffness, modes))
      fail(fields.damping_ratios->where,
           "'damping_ratios' needs a diagonal modal stiffness (give 'modal_damping')");
    if (body.modal_stiffness.diagonal().minCoeff() < 0.0)
      fail(where_of(fields.modal_stiffness, at),
           "the modal stiffness has a negative eigenvalue (negative stiffness)");
    const Eigen::ArrayXd mass = body.modal_mass.diagonal().array();
    const Eigen::ArrayXd omega = (body.modal_stiffness.diagonal().array() / mass).sqrt();
    body.modal_damping =
        (2.0 * fields.damping_ratios->value.array() * omega * mass).matrix().asDiagonal();
  } else if (fields.modal_damping) {
    body.modal_damping = fields.modal_damping->value;
  } else {
    body.modal_damping = Eigen::MatrixXd::Zero(modes, modes);
  }
  ModalProblemPlace field;
  const std::string problem = modal_body_problem(body, &field);
  if (!problem.empty()) {
    // Charged to the line of the field the problem lies in.
    SourceLocation place = at;
    switch (field.field) {
      case ModalProblemPlace::kModalMass:
        place = where_of(fields.modal_mass, at);
        break;
      case ModalProblemPlace::kModalStiffness:
        place = where_of(fields.modal_stiffness, where_of(fields.frequencies_hz, at));
        break;
      case ModalProblemPlace::kModalDamping:
        place = where_of(fields.modal_damping, where_of(fields.damping_ratios, at));
        break;
      case ModalProblemPlace::kCoupling:
        place = where_of(fields.coupling, at);
        break;
      case ModalProblemPlace::kNode:
        place = {at.source, body.nodes[field.node].source_line};
        break;
      case ModalProblemPlace::kNone:
        break;
    }
    fail(place, problem);
  }
  return body;
}

}  // namespace io

namespace {

using io::fail;
using io::Located;
using io::SourceLocation;

constexpr int kMostModes = 1000;

struct Section {
  std::string name;  // "modal_mass", ..., "node"
  std::string node_name;
  int line = 0;
  std::vector<std::vector<double>> rows;
  std::vector<int> row_lines;
};

std::vector<std::string> tokens_of(const std::string& line) {
  std::istringstream stream(line.substr(0, line.find('#')));
  std::vector<std::string> tokens;
  for (std::string token; stream >> token;) tokens.push_back(token);
  return tokens;
}

bool parse_number(const std::string& token, double& value) {
  const char* begin = token.c_str();
  char* end = nullptr;
  value = std::strtod(begin, &end);
  return end != begin && *end == '\0';
}

// The rows of `section` as a matrix of `rows` x `columns`.
Eigen::MatrixXd matrix_of(const Section& section, const std::string& source, Eigen::Index rows,
                          Eigen::Index columns, const std::string& shape) {
  const std::string what =
      section.name == "node" ? "node '" + section.node_name + "'" : "'" + section.name + "'";
  if (static_cast<Eigen::Index>(section.rows.size()) != rows)
    fail({source, section.line}, what + " has " + std::to_string(section.rows.size()) +
                                     " rows, not " + std::to_string(rows) + " (" + shape + ")");
  Eigen::MatrixXd matrix(rows, columns);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const std::vector<double>& row = section.rows[static_cast<std::size_t>(i)];
    if (static_cast<Eigen::Index>(row.size()) != columns)
      fail({source, section.row_lines[static_cast<std::size_t>(i)]},
           what + " row has " + std::to_string(row.size()) + " numbers, not " +
               std::to_string(columns) + " (one per mode)");
    for (Eigen::Index j = 0; j < columns; ++j) matrix(i, j) = row[static_cast<std::size_t>(j)];
  }
  return matrix;
}

}  // namespace

ModalBody parse_modal_file(const std::string& text, const std::string& source) {
  check_text_bytes(text, source);
  std::vector<Section> sections;
  std::set<std::pair<std::string, std::string>> named;  // (section, node name) given so far
  int modes = 0, modes_line = 0;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const std::vector<std::string> tokens = tokens_of(line);
    if (tokens.empty()) continue;
    double value = 0.0;
    if (parse_number(tokens[0], value)) {
      if (sections.empty())
        fail({source, number}, "numbers before any section (the file starts with 'modes N')");
      std::vector<double> row;
      for (const std::string& token : tokens) {
        if (!parse_number(token, value))
          fail({source, number}, "'" + printable(token) + "' is not a number");
        if (!std::isfinite(value))
          fail({source, number}, "'" + printable(token) + "' is not a finite number");
        row.push_back(value);
      }
      sections.back().rows.push_back(std::move(row));
      sections.back().row_lines.push_back(number);
      continue;
    }
    const std::string& name = tokens[0];
    if (name == "modes") {
      if (modes_line != 0) fail({source, number}, "'modes' given twice");
      if (!sections.empty()) fail({source, number}, "'modes' must come before every section");
      double count = 0.0;
      if (tokens.size() != 2 || !parse_number(tokens[1], count) || count != std::floor(count) ||
          count < 1 || count > kMostModes)
        fail({source, number}, "'modes' takes one whole number from 1 to " +
                                   std::to_string(kMostModes) + ": modes N");
      modes = static_cast<int>(count);
      modes_line = number;
      sections.push_back({"modes", "", number, {}, {}});
      continue;
    }
    static const char* const kSections[] = {"modal_mass",    "modal_stiffness", "frequencies_hz",
                                            "modal_damping", "damping_ratios",  "coupling",
                                            "node"};
    bool known = false;
    for (const char* section : kSections) known = known || name == section;
    if (!known)
      fail({source, number}, "unknown section '" + printable(name) +
                                 "' (expected modes, modal_mass, modal_stiffness, "
                                 "frequencies_hz, modal_damping, damping_ratios, coupling or "
                                 "node NAME)");
    if (modes_line == 0) fail({source, number}, "the file must start with 'modes N'");
    if (name == "node" ? tokens.size() != 2 : tokens.size() != 1)
      fail({source, number}, name == "node" ? "a node section is 'node NAME' (one name)"
                                            : "'" + name + "' stands alone on its line");
    Section section{name, name == "node" ? tokens[1] : "", number, {}, {}};
    if (!named.insert({section.name, section.node_name}).second) {
      const auto earlier =
          std::find_if(sections.begin(), sections.end(), [&](const Section& other) {
            return other.name == section.name && other.node_name == section.node_name;
          });
      fail({source, number},
           (name == "node" ? "node '" + section.node_name + "'" : "'" + name + "'") +
               " given twice (first at line " + std::to_string(earlier->line) + ")");
    }
    sections.push_back(std::move(section));
  }
  if (modes_line == 0)
    fail({source, number > 0 ? 1 : 0}, "no 'modes N' line: not a modal data file");
  if (!sections.front().rows.empty())
    fail({source, sections.front().row_lines.front()},
         "numbers after 'modes N' belong in a section");

  io::ModalFields fields;
  fields.where = {source, modes_line};
  const std::string square = std::to_string(modes) + " rows of " + std::to_string(modes);
  for (const Section& section : sections) {
    const SourceLocation at{source, section.line};
    if (section.name == "modal_mass")
      fields.modal_mass =
          Located<Eigen::MatrixXd>{matrix_of(section, source, modes, modes, square), at};
    else if (section.name == "modal_stiffness")
      fields.modal_stiffness =
          Located<Eigen::MatrixXd>{matrix_of(section, source, modes, modes, square), at};
    else if (section.name == "modal_damping")
      fields.modal_damping =
          Located<Eigen::MatrixXd>{matrix_of(section, source, modes, modes, square), at};
    else if (section.name == "frequencies_hz")
      fields.frequencies_hz =
          Located<Eigen::VectorXd>{matrix_of(section, source, 1, modes, "one row").row(0), at};
    else if (section.name == "damping_ratios")
      fields.damping_ratios =
          Located<Eigen::VectorXd>{matrix_of(section, source, 1, modes, "one row").row(0), at};
    else if (section.name == "coupling")
      fields.coupling =
          Located<Eigen::MatrixXd>{matrix_of(section, source, 6, modes, "[angular; linear]"), at};
    else if (section.name == "node")
      fields.nodes.push_back({section.node_name,
                              matrix_of(section, source, 6, modes, "[rotation; translation]"),
                              section.line});
  }
  return io::assemble_modal_body(fields);
}

ModalBody read_modal_file(const std::string& path) {
  return parse_modal_file(read_file_bytes(path), path);
}

}  // namespace skograph

#include "skograph/io/trajectory_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/text_input.hpp"

namespace skograph {

namespace {

// The comma-separated fields of one line, spaces and tabs around each trimmed.
std::vector<std::string_view> csv_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    std::string_view field =
        line.substr(start, comma == std::string_view::npos ? line.npos : comma - start);
    while (!field.empty() && (field.front() == ' ' || field.front() == '\t'))
      field.remove_prefix(1);
    while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
    fields.push_back(field);
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

// The most rows a trajectory may have: a page holds every row's poses (about 60 bytes per link
// and row), and 100 000 rows of a 60-link robot are already 360 MB.
constexpr int kMaxRows = 100000;

// A whole field as a finite number; std::from_chars reads the C locale's form whatever the
// process's locale.
bool parse_trajectory_number(std::string_view field, double& value) {
  if (field.size() > 1 && field.front() == '+' && field[1] != '-') field.remove_prefix(1);
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  return error == std::errc() && end == field.data() + field.size() && std::isfinite(value);
}

}  // namespace

Trajectory parse_trajectory(const std::string& text, const std::string& source,
                            const std::vector<std::string>& dofs) {
  check_text_bytes(text, source);
  std::string_view rest(text);
  // A byte-order mark before the header is not part of its first name.
  if (rest.substr(0, 3) == "\xef\xbb\xbf") rest.remove_prefix(3);
  int line_number = 0;
  auto next_line = [&](std::string_view& line) {
    if (rest.empty()) return false;
    const std::size_t end = rest.find('\n');
    line = rest.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF line ends
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++line_number;
    return true;
  };
  std::string_view line;
  if (!next_line(line)) throw InputError(source, 0, "the file is empty");
  const std::vector<std::string_view> header = csv_fields(line);
  if (header.front() != "t")
    throw InputError(source, 1,
                     "the first column is '" + printable(header.front()) +
                         "', not 't' (a trajectory of skograph simulate --out)");
  std::map<std::string_view, std::size_t> column_of;  // name -> column
  for (std::size_t c = 1; c < header.size(); ++c) {
    if (header[c].empty())
      throw InputError(source, 1, "column " + std::to_string(c + 1) + " has no name");
    if (!column_of.emplace(header[c], c).second)
      throw InputError(source, 1, "column '" + printable(header[c]) + "' appears twice");
  }
  std::vector<std::size_t> dof_column;
  for (const std::string& dof : dofs) {
    const auto it = column_of.find(dof);
    if (it == column_of.end())
      throw InputError(source, 1,
                       "no column for the model's dof '" + printable(dof) +
                           "' (the columns must be the model's: t, then its dofs)");
    dof_column.push_back(it->second);
  }
  Trajectory trajectory;
  std::vector<std::size_t> extra_column;
  for (std::size_t c = 1; c < header.size(); ++c)
    if (std::find(dof_column.begin(), dof_column.end(), c) == dof_column.end()) {
      trajectory.extra.emplace_back(header[c]);
      extra_column.push_back(c);
    }

  std::vector<double> values;  // row-major, header.size() per row
  std::string previous_time;   // the last row's t as written
  while (next_line(line)) {
    if (line.empty()) {
      // Blank lines may end the file, not come between rows.
      if (rest.find_first_not_of("\r\n") == std::string_view::npos) break;
      throw InputError(source, line_number, "an empty line among the rows");
    }
    if (static_cast<int>(trajectory.time.size()) == kMaxRows)
      throw InputError(source, line_number,
                       "more than " + std::to_string(kMaxRows) +
                           " rows, the most a page shows (keep every k-th row)");
    const std::vector<std::string_view> row = csv_fields(line);
    if (row.size() != header.size())
      throw InputError(source, line_number,
                       std::to_string(row.size()) + " values, not " +
                           std::to_string(header.size()) + " (one per header column)");
    for (std::size_t c = 0; c < row.size(); ++c) {
      double value = 0.0;
      if (!parse_trajectory_number(row[c], value))
        throw InputError(source, line_number,
                         "column '" + printable(c == 0 ? std::string_view("t") : header[c]) +
                             "': '" + printable(row[c]) + "' is not a finite number");
      values.push_back(value);
    }
    const double t = values[values.size() - row.size()];
    if (!trajectory.time.empty() && t < trajectory.time.back())
      throw InputError(
          source, line_number,
          "the time goes back (t = " + std::string(row[0]) + " after " + previous_time + ")");
    trajectory.time.push_back(t);
    previous_time = row[0];
  }
  if (trajectory.time.empty()) throw InputError(source, 1, "a header and no rows");
  const auto rows = static_cast<Eigen::Index>(trajectory.time.size());
  const std::size_t width = header.size();
  trajectory.q.resize(rows, static_cast<Eigen::Index>(dofs.size()));
  trajectory.extra_values.resize(rows, static_cast<Eigen::Index>(extra_column.size()));
  for (Eigen::Index r = 0; r < rows; ++r) {
    const double* row = values.data() + static_cast<std::size_t>(r) * width;
    for (std::size_t d = 0; d < dof_column.size(); ++d)
      trajectory.q(r, static_cast<Eigen::Index>(d)) = row[dof_column[d]];
    for (std::size_t e = 0; e < extra_column.size(); ++e)
      trajectory.extra_values(r, static_cast<Eigen::Index>(e)) = row[extra_column[e]];
  }
  return trajectory;
}

Trajectory read_trajectory_file(const std::string& path, const std::vector<std::string>& dofs) {
  return parse_trajectory(read_file_bytes(path), path, dofs);
}

}  // namespace skograph

#include "skograph/sparse/matrix_market.hpp"

#include "skograph/graph/output_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace skograph {

namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

[[noreturn]] void fail(const std::string& path, long line, const std::string& problem) {
  throw InputError(path, static_cast<int>(line), problem);
}

}  // namespace

std::string matrix_market_text(const Eigen::SparseMatrix<double>& matrix, bool symmetric) {
  long entries = 0;
  for (int c = 0; c < matrix.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(matrix, c); it; ++it)
      entries += !symmetric || it.row() >= it.col();
  std::string text = std::string("%%MatrixMarket matrix coordinate real ") +
                     (symmetric ? "symmetric" : "general") + "\n% written by skograph\n" +
                     std::to_string(matrix.rows()) + " " + std::to_string(matrix.cols()) + " " +
                     std::to_string(entries) + "\n";
  char line[96];
  for (int c = 0; c < matrix.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(matrix, c); it; ++it) {
      if (symmetric && it.row() < it.col()) continue;
      std::snprintf(line, sizeof line, "%ld %ld %.17g\n", static_cast<long>(it.row()) + 1,
                    static_cast<long>(it.col()) + 1, it.value());
      text += line;
    }
  return text;
}

void write_matrix_market(const std::string& path, const Eigen::SparseMatrix<double>& matrix,
                         bool symmetric) {
  write_output_file(path, matrix_market_text(matrix, symmetric));
}

Eigen::SparseMatrix<double> read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  long line_number = 0;
  if (!std::getline(in, text)) fail(path, 1, "empty file, expected a %%MatrixMarket header");
  ++line_number;
  std::istringstream header(text);
  std::string banner, object, format, field, symmetry;
  header >> banner >> object >> format >> field >> symmetry;
  if (banner != "%%MatrixMarket" || lowercase(object) != "matrix" ||
      lowercase(format) != "coordinate")
    fail(path, 1, "expected '%%MatrixMarket matrix coordinate ...'");
  field = lowercase(field);
  symmetry = lowercase(symmetry);
  if (field != "real" && field != "integer" && field != "pattern")
    fail(path, 1, "unsupported field '" + field + "' (real, integer or pattern)");
  if (symmetry != "general" && symmetry != "symmetric")
    fail(path, 1, "unsupported symmetry '" + symmetry + "' (general or symmetric)");
  const bool symmetric = symmetry == "symmetric", pattern = field == "pattern";

  long rows = -1, cols = -1, entries = -1;
  while (std::getline(in, text)) {
    ++line_number;
    if (text.empty() || text[0] == '%') continue;
    std::istringstream size_line(text);
    std::string extra;
    if (!(size_line >> rows >> cols >> entries) || (size_line >> extra) || rows < 0 || cols < 0 ||
        entries < 0)
      fail(path, line_number, "expected the size line 'rows cols entries'");
    break;
  }
  if (rows < 0) fail(path, line_number, "missing the size line");
  if (symmetric && rows != cols) fail(path, line_number, "a symmetric matrix must be square");

  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(static_cast<std::size_t>(symmetric ? 2 * entries : entries));
  long read = 0;
  while (read < entries && std::getline(in, text)) {
    ++line_number;
    if (text.empty() || text[0] == '%') continue;
    std::istringstream entry(text);
    long i = 0, j = 0;
    double value = 1.0;
    std::string extra;
    if (!(entry >> i >> j) || (!pattern && !(entry >> value)) || (entry >> extra))
      fail(path, line_number, pattern ? "expected 'row column'" : "expected 'row column value'");
    if (i < 1 || i > rows || j < 1 || j > cols)
      fail(path, line_number,
           "entry (" + std::to_string(i) + ", " + std::to_string(j) + ") outside the " +
               std::to_string(rows) + " x " + std::to_string(cols) +
               " matrix (indices are 1-based)");
    if (symmetric && i < j)
      fail(path, line_number, "a symmetric file lists the lower triangle only (row >= column)");
    triplets.emplace_back(static_cast<int>(i - 1), static_cast<int>(j - 1), value);
    if (symmetric && i != j)
      triplets.emplace_back(static_cast<int>(j - 1), static_cast<int>(i - 1), value);
    ++read;
  }
  if (read < entries)
    fail(path, line_number,
         "expected " + std::to_string(entries) + " entries, found " + std::to_string(read));
  Eigen::SparseMatrix<double> matrix(rows, cols);
  matrix.setFromTriplets(triplets.begin(), triplets.end());
  return matrix;
}

std::string permutation_text(const std::vector<int>& permutation) {
  std::string text;
  for (const int index : permutation) text += std::to_string(index + 1) + "\n";
  return text;
}

void write_permutation(const std::string& path, const std::vector<int>& permutation) {
  write_output_file(path, permutation_text(permutation));
}

std::vector<int> read_permutation(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::vector<int> permutation;
  std::string text;
  long line_number = 0;
  while (std::getline(in, text)) {
    ++line_number;
    std::istringstream line(text);
    long index = 0;
    std::string extra;
    if (!(line >> index) || (line >> extra) || index < 1)
      fail(path, line_number, "expected one 1-based index");
    permutation.push_back(static_cast<int>(index - 1));
  }
  std::vector<char> seen(permutation.size(), 0);
  for (std::size_t k = 0; k < permutation.size(); ++k) {
    const auto index = static_cast<std::size_t>(permutation[k]);
    if (index >= permutation.size() || seen[index])
      fail(path, static_cast<long>(k) + 1,
           "not a permutation of 1.." + std::to_string(permutation.size()));
    seen[index] = 1;
  }
  return permutation;
}

}  // namespace skograph

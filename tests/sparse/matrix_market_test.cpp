// Matrix Market files: exact round trips through our reader and through CHOLMOD's own
// cholmod_read_sparse, the text layout mmread expects, and all-or-nothing writes.
#include <cholmod.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/matrix_market.hpp"

#include "skograph/graph/output_file.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "support/operator_support.hpp"
#include "support/scratch_folder.hpp"

namespace skograph {
namespace {

using namespace testing_support;

std::filesystem::path scratch_dir() {
  return scratch_folder();
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

SkoModel test_model(int seed) {
  std::mt19937 rng(seed);
  RandomSkoOptions options;
  options.nodes = 25;
  options.trees = 2;
  return random_bounded_sko_model(options, rng);
}

// Values and pattern equal, bit for bit.
void expect_identical(const Eigen::SparseMatrix<double>& a, const Eigen::SparseMatrix<double>& b) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  EXPECT_EQ(a.nonZeros(), b.nonZeros());
  EXPECT_EQ(Eigen::MatrixXd(a), Eigen::MatrixXd(b));
}

TEST(MatrixMarket, GeneralAndSymmetricRoundTripExactlyThroughOurReader) {
  const SkoModel model = test_model(1);
  const auto dir = scratch_dir();
  const Eigen::SparseMatrix<double> mass = sparse_mass_matrix(model);
  const Eigen::SparseMatrix<double> resolvent = sparse_resolvent(model);
  write_matrix_market((dir / "M.mtx").string(), mass, true);
  write_matrix_market((dir / "A.mtx").string(), resolvent, false);
  expect_identical(read_matrix_market((dir / "M.mtx").string()), mass);
  expect_identical(read_matrix_market((dir / "A.mtx").string()), resolvent);
}

TEST(MatrixMarket, CholmodReadsBackWhatWeWrite) {
  const SkoModel model = test_model(2);
  const auto dir = scratch_dir();
  const Eigen::SparseMatrix<double> mass = sparse_mass_matrix(model);
  CholmodFactorization chol(model.structure(), MassOrdering::kCanonical);
  chol.factorize(mass);
  const Eigen::SparseMatrix<double> factor = chol.factor();
  const std::string mass_path = (dir / "M.mtx").string(), factor_path = (dir / "L.mtx").string();
  write_matrix_market(mass_path, mass, true);
  write_matrix_market(factor_path, factor, false);
  CholmodCommon common;
  for (const auto& [path, expected, symmetric] :
       {std::tuple{mass_path, mass, true}, std::tuple{factor_path, factor, false}}) {
    std::FILE* file = std::fopen(path.c_str(), "r");
    ASSERT_NE(file, nullptr);
    cholmod_sparse* read = cholmod_read_sparse(file, common.get());
    std::fclose(file);
    ASSERT_NE(read, nullptr) << path;
    CholmodSparsePtr owner(read, CholmodSparseDeleter{common.get()});
    EXPECT_EQ(read->stype != 0, symmetric) << path;
    expect_identical(from_cholmod(*read), expected);
  }
}

TEST(MatrixMarket, TextIsTheCoordinateFormatMmreadExpects) {
  Eigen::SparseMatrix<double> m(3, 3);
  m.insert(0, 0) = 4.0;
  m.insert(2, 0) = 0.1;  // not exactly representable: %.17g must keep it
  m.insert(0, 2) = 0.1;
  m.insert(1, 1) = -2.5e-300;
  m.insert(2, 2) = 1.0 / 3.0;
  m.makeCompressed();
  const std::string path = (scratch_dir() / "S.mtx").string();
  write_matrix_market(path, m, true);
  const std::vector<std::string> lines = lines_of(path);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0], "%%MatrixMarket matrix coordinate real symmetric");
  EXPECT_EQ(lines[1][0], '%');
  EXPECT_EQ(lines[2], "3 3 4");  // lower triangle only
  // 1-based (row, column) in column-major order; values parse back exactly.
  const std::vector<std::pair<int, int>> positions = {{1, 1}, {3, 1}, {2, 2}, {3, 3}};
  for (int k = 0; k < 4; ++k) {
    std::istringstream entry(lines[3 + k]);
    int i = 0, j = 0;
    double value = 0.0;
    entry >> i >> j >> value;
    EXPECT_EQ(std::make_pair(i, j), positions[k]);
    EXPECT_EQ(value, m.coeff(i - 1, j - 1));
  }
  write_matrix_market(path, m, false);
  EXPECT_EQ(lines_of(path)[0], "%%MatrixMarket matrix coordinate real general");
  EXPECT_EQ(lines_of(path)[2], "3 3 5");
}

TEST(MatrixMarket, PermutationFileIsOneBasedOnePerLine) {
  const std::string path = (scratch_dir() / "P.txt").string();
  write_permutation(path, {2, 0, 1});
  EXPECT_EQ(lines_of(path), (std::vector<std::string>{"3", "1", "2"}));
  EXPECT_EQ(read_permutation(path), (std::vector<int>{2, 0, 1}));
  std::ofstream(path) << "1\n1\n";
  EXPECT_THROW(read_permutation(path), InputError);
}

TEST(MatrixMarket, FailedWritesNameTheFile) {
  const auto dir = scratch_dir() / "atomic";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Eigen::SparseMatrix<double> m(1, 1);
  m.insert(0, 0) = 1.0;
  const std::string missing = (dir / "no_such_dir" / "M.mtx").string();
  try {
    write_matrix_market(missing, m, true);
    FAIL() << "expected an OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(MatrixMarket, ReaderNamesTheFileAndLine) {
  const std::string path = (scratch_dir() / "bad.mtx").string();
  auto message = [&](const std::string& text) {
    std::ofstream(path) << text;
    try {
      read_matrix_market(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("%%MatrixMarket matrix array real general\n1 1\n1\n"),
            path + ":1: expected '%%MatrixMarket matrix coordinate ...'");
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n"),
            path + ":3: entry (3, 1) outside the 2 x 2 matrix (indices are 1-based)");
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n"),
            path + ":3: expected 2 entries, found 1");
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n"),
            path + ":3: a symmetric file lists the lower triangle only (row >= column)");
  EXPECT_NE(message("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1.0\n"), "no error");
  EXPECT_THROW(read_matrix_market((scratch_dir() / "missing.mtx").string()), InputError);
}

}  // namespace
}  // namespace skograph

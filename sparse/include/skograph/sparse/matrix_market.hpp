// Matrix Market files (NIST coordinate format) for other solvers: SciPy's scipy.io.mmread,
// MATLAB's mmread, CHOLMOD's cholmod_read_sparse, Julia's MatrixMarket.
//
//   %%MatrixMarket matrix coordinate real general|symmetric
//   rows cols entries
//   i j value            (1-based, one per line, values printed with %.17g: exact round trip)
//
// "symmetric" files hold the lower triangle only (row >= column), as the format requires. The
// writers go through graph/output_file.hpp: a regular file is replaced only once completely written
// (no partial file on failure); devices, FIFOs and "-" are written in place.
#pragma once

#include <Eigen/SparseCore>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "skograph/graph/digraph.hpp"

namespace skograph {

// A file that cannot be read or parsed is an InputError (graph/digraph.hpp) naming the file, the
// line and the problem; one that cannot be written an OutputError (graph/output_file.hpp).
using MatrixMarketError [[deprecated("use InputError")]] = InputError;

// The text of a Matrix Market file of `matrix` (symmetric: lower triangle only; the caller vouches
// for the symmetry).
std::string matrix_market_text(const Eigen::SparseMatrix<double>& matrix, bool symmetric);
void write_matrix_market(const std::string& path, const Eigen::SparseMatrix<double>& matrix,
                         bool symmetric);

// Reads a real or integer coordinate file, general or symmetric (expanded to both triangles).
// Throws InputError naming the file and line.
Eigen::SparseMatrix<double> read_matrix_market(const std::string& path);

// A permutation, one 1-based index per line: line i holds permutation[i - 1] + 1.
std::string permutation_text(const std::vector<int>& permutation);
void write_permutation(const std::string& path, const std::vector<int>& permutation);
// The 0-based permutation of such a file (checks that it is one).
std::vector<int> read_permutation(const std::string& path);

}  // namespace skograph

// Sparse matrices to SciPy (the Python module's sparse and closed-chain bindings).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/SparseCore>

namespace skograph::python {

// A compressed-column matrix as scipy.sparse.csc_matrix (values copied).
inline pybind11::object to_scipy(const Eigen::SparseMatrix<double>& matrix) {
  namespace py = pybind11;
  Eigen::SparseMatrix<double> compressed = matrix;
  compressed.makeCompressed();
  const auto nnz = static_cast<py::ssize_t>(compressed.nonZeros());
  py::array_t<double> data(nnz, compressed.valuePtr());
  py::array_t<int> indices(nnz, compressed.innerIndexPtr());
  py::array_t<int> indptr(compressed.outerSize() + 1, compressed.outerIndexPtr());
  return py::module_::import("scipy.sparse")
      .attr("csc_matrix")(py::make_tuple(data, indices, indptr),
                          py::arg("shape") = py::make_tuple(compressed.rows(), compressed.cols()));
}

}  // namespace skograph::python

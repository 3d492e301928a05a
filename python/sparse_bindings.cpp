// Model.sparse_mass_matrix, sparse_reduced_mass_matrix, factor, kernel and resolvent: the sparse
// matrices `skograph export` writes (model/model.hpp: model_sko; sparse/sparse_export.hpp), as
// SciPy matrices.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "calls.hpp"
#include "scipy_matrices.hpp"
#include "skograph/graph/error.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/sparse_export.hpp"

namespace skograph::python {
namespace {

// fn(matrices) on the sparse matrices of the model at q: the tree's (a closed chain's spanning
// tree) or, with `embedded`, the constraint-embedded model's (model/model.hpp: model_sko), on the
// call's workspace, which they read.
template <class Fn>
auto with_sparse_matrices(PyModel& self, const ArrayArgument& q, bool embedded, Fn fn) {
  const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
  return compute(self, [&](ModelData& data) {
    const ModelSko sko = model_sko(self.model, data, at, embedded);
    return fn(SparseExport(*sko.sko, {sko.hinge_rows, sko.node_rows}));
  });
}
Eigen::SparseMatrix<double> mass_of(const SparseExport& matrices) {
  return matrices.mass();
}

}  // namespace

void bind_sparse(ModelClass& model_class) {
  model_class
      .def(
          "sparse_mass_matrix",
          [](PyModel& self, const ArrayArgument& q) {
            return to_scipy(with_sparse_matrices(self, q, false, mass_of));
          },
          py::arg("q"),
          "The tree's M(q) (a closed chain's spanning tree's) as a scipy.sparse.csc_matrix, rows "
          "and columns in the file's dof order with both triangles stored: what `skograph export "
          "--mass` writes for a tree. q: (dofs,).")
      .def(
          "sparse_reduced_mass_matrix",
          [](PyModel& self, const ArrayArgument& q) {
            return to_scipy(with_sparse_matrices(self, q, true, mass_of));
          },
          py::arg("q"),
          "The reduced mass matrix M_R = X* M X of a closed chain's constraint-embedded model as a "
          "scipy.sparse.csc_matrix (rows in the order of the independent dofs), or a tree's M: "
          "what `skograph export --mass` writes.")
      .def(
          "factor",
          [](PyModel& self, const ArrayArgument& q, const std::string& ordering) {
            const std::optional<MassOrdering> chosen = parse_ordering(ordering);
            if (!chosen)
              throw UsageError("unknown ordering '" + ordering +
                               "' (expected canonical, root-first, amd or metis)");
            const auto [factor, permutation] =
                with_sparse_matrices(self, q, false, [&](const SparseExport& matrices) {
                  const std::unique_ptr<CholmodFactorization> factorization =
                      matrices.factorization(*chosen);
                  factorization->factorize(matrices.mass());
                  return std::make_pair(Eigen::SparseMatrix<double>(factorization->factor()),
                                        factorization->permutation());
                });
            return py::make_tuple(
                to_scipy(factor),
                py::array_t<int>(static_cast<py::ssize_t>(permutation.size()), permutation.data()));
          },
          py::arg("q"), py::arg("ordering") = "canonical",
          "CHOLMOD's Cholesky factor of the tree's M(q) as (L, perm), with P M P* = L L*: L is a "
          "scipy.sparse.csc_matrix and perm (an int array) the rows of M in factor order. "
          "ordering: 'canonical' (no fill: part I), 'root-first', 'amd' or 'metis'. It is not the "
          "innovations factor F of Model.innovations_factors.")
      .def(
          "kernel",
          [](PyModel& self, const ArrayArgument& q) {
            return to_scipy(with_sparse_matrices(
                self, q, false, [](const SparseExport& matrices) { return matrices.kernel(); }));
          },
          py::arg("q"),
          "The SKO kernel E_A at q (6 nodes x 6 nodes, scipy.sparse, part I Eq. 12), with the "
          "rigid-body transforms phi(parent(k), k) below the diagonal: what `skograph export "
          "--kernel` writes.")
      .def(
          "resolvent",
          [](PyModel& self, const ArrayArgument& q) {
            return to_scipy(with_sparse_matrices(
                self, q, false, [](const SparseExport& matrices) { return matrices.resolvent(); }));
          },
          py::arg("q"),
          "The 1-resolvent A = (I - E_A)^-1 at q (scipy.sparse, part I Lemma 3), whose block (i, "
          "k) is the transform phi(i, k) from k to its ancestor i: what `skograph export "
          "--resolvent` writes.");
}

}  // namespace skograph::python

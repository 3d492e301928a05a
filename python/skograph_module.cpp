// The Python module `skograph` (its compiled part, skograph._skograph; python/skograph/__init__.py
// re-exports it). Consumes the library: load_model and the functions of io/model.hpp on NumPy
// arrays in the file's dof order (1-D: one state; 2-D: one state per row, computed without the
// GIL on `threads` threads), the sparse operators as SciPy matrices, and the program's own
// commands for analyze_graph / render / analyze (the same output as the command line).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "batch.hpp"
#include "skograph/cli/commands.hpp"
#include "skograph/config.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/io/model.hpp"
#include "skograph/io/state_reader.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/sparse_assembly.hpp"

namespace py = pybind11;

namespace skograph::python {
namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A loaded model with the workspace of its one-state calls (those hold the GIL, which serializes
// them); batches make a workspace per thread.
struct PyModel {
  Model model;
  ReadOptions options;  // how it was read (pickled with the path)
  std::unique_ptr<ModelData> data;
  PyModel(Model loaded, ReadOptions read)
      : model(std::move(loaded)),
        options(std::move(read)),
        data(std::make_unique<ModelData>(model)) {}
};

std::shared_ptr<PyModel> load(const std::string& path, bool strict,
                              const std::optional<std::vector<std::string>>& independent) {
  ReadOptions options;
  options.strict = strict;
  if (independent) options.independent = *independent;
  return std::make_shared<PyModel>(load_model(path, options), options);
}

Eigen::Vector3d gravity_of(const std::optional<Eigen::Vector3d>& gravity) {
  return gravity ? *gravity : kStandardGravity;
}

// fn(data, inputs) for one state (1-D arrays) or every row (2-D arrays); `matrix` results are
// n x n per state. Returns an array shaped (n), (n, n), (rows, n) or (rows, n, n).
template <std::size_t K, class Fn>
py::array apply(PyModel& self, const std::array<std::pair<const char*, Array>, K>& inputs,
                int threads, bool matrix, Fn fn) {
  const long n = self.model.dof_count();
  const Array& first = inputs[0].second;
  if (first.ndim() != 1 && first.ndim() != 2)
    throw std::invalid_argument(std::string(inputs[0].first) +
                                " must be one state (1-D) or one state per row (2-D)");
  const bool batch = first.ndim() == 2;
  const long rows = batch ? static_cast<long>(first.shape(0)) : 1;
  std::array<const double*, K> pointers{};
  for (std::size_t k = 0; k < K; ++k) {
    const auto& [name, array] = inputs[k];
    if (array.ndim() != first.ndim() || (batch && array.shape(0) != rows))
      throw std::invalid_argument(std::string(name) + " must have the shape of " + inputs[0].first);
    if (array.shape(array.ndim() - 1) != n)
      throw std::invalid_argument(std::string(name) + " has " +
                                  std::to_string(array.shape(array.ndim() - 1)) +
                                  " entries per state, the model " + std::to_string(n) + " dofs");
    pointers[k] = array.data();
  }
  std::vector<py::ssize_t> shape;
  if (batch) shape.push_back(rows);
  shape.push_back(n);
  if (matrix) shape.push_back(n);
  py::array_t<double> result(shape);
  double* out = result.mutable_data();
  const long per_state = matrix ? n * n : n;
  auto row = [&](ModelData& data, long i) {
    std::array<Eigen::VectorXd, K> state;
    for (std::size_t k = 0; k < K; ++k)
      state[k] = Eigen::Map<const Eigen::VectorXd>(pointers[k] + i * n, n);
    const Eigen::MatrixXd value = fn(self.model, data, state);
    // Row-major into the NumPy buffer.
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        out + i * per_state, value.rows(), value.cols()) = value;
  };
  if (!batch) {
    row(*self.data, 0);
  } else {
    const py::gil_scoped_release release;
    for_each_row(self.model, rows, threads, row);
  }
  return result;
}

// A CSC matrix as scipy.sparse.csc_matrix.
py::object to_scipy(const Eigen::SparseMatrix<double>& matrix) {
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

// The tree's SKO model at q (closed first for a closed chain), in `data`.
const SkoModel& sko_at(PyModel& self, const Eigen::VectorXd& q) {
  const ClosedState closed =
      close_state(self.model, *self.data, q, Eigen::VectorXd::Zero(q.size()));
  RigidBodyData& tree_data = self.data->tree();
  update_positions(self.model.tree(), self.model.dof_order().model_vector(closed.q), tree_data);
  synchronize_sko_model(self.model.tree(), tree_data);
  return tree_data.sko;
}

// The file's dof index of every model dof, and 6 rows per node in the file's joint order.
std::vector<int> file_dofs(const Model& model) {
  std::vector<int> index;
  for (int i = 0; i < model.dof_count(); ++i) index.push_back(model.dof_order().file_dof(i));
  return index;
}
std::vector<int> file_node_rows(const Model& model) {
  std::vector<int> index;
  for (int k = 0; k < model.tree().node_count(); ++k)
    for (int r = 0; r < 6; ++r) index.push_back(6 * model.dof_order().file_joint(k) + r);
  return index;
}

// The program's command, in-process: (status, stdout, stderr).
py::tuple run_command(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = 0;
  {
    const py::gil_scoped_release release;
    status = cli::run(args, out, err);
  }
  return py::make_tuple(status, py::bytes(out.str()), err.str());
}

}  // namespace
}  // namespace skograph::python

PYBIND11_MODULE(_skograph, m) {
  using namespace skograph;
  using namespace skograph::python;
  m.doc() = "skograph: graph-theoretic multibody dynamics (compiled part; see skograph)";
  m.attr("__version__") = SKOGRAPH_VERSION;
  m.attr("have_viz") = static_cast<bool>(SKOGRAPH_HAVE_VIZ);

  // Every library error is skograph.Error (a ValueError) with the command line's one line.
  static py::exception<std::runtime_error> error(m, "Error", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr failure) {
    try {
      if (failure) std::rethrow_exception(failure);
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      error(printable(e.what()).c_str());
    }
  });

  using Gravity = std::optional<Eigen::Vector3d>;
  py::class_<PyModel, std::shared_ptr<PyModel>>(m, "Model")
      .def_property_readonly("file", [](const PyModel& self) { return self.model.file(); })
      .def_property_readonly("dofs", [](const PyModel& self) { return self.model.dof_names(); })
      .def_property_readonly("dof_count",
                             [](const PyModel& self) { return self.model.dof_count(); })
      .def_property_readonly("is_closed_chain",
                             [](const PyModel& self) { return self.model.is_closed_chain(); })
      .def_property_readonly("warnings", [](const PyModel& self) { return self.model.warnings(); })
      .def_property_readonly(
          "independent",
          [](PyModel& self) {
            const Eigen::VectorXd zero = Eigen::VectorXd::Zero(self.model.dof_count());
            close_state(self.model, *self.data, zero, zero);
            return self.data->independent;
          },
          "Independent dof names at the zero configuration (every dof of a tree)")
      .def(
          "close",
          [](PyModel& self, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
            const ClosedState closed = close_state(self.model, *self.data, q, qd);
            return py::make_tuple(closed.q, closed.qd, self.data->independent);
          },
          py::arg("q"), py::arg("qd"),
          "(q, qd, independent names) closed: independent coordinates kept, dependent solved")
      .def(
          "forward_dynamics",
          [](PyModel& self, Array q, Array qd, Array tau, Gravity gravity, int threads) {
            const Eigen::Vector3d g = gravity_of(gravity);
            return apply<3>(
                self, {{{"q", q}, {"qd", qd}, {"tau", tau}}}, threads, false,
                [&](const Model& model, ModelData& data, const auto& s) {
                  return Eigen::MatrixXd(forward_dynamics(model, data, s[0], s[1], s[2], g));
                });
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          py::arg("threads") = 1)
      .def(
          "inverse_dynamics",
          [](PyModel& self, Array q, Array qd, Array qdd, Gravity gravity, int threads) {
            const Eigen::Vector3d g = gravity_of(gravity);
            return apply<3>(
                self, {{{"q", q}, {"qd", qd}, {"qdd", qdd}}}, threads, false,
                [&](const Model& model, ModelData& data, const auto& s) {
                  return Eigen::MatrixXd(inverse_dynamics(model, data, s[0], s[1], s[2], g));
                });
          },
          py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("gravity") = py::none(),
          py::arg("threads") = 1)
      .def(
          "mass_matrix",
          [](PyModel& self, Array q, int threads) {
            return apply<1>(self, {{{"q", q}}}, threads, true,
                            [](const Model& model, ModelData& data, const auto& s) {
                              return mass_matrix(model, data, s[0]);
                            });
          },
          py::arg("q"), py::arg("threads") = 1)
      .def(
          "bias",
          [](PyModel& self, Array q, Array qd, Gravity gravity, int threads) {
            const Eigen::Vector3d g = gravity_of(gravity);
            return apply<2>(self, {{{"q", q}, {"qd", qd}}}, threads, false,
                            [&](const Model& model, ModelData& data, const auto& s) {
                              return Eigen::MatrixXd(bias_forces(model, data, s[0], s[1], g));
                            });
          },
          py::arg("q"), py::arg("qd"), py::arg("gravity") = py::none(), py::arg("threads") = 1)
      .def(
          "embedding_matrix",
          [](PyModel& self, const Eigen::VectorXd& q) {
            return embedding_matrix(self.model, *self.data, q);
          },
          py::arg("q"))
      .def(
          "constraint_forces",
          [](PyModel& self, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
             const Eigen::VectorXd& tau, Gravity gravity) {
            const ConstraintForces forces =
                constraint_forces(self.model, *self.data, q, qd, tau, gravity_of(gravity));
            const Mechanism& mechanism = self.model.mechanism();
            py::dict loops, couplings;
            for (std::size_t l = 0; l < forces.loop.size(); ++l)
              loops[py::str(mechanism.loops[l].name)] = Eigen::VectorXd(forces.loop[l]);
            for (std::size_t c = 0; c < forces.coupling.size(); ++c)
              couplings[py::str(mechanism.couplings[c].name)] = forces.coupling[c];
            py::dict result;
            result["loop_forces"] = loops;
            result["coupling_forces"] = couplings;
            return result;
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          "{'loop_forces': {loop: [mx, my, mz, fx, fy, fz]}, 'coupling_forces': {coupling: [...]}}"
          " while the closed chain moves under tau: as `skograph dynamics --json` gives them")
      .def(
          "reduced_mass_matrix",
          [](PyModel& self, const Eigen::VectorXd& q) {
            return reduced_mass_matrix(self.model, *self.data, q);
          },
          py::arg("q"))
      .def(
          "sparse_mass_matrix",
          [](PyModel& self, const Eigen::VectorXd& q) {
            if (q.size() != self.model.dof_count())
              throw std::invalid_argument("q has the wrong size");
            return to_scipy(
                renumber_symmetric(sparse_mass_matrix(sko_at(self, q)), file_dofs(self.model)));
          },
          py::arg("q"))
      .def(
          "factor",
          [](PyModel& self, const Eigen::VectorXd& q, const std::string& ordering) {
            const std::optional<MassOrdering> chosen = parse_ordering(ordering);
            if (!chosen)
              throw std::invalid_argument("unknown ordering '" + ordering +
                                          "' (expected canonical, root-first, amd or metis)");
            if (q.size() != self.model.dof_count())
              throw std::invalid_argument("q has the wrong size");
            const SkoModel& sko = sko_at(self, q);
            const std::vector<int> index = file_dofs(self.model);
            const Eigen::SparseMatrix<double> mass =
                renumber_symmetric(sparse_mass_matrix(sko), index);
            std::vector<int> canonical = canonical_dof_order(sko.structure());
            for (int& dof : canonical) dof = index[static_cast<std::size_t>(dof)];
            CholmodFactorization factorization(sparsity_pattern(mass), *chosen, canonical);
            factorization.factorize(mass);
            return py::make_tuple(
                to_scipy(factorization.factor()),
                py::array_t<int>(static_cast<py::ssize_t>(factorization.permutation().size()),
                                 factorization.permutation().data()));
          },
          py::arg("q"), py::arg("ordering") = "canonical")
      .def(
          "kernel",
          [](PyModel& self, const Eigen::VectorXd& q) {
            if (q.size() != self.model.dof_count())
              throw std::invalid_argument("q has the wrong size");
            return to_scipy(
                renumber_symmetric(sparse_kernel(sko_at(self, q)), file_node_rows(self.model)));
          },
          py::arg("q"))
      .def(
          "resolvent",
          [](PyModel& self, const Eigen::VectorXd& q) {
            if (q.size() != self.model.dof_count())
              throw std::invalid_argument("q has the wrong size");
            return to_scipy(
                renumber_symmetric(sparse_resolvent(sko_at(self, q)), file_node_rows(self.model)));
          },
          py::arg("q"))
      .def(
          "read_state",
          [](PyModel& self, const std::string& path) {
            const MechanismState state = read_state_file(path, self.model.mechanism());
            const DofOrder& order = self.model.dof_order();
            py::dict result;
            result["q"] = Eigen::VectorXd(order.vector(state.q));
            result["qd"] = Eigen::VectorXd(order.vector(state.qd));
            result["tau"] = Eigen::VectorXd(order.vector(state.tau));
            result["qdd"] = Eigen::VectorXd(order.vector(state.qdd));
            result["gravity"] = Eigen::Vector3d(state.gravity);
            return result;
          },
          py::arg("path"))
      .def(py::pickle(
          [](const PyModel& self) {
            return py::make_tuple(self.model.file(), self.options.strict, self.options.independent);
          },
          [](const py::tuple& state) {
            return load(state[0].cast<std::string>(), state[1].cast<bool>(),
                        state[2].cast<std::vector<std::string>>());
          }))
      .def("__repr__", [](const PyModel& self) {
        return "<skograph.Model '" + self.model.file() +
               "': " + std::to_string(self.model.dof_count()) + " dofs" +
               (self.model.is_closed_chain() ? ", closed chain>" : ">");
      });

  m.def("load_model", &load, py::arg("path"), py::arg("strict") = false,
        py::arg("independent") = py::none(),
        "The ready model of a URDF, YAML, MJCF or SDF file (tree or closed chain); independent: "
        "the joints (or dofs) a closed chain keeps as its independent coordinates");
  m.def("_run", &run_command, py::arg("args"));
}

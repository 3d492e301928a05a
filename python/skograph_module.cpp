// The Python module `skograph` (its compiled part, skograph._skograph; python/skograph/__init__.py
// re-exports it). Consumes the library as the program does: models through io's loading path
// (io/model.hpp) on NumPy arrays in the file's dof order (1-D: one state; 2-D: one state per row,
// computed without the GIL on `threads` threads), the sparse matrices of sparse/sparse_export.hpp
// as SciPy matrices (the ones `skograph export` writes), and report/ for analyze_graph, render and
// analyze.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "batch.hpp"
#include "model_pickle.hpp"
#include "py_model.hpp"
#include "skograph/config.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/io/base_change.hpp"
#include "skograph/io/model.hpp"
#include "skograph/io/model_constraints.hpp"
#include "skograph/io/model_kinematics.hpp"
#include "skograph/io/state_reader.hpp"
#include "skograph/report/graph_report.hpp"
#include "skograph/report/kkt_export.hpp"
#include "skograph/report/report_input.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/sparse_export.hpp"
#if SKOGRAPH_HAVE_VIZ
#include "skograph/report/analysis.hpp"
#include "skograph/report/pictures.hpp"
#endif

namespace py = pybind11;

namespace skograph::python {
namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::shared_ptr<PyModel> load(const std::string& path, bool strict,
                              const std::optional<std::vector<std::string>>& independent,
                              const std::optional<std::string>& loops,
                              const std::optional<std::string>& base) {
  ReadOptions options;
  options.strict = strict;
  if (independent) options.independent = *independent;
  if (loops) options.loops_file = *loops;
  if (base) {
    if (base->empty()) throw UsageError("base needs a link name");
    options.base = *base;
  }
  return std::make_shared<PyModel>(load_model(path, options), options);
}

ClosedChainSolver solver_of(const std::string& name) {
  const std::optional<ClosedChainSolver> solver = parse_solver(name);
  if (!solver)
    throw UsageError("unknown solver '" + name + "' (expected embedding or multipliers)");
  return *solver;
}

Eigen::Vector3d gravity_of(const std::optional<Eigen::Vector3d>& gravity) {
  return gravity ? *gravity : kStandardGravity;
}

// One row's inputs as views of the NumPy buffers: state.vector(k) maps input k.
template <std::size_t K>
struct RowState {
  std::array<const double*, K> rows{};
  long size = 0;
  const double*& operator[](std::size_t k) { return rows[k]; }
  Eigen::Map<const Eigen::VectorXd> vector(std::size_t k) const {
    return Eigen::Map<const Eigen::VectorXd>(rows[k], size);
  }
};

// fn(data, inputs) for one state (1-D arrays) or every row (2-D arrays), or fn(data, RowState,
// out) writing the row's result at `out` (row-major) without allocating, each state's result of
// the shape `per_state` ({} for a number, {6}, {6, n}, ...). Returns an array shaped per_state, or
// (rows, *per_state) for a batch.
template <std::size_t K, class Fn>
py::array apply_shaped(PyModel& self, const std::array<std::pair<const char*, Array>, K>& inputs,
                       int threads, const std::vector<py::ssize_t>& per_state, Fn fn) {
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
  long per_state_size = 1;
  for (const py::ssize_t extent : per_state) {
    shape.push_back(extent);
    per_state_size *= static_cast<long>(extent);
  }
  py::array_t<double> result(shape);
  double* out = result.mutable_data();
  auto row = [&](ModelData& data, long i) {
    if constexpr (std::is_invocable_v<Fn, const Model&, ModelData&, const RowState<K>&, double*>) {
      // Straight from the NumPy rows into the NumPy result: no allocation per row
      // (tests/io/model_allocation_test.cpp covers the calls these make).
      RowState<K> state;
      for (std::size_t k = 0; k < K; ++k) state[k] = pointers[k] + i * n;
      state.size = n;
      fn(self.model, data, state, out + i * per_state_size);
    } else {
      std::array<Eigen::VectorXd, K> state;
      for (std::size_t k = 0; k < K; ++k)
        state[k] = Eigen::Map<const Eigen::VectorXd>(pointers[k] + i * n, n);
      const Eigen::MatrixXd value = fn(self.model, data, state);
      // Row-major into the NumPy buffer.
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          out + i * per_state_size, value.rows(), value.cols()) = value;
    }
  };
  if (!batch) {
    row(*self.data, 0);
  } else {
    const py::gil_scoped_release release;
    for_each_row(self.model, rows, threads, row);
  }
  return result;
}

// apply_shaped with results of n (a dof vector) or n x n (`matrix`) per state.
template <std::size_t K, class Fn>
py::array apply(PyModel& self, const std::array<std::pair<const char*, Array>, K>& inputs,
                int threads, bool matrix, Fn fn) {
  const py::ssize_t n = self.model.dof_count();
  return apply_shaped<K>(self, inputs, threads,
                         matrix ? std::vector<py::ssize_t>{n, n} : std::vector<py::ssize_t>{n}, fn);
}

// "world" or "local" (rigid/kinematics.hpp).
FrameAxes axes_of(const std::string& frame) {
  if (frame == "world") return FrameAxes::kWorld;
  if (frame == "local") return FrameAxes::kLocal;
  throw UsageError("frame='" + frame + "': the axes are 'world' or 'local'");
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

// The sparse matrices of the model at q (sparse/sparse_export.hpp, io/model.hpp: model_sko): the
// tree's (a closed chain's spanning tree) or, with `embedded`, the constraint-embedded model's.
SparseExport sparse_matrices(PyModel& self, const Eigen::VectorXd& q, bool embedded) {
  const ModelSko sko = model_sko(self.model, *self.data, q, embedded);
  return SparseExport(*sko.sko, {sko.hinge_rows, sko.node_rows});
}

ReadOptions read_options(bool strict, const std::optional<std::vector<std::string>>& independent,
                         const std::string& loops) {
  ReadOptions options;
  options.strict = strict;
  if (independent) options.independent = *independent;
  options.loops_file = loops;
  return options;
}

// The reader's warnings and the given notes as Python warnings (skograph.__init__ issues them).
py::list messages(const std::string& file, const std::vector<std::string>& warnings,
                  const std::vector<std::string>& notes) {
  py::list list;
  if (!warnings.empty()) {
    std::string line = "warning: " + file + ": ";
    for (std::size_t i = 0; i < warnings.size(); ++i) line += (i ? "; " : "") + warnings[i];
    list.append(printable(line));
  }
  for (const std::string& note : notes) list.append(printable("note: " + note));
  return list;
}

// `skograph graph PATH --json`: (the JSON text, messages).
py::tuple graph_report_call(const std::string& path, bool strict, const std::string& loops) {
  const report::ReportInput input =
      report::load_report_input(path, read_options(strict, {}, loops));
  std::vector<std::string> notes;
  if (!input.analysis.spanning.exists) notes.push_back(input.analysis.spanning.reason);
  return py::make_tuple(report::graph_report_json_text(input.graph, input.analysis),
                        messages(path, input.warnings(), notes));
}

#if SKOGRAPH_HAVE_VIZ
// `skograph render`: the picture written to `output`; returns the messages.
py::list render_call(const std::string& path, const std::string& output, const std::string& what,
                     const std::string& matrix, const std::string& ordering,
                     const std::string& state, const std::string& format, int size, bool strict,
                     const std::string& loops) {
  report::PictureOptions options{what, matrix, ordering, state, format, size};
  const report::PictureRequest request = report::picture_request(options, output);
  report::Picture picture;
  std::vector<std::string> warnings;
  {
    const py::gil_scoped_release release;
    const report::ReportInput input =
        report::load_report_input(path, read_options(strict, {}, loops));
    warnings = input.warnings();
    picture = report::render_picture(input, request);
    write_output_file(output, picture.bytes);
  }
  return messages(path, warnings, picture.notes);
}

// `skograph analyze`: the report and every picture into `out`; returns the messages.
py::list analyze_call(const std::string& path, const std::string& out, const std::string& state,
                      int size, int max_diagram_nodes, bool strict,
                      const std::optional<std::vector<std::string>>& independent,
                      const std::string& loops) {
  report::AnalysisOptions options;
  options.state_file = state;
  options.pixels = size;
  options.max_diagram_nodes = max_diagram_nodes;
  std::vector<std::string> warnings, notes;
  {
    const py::gil_scoped_release release;
    const report::ReportInput input =
        report::load_report_input(path, read_options(strict, independent, loops));
    const report::AnalysisFiles made = report::analysis_files(input, options);
    report::write_analysis(made, out);
    warnings = input.warnings();
    warnings.insert(warnings.end(), made.warnings.begin(), made.warnings.end());
    notes = made.notes;
  }
  return messages(path, warnings, notes);
}
#endif

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
  error.attr("__doc__") =
      "Every problem skograph reports: bad input (a file, a state, an argument), a closed chain "
      "that cannot close, a singular mass matrix. A ValueError whose message is the command "
      "line's one line (the file and line first where there are some).";
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
  py::class_<PyModel, std::shared_ptr<PyModel>> model_class(
      m, "Model",
      "A loaded robot or mechanism (skograph.load_model): immutable, picklable, safe to share "
      "between threads (each call has its own workspace). Vectors are NumPy arrays in the file's "
      "dof order (Model.dofs); 2-D arrays are batches, one state per row. Closed chains are "
      "assembled first (their loops closed, the independent coordinates kept where possible).");
  model_class
      .def_property_readonly(
          "file", [](const PyModel& self) { return self.model.file(); },
          "The model file's path as given to load_model")
      .def_property_readonly(
          "dofs", [](const PyModel& self) { return self.model.dof_names(); },
          "Dof names in the file's order (list of str): a 1-dof joint's name, 'joint:0', "
          "'joint:1', ... for multi-dof joints; every vector argument and result uses this order")
      .def_property_readonly(
          "dof_count", [](const PyModel& self) { return self.model.dof_count(); },
          "Number of dofs (int): the length of q, qd, qdd and tau")
      .def_property_readonly(
          "is_closed_chain", [](const PyModel& self) { return self.model.is_closed_chain(); },
          "True when the model has loops or gear couplings (constraint embedding applies)")
      .def_property_readonly(
          "warnings", [](const PyModel& self) { return self.model.warnings(); },
          "What the reader and the model accepted but a user should know (list of str, one line "
          "each: inconsistent inertias, joints moving only massless links); also issued as Python "
          "warnings by load_model")
      .def_property_readonly(
          "independent",
          [](PyModel& self) {
            // At the zero configuration assembled; where that fails (no closed configuration
            // near zero), the model's chosen or preferred coordinates, never an exception.
            const Eigen::VectorXd zero = Eigen::VectorXd::Zero(self.model.dof_count());
            try {
              close_state(self.model, *self.data, zero, zero);
              return self.data->independent;
            } catch (const Error&) {
              return self.model.mechanism().independent.empty()
                         ? self.model.mechanism().preferred_independent
                         : self.model.mechanism().independent;
            }
          },
          "Independent dof names at the zero configuration assembled (every dof of a tree)")
      .def_property_readonly(
          "notes", [](const PyModel& self) { return self.model.notes(); },
          "What loading decided that is no warning (list of str, one line each): a loop cut, a "
          "base body changed, a preferred independent coordinate the loops leave no freedom")
      .def(
          "assemble",
          [](PyModel& self, const Eigen::VectorXd& q, const std::optional<Eigen::VectorXd>& qd) {
            const Eigen::VectorXd rates = qd ? *qd : Eigen::VectorXd::Zero(q.size());
            const ClosedState closed = close_state(self.model, *self.data, q, rates);
            py::dict moved;
            for (const ModelData::Moved& coordinate : self.data->moved)
              moved[py::str(coordinate.dof)] = coordinate.by;
            if (const std::string warning = assembly_warning(*self.data); !warning.empty())
              PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 1);
            py::dict result;
            result["q"] = closed.q;
            result["qd"] = closed.qd;
            result["independent"] = self.data->independent;
            result["moved"] = moved;
            result["residual"] =
                self.model.is_closed_chain()
                    ? position_residual(*self.model.closed_chain(), *self.data->closed_chain(),
                                        self.model.dof_order().model_vector(closed.q))
                    : 0.0;
            return result;
          },
          py::arg("q"), py::arg("qd") = py::none(),
          "A closed configuration from q (the file's dof order): {'q', 'qd' (projected onto the "
          "constraints), 'independent', 'moved' ({dof: how far an independent coordinate had to "
          "move}, with a warning), 'residual'}; skograph.Error when none is found")
      .def(
          "close",
          [](PyModel& self, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
            const ClosedState closed = close_state(self.model, *self.data, q, qd);
            return py::make_tuple(closed.q, closed.qd, self.data->independent);
          },
          py::arg("q"), py::arg("qd"),
          "(q, qd, independent names) closed: independent coordinates kept, dependent solved"
          " q, qd: (dofs,) in the file's dof order. Returns a tuple (q, qd, names): the closed "
          "state and the independent dof names; trees give them back unchanged. skograph.Error "
          "when no closed configuration is found.")
      .def(
          "forward_dynamics",
          [](PyModel& self, Array q, Array qd, Array tau, Gravity gravity, int threads,
             const std::string& solver) {
            const Eigen::Vector3d g = gravity_of(gravity);
            const ClosedChainSolver method = solver_of(solver);
            if (method == ClosedChainSolver::kEmbedding)
              return apply<3>(
                  self, {{{"q", q}, {"qd", qd}, {"tau", tau}}}, threads, false,
                  [&](const Model& model, ModelData& data, const RowState<3>& s, double* out) {
                    forward_dynamics(model, data, s.vector(0), s.vector(1), s.vector(2), g,
                                     Eigen::Map<Eigen::VectorXd>(out, s.size));
                  });
            return apply<3>(
                self, {{{"q", q}, {"qd", qd}, {"tau", tau}}}, threads, false,
                [&](const Model& model, ModelData& data, const auto& s) {
                  return Eigen::MatrixXd(
                      forward_dynamics(model, data, s[0], s[1], s[2], g, method).acceleration);
                });
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          py::arg("threads") = 1, py::arg("solver") = "embedding",
          "qdd for tau acting on every joint (the file's dof order; rows of 2-D arrays are "
          "states). "
          "Closed chains: solver='embedding' (minimal coordinates) or 'multipliers' (the "
          "augmented system M qdd + C = tau + G* lambda, G qdd + Gdot qd = 0); they agree"
          " q, qd, tau: (dofs,) or (rows, dofs); gravity (3,) in m/s^2, default (0, 0, -9.81); "
          "threads: worker threads for a batch. Returns qdd of the same shape. skograph.Error for "
          "a singular mass matrix or a loop that cannot close.")
      .def(
          "multiplier_dynamics",
          [](PyModel& self, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
             const Eigen::VectorXd& tau, Gravity gravity) {
            const ClosedDynamics result =
                forward_dynamics(self.model, *self.data, q, qd, tau, gravity_of(gravity),
                                 ClosedChainSolver::kMultipliers);
            py::dict out;
            out["qdd"] = result.acceleration;
            out["multipliers"] = result.multipliers;
            out["labels"] = result.labels;
            return out;
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          "{'qdd', 'multipliers' (lambda, one per row of constraint_jacobian), 'labels'} by the "
          "multiplier method: M qdd + C = tau + G* lambda"
          " q, qd, tau: (dofs,); gravity (3,), default (0, 0, -9.81). skograph.Error for a tree "
          "(no constraint rows)."
          " The rows and labels are those of constraint_system(q, qd).")
      .def(
          "constraint_jacobian",
          [](PyModel& self, const Eigen::VectorXd& q, const std::optional<Eigen::VectorXd>& qd,
             bool all_rows) {
            const Eigen::VectorXd rates = qd ? *qd : Eigen::VectorXd::Zero(q.size());
            return to_scipy(
                constraint_system(self.model, *self.data, q, rates, !all_rows).jacobian);
          },
          py::arg("q"), py::arg("qd") = py::none(), py::arg("all_rows") = false,
          "G(q) at the closed q, scipy.sparse.csc_matrix (rows x dofs, the file's dof order): "
          "G qd = 0 for every motion of the closed chain; the independent rows the embedding "
          "keeps, or every loop and coupling row with all_rows=True; 0 rows for a tree")
      .def(
          "kkt_system",
          [](PyModel& self, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
             const Eigen::VectorXd& tau, Gravity gravity, double epsilon) {
            if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
              throw UsageError("epsilon must be a number >= 0");
            const report::ModelKkt kkt =
                report::model_kkt(self.model, *self.data, q, qd, tau, gravity_of(gravity), epsilon);
            py::dict out;
            out["K"] = to_scipy(kkt.system->matrix());
            out["rhs"] = kkt.right_side;
            out["order"] = kkt.system->order();
            out["labels"] = kkt.labels;
            out["factor_nonzeros"] = kkt.system->factor_nonzeros();
            out["amd_factor_nonzeros"] = kkt.amd_factor_nonzeros;
            return out;
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          py::arg("epsilon") = 0.0,
          "What `skograph export --kkt` writes: {'K' = [M G*; G -epsilon I] (scipy.sparse, rows "
          "already in the fill-controlled elimination order), 'rhs' = [tau - C; -Gdot qd] in that "
          "order, 'order' (per row: dof index, or dofs + constraint row), 'labels' (dof name or "
          "'mu ' + constraint; mu = -lambda), 'factor_nonzeros' (nnz(L) of LDL* in this order), "
          "'amd_factor_nonzeros'} at the closed state")
      .def(
          "constraint_system",
          [](PyModel& self, const Eigen::VectorXd& q, const std::optional<Eigen::VectorXd>& qd,
             bool all_rows) {
            const Eigen::VectorXd rates = qd ? *qd : Eigen::VectorXd::Zero(q.size());
            const ConstraintSystem system =
                constraint_system(self.model, *self.data, q, rates, !all_rows);
            py::dict out;
            out["G"] = to_scipy(system.jacobian);
            out["bias"] = system.bias;
            out["labels"] = system.labels;
            out["stacked_rows"] = system.stacked_rows;
            return out;
          },
          py::arg("q"), py::arg("qd") = py::none(), py::arg("all_rows") = false,
          "{'G', 'bias' (Gdot qd: G qdd + bias = 0), 'labels' (loop or coupling and direction "
          "per row), 'stacked_rows' (rows before the redundant ones were dropped)} at the closed "
          "(q, qd)"
          " q: (dofs,); qd: (dofs,), default zeros; all_rows: keep the redundant rows too. G is "
          "scipy.sparse (rows x dofs).")
      .def(
          "inverse_dynamics",
          [](PyModel& self, Array q, Array qd, Array qdd, Gravity gravity, int threads) {
            const Eigen::Vector3d g = gravity_of(gravity);
            return apply<3>(
                self, {{{"q", q}, {"qd", qd}, {"qdd", qdd}}}, threads, false,
                [&](const Model& model, ModelData& data, const RowState<3>& s, double* out) {
                  inverse_dynamics(model, data, s.vector(0), s.vector(1), s.vector(2), g,
                                   Eigen::Map<Eigen::VectorXd>(out, s.size));
                });
          },
          py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("gravity") = py::none(),
          py::arg("threads") = 1,
          "tau (dofs) that gives the accelerations qdd at (q, qd) under gravity (default (0, 0, "
          "-9.81) m/s^2), file dof order; rows of 2-D arrays are states, run on `threads` "
          "threads. Closed chains: the actuator forces for qdd's independent entries, nonzero at "
          "the independent dofs only (forward_dynamics of them gives qdd back)")
      .def(
          "mass_matrix",
          [](PyModel& self, Array q, int threads) {
            // Through the data's matrix workspace: row-major into NumPy, entry for entry.
            return apply<1>(
                self, {{{"q", q}}}, threads, true,
                [](const Model& model, ModelData& data, const RowState<1>& s, double* out) {
                  Eigen::MatrixXd& mass = data.state.matrix;
                  mass.resize(s.size, s.size);
                  mass_matrix(model, data, s.vector(0), mass);
                  Eigen::Map<
                      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                      out, s.size, s.size) = mass;
                });
          },
          py::arg("q"), py::arg("threads") = 1,
          "M(q) (dofs x dofs, symmetric positive definite, file dof order) by composite inertias; "
          "a closed chain's spanning-tree M (reduced_mass_matrix gives M_R). A 2-D q gives a "
          "(rows, dofs, dofs) array")
      .def(
          "bias",
          [](PyModel& self, Array q, Array qd, Gravity gravity, int threads) {
            const Eigen::Vector3d g = gravity_of(gravity);
            return apply<2>(self, {{{"q", q}, {"qd", qd}}}, threads, false,
                            [&](const Model& model, ModelData& data, const auto& s) {
                              return Eigen::MatrixXd(bias_forces(model, data, s[0], s[1], g));
                            });
          },
          py::arg("q"), py::arg("qd"), py::arg("gravity") = py::none(), py::arg("threads") = 1,
          "C(q, qd) (dofs): Coriolis, centrifugal and gravity forces, so that M qdd + C = tau; a "
          "closed chain's spanning tree's at the closed state. Rows of 2-D arrays are states"
          " q, qd: (dofs,) or (rows, dofs); gravity (3,) in m/s^2, default (0, 0, -9.81); threads: "
          "worker threads for a batch. Returns (dofs,) or (rows, dofs).")
      .def(
          "embedding_matrix",
          [](PyModel& self, const Eigen::VectorXd& q) {
            return embedding_matrix(self.model, *self.data, q);
          },
          py::arg("q"),
          "X (dofs x independent) at the closed q: qd = X qd_R for the independent rates qd_R "
          "(columns in the order of the independent dofs as the file lists them); the identity "
          "for a tree")
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
          " while the closed chain moves under tau: as `skograph dynamics --json` gives them"
          " q, qd, tau: (dofs,) in the file's dof order; gravity (3,) default (0, 0, -9.81). Loop "
          "forces in N and N m, on the child link from the parent, about the joint, in the joint "
          "frame F_p.")
      .def(
          "reduced_mass_matrix",
          [](PyModel& self, const Eigen::VectorXd& q) {
            return reduced_mass_matrix(self.model, *self.data, q);
          },
          py::arg("q"),
          "M_R = X* M X (independent x independent) at the closed q: the mass matrix in the "
          "independent coordinates (constraint embedding); a tree's M")
      .def(
          "sparse_mass_matrix",
          [](PyModel& self, const Eigen::VectorXd& q) {
            return to_scipy(sparse_matrices(self, q, false).mass());
          },
          py::arg("q"),
          "The tree's M(q) (a closed chain's spanning tree), scipy.sparse.csc_matrix"
          ". q: (dofs,). Rows and columns in the file's dof order, its lower and upper triangles "
          "stored; what `skograph export --mass` writes for a tree.")
      .def(
          "sparse_reduced_mass_matrix",
          [](PyModel& self, const Eigen::VectorXd& q) {
            return to_scipy(sparse_matrices(self, q, true).mass());
          },
          py::arg("q"),
          "What `skograph export --mass` writes: M_R = X* M X of a closed chain's "
          "constraint-embedded model (rows in the order of the independent dofs), a tree's M")
      .def(
          "factor",
          [](PyModel& self, const Eigen::VectorXd& q, const std::string& ordering) {
            const std::optional<MassOrdering> chosen = parse_ordering(ordering);
            if (!chosen)
              throw UsageError("unknown ordering '" + ordering +
                               "' (expected canonical, root-first, amd or metis)");
            const SparseExport matrices = sparse_matrices(self, q, false);
            const std::unique_ptr<CholmodFactorization> factorization =
                matrices.factorization(*chosen);
            factorization->factorize(matrices.mass());
            return py::make_tuple(
                to_scipy(factorization->factor()),
                py::array_t<int>(static_cast<py::ssize_t>(factorization->permutation().size()),
                                 factorization->permutation().data()));
          },
          py::arg("q"), py::arg("ordering") = "canonical",
          "(L, perm): CHOLMOD's Cholesky factor of the tree's M(q), P M P* = L L* with "
          "L a scipy.sparse.csc_matrix and perm (int array) the rows of M in factor order; "
          "ordering 'canonical' (no fill: part I), 'root-first', 'amd' or 'metis'. Not the "
          "innovations factor F of Model.innovations_factors")
      .def(
          "kernel",
          [](PyModel& self, const Eigen::VectorXd& q) {
            return to_scipy(sparse_matrices(self, q, false).kernel());
          },
          py::arg("q"),
          "The SKO kernel E_A at q (6 nodes x 6 nodes block matrix, scipy.sparse, part I Eq. 12): "
          "the rigid-body transforms phi(parent(k), k) below the diagonal; what `skograph export "
          "--kernel` writes")
      .def(
          "resolvent",
          [](PyModel& self, const Eigen::VectorXd& q) {
            return to_scipy(sparse_matrices(self, q, false).resolvent());
          },
          py::arg("q"),
          "The 1-resolvent A = (I - E_A)^-1 at q (scipy.sparse, part I Lemma 3): block (i, k) the "
          "transform phi(i, k) from k to its ancestor i; what `skograph export --resolvent` "
          "writes")
      .def_property_readonly(
          "frames", [](const PyModel& self) { return frame_names(self.model); },
          "Every frame name (links, then fused links, sites and SDF frames); joint names also "
          "name their child link's frame")
      .def_property_readonly(
          "mass", [](const PyModel& self) -> double { return total_mass(self.model); },
          "Total mass (kg) of every link, links fused into the world included")
      .def(
          "frame_pose",
          [](PyModel& self, Array q, const std::string& name, int threads) {
            return apply_shaped<1>(
                self, {{{"q", q}}}, threads, {4, 4},
                [&](const Model& model, ModelData& data, const auto& s) {
                  return Eigen::MatrixXd(frame_pose(model, data, s[0], name).matrix());
                });
          },
          py::arg("q"), py::arg("name"), py::arg("threads") = 1,
          "The frame's pose in the world: a 4 x 4 homogeneous matrix [[R, p], [0, 1]] (per row "
          "of a 2-D q: (rows, 4, 4)); closed chains at q assembled")
      .def(
          "frame_velocity",
          [](PyModel& self, Array q, Array qd, const std::string& name, const std::string& frame,
             int threads) {
            const FrameAxes axes = axes_of(frame);
            return apply_shaped<2>(
                self, {{{"q", q}, {"qd", qd}}}, threads, {6},
                [&](const Model& model, ModelData& data, const auto& s) {
                  return Eigen::MatrixXd(frame_velocity(model, data, s[0], s[1], name, axes));
                });
          },
          py::arg("q"), py::arg("qd"), py::arg("name"), py::arg("frame") = "world",
          py::arg("threads") = 1,
          "[angular; linear] velocity of the frame's origin (6), in the world's axes or the "
          "frame's ('local')"
          " q, qd: (dofs,) or (rows, dofs); name: a frame (Model.frames or a joint name). Returns "
          "(6,) or (rows, 6); skograph.Error for an unknown frame.")
      .def(
          "frame_acceleration",
          [](PyModel& self, Array q, Array qd, Array qdd, const std::string& name,
             const std::string& frame, int threads) {
            const FrameAxes axes = axes_of(frame);
            return apply_shaped<3>(self, {{{"q", q}, {"qd", qd}, {"qdd", qdd}}}, threads, {6},
                                   [&](const Model& model, ModelData& data, const auto& s) {
                                     return Eigen::MatrixXd(frame_acceleration(
                                         model, data, s[0], s[1], s[2], name, axes));
                                   });
          },
          py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("name"), py::arg("frame") = "world",
          py::arg("threads") = 1,
          "Classical acceleration (6): angular acceleration and the acceleration of the frame's "
          "origin, J qdd + Jdot qd; closed chains take qdd's independent entries"
          " q, qd, qdd: (dofs,) or (rows, dofs); name: a frame (Model.frames or a joint name); "
          "frame: 'world' or 'local' axes. Returns (6,) or (rows, 6).")
      .def(
          "jacobian",
          [](PyModel& self, Array q, const std::string& name, const std::string& frame,
             int threads) {
            const FrameAxes axes = axes_of(frame);
            return apply_shaped<1>(self, {{{"q", q}}}, threads, {6, self.model.dof_count()},
                                   [&](const Model& model, ModelData& data, const auto& s) {
                                     return frame_jacobian(model, data, s[0], name, axes);
                                   });
          },
          py::arg("q"), py::arg("name"), py::arg("frame") = "world", py::arg("threads") = 1,
          "The 6 x dofs geometric Jacobian [angular; linear]: 'world' (world axes about the "
          "frame's origin, Pinocchio's LOCAL_WORLD_ALIGNED) or 'local' (the frame's axes); J qd "
          "is frame_velocity")
      .def(
          "jacobian_bias",
          [](PyModel& self, Array q, Array qd, const std::string& name, const std::string& frame,
             int threads) {
            const FrameAxes axes = axes_of(frame);
            return apply_shaped<2>(
                self, {{{"q", q}, {"qd", qd}}}, threads, {6},
                [&](const Model& model, ModelData& data, const auto& s) {
                  return Eigen::MatrixXd(frame_jacobian_bias(model, data, s[0], s[1], name, axes));
                });
          },
          py::arg("q"), py::arg("qd"), py::arg("name"), py::arg("frame") = "world",
          py::arg("threads") = 1,
          "Jdot qd (6): the frame's acceleration at qdd = 0"
          ", in 'world' or 'local' axes. q, qd: (dofs,) or (rows, dofs); name: a frame "
          "(Model.frames or a joint name). Returns (6,) or (rows, 6).")
      .def(
          "reduced_jacobian",
          [](PyModel& self, const Eigen::VectorXd& q, const std::string& name,
             const std::string& frame) {
            return reduced_frame_jacobian(self.model, *self.data, q, name, axes_of(frame));
          },
          py::arg("q"), py::arg("name"), py::arg("frame") = "world",
          "Closed chains: J_R = J X (6 x independent, columns in the order of model.close's "
          "independent names), the end-effector Jacobian in the actuated coordinates; trees: J")
      .def(
          "reduced_jacobian_bias",
          [](PyModel& self, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
             const std::string& name, const std::string& frame) {
            return Eigen::VectorXd(
                reduced_jacobian_bias(self.model, *self.data, q, qd, name, axes_of(frame)));
          },
          py::arg("q"), py::arg("qd"), py::arg("name"), py::arg("frame") = "world",
          "Jdot qd + J Xdot qd_R (6): the frame's acceleration is J_R qdd_R + this"
          ". q, qd: (dofs,); name: a frame; frame: 'world' or 'local' axes. Returns (6,); a tree's "
          "Jdot qd."
          " skograph.Error for an unknown frame or a state that cannot close.")
      .def(
          "center_of_mass",
          [](PyModel& self, Array q, const std::optional<std::string>& subtree, int threads) {
            const std::string top = subtree ? *subtree : "";
            return apply_shaped<1>(self, {{{"q", q}}}, threads, {3},
                                   [&](const Model& model, ModelData& data, const auto& s) {
                                     return Eigen::MatrixXd(center_of_mass(model, data, s[0], top));
                                   });
          },
          py::arg("q"), py::arg("subtree") = py::none(), py::arg("threads") = 1,
          "Centre of mass (3, world) of the model or of the subtree below a link"
          " q: (dofs,) or (rows, dofs); subtree: a link name, None for the whole model. Returns "
          "(3,) in m or (rows, 3); skograph.Error for an unknown link.")
      .def(
          "center_of_mass_velocity",
          [](PyModel& self, Array q, Array qd, const std::optional<std::string>& subtree,
             int threads) {
            const std::string top = subtree ? *subtree : "";
            return apply_shaped<2>(
                self, {{{"q", q}, {"qd", qd}}}, threads, {3},
                [&](const Model& model, ModelData& data, const auto& s) {
                  return Eigen::MatrixXd(center_of_mass_velocity(model, data, s[0], s[1], top));
                });
          },
          py::arg("q"), py::arg("qd"), py::arg("subtree") = py::none(), py::arg("threads") = 1,
          "Velocity (3, world, m/s) of the centre of mass of the model, or of the subtree below "
          "the link `subtree`; rows of 2-D arrays are states"
          " q, qd: (dofs,) or (rows, dofs); subtree: a link name, None for all. Returns (3,) or "
          "(rows, 3).")
      .def(
          "com_jacobian",
          [](PyModel& self, Array q, const std::optional<std::string>& subtree, int threads) {
            const std::string top = subtree ? *subtree : "";
            return apply_shaped<1>(self, {{{"q", q}}}, threads, {3, self.model.dof_count()},
                                   [&](const Model& model, ModelData& data, const auto& s) {
                                     return center_of_mass_jacobian(model, data, s[0], top);
                                   });
          },
          py::arg("q"), py::arg("subtree") = py::none(), py::arg("threads") = 1,
          "3 x dofs: the centre of mass moves at J @ qd with J this matrix"
          " q: (dofs,) or (rows, dofs); subtree: a link name, None for all. Returns (3, dofs) or "
          "(rows, 3, dofs).")
      .def(
          "kinetic_energy",
          [](PyModel& self, Array q, Array qd, int threads) {
            return apply_shaped<2>(self, {{{"q", q}, {"qd", qd}}}, threads, {},
                                   [&](const Model& model, ModelData& data, const auto& s) {
                                     return Eigen::MatrixXd::Constant(
                                         1, 1, kinetic_energy(model, data, s[0], s[1]));
                                   });
          },
          py::arg("q"), py::arg("qd"), py::arg("threads") = 1,
          "1/2 qd* M qd (J) by the recursion's velocities"
          ": the kinetic energy at (q, qd). q, qd: (dofs,) or (rows, dofs). Returns a float array "
          "of shape () or (rows,).")
      .def(
          "potential_energy",
          [](PyModel& self, Array q, Gravity gravity, int threads) {
            const Eigen::Vector3d g = gravity_of(gravity);
            return apply_shaped<1>(self, {{{"q", q}}}, threads, {},
                                   [&](const Model& model, ModelData& data, const auto& s) {
                                     return Eigen::MatrixXd::Constant(
                                         1, 1, potential_energy(model, data, s[0], g));
                                   });
          },
          py::arg("q"), py::arg("gravity") = py::none(), py::arg("threads") = 1,
          "Potential energy -sum m g . c (J) of the links' weights at q (gravity default (0, 0, "
          "-9.81)); rows of 2-D arrays are states"
          " Returns a float array of shape () or (rows,)."
          " q: (dofs,) or (rows, dofs); gravity (3,) in m/s^2.")
      .def(
          "singularity",
          [](PyModel& self, const Eigen::VectorXd& q,
             const std::optional<std::vector<std::string>>& frames) {
            const std::vector<std::string> names = frames ? *frames : std::vector<std::string>{};
            const SingularityMeasures measures =
                singularity_measures(self.model, *self.data, q, names);
            py::dict condition, smallest;
            for (std::size_t i = 0; i < names.size(); ++i) {
              condition[py::str(names[i])] = measures.jacobian_condition[i];
              smallest[py::str(names[i])] = measures.jacobian_smallest_value[i];
            }
            py::dict result;
            result["constraint_condition"] = measures.constraint_condition;
            result["constraint_smallest_singular_value"] = measures.constraint_smallest_value;
            result["jacobian_condition"] = condition;
            result["jacobian_smallest_singular_value"] = smallest;
            return result;
          },
          py::arg("q"), py::arg("frames") = py::none(),
          "{'constraint_condition': [per aggregate], 'constraint_smallest_singular_value': [per "
          "aggregate], 'jacobian_condition': {frame: cond(J_R)}, "
          "'jacobian_smallest_singular_value': {frame: sigma_min(J_R)}}: infinite condition at a "
          "singular configuration: type II for the constraints, type I for J_R")
      .def(
          "inverse_kinematics",
          [](PyModel& self, const std::string& name, const Eigen::Matrix4d& pose,
             const std::optional<Eigen::VectorXd>& q0) {
            Eigen::Isometry3d target;
            target.matrix() = pose;
            const Eigen::VectorXd start = q0 ? *q0 : Eigen::VectorXd::Zero(self.model.dof_count());
            const Eigen::VectorXd q =
                inverse_kinematics(self.model, *self.data, name, target, start);
            py::dict independent;
            for (const std::string& dof : self.data->independent) {
              const auto& names = self.model.dof_names();
              const auto at = std::find(names.begin(), names.end(), dof) - names.begin();
              independent[py::str(dof)] = q(at);
            }
            py::dict result;
            result["q"] = q;
            result["independent"] = independent;
            return result;
          },
          py::arg("name"), py::arg("pose"), py::arg("q0") = py::none(),
          "The closed configuration nearest q0 in which the frame has the 4 x 4 pose: "
          "{'q', 'independent': {dof: value}} (a Stewart platform's leg lengths); skograph.Error "
          "when the pose is unreachable")
      .def(
          "read_state",
          [](PyModel& self, const std::string& path) {
            const MechanismState state = read_model_state(path, self.model);
            const DofOrder& order = self.model.dof_order();
            py::dict result;
            result["q"] = Eigen::VectorXd(order.vector(state.q));
            result["qd"] = Eigen::VectorXd(order.vector(state.qd));
            result["tau"] = Eigen::VectorXd(order.vector(state.tau));
            result["qdd"] = Eigen::VectorXd(order.vector(state.qdd));
            result["gravity"] = Eigen::Vector3d(state.gravity);
            return result;
          },
          py::arg("path"),
          "A state file (STATE.json, docs/mechanisms.md) as {'q', 'qd', 'tau', 'qdd' (dofs, file "
          "order; zeros where the file is silent), 'gravity' (3)}; a model with another base body "
          "(with_base) converts the file's coordinates to its own")
      .def(
          "with_base",
          [](const PyModel& self, const std::string& link) {
            ReadOptions options = self.options;
            options.base = link;
            return std::make_shared<PyModel>(with_base(self.model, link), options);
          },
          py::arg("link"),
          "The same free-flying model with `link` as its base body (free-flying paper, Appendix "
          "A): a floating joint '<link>_floating' replaces the base's, the joints between are "
          "reversed (a 1-dof joint keeps its coordinate, a spherical one's changes sign). The "
          "operational-space inertias of the links are the same; convert_state carries states "
          "over. skograph.Error for a fixed-base model, an unknown link or a planar joint on the "
          "way")
      .def_property_readonly(
          "base", [](const PyModel& self) { return self.model.base(); },
          "The base body with_base (or load_model's base) gave the model; '' for the file's")
      .def(
          "convert_state",
          [](const PyModel& self, const PyModel& target, const Eigen::VectorXd& q,
             const Eigen::VectorXd& qd, const std::optional<Eigen::VectorXd>& qdd,
             const std::optional<Eigen::VectorXd>& tau) {
            const ModelState converted = convert_state(
                self.model, target.model,
                {q, qd, qdd ? *qdd : Eigen::VectorXd(), tau ? *tau : Eigen::VectorXd()});
            py::dict result;
            result["q"] = converted.q;
            result["qd"] = converted.qd;
            if (qdd) result["qdd"] = converted.qdd;
            if (tau) result["tau"] = converted.tau;
            return result;
          },
          py::arg("target"), py::arg("q"), py::arg("qd"), py::arg("qdd") = py::none(),
          py::arg("tau") = py::none(),
          "This model's state (q, qd and optionally qdd, tau; file dof order) in the coordinates "
          "of `target`, the same mechanism with another base body (with_base): {'q', 'qd' "
          "[, 'qdd', 'tau']}. Every link keeps its pose, velocity and acceleration; tau does the "
          "same work (tau_k = T_{n,k}* tau_n, the paper's Eq. 44)")
      // Pickling by __reduce__ (a module function rebuilds the model) works with every pickle
      // protocol; __setstate__ still reads pickles of earlier versions.
      .def(py::pickle([](const PyModel& self) { return pickle_model(self); },
                      [](const py::tuple& state) { return unpickle_model(state); }))
      .def("__reduce__",
           [](const PyModel& self) {
             return py::make_tuple(py::module_::import("skograph").attr("_model_from_state"),
                                   py::make_tuple(pickle_model(self)));
           })
      .def("__repr__", [](const PyModel& self) {
        return "<skograph.Model '" + self.model.file() +
               "': " + std::to_string(self.model.dof_count()) + " dofs" +
               (self.model.base().empty() ? "" : ", base " + self.model.base()) +
               (self.model.is_closed_chain() ? ", closed chain>" : ">");
      });
  bind_operators(model_class);
  m.def("_model_from_state", &unpickle_model, py::arg("state"),
        "A Model from the state a pickle holds (Model.__reduce__)");

  m.def("load_model", &load, py::arg("path"), py::arg("strict") = false,
        py::arg("independent") = py::none(), py::arg("loops") = py::none(),
        py::arg("base") = py::none(),
        "The ready model of a URDF, YAML, MJCF or SDF file (tree or closed chain); independent: "
        "the joints (or dofs) a closed chain keeps as its independent coordinates; loops: a loop "
        "file closing the model's loops; base: a link of a free-flying model to serve as its base "
        "body (Model.with_base)");
  m.def("_graph_report", &graph_report_call, py::arg("path"), py::arg("strict"), py::arg("loops"));
#if SKOGRAPH_HAVE_VIZ
  m.def("_render", &render_call, py::arg("path"), py::arg("output"), py::arg("what"),
        py::arg("matrix"), py::arg("ordering"), py::arg("state"), py::arg("format"),
        py::arg("size"), py::arg("strict"), py::arg("loops"));
  m.def("_analyze", &analyze_call, py::arg("path"), py::arg("out"), py::arg("state"),
        py::arg("size"), py::arg("max_diagram_nodes"), py::arg("strict"), py::arg("independent"),
        py::arg("loops"));
#endif
}

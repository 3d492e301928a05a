// The Python module `skograph` (its compiled part, skograph._skograph; python/skograph/__init__.py
// re-exports it). It consumes the library as the program does, through the model (model/model.hpp)
// and report/: NumPy arrays in the file's dof order (1-D: one state; 2-D: one state per row, on
// `threads` threads), SciPy sparse matrices, the program's reports. Each family of calls is bound
// in a file of its own (py_model.hpp lists them); this file gathers them and turns every library
// error into skograph.Error.
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "py_model.hpp"
#include "skograph/config.hpp"
#include "skograph/graph/output_file.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_skograph, m) {
  using namespace skograph;
  using namespace skograph::python;
  m.doc() = "skograph: graph-theoretic multibody dynamics (compiled part; see skograph)";
  m.attr("__version__") = SKOGRAPH_VERSION;
  m.attr("have_viz") = static_cast<bool>(SKOGRAPH_HAVE_VIZ);

  // Every library error is skograph.Error (a ValueError) with the command line's one line.
  static py::exception<std::runtime_error> error(m, "Error", PyExc_ValueError);
  error.attr("__doc__") =
      "The error for every problem skograph reports: bad input (a file, a state, an argument), a "
      "closed chain that cannot close, a singular mass matrix. It is a ValueError whose message is "
      "the command line's one-line message (the file and line first where there are some).";
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

  ModelClass model_class(
      m, "Model",
      "A loaded robot or mechanism (skograph.load_model): immutable, picklable, and safe to share "
      "between threads. Every call is a function of its arguments (the same answer whatever was "
      "called before, on any thread) and releases the GIL while it computes. Vectors are NumPy "
      "arrays in the file's dof order (Model.dofs); 2-D arrays are batches, one state per row. "
      "Closed chains are assembled first: their loops are closed, and the independent "
      "coordinates are kept where possible.");
  bind_model(m, model_class);
  bind_dynamics(model_class);
  bind_derivatives(model_class);
  bind_kinematics(model_class);
  bind_closed_chains(model_class);
  bind_operators(model_class);
  bind_sparse(model_class);
  bind_pictures(m);
  bind_view(model_class);
}

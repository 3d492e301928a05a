// One state from Python in its commonest form, without pybind11's dispatcher:
//
//   model.forward_dynamics(q, qd, tau)    model.inverse_dynamics(q, qd, qdd) model.mass_matrix(q)
//
// with each input a 1-D float64 C-contiguous array of the model's dof count, every entry finite,
// nothing else given. pybind11's dispatcher converts each of a method's seven arguments and its
// defaults (the solver's name as a std::string) through type casters and argument vectors, and an
// instance method binds a new method object per call: together about a third of a small robot's
// call from Python. add_fast_path replaces the method in the class with a method descriptor
// (CPython's own kind, called by vectorcall without a bound method) that computes such a call
// directly and hands every other call (keywords, 2-D batches, lists, a wrong length, a NaN, an
// error raised by the computation) to the pybind11 function it replaced, which checks, computes
// and raises exactly as before. The descriptor keeps that function's docstring, whose first line
// is the signature the stubs and help() read.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "calls.hpp"
#include "py_model.hpp"

namespace skograph::python {

// One state's computation: fn(model, data, inputs, out) writes the result row-major at out.
template <std::size_t K>
using FastCompute = void (*)(const Model&, ModelData&, const RowState<K>&, double* out);

namespace fast_calls_detail {

// The Model behind `self` when it is a Model (not a subclass) whose value is made.
inline PyModel* model_of(PyObject* self, PyTypeObject* model_type) {
  if (Py_TYPE(self) != model_type) return nullptr;
  auto* instance = reinterpret_cast<py::detail::instance*>(self);
  if (!instance->simple_layout || !instance->simple_holder_constructed) return nullptr;
  return static_cast<PyModel*>(instance->simple_value_holder[0]);
}

// `value` is a 1-D float64 C-contiguous array in native byte order of `size` entries, all finite.
inline const double* finite_state(PyObject* value, long size) {
  if (!is_native_float64_c_array(value)) return nullptr;
  const py::detail::PyArray_Proxy* array = py::detail::array_proxy(value);
  if (array->nd != 1 || array->dimensions[0] != size) return nullptr;
  const auto* data = reinterpret_cast<const double*>(array->data);
  return all_finite(data, size) ? data : nullptr;
}

// The method a fast path replaced, called as it was: self first, then the call's arguments.
// Raises no C++ exception (it runs in a C function CPython calls).
inline PyObject* call_general(PyObject* general, PyObject* self, PyObject* const* args,
                              Py_ssize_t positional, PyObject* keywords) {
  const Py_ssize_t count = positional + (keywords ? PyTuple_GET_SIZE(keywords) : 0);
  std::array<PyObject*, 16> small{};
  PyObject** stack = small.data();
  if (count + 1 > static_cast<Py_ssize_t>(small.size())) {
    stack = static_cast<PyObject**>(PyMem_Malloc(sizeof(PyObject*) * (count + 1)));
    if (stack == nullptr) return PyErr_NoMemory();
  }
  stack[0] = self;
  for (Py_ssize_t i = 0; i < count; ++i) stack[i + 1] = args[i];
  PyObject* result =
      PyObject_Vectorcall(general, stack, static_cast<std::size_t>(positional + 1), keywords);
  if (stack != small.data()) PyMem_Free(stack);
  return result;
}

// Per method: the pybind11 function it replaced, the class, and CPython's method definition.
template <std::size_t K, FastCompute<K> Compute, int ResultDimensions>
struct FastMethod {
  static inline PyObject* general = nullptr;
  static inline PyTypeObject* model_type = nullptr;
  static inline const char* doc = nullptr;  // never freed: CPython may read it at finalization
  static inline PyMethodDef definition{};

  static PyObject* call(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* keywords) {
    try {  // no C++ exception may leave a function CPython calls (none is expected here)
      if (keywords == nullptr && nargs == static_cast<Py_ssize_t>(K)) {
        if (PyModel* py_model = model_of(self, model_type)) {
          if (PyObject* result = computed(*py_model, args)) return result;
          if (PyErr_Occurred()) return nullptr;  // NumPy could not make the result
        }
      }
      return call_general(general, self, args, nargs, keywords);
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
      return nullptr;
    }
  }

  // The result, or nullptr when the call is not the common form or the computation failed (the
  // general method then raises what it raises).
  static PyObject* computed(PyModel& py_model, PyObject* const* args) {
    RowState<K> state;
    state.size = py_model.model.dof_count();
    for (std::size_t k = 0; k < K; ++k)
      if (!(state.rows[k] = finite_state(args[k], state.size))) return nullptr;
    const std::array<py::ssize_t, 2> extents{state.size, state.size};
    PyObject* result = nullptr;
    try {
      result = new_float64_array(extents.data(), ResultDimensions).release().ptr();
    } catch (py::error_already_set& error) {
      error.restore();  // NumPy's error stands
      return nullptr;
    }
    bool computed = true;
    auto* out = reinterpret_cast<double*>(py::detail::array_proxy(result)->data);
    PyThreadState* released = PyEval_SaveThread();
    try {
      WorkspacePool::Lease lease = py_model.workspaces.lease();
      Compute(py_model.model, lease.data(), state, out);
    } catch (...) {
      computed = false;
    }
    PyEval_RestoreThread(released);
    if (computed) return result;
    Py_DECREF(result);
    return nullptr;
  }
};

}  // namespace fast_calls_detail

// Replaces model_class's method `name` (bound already, by pybind11) with a fast path for one state
// given as K positional float64 arrays, computing Compute on a workspace of the model's pool
// without the GIL; the result has one extent per dimension, each the dof count.
template <std::size_t K, FastCompute<K> Compute, int ResultDimensions>
void add_fast_path(ModelClass& model_class, const char* name) {
  using Method = fast_calls_detail::FastMethod<K, Compute, ResultDimensions>;
  static_assert(ResultDimensions == 1 || ResultDimensions == 2);
  py::detail::npy_api::get();  // NumPy's table now, so that a call cannot fail to import it
  // The class's own attribute (its __dict__ is a mappingproxy: subscripted, not used as a dict).
  const py::object bound = model_class.attr("__dict__")[name];
  if (!PyInstanceMethod_Check(bound.ptr()))
    throw std::logic_error(std::string("add_fast_path: ") + name + " is not a pybind11 method");
  Method::general = PyInstanceMethod_GET_FUNCTION(bound.ptr());
  Py_INCREF(Method::general);  // kept for the life of the process, as the class keeps its methods
  Method::model_type = reinterpret_cast<PyTypeObject*>(model_class.ptr());
  const std::string doc = py::str(bound.attr("__doc__")).cast<std::string>();
  Method::doc = strdup(doc.c_str());
  if (Method::doc == nullptr) throw std::bad_alloc();
  Method::definition = {name,
                        reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&Method::call)),
                        METH_FASTCALL | METH_KEYWORDS, Method::doc};
  PyObject* descriptor = PyDescr_NewMethod(Method::model_type, &Method::definition);
  if (descriptor == nullptr) throw py::error_already_set();
  model_class.attr(name) = py::reinterpret_steal<py::object>(descriptor);
}

}  // namespace skograph::python

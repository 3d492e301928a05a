// How the Python module's calls run: arguments converted with the GIL held (arguments.hpp), the
// computation on a leased workspace with the GIL released (plain Python threads run at once), the
// results made into Python objects with the GIL held again.
//
//   compute(self, [&](ModelData& data) { return forward_dynamics(...); })   one state
//   per_state(self, {{"q", q}, {"qd", qd}}, threads, {6}, fn)              1-D: one state;
//                                                                           2-D: one per row
// (the rows on model/batch.hpp's for_each_state: the process-wide pool, the lowest failing row's
// error rethrown)
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "py_model.hpp"
#include "skograph/model/batch.hpp"

namespace skograph::python {

// fn(data) on a workspace of the model's pool, without the GIL; fn returns C++ values.
template <class Fn>
auto compute(PyModel& self, Fn&& fn) -> decltype(fn(std::declval<ModelData&>())) {
  WorkspacePool::Lease lease = self.workspaces.lease();
  const py::gil_scoped_release release;
  return fn(lease.data());
}

// One input of a per-state call: its name for messages and the argument.
struct Input {
  const char* name;
  const ArrayArgument& value;
};

// One state's inputs as views of the NumPy rows: state.vector(k) maps input k.
template <std::size_t K>
struct RowState {
  std::array<const double*, K> rows{};
  long size = 0;
  Eigen::Map<const Eigen::VectorXd> vector(std::size_t k) const {
    return Eigen::Map<const Eigen::VectorXd>(rows[k], size);
  }
};

// A per-state call's inputs, checked: real numbers, one entry per dof, the same rows as the
// first, every entry finite (a bad row fails the call, named, before anything is computed).
template <std::size_t K>
struct CheckedStates {
  // The float64 arrays the pointers read, kept alive. Plain objects: a default-constructed Array
  // would be an empty NumPy array made (and freed) per input and call.
  std::array<py::object, K> arrays;
  std::array<const double*, K> pointers{};
  bool batch = false;
  long rows = 1, size = 0;
  RowState<K> row(long i) const {
    RowState<K> state;
    for (std::size_t k = 0; k < K; ++k) state.rows[k] = pointers[k] + i * size;
    state.size = size;
    return state;
  }
};

template <std::size_t K>
CheckedStates<K> checked_states(PyModel& self, const std::array<Input, K>& inputs, int threads) {
  CheckedStates<K> states;
  states.size = self.model.dof_count();
  for (std::size_t k = 0; k < K; ++k)
    states.arrays[k] = real_array(inputs[k].value.value, inputs[k].name);
  const auto array_at = [&](std::size_t k) {
    return py::reinterpret_borrow<Array>(states.arrays[k]);
  };
  const Array first = array_at(0);
  if (first.ndim() != 1 && first.ndim() != 2)
    throw UsageError(std::string(inputs[0].name) +
                     " must be one state (1-D) or one state per row (2-D)");
  states.batch = first.ndim() == 2;
  states.rows = states.batch ? static_cast<long>(first.shape(0)) : 1;
  for (std::size_t k = 0; k < K; ++k) {
    const Array array = array_at(k);
    const char* name = inputs[k].name;
    if (array.ndim() != first.ndim() || (states.batch && array.shape(0) != states.rows))
      throw UsageError(std::string(name) + " must have the shape of " + inputs[0].name);
    if (array.shape(array.ndim() - 1) != states.size)
      throw UsageError(std::string(name) + " has " + std::to_string(array.shape(array.ndim() - 1)) +
                       " entries per state, the model " + std::to_string(states.size) + " dofs");
    check_finite(array, name, self.model, states.batch ? threads : 1);
    states.pointers[k] = array.data();
  }
  return states;
}

// The shape of one state's result ({} a number, {n}, {n, n}, {3, r, r}): its extents held in
// place, so that a call does not allocate a std::vector for them.
class StateShape {
 public:
  StateShape(std::initializer_list<py::ssize_t> extents) { append(extents.begin(), extents.end()); }
  StateShape(const std::vector<py::ssize_t>& extents) {  // NOLINT: a shape computed at run time
    append(extents.begin(), extents.end());
  }
  const py::ssize_t* begin() const { return extents_.data(); }
  const py::ssize_t* end() const { return extents_.data() + count_; }
  std::size_t size() const { return static_cast<std::size_t>(count_); }
  // The entries of one state's result (1 for a number).
  long entries() const {
    long product = 1;
    for (const py::ssize_t extent : *this) product *= static_cast<long>(extent);
    return product;
  }
  static constexpr std::size_t kMaxExtents = 3;

 private:
  template <class It>
  void append(It first, It last) {
    for (; first != last; ++first) {
      if (count_ == static_cast<int>(extents_.size()))
        throw std::logic_error("a state's result of more than three dimensions");
      extents_[static_cast<std::size_t>(count_++)] = *first;
    }
  }
  std::array<py::ssize_t, kMaxExtents> extents_{};
  int count_ = 0;
};

// A new C-contiguous float64 array of the given extents, straight from NumPy's
// PyArray_NewFromDescr (pybind11's table of NumPy's functions): pybind11's array constructor
// first copies the shape into a vector and computes the strides into another, which for one state
// of a small robot cost a sixth of the call.
inline py::array_t<double> new_float64_array(const py::ssize_t* extents, int count) {
  const py::detail::npy_api& api = py::detail::npy_api::get();
  PyObject* made = api.PyArray_NewFromDescr_(
      api.PyArray_Type_, api.PyArray_DescrFromType_(py::detail::npy_api::NPY_DOUBLE_), count,
      extents, nullptr, nullptr, 0, nullptr);
  if (made == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::array_t<double>>(made);
}

// The result of `shape` per state ((rows, *shape) for a batch) and one state's entry count.
inline py::array_t<double> state_results(bool batch, long rows, const StateShape& shape,
                                         long& state_size) {
  std::array<py::ssize_t, StateShape::kMaxExtents + 1> extents{};  // the batch's rows first
  int count = 0;
  if (batch) extents[static_cast<std::size_t>(count++)] = rows;
  for (const py::ssize_t extent : shape) extents[static_cast<std::size_t>(count++)] = extent;
  state_size = shape.entries();
  return new_float64_array(extents.data(), count);
}

// The result as state_results shapes it, or `out` when given: a writeable C-contiguous float64
// array of exactly that shape that shares no memory with the inputs, written in place (NumPy's
// out= idiom: a loop of batches then allocates nothing). UsageError otherwise.
template <std::size_t K>
py::array_t<double> results_into(const py::object& out, const CheckedStates<K>& states,
                                 const StateShape& shape, long& state_size) {
  if (out.is_none()) return state_results(states.batch, states.rows, shape, state_size);
  std::vector<py::ssize_t> expected;
  if (states.batch) expected.push_back(states.rows);
  expected.insert(expected.end(), shape.begin(), shape.end());
  state_size = shape.entries();
  std::string wanted = "(";
  for (std::size_t i = 0; i < expected.size(); ++i)
    wanted += (i ? ", " : "") + std::to_string(expected[i]);
  wanted += expected.size() == 1 ? ",)" : ")";
  const std::string what = "out must be a writeable C-contiguous float64 array of shape " + wanted;
  if (!py::isinstance<py::array>(out)) throw UsageError(what);
  const auto given = py::reinterpret_borrow<py::array>(out);
  if (!given.dtype().equal(py::dtype::of<double>()) || !given.writeable() ||
      !(given.flags() & py::array::c_style) ||
      given.ndim() != static_cast<py::ssize_t>(expected.size()))
    throw UsageError(what);
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (given.shape(static_cast<py::ssize_t>(i)) != expected[i]) throw UsageError(what);
  const auto* begin = static_cast<const char*>(given.data());
  const auto* end = begin + given.nbytes();
  for (std::size_t k = 0; k < K; ++k) {
    const auto* input = reinterpret_cast<const char*>(states.pointers[k]);
    const auto* input_end = input + states.rows * states.size * static_cast<long>(sizeof(double));
    if (input < end && begin < input_end)
      throw UsageError("out must not share memory with an input");
  }
  return py::reinterpret_borrow<py::array_t<double>>(out);
}

// body() with a batch row's error named: "row 3 (index 2): ...".
template <class Body>
void naming_the_row(bool batch, long i, Body body) {
  if (!batch) return body();
  try {
    body();
  } catch (const std::exception& e) {
    throw Error("row " + std::to_string(i + 1) + " (index " + std::to_string(i) + "): " + e.what());
  }
}

// fn(model, data, RowState, out) for one state (1-D inputs) or every row (2-D inputs), writing the
// state's result of shape `shape` ({} for a number, {6}, {6, n}, ...) row-major at `out` without
// allocating, on inputs already checked (checked_states). Returns an array of `shape`, or
// (rows, *shape) for a batch.
template <std::size_t K, class Fn>
py::array per_checked_state(PyModel& self, const CheckedStates<K>& states, int threads,
                            const StateShape& shape, Fn fn, const py::object& given = py::none()) {
  long state_size = 0;
  py::array_t<double> result = results_into<K>(given, states, shape, state_size);
  double* out = result.mutable_data();
  auto row = [&](ModelData& data, long i) {
    naming_the_row(states.batch, i,
                   [&] { fn(self.model, data, states.row(i), out + i * state_size); });
  };
  {
    const py::gil_scoped_release release;
    for_each_state(self.workspaces, states.rows, states.batch ? threads : 1, row);
  }
  return result;  // with the GIL held
}

// per_checked_state on the inputs checked first.
template <std::size_t K, class Fn>
py::array per_state(PyModel& self, const std::array<Input, K>& inputs,
                    const ThreadsArgument& threads_argument, const StateShape& shape, Fn fn) {
  const int threads = threads_of(threads_argument);
  return per_checked_state<K>(self, checked_states<K>(self, inputs, threads), threads, shape, fn);
}

// per_state, but a 2-D call on a model the SIMD lanes take (model/batch.hpp: batch_lanes_simd)
// runs as one batch call: batch(model, workspaces, inputs as rows, result rows, threads) fills the
// result array in place, mapped as rows x (entries per state). A 1-D call, a model the lanes do not
// take, or a batch that fails runs per_state's row by row.
template <std::size_t K, class Fn, class Batch>
py::array per_state_in_lanes(PyModel& self, const std::array<Input, K>& inputs,
                             const ThreadsArgument& threads_argument, const StateShape& shape,
                             Fn fn, Batch batch, const py::object& given = py::none()) {
  const int threads = threads_of(threads_argument);
  const CheckedStates<K> states = checked_states<K>(self, inputs, threads);
  if (!states.batch || batch_lanes_simd(self.model, Simd::kAuto) == Simd::kScalar)
    return per_checked_state<K>(self, states, threads, shape, fn, given);
  long state_size = 0;
  py::array_t<double> result = results_into<K>(given, states, shape, state_size);
  std::array<Eigen::Map<const StateRows>, K> rows = [&]<std::size_t... I>(
      std::index_sequence<I...>) {
    return std::array<Eigen::Map<const StateRows>, K>{
        Eigen::Map<const StateRows>(states.pointers[I], states.rows, states.size)...};
  }
  (std::make_index_sequence<K>{});
  // The batch writes the result array in place.
  Eigen::Map<StateRows> out(result.mutable_data(), states.rows, state_size);
  try {
    const py::gil_scoped_release release;
    batch(self.model, self.workspaces, rows, Eigen::Ref<StateRows>(out), threads);
  } catch (const Error&) {
    // A row's error (a singular mass matrix): the batch again row by row, so that the error names
    // the row as every call does ("row 3 (index 2): ...").
    return per_checked_state<K>(self, states, threads, shape, fn, given);
  }
  return result;
}

// per_state for results whose shape the first state decides (a closed chain's independent
// coordinates): first(model, data, RowState) computes the first state's Result, shape(Result)
// gives the shape (of a default Result for an empty batch), write(Result, first Result, out)
// stores a state's result (and may refuse one that does not match the first's); every state is
// computed once.
template <std::size_t K, class First, class Shape, class Write>
py::array per_state_shaped_by_first(PyModel& self, const std::array<Input, K>& inputs,
                                    const ThreadsArgument& threads_argument, First first,
                                    Shape shape_of, Write write) {
  const int threads = threads_of(threads_argument);
  const CheckedStates<K> states = checked_states<K>(self, inputs, threads);
  using Result =
      std::decay_t<decltype(first(self.model, std::declval<ModelData&>(), states.row(0)))>;
  long state_size = 0;
  if (states.rows == 0)  // an empty batch: the shape of a default Result (no state decides it)
    return state_results(true, 0, shape_of(Result{}), state_size);
  Result head;
  {
    WorkspacePool::Lease lease = self.workspaces.lease();
    const py::gil_scoped_release release;
    naming_the_row(states.batch, 0, [&] { head = first(self.model, lease.data(), states.row(0)); });
  }
  py::array_t<double> result = state_results(states.batch, states.rows, shape_of(head), state_size);
  double* out = result.mutable_data();
  {
    const py::gil_scoped_release release;
    write(head, head, out);
    auto row = [&](ModelData& data, long i) {
      naming_the_row(states.batch, i + 1, [&] {
        write(first(self.model, data, states.row(i + 1)), head, out + (i + 1) * state_size);
      });
    };
    for_each_state(self.workspaces, states.rows - 1, states.batch ? threads : 1, row);
  }
  return result;  // with the GIL held
}

// `value` (a matrix or vector) row-major at `out`.
template <class Value>
void write_row_major(const Value& value, double* out) {
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      out, value.rows(), value.cols()) = value;
}

// per_state for a value-returning fn(model, data, RowState): its matrix (or vector, or number)
// row-major into the result.
template <std::size_t K, class Fn>
py::array per_state_value(PyModel& self, const std::array<Input, K>& inputs,
                          const ThreadsArgument& threads, const StateShape& shape, Fn fn) {
  return per_state<K>(self, inputs, threads, shape,
                      [&](const Model& model, ModelData& data, const RowState<K>& s, double* out) {
                        const auto value = fn(model, data, s);
                        if constexpr (std::is_arithmetic_v<std::decay_t<decltype(value)>>)
                          *out = value;
                        else
                          write_row_major(value, out);
                      });
}

}  // namespace skograph::python

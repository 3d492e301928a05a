// How the Python module's calls run: arguments converted with the GIL held (arguments.hpp), the
// computation on a leased workspace with the GIL released (plain Python threads run at once), the
// results made into Python objects with the GIL held again.
//
//   compute(self, [&](ModelData& data) { return forward_dynamics(...); })   one state
//   per_state(self, {{"q", q}, {"qd", qd}}, threads, {6}, fn)              1-D: one state;
//                                                                           2-D: one per row
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "py_model.hpp"

namespace skograph::python {

// fn(data) on a workspace of the model's pool, without the GIL; fn returns C++ values.
template <class Fn>
auto compute(PyModel& self, Fn&& fn) -> decltype(fn(std::declval<ModelData&>())) {
  WorkspacePool::Lease lease = self.workspaces.lease();
  const py::gil_scoped_release release;
  return fn(lease.data());
}

// row(data, i) for i in [0, rows), split into `threads` contiguous chunks, each with its own
// workspace from the model's pool. The first error of any row is rethrown once every thread has
// stopped. Called without the GIL.
template <class Row>
void for_each_row(PyModel& self, long rows, int threads, Row row) {
  threads = static_cast<int>(std::clamp<long>(threads, 1, std::max(1L, rows)));
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto chunk = [&](long begin, long end) {
    try {
      WorkspacePool::Lease lease = self.workspaces.lease();
      for (long i = begin; i < end; ++i) row(lease.data(), i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  if (threads == 1) {
    chunk(0, rows);
  } else {
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back(chunk, rows * t / threads, rows * (t + 1) / threads);
    for (std::thread& worker : workers) worker.join();
  }
  if (failure) std::rethrow_exception(failure);
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

// fn(model, data, RowState, out) for one state (1-D inputs) or every row (2-D inputs), writing the
// state's result of shape `shape` ({} for a number, {6}, {6, n}, ...) row-major at `out` without
// allocating. Every input is checked first (real numbers, one entry per dof, the same rows as the
// first, every entry finite: a bad row fails the call, named, before anything is computed).
// Returns an array of `shape`, or (rows, *shape) for a batch.
template <std::size_t K, class Fn>
py::array per_state(PyModel& self, const std::array<Input, K>& inputs,
                    const ThreadsArgument& threads_argument, const std::vector<py::ssize_t>& shape,
                    Fn fn) {
  const int threads = threads_of(threads_argument);
  const long n = self.model.dof_count();
  std::array<Array, K> arrays;
  for (std::size_t k = 0; k < K; ++k) arrays[k] = real_array(inputs[k].value.value, inputs[k].name);
  const Array& first = arrays[0];
  if (first.ndim() != 1 && first.ndim() != 2)
    throw UsageError(std::string(inputs[0].name) +
                     " must be one state (1-D) or one state per row (2-D)");
  const bool batch = first.ndim() == 2;
  const long rows = batch ? static_cast<long>(first.shape(0)) : 1;
  std::array<const double*, K> pointers{};
  for (std::size_t k = 0; k < K; ++k) {
    const Array& array = arrays[k];
    const std::string name = inputs[k].name;
    if (array.ndim() != first.ndim() || (batch && array.shape(0) != rows))
      throw UsageError(name + " must have the shape of " + inputs[0].name);
    if (array.shape(array.ndim() - 1) != n)
      throw UsageError(name + " has " + std::to_string(array.shape(array.ndim() - 1)) +
                       " entries per state, the model " + std::to_string(n) + " dofs");
    check_finite(array, name, self.model);
    pointers[k] = array.data();
  }
  std::vector<py::ssize_t> result_shape;
  if (batch) result_shape.push_back(rows);
  long state_size = 1;
  for (const py::ssize_t extent : shape) {
    result_shape.push_back(extent);
    state_size *= static_cast<long>(extent);
  }
  py::array_t<double> result(result_shape);
  double* out = result.mutable_data();
  auto row = [&](ModelData& data, long i) {
    RowState<K> state;
    for (std::size_t k = 0; k < K; ++k) state.rows[k] = pointers[k] + i * n;
    state.size = n;
    if (!batch) return fn(self.model, data, state, out);
    try {
      fn(self.model, data, state, out + i * state_size);
    } catch (const std::exception& e) {  // the row named: "row 3 (index 2): ..."
      throw Error("row " + std::to_string(i + 1) + " (index " + std::to_string(i) +
                  "): " + e.what());
    }
  };
  const py::gil_scoped_release release;
  for_each_row(self, rows, batch ? threads : 1, row);
  return result;
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
                          const ThreadsArgument& threads, const std::vector<py::ssize_t>& shape,
                          Fn fn) {
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

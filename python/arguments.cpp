#include "arguments.hpp"

#include <cmath>
#include <string>

#include "skograph/graph/error.hpp"
#include "skograph/model/batch.hpp"

namespace skograph::python {

namespace {

// The Python type's name of `value`, for messages ("int", "dict").
std::string type_name(const py::object& value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

// What a NumPy dtype kind holds, where it is not real numbers.
const char* unreal_contents(char kind) {
  switch (kind) {
    case 'c':
      return "complex numbers";
    case 'b':
      return "booleans";
    case 'U':
    case 'S':
      return "text";
    case 'O':
      return "Python objects";
    default:
      return "values that are not numbers";
  }
}

// Where a list (or tuple) of rows is ragged: ", row 3 (index 2), has 6 entries where row 1 has 7"
// for the first row whose length differs from the first row's; empty when the rows are equally
// long, when `value` is not a list or tuple, or when its first item is not a row.
std::string ragged_row(const py::object& value) {
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) return "";
  const auto rows = py::reinterpret_borrow<py::sequence>(value);
  const auto length = [](const py::handle& row) -> Py_ssize_t {  // -1: not a row of entries
    if (py::isinstance<py::str>(row) || py::isinstance<py::bytes>(row) ||
        PySequence_Check(row.ptr()) == 0)
      return -1;
    const Py_ssize_t size = PySequence_Size(row.ptr());
    if (size >= 0) return size;
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw py::error_already_set();  // an interrupt
    PyErr_Clear();  // a sequence without a length
    return Py_ssize_t{-1};
  };
  if (rows.size() == 0) return "";
  const Py_ssize_t first = length(rows[0]);
  if (first < 0) return "";  // not rows: one state with an entry that is not a number
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const Py_ssize_t size = length(rows[i]);
    if (size == first) continue;
    return ", row " + std::to_string(i + 1) + " (index " + std::to_string(i) + "), has " +
           (size < 0    ? std::string("no entries (it is not a row)")
            : size == 1 ? std::string("1 entry")
                        : std::to_string(size) + " entries") +
           " where row 1 has " + std::to_string(first);
  }
  return "";
}

}  // namespace

// A NumPy array of float64 in the machine's byte order, C-contiguous: what the calls read in
// place. Read from the array's own header (pybind11's views of NumPy's structs), which answers as
// isinstance<Array> does for these arrays without asking NumPy for a float64 descriptor and
// comparing the two (a tenth of a small model's single call from Python, over three inputs).
bool is_native_float64_c_array(PyObject* value) {
  const py::detail::npy_api& api = py::detail::npy_api::get();
  if (!api.PyArray_Check_(value)) return false;
  const py::detail::PyArray_Proxy* array = py::detail::array_proxy(value);
  const py::detail::PyArrayDescr_Proxy* descr = py::detail::array_descriptor_proxy(array->descr);
  return descr->type_num == py::detail::npy_api::NPY_DOUBLE_ && descr->byteorder == '=' &&
         (array->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) != 0;
}

Array real_array(const py::object& value, std::string_view name_view) {
  // Already what the calls read (a float64 C-contiguous NumPy array): taken as it is, without the
  // conversions below, which cost more than a small model's dynamics.
  if (is_native_float64_c_array(value.ptr()) || py::isinstance<Array>(value))
    return py::reinterpret_borrow<Array>(value);
  const std::string name(name_view);
  if (value.is_none()) throw UsageError(name + " is None: it must be an array of real numbers");
  py::array array;
  try {
    array = py::module_::import("numpy").attr("asarray")(value);
  } catch (const py::error_already_set&) {  // a ragged list, a generator NumPy refuses
    if (const std::string row = ragged_row(value); !row.empty())
      throw UsageError(name + row + ": rows must be equally long");
    throw UsageError(name + " must be an array of real numbers (NumPy cannot make one of a " +
                     type_name(value) + " like this)");
  }
  const char kind = array.dtype().kind();
  if (kind == 'O')  // an older NumPy makes ragged rows an array of objects
    if (const std::string row = ragged_row(value); !row.empty())
      throw UsageError(name + row + ": rows must be equally long");
  if (kind != 'f' && kind != 'i' && kind != 'u')
    throw UsageError(name + " must be an array of real numbers (it holds " + unreal_contents(kind) +
                     ")");
  return Array::ensure(array);
}

void check_finite(const Array& array, std::string_view name, const Model& model, int threads) {
  const double* data = array.data();
  const py::ssize_t size = array.size();
  py::ssize_t from = 0;  // where the loop below looks for the bad entry to name
  if (array.ndim() == 2) {
    const long rows = array.shape(0), columns = array.shape(1);
    const long bad_row = first_non_finite_row(data, rows, columns, columns, threads);
    if (bad_row == rows) return;
    from = bad_row * columns;
  } else if (all_finite(data, size)) {
    return;  // the common case
  }
  for (py::ssize_t i = from; i < size; ++i) {
    if (std::isfinite(data[i])) continue;
    const py::ssize_t columns = array.ndim() >= 1 ? array.shape(array.ndim() - 1) : 1;
    const py::ssize_t row = columns > 0 ? i / columns : 0, column = columns > 0 ? i % columns : 0;
    std::string where(name);
    if (array.ndim() == 2)
      where += ", row " + std::to_string(row + 1) + " (index " + std::to_string(row) + "),";
    const std::string entry =
        array.ndim() >= 1 && columns == model.dof_count()
            ? " at dof '" + model.dof_names()[static_cast<std::size_t>(column)] + "'"
            : (array.ndim() >= 1 ? " at entry " + std::to_string(column + 1) : std::string());
    throw UsageError(where + " is not a finite number" + entry + " (" + non_finite_word(data[i]) +
                     ")");
  }
}

Eigen::VectorXd state_vector(const py::object& value, const std::string& name, const Model& model) {
  const Array array = real_array(value, name);
  if (array.ndim() != 1)
    throw UsageError(name + " must be one state (1-D), not an array of " +
                     std::to_string(array.ndim()) + " dimensions");
  if (array.shape(0) != model.dof_count())
    throw UsageError(name + " has " + std::to_string(array.shape(0)) + " entries, the model " +
                     std::to_string(model.dof_count()) + " dofs");
  check_finite(array, name, model);
  return Eigen::Map<const Eigen::VectorXd>(array.data(), array.shape(0));
}

Eigen::VectorXd state_or_zero(const py::object& value, const std::string& name,
                              const Model& model) {
  return value.is_none() ? Eigen::VectorXd::Zero(model.dof_count())
                         : state_vector(value, name, model);
}

Eigen::VectorXd fixed_vector(const py::object& value, const std::string& name, Eigen::Index size) {
  const Array array = real_array(value, name);
  if (array.ndim() != 1 || array.shape(0) != size)
    throw UsageError(name + " must have " + std::to_string(size) + " entries, not " +
                     (array.ndim() == 1
                          ? std::to_string(array.shape(0))
                          : "an array of " + std::to_string(array.ndim()) + " dimensions"));
  const Eigen::Map<const Eigen::VectorXd> vector(array.data(), size);
  for (Eigen::Index i = 0; i < size; ++i)
    if (!std::isfinite(vector[i]))
      throw UsageError(name + " is not a finite number at entry " + std::to_string(i + 1));
  return vector;
}

Eigen::MatrixXd fixed_matrix(const py::object& value, const std::string& name, Eigen::Index rows,
                             Eigen::Index columns) {
  const Array array = real_array(value, name);
  if (array.ndim() != 2 || array.shape(0) != rows || array.shape(1) != columns)
    throw UsageError(name + " must be a " + std::to_string(rows) + " x " + std::to_string(columns) +
                     " matrix");
  Eigen::MatrixXd matrix =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          array.data(), rows, columns);
  if (!matrix.allFinite()) throw UsageError(name + " has an entry that is not a finite number");
  return matrix;
}

std::string path_of(const py::object& value, const std::string& name) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::hasattr(value, "__fspath__")) {
    const py::object path = py::module_::import("os").attr("fsdecode")(value);
    if (py::isinstance<py::str>(path)) return path.cast<std::string>();
  }
  throw UsageError(name + " must be a path (str or os.PathLike), not " + type_name(value));
}

std::string optional_path(const py::object& value, const std::string& name) {
  return value.is_none() ? std::string() : path_of(value, name);
}

std::vector<std::string> names_of(const py::object& value, const std::string& name) {
  if (py::isinstance<py::str>(value))
    throw UsageError(name + " must be a list of names, not the string '" +
                     value.cast<std::string>() + "' (['" + value.cast<std::string>() + "'])");
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value))
    throw UsageError(name + " must be a list of names, not " + type_name(value));
  std::vector<std::string> names;
  for (const py::handle item : value) {
    if (!py::isinstance<py::str>(item))
      throw UsageError(name + " must be a list of names: an entry is " +
                       type_name(py::reinterpret_borrow<py::object>(item)));
    names.push_back(item.cast<std::string>());
  }
  return names;
}

std::optional<std::vector<std::string>> optional_names(const py::object& value,
                                                       const std::string& name) {
  if (value.is_none()) return std::nullopt;
  return names_of(value, name);
}

Eigen::Vector3d gravity_of(const py::object& value) {
  if (value.is_none()) return kStandardGravity;
  return fixed_vector(value, "gravity", 3);
}

int threads_of(const ThreadsArgument& threads) {
  if (threads.is_none()) return 1;
  const py::object& value = threads.value;
  if (py::isinstance<py::bool_>(value) || !py::isinstance<py::int_>(value))
    throw UsageError("threads must be None or an integer of at least 1, not " + type_name(value));
  const long long count = value.cast<long long>();
  if (count < 1)
    throw UsageError("threads must be None or an integer of at least 1, not " +
                     std::to_string(count));
  return static_cast<int>(std::min<long long>(count, 1 << 16));
}

FrameAxes axes_of(const std::string& frame) {
  if (frame == "world") return FrameAxes::kWorld;
  if (frame == "local") return FrameAxes::kLocal;
  throw UsageError("frame='" + frame + "': the axes are 'world' or 'local'");
}

}  // namespace skograph::python

// The Python module's arguments, checked as strictly as the command line checks its own: every
// problem one line of skograph.Error naming the argument (and a batch's row), never pybind11's
// multi-line TypeError. Arguments arrive as they are (Loose<...> accepts any object; its name is
// what the stubs show) and are converted here:
//   real_array(value, "q")    NumPy array of float64 from any array-like of real numbers (not
//                             complex, booleans, strings or objects);
//   state_vector(...)         one state (1-D, dofs long, finite);
//   path_of(value, "path")    str or os.PathLike;
//   names_of(value, "frames") a list (or tuple) of str, a single str refused;
//   gravity_of, threads_of, axes_of.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skograph/model/dynamics.hpp"
#include "skograph/rigid/kinematics.hpp"

// The docstrings' sentences on arguments that several calls share, each appended only where the
// call has the arguments it names.
#define SKOGRAPH_DOC_STATES                                                                   \
  " The state arrays (q, qd, ...) are (dofs,) for one state or (rows, dofs) for a batch, in " \
  "the file's dof order; threads: None (one thread) or the number of worker threads for a "   \
  "batch."
#define SKOGRAPH_DOC_GRAVITY " gravity: (3,) in m/s^2, default (0, 0, -9.81)."
#define SKOGRAPH_DOC_OUT                                                                \
  " out: None (a new array) or an array of the result's shape (float64, C-contiguous, " \
  "writeable, sharing no memory with the inputs) to write the result into and return."
#define SKOGRAPH_DOC_NAME " name: a frame (Model.frames, or a joint's name for its child link)."
#define SKOGRAPH_DOC_FRAME \
  SKOGRAPH_DOC_NAME " frame: 'world' axes (about the frame's origin) or the frame's 'local' ones."

namespace skograph::python {

namespace py = pybind11;

// An argument taken as any object, converted and checked in the call (type_caster below); `Tag`
// names it in signatures and stubs.
template <class Tag>
struct Loose {
  py::object value;
  bool is_none() const { return value.is_none(); }
};
struct ArrayLikeTag {
  static constexpr auto name = py::detail::const_name("numpy.typing.ArrayLike");
};
struct OptionalArrayLikeTag {
  static constexpr auto name = py::detail::const_name("Optional[numpy.typing.ArrayLike]");
};
struct PathTag {
  static constexpr auto name = py::detail::const_name("Union[str, os.PathLike[str]]");
};
struct OptionalPathTag {
  static constexpr auto name = py::detail::const_name("Union[str, os.PathLike[str], None]");
};
struct NamesTag {
  static constexpr auto name = py::detail::const_name("Optional[list[str]]");
};
struct ThreadsTag {
  static constexpr auto name = py::detail::const_name("Optional[int]");
};
struct OutTag {
  static constexpr auto name = py::detail::const_name("Optional[numpy.ndarray]");
};
using ArrayArgument = Loose<ArrayLikeTag>;
using OptionalArrayArgument = Loose<OptionalArrayLikeTag>;
using PathArgument = Loose<PathTag>;
using OptionalPathArgument = Loose<OptionalPathTag>;
using NamesArgument = Loose<NamesTag>;
using ThreadsArgument = Loose<ThreadsTag>;
using OutArgument = Loose<OutTag>;

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// `value` is a NumPy array of float64 in the machine's byte order, C-contiguous (read from its
// header).
bool is_native_float64_c_array(PyObject* value);
// A float64 C-contiguous array of `value`: UsageError "q must be an array of real numbers (it
// holds complex numbers)" for complex, boolean, string, byte or object contents.
Array real_array(const py::object& value, std::string_view name);
// Every entry finite: UsageError "q is not a finite number at dof 'joint7' (nan)", naming the
// batch row as "row 3 (index 2)" for a 2-D array. The entry's column names the dof when the array
// has one entry per dof of `model`. A 2-D array's rows are checked on `threads` threads (as a
// batch splits them).
void check_finite(const Array& array, std::string_view name, const Model& model, int threads = 1);
// One state: 1-D, one entry per dof, finite.
Eigen::VectorXd state_vector(const py::object& value, const std::string& name, const Model& model);
// A vector of a fixed size (gravity (3), ...), finite.
Eigen::VectorXd fixed_vector(const py::object& value, const std::string& name, Eigen::Index size);
// A finite matrix of a fixed shape (a 4 x 4 pose).
Eigen::MatrixXd fixed_matrix(const py::object& value, const std::string& name, Eigen::Index rows,
                             Eigen::Index columns);
// The state vector, or zeros when None.
Eigen::VectorXd state_or_zero(const py::object& value, const std::string& name, const Model& model);

// A file path: str or os.PathLike (os.fspath); UsageError otherwise.
std::string path_of(const py::object& value, const std::string& name);
std::string optional_path(const py::object& value, const std::string& name);  // None: ""
// Names: a list or tuple of str; UsageError for a single str ("independent must be a list of
// names, not the string 'crank' (['crank'])") or anything else.
std::vector<std::string> names_of(const py::object& value, const std::string& name);
std::optional<std::vector<std::string>> optional_names(const py::object& value,
                                                       const std::string& name);
// Gravity (3) in m/s^2, default (0, 0, -9.81).
Eigen::Vector3d gravity_of(const py::object& value);
// threads: None (one thread) or an integer >= 1.
int threads_of(const ThreadsArgument& threads);
// "world" or "local" (rigid/kinematics.hpp).
FrameAxes axes_of(const std::string& frame);

}  // namespace skograph::python

namespace pybind11::detail {

// Loose<Tag>: any object, kept as it is for the call to check.
template <class Tag>
struct type_caster<skograph::python::Loose<Tag>> {
  PYBIND11_TYPE_CASTER(skograph::python::Loose<Tag>, Tag::name);
  bool load(handle source, bool) {
    value.value = reinterpret_borrow<object>(source);
    return true;
  }
  static handle cast(const skograph::python::Loose<Tag>& loose, return_value_policy, handle) {
    return loose.value.inc_ref();
  }
};

}  // namespace pybind11::detail

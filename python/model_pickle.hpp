// Pickles of models that need no file: a model travels as the mechanism it was built
// from, field by field in Python's own types (exact doubles), with how it was read, and is rebuilt
// by the library's build_model (and with_base) on the other side: another working directory or
// another machine without the model's files (its URDF, loop file, MJCF includes) unpickles it.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "py_model.hpp"

namespace skograph::python {

// ("skograph-model", 1, file, strict, independent, loops file, base, mechanism).
pybind11::tuple pickle_model(const PyModel& model);
// The model of pickle_model's tuple; a tuple of paths (file, strict, independent, loops[, base]),
// as pickles made before this format held, loads the files again.
std::shared_ptr<PyModel> unpickle_model(const pybind11::tuple& state);

}  // namespace skograph::python

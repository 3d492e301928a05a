// The Python module's Model (skograph_module.cpp) and the bindings kept in files of their own.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <utility>

#include "skograph/io/model.hpp"

namespace skograph::python {

// A loaded model with the workspace of its one-state calls (those hold the GIL, which serializes
// them); batches make a workspace per thread.
struct PyModel {
  Model model;
  ReadOptions options;  // how it was read (pickled with the mechanism: python/model_pickle.hpp)
  std::unique_ptr<ModelData> data;
  PyModel(Model loaded, ReadOptions read)
      : model(std::move(loaded)),
        options(std::move(read)),
        data(std::make_unique<ModelData>(model)) {}
};

using ModelClass = pybind11::class_<PyModel, std::shared_ptr<PyModel>>;

// Part II's operators at one configuration (operators_bindings.cpp; io/model_operators.hpp).
void bind_operators(ModelClass& model_class);

}  // namespace skograph::python

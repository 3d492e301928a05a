// The Python module's Model (skograph_module.cpp) and the bindings kept in files of their own.
#pragma once

#include <pybind11/pybind11.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "skograph/io/model.hpp"

namespace skograph::python {

// A loaded model with the workspace of its one-state calls (those hold the GIL, which serializes
// them); batches make a workspace per thread.
struct PyModel {
  Model model;
  ReadOptions options;  // how it was read (pickled with the path)
  // The model file and the loop file as absolute paths when loaded: a pickle unpickles in a
  // worker whose working directory differs (Dask, Ray, multiprocessing).
  std::string absolute_file, absolute_loops;
  std::unique_ptr<ModelData> data;
  PyModel(Model loaded, ReadOptions read)
      : model(std::move(loaded)),
        options(std::move(read)),
        absolute_file(std::filesystem::absolute(model.file()).string()),
        absolute_loops(options.loops_file.empty()
                           ? std::string()
                           : std::filesystem::absolute(options.loops_file).string()),
        data(std::make_unique<ModelData>(model)) {}
};

using ModelClass = pybind11::class_<PyModel, std::shared_ptr<PyModel>>;

// Part II's operators at one configuration (operators_bindings.cpp; io/model_operators.hpp).
void bind_operators(ModelClass& model_class);

}  // namespace skograph::python

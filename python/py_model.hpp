// The Python module's Model: a loaded model, how it was read, and the workspaces of its calls.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <utility>

#include "skograph/model/dynamics.hpp"
#include "skograph/model/workspace_pool.hpp"

namespace skograph::python {

struct PyModel {
  Model model;
  ReadOptions options;  // how it was read (pickled with the mechanism: python/model_pickle.hpp)
  WorkspacePool workspaces;
  PyModel(Model loaded, ReadOptions read)
      : model(std::move(loaded)), options(std::move(read)), workspaces(model) {}
  PyModel(const PyModel&) = delete;
  PyModel& operator=(const PyModel&) = delete;
};

using ModelClass = pybind11::class_<PyModel, std::shared_ptr<PyModel>>;

// The families of bindings, one file each, gathered by module.cpp.
void bind_model(pybind11::module_& module, ModelClass& model_class);  // loading and the model
void bind_dynamics(ModelClass& model_class);                          // dynamics
void bind_derivatives(ModelClass& model_class);                       // derivatives
void bind_kinematics(ModelClass& model_class);                        // kinematics
void bind_closed_chains(ModelClass& model_class);                     // closed chains
void bind_operators(ModelClass& model_class);                         // part II's operators
void bind_sparse(ModelClass& model_class);                            // sparse matrices
void bind_pictures(pybind11::module_& module);                        // reports and pictures
void bind_view(ModelClass& model_class);                              // the 3D view

}  // namespace skograph::python

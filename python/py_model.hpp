// The Python module's Model: a loaded model, how it was read, and the workspaces of its calls.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "skograph/model/dynamics.hpp"

namespace skograph::python {

// Workspaces (ModelData) for the calls on one model, one per call in flight: the calls release
// the GIL while they compute, so plain Python threads run them at once. A call leases one and
// gives it back; since every call is a function of its arguments (model/model.hpp), which workspace
// a call gets changes nothing in its result.
class WorkspacePool {
 public:
  explicit WorkspacePool(const Model& model) : model_(&model) {}
  class Lease {
   public:
    Lease(WorkspacePool& pool, std::unique_ptr<ModelData> data)
        : pool_(&pool), data_(std::move(data)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_->give_back(std::move(data_)); }
    ModelData& data() { return *data_; }

   private:
    WorkspacePool* pool_;
    std::unique_ptr<ModelData> data_;
  };
  Lease lease() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<ModelData> data = std::move(free_.back());
        free_.pop_back();
        return Lease(*this, std::move(data));
      }
    }
    return Lease(*this, std::make_unique<ModelData>(*model_));
  }

 private:
  void give_back(std::unique_ptr<ModelData> data) {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(data));
  }
  const Model* model_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<ModelData>> free_;
};

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

}  // namespace skograph::python

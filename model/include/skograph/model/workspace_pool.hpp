// Workspaces (ModelData) for the calls on one model, one per call in flight: batches lease one per
// thread (model/batch.hpp), the Python module one per call, which it makes with the GIL released
// so that plain Python threads run at once. A call leases one and gives it back; since every call
// is a function of its arguments (model/model.hpp), which workspace a call gets changes nothing in
// its result.
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "skograph/model/model_data.hpp"

namespace skograph {

class WorkspacePool {
 public:
  explicit WorkspacePool(const Model& model) : model_(&model) {}
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;
  const Model& model() const { return *model_; }
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

}  // namespace skograph

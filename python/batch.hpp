// Rows of a 2-D batch (one state per row) computed in C++ without the GIL, on `threads` threads
// (each with its own ModelData workspace: Model is immutable and shared). The first error of any
// row is rethrown once every thread has stopped.
#pragma once

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "skograph/io/model.hpp"

namespace skograph::python {

// row(data, i) for i in [0, rows), split into `threads` contiguous chunks.
template <class Row>
void for_each_row(const Model& model, long rows, int threads, Row row) {
  threads = static_cast<int>(std::clamp<long>(threads, 1, std::max(1L, rows)));
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto chunk = [&](long begin, long end) {
    try {
      ModelData data(model);
      for (long i = begin; i < end; ++i) row(data, i);
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

}  // namespace skograph::python

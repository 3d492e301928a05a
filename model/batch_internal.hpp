// What the batches of model/batch.cpp and model/batch_derivatives.cpp share (not installed):
// the input and output checks, rows run on the pool with their errors named, and SIMD lane blocks.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <exception>
#include <string>

#include "skograph/graph/error.hpp"
#include "skograph/model/batch.hpp"
#include "skograph/model/model_data.hpp"

namespace skograph::model_detail {

// The checks of batch.hpp on one input: its shape, then (unless the options say the caller has)
// every entry finite, on the batch's threads.
void check_rows(const Model& model, const Eigen::Ref<const StateRows>& rows, long expected_rows,
                const char* name, const BatchOptions& options);

// The given output storage: `rows` x `columns`, else UsageError.
void check_output(const Eigen::Ref<StateRows>& out, long rows, long columns, const char* name);

// Row i of rows as a vector (a row of a row-major matrix is contiguous).
inline Eigen::Map<const Eigen::VectorXd> row_vector(const Eigen::Ref<const StateRows>& rows,
                                                    long i) {
  return {rows.row(i).data(), rows.cols()};
}
inline Eigen::Map<Eigen::VectorXd> row_vector(Eigen::Ref<StateRows>& rows, long i) {
  return {rows.row(i).data(), rows.cols()};
}

// row(data, i) over every row, an error named with its row (1-based).
template <class Row>
void run_rows(WorkspacePool& workspaces, long rows, int threads, Row row) {
  for_each_state(workspaces, rows, threads, [&](ModelData& data, long i) {
    try {
      row(data, i);
    } catch (const std::exception& e) {
      throw Error("row " + std::to_string(i + 1) + ": " + e.what());
    }
  });
}

// The rows in blocks of `simd`'s width on the pool (batch.hpp): per block, each lane's
// configuration set from its row (the last block filled up with copies of the last row, so that
// a row's bits do not depend on its place) and fill(work, row, lane) called; then
// compute(lanes) and scatter(data, lanes, first, count) of the block's rows first .. first +
// count - 1, held by lanes 0 .. count - 1.
template <class Fill, class Compute, class Scatter>
void run_lane_blocks(const Model& model, WorkspacePool& workspaces,
                     const Eigen::Ref<const StateRows>& q, int threads, Simd simd, Fill fill,
                     Compute compute, Scatter scatter) {
  const long rows = q.rows(), width = simd_width(simd);
  const DofOrder& order = model.dof_order();
  for_each_state(workspaces, (rows + width - 1) / width, threads, [&](ModelData& data, long block) {
    ModelData::Lanes& lanes = data.lanes(model, simd);
    const long first = block * width;
    for (int lane = 0; lane < width; ++lane) {
      const long row = std::min(first + lane, rows - 1);
      const double* q_row = q.row(row).data();
      if (!order.identity()) {
        data.state.q.resize(model.dof_count());
        order.to_model(row_vector(q, row), data.state.q);
        q_row = data.state.q.data();
      }
      set_lane_configuration(model.tree(), q_row, lane, lanes.work);
      fill(lanes.work, row, lane);
    }
    compute(lanes);
    scatter(data, lanes, first, static_cast<int>(std::min(width, rows - first)));
  });
}

// fn(row, lane) for each of a block's `count` rows from `first`, an error named with its row.
template <class Fn>
void each_lane(long first, int count, Fn fn) {
  for (int lane = 0; lane < count; ++lane) try {
      fn(first + lane, lane);
    } catch (const std::exception& e) {
      throw Error("row " + std::to_string(first + lane + 1) + ": " + e.what());
    }
}

// The most states a block holds (AVX-512's doubles).
constexpr std::size_t kMaxLanes = 8;

// Entry (i, lane) of a lane array.
inline std::size_t lane_entry(long i, int lane, int width) {
  return static_cast<std::size_t>(i * width + lane);
}

}  // namespace skograph::model_detail

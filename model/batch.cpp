// Batches of states on the process-wide pool (model/batch.hpp).
#include "skograph/model/batch.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "skograph/model/dynamics.hpp"
#include "thread_pool.hpp"

namespace skograph {

void for_each_state(WorkspacePool& workspaces, long rows, int threads,
                    const std::function<void(ModelData& data, long row)>& row) {
  if (rows <= 0) return;
  const int parts = static_cast<int>(std::clamp<long>(threads, 1, rows));
  if (parts == 1) {  // on the calling thread, its first error the lowest row's
    WorkspacePool::Lease lease = workspaces.lease();
    for (long i = 0; i < rows; ++i) row(lease.data(), i);
    return;
  }
  // Per part the row it failed at (rows when it did not) and its error.
  std::vector<long> failed_row(static_cast<std::size_t>(parts), rows);
  std::vector<std::exception_ptr> failure(static_cast<std::size_t>(parts));
  model_detail::run_parts(parts, [&](int part) {
    const auto at = static_cast<std::size_t>(part);
    const long begin = rows * part / parts, end = rows * (part + 1) / parts;
    long i = begin;
    try {
      WorkspacePool::Lease lease = workspaces.lease();
      for (; i < end; ++i) row(lease.data(), i);
    } catch (...) {
      failed_row[at] = i;
      failure[at] = std::current_exception();
    }
  });
  const auto first = std::ranges::min_element(failed_row);
  if (*first < rows)
    std::rethrow_exception(failure[static_cast<std::size_t>(first - failed_row.begin())]);
}

namespace {

// The checks of batch.hpp on one input: its shape, then every entry finite.
void check_rows(const Model& model, const Eigen::Ref<const StateRows>& rows, long expected_rows,
                const char* name) {
  const long dofs = model.dof_count();
  if (rows.cols() != dofs)
    throw UsageError(std::string(name) + " has " + std::to_string(rows.cols()) +
                     " entries per state, the model " + std::to_string(dofs) + " dofs");
  if (rows.rows() != expected_rows)
    throw UsageError(std::string(name) + " has " + std::to_string(rows.rows()) + " rows, q " +
                     std::to_string(expected_rows));
  for (long i = 0; i < rows.rows(); ++i)
    for (long j = 0; j < dofs; ++j) {
      const double value = rows(i, j);
      if (std::isfinite(value)) continue;
      const std::string what = std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
      throw UsageError(std::string(name) + ", row " + std::to_string(i + 1) +
                       ", is not a finite number at dof '" +
                       model.dof_names()[static_cast<std::size_t>(j)] + "' (" + what + ")");
    }
}

// Row i of rows as a vector (a row of a row-major matrix is contiguous).
Eigen::Map<const Eigen::VectorXd> row_vector(const Eigen::Ref<const StateRows>& rows, long i) {
  return {rows.row(i).data(), rows.cols()};
}
Eigen::Map<Eigen::VectorXd> row_vector(StateRows& rows, long i) {
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

}  // namespace

namespace {

// A call of three state inputs per row (q, qd and a third named `third`) into `out`, checked
// first (batch.hpp).
template <class Call>
void three_input_batch(const Model& model, WorkspacePool& workspaces,
                       const Eigen::Ref<const StateRows>& q, const Eigen::Ref<const StateRows>& qd,
                       const Eigen::Ref<const StateRows>& third, const char* third_name,
                       StateRows& out, int threads, Call call) {
  const long rows = q.rows();
  check_rows(model, q, rows, "q");
  check_rows(model, qd, rows, "qd");
  check_rows(model, third, rows, third_name);
  out.resize(rows, model.dof_count());
  run_rows(workspaces, rows, threads, [&](ModelData& data, long i) {
    call(data, row_vector(q, i), row_vector(qd, i), row_vector(third, i), row_vector(out, i));
  });
}

}  // namespace

void forward_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& tau, StateRows& qdd,
                            const BatchOptions& options) {
  three_input_batch(
      model, workspaces, q, qd, tau, "tau", qdd, options.threads,
      [&](ModelData& data, const auto& q_i, const auto& qd_i, const auto& tau_i, auto qdd_i) {
        forward_dynamics(model, data, q_i, qd_i, tau_i, options.gravity, qdd_i);
      });
}

void inverse_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& qdd, StateRows& tau,
                            const BatchOptions& options) {
  three_input_batch(
      model, workspaces, q, qd, qdd, "qdd", tau, options.threads,
      [&](ModelData& data, const auto& q_i, const auto& qd_i, const auto& qdd_i, auto tau_i) {
        inverse_dynamics(model, data, q_i, qd_i, qdd_i, options.gravity, tau_i);
      });
}

void mass_matrix_batch(const Model& model, WorkspacePool& workspaces,
                       const Eigen::Ref<const StateRows>& q, StateRows& mass,
                       const BatchOptions& options) {
  const long rows = q.rows(), n = model.dof_count();
  check_rows(model, q, rows, "q");
  mass.resize(rows, n * n);
  run_rows(workspaces, rows, options.threads, [&](ModelData& data, long i) {
    // A row of n^2 entries: M column-major in place, then transposed to row-major (M may be
    // symmetric only to rounding).
    Eigen::Map<Eigen::MatrixXd> matrix(mass.row(i).data(), n, n);
    mass_matrix(model, data, row_vector(q, i), matrix);
    matrix.transposeInPlace();
  });
}

}  // namespace skograph

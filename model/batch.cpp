// Batches of states on the process-wide pool (model/batch.hpp).
#include "skograph/model/batch.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "batch_internal.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/model_data.hpp"
#include "thread_pool.hpp"

namespace skograph {

using model_detail::check_output;
using model_detail::check_rows;
using model_detail::each_lane;
using model_detail::kMaxLanes;
using model_detail::lane_entry;
using model_detail::row_vector;
using model_detail::run_lane_blocks;
using model_detail::run_rows;

// An exponent field of all ones (infinity, NaN) plus one carries into the sign bit.
bool all_finite(const double* x, long n) {
  std::uint64_t carries = 0;
  for (long i = 0; i < n; ++i)
    carries |= (std::bit_cast<std::uint64_t>(x[i]) & 0x7ff0000000000000) + 0x0010000000000000;
  return (carries >> 63) == 0;
}

const char* non_finite_word(double value) {
  return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
}

namespace {

// A batch's rows in contiguous parts, eight per thread (a worker that wakes late, as a virtual
// machine's idle processor does, or a slower part then holds nobody back): part p is rows
// begin(p) .. end(p) - 1.
struct RowParts {
  RowParts(long rows, int threads)
      : rows(rows), count(static_cast<int>(std::min<long>(8L * threads, rows))) {}
  long begin(int p) const { return rows * p / count; }
  long end(int p) const { return begin(p + 1); }
  long rows;
  int count;
};

}  // namespace

long first_non_finite_row(const double* data, long rows, long columns, long stride, int threads) {
  const auto first_in = [&](long begin, long end) {
    for (long i = begin; i < end; ++i)
      if (!all_finite(data + i * stride, columns)) return i;
    return rows;
  };
  // Below 2^16 entries (half a megabyte, some 20 us to check) a worker's wake-up costs more
  // than it saves.
  constexpr long kEntriesWorthAThread = 1L << 16;
  if (threads <= 1 || rows < 2 || rows * columns < kEntriesWorthAThread) return first_in(0, rows);
  const RowParts parts(rows, threads);
  std::vector<long> first(static_cast<std::size_t>(parts.count), rows);
  model_detail::run_parts(parts.count, threads, [&](int part) {
    first[static_cast<std::size_t>(part)] = first_in(parts.begin(part), parts.end(part));
  });
  return *std::ranges::min_element(first);
}

void for_each_state(WorkspacePool& workspaces, long rows, int threads,
                    const std::function<void(ModelData& data, long row)>& row) {
  if (rows <= 0) return;
  if (threads <= 1 || rows == 1) {  // on the calling thread, its first error the lowest row's
    WorkspacePool::Lease lease = workspaces.lease();
    for (long i = 0; i < rows; ++i) row(lease.data(), i);
    return;
  }
  // Each part claimed by whichever thread is free; per part the row it failed at (rows when it
  // did not) and its error.
  const RowParts parts(rows, threads);
  std::vector<long> failed_row(static_cast<std::size_t>(parts.count), rows);
  std::vector<std::exception_ptr> failure(static_cast<std::size_t>(parts.count));
  model_detail::run_parts(parts.count, threads, [&](int part) {
    const auto at = static_cast<std::size_t>(part);
    const long end = parts.end(part);
    long i = parts.begin(part);
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

// SKOGRAPH_SIMD's instruction set; kAuto when it is not set (or empty).
Simd environment_simd() {
  const char* text = std::getenv("SKOGRAPH_SIMD");
  if (text == nullptr || *text == '\0') return Simd::kAuto;
  return parse_simd(text, "SKOGRAPH_SIMD");
}

}  // namespace

Simd parse_simd(const std::string& text, const std::string& what) {
  for (const Simd simd : {Simd::kAuto, Simd::kScalar, Simd::kAvx2, Simd::kAvx512})
    if (text == simd_name(simd)) return simd;
  throw UsageError(what + " must be auto, scalar, avx2 or avx512, not '" + text + "'");
}

Simd batch_simd(Simd requested) {
  const Simd best = best_simd();
  const bool from_environment = requested == Simd::kAuto;
  const Simd asked = from_environment ? environment_simd() : requested;
  if (asked == Simd::kAuto) return best;
  if (asked == Simd::kScalar) return asked;
  if (best == Simd::kScalar || (asked == Simd::kAvx512 && best != Simd::kAvx512))
    throw UsageError(
        std::string(from_environment ? "SKOGRAPH_SIMD=" : "the SIMD instruction set ") +
        simd_name(asked) + " is not available on this machine (its widest: " + simd_name(best) +
        ")");
  return asked;
}

Simd batch_lanes_simd(const Model& model, Simd requested) {
  const Simd simd = batch_simd(requested);
  return model.is_closed_chain() || !supports_lanes(model.tree()) ? Simd::kScalar : simd;
}

namespace model_detail {

// The checks of batch.hpp on one input: its shape, then (unless the options say the caller has)
// every entry finite, on the batch's threads.
void check_rows(const Model& model, const Eigen::Ref<const StateRows>& rows, long expected_rows,
                const char* name, const BatchOptions& options) {
  const long dofs = model.dof_count();
  if (rows.cols() != dofs)
    throw UsageError(std::string(name) + " has " + std::to_string(rows.cols()) +
                     " entries per state, the model " + std::to_string(dofs) + " dofs");
  if (rows.rows() != expected_rows)
    throw UsageError(std::string(name) + " has " + std::to_string(rows.rows()) + " rows, q " +
                     std::to_string(expected_rows));
  if (!options.check_finite) return;
  const long i =
      first_non_finite_row(rows.data(), rows.rows(), dofs, rows.outerStride(), options.threads);
  for (long j = 0; i < rows.rows() && j < dofs; ++j) {  // name the bad entry
    const double value = rows(i, j);
    if (std::isfinite(value)) continue;
    throw UsageError(
        std::string(name) + ", row " + std::to_string(i + 1) + ", is not a finite number at dof '" +
        model.dof_names()[static_cast<std::size_t>(j)] + "' (" + non_finite_word(value) + ")");
  }
}

// The given output storage: `rows` x `columns`, else UsageError.
void check_output(const Eigen::Ref<StateRows>& out, long rows, long columns, const char* name) {
  if (out.rows() != rows || out.cols() != columns)
    throw UsageError(std::string(name) + " is " + std::to_string(out.rows()) + " x " +
                     std::to_string(out.cols()) + ", not " + std::to_string(rows) + " x " +
                     std::to_string(columns));
}

}  // namespace model_detail

namespace {

// The checks of batch.hpp on three state inputs (q, qd and a third named `third`).
void check_three_inputs(const Model& model, const Eigen::Ref<const StateRows>& q,
                        const Eigen::Ref<const StateRows>& qd,
                        const Eigen::Ref<const StateRows>& third, const char* third_name,
                        const BatchOptions& options) {
  const long rows = q.rows();
  check_rows(model, q, rows, "q", options);
  check_rows(model, qd, rows, "qd", options);
  check_rows(model, third, rows, third_name, options);
}

// A call of three state inputs per row into `out`, the inputs checked before.
template <class Call>
void three_input_batch(WorkspacePool& workspaces, const Eigen::Ref<const StateRows>& q,
                       const Eigen::Ref<const StateRows>& qd,
                       const Eigen::Ref<const StateRows>& third, Eigen::Ref<StateRows>& out,
                       int threads, Call call) {
  const long rows = q.rows();
  run_rows(workspaces, rows, threads, [&](ModelData& data, long i) {
    call(data, row_vector(q, i), row_vector(qd, i), row_vector(third, i), row_vector(out, i));
  });
}

// Forward dynamics of checked rows into `qdd` of their shape.
void forward_dynamics_rows(const Model& model, WorkspacePool& workspaces,
                           const Eigen::Ref<const StateRows>& q,
                           const Eigen::Ref<const StateRows>& qd,
                           const Eigen::Ref<const StateRows>& tau, Eigen::Ref<StateRows> qdd,
                           const BatchOptions& options) {
  const Simd simd = batch_lanes_simd(model, options.simd);
  if (simd != Simd::kScalar) {
    const DofOrder& order = model.dof_order();
    const int n = model.dof_count(), width = simd_width(simd);
    return run_lane_blocks(
        model, workspaces, q, options.threads, simd,
        [&](LaneWork& work, long row, int lane) {
          for (int i = 0; i < n; ++i) {
            work.qd[lane_entry(i, lane, width)] = qd(row, order.file_dof(i));
            work.tau[lane_entry(i, lane, width)] = tau(row, order.file_dof(i));
          }
        },
        [&](ModelData::Lanes& lanes) {
          forward_dynamics_lanes(lanes.tree, simd, options.gravity, lanes.work);
        },
        [&](ModelData& data, const ModelData::Lanes& lanes, long first, int count) {
          each_lane(first, count, [&](long row, int lane) {
            if (lanes.work.singular[static_cast<std::size_t>(lane)] != 0.0) {
              // A D the lanes' test refused: the single call reports the joint or takes it by LU.
              forward_dynamics(model, data, row_vector(q, row), row_vector(qd, row),
                               row_vector(tau, row), options.gravity, row_vector(qdd, row));
              return;
            }
            for (int i = 0; i < n; ++i)
              qdd(row, order.file_dof(i)) = lanes.work.qdd[lane_entry(i, lane, width)];
          });
        });
  }
  three_input_batch(
      workspaces, q, qd, tau, qdd, options.threads,
      [&](ModelData& data, const auto& q_i, const auto& qd_i, const auto& tau_i, auto qdd_i) {
        forward_dynamics(model, data, q_i, qd_i, tau_i, options.gravity, qdd_i);
      });
}

// Inverse dynamics of checked rows into `tau` of their shape.
void inverse_dynamics_rows(const Model& model, WorkspacePool& workspaces,
                           const Eigen::Ref<const StateRows>& q,
                           const Eigen::Ref<const StateRows>& qd,
                           const Eigen::Ref<const StateRows>& qdd, Eigen::Ref<StateRows> tau,
                           const BatchOptions& options) {
  const Simd simd = batch_lanes_simd(model, options.simd);
  if (simd != Simd::kScalar) {
    const DofOrder& order = model.dof_order();
    const int n = model.dof_count(), width = simd_width(simd);
    return run_lane_blocks(
        model, workspaces, q, options.threads, simd,
        [&](LaneWork& work, long row, int lane) {
          for (int i = 0; i < n; ++i) {
            work.qd[lane_entry(i, lane, width)] = qd(row, order.file_dof(i));
            work.qdd[lane_entry(i, lane, width)] = qdd(row, order.file_dof(i));
          }
        },
        [&](ModelData::Lanes& lanes) {
          inverse_dynamics_lanes(lanes.tree, simd, options.gravity, lanes.work);
        },
        [&](ModelData&, const ModelData::Lanes& lanes, long first, int count) {
          each_lane(first, count, [&](long row, int lane) {
            for (int i = 0; i < n; ++i)
              tau(row, order.file_dof(i)) = lanes.work.tau[lane_entry(i, lane, width)];
          });
        });
  }
  three_input_batch(
      workspaces, q, qd, qdd, tau, options.threads,
      [&](ModelData& data, const auto& q_i, const auto& qd_i, const auto& qdd_i, auto tau_i) {
        inverse_dynamics(model, data, q_i, qd_i, qdd_i, options.gravity, tau_i);
      });
}

// The mass matrices of checked rows into `mass` of their shape (rows x dofs^2).
void mass_matrix_rows(const Model& model, WorkspacePool& workspaces,
                      const Eigen::Ref<const StateRows>& q, Eigen::Ref<StateRows> mass,
                      const BatchOptions& options) {
  const long rows = q.rows(), n = model.dof_count();
  const Simd simd = batch_lanes_simd(model, options.simd);
  if (simd != Simd::kScalar) {
    return run_lane_blocks(
        model, workspaces, q, options.threads, simd, [](LaneWork&, long, int) {},
        [&](ModelData::Lanes& lanes) { mass_matrix_lanes(lanes.tree, simd, lanes.work); },
        [&](ModelData&, const ModelData::Lanes& lanes, long first, int count) {
          // Zeros, then the entries that are not zero by structure and their mirror images, entry
          // by entry for every lane at once (each entry's lanes are one cache line).
          std::array<double*, kMaxLanes> out{};
          for (int lane = 0; lane < count; ++lane) {
            out[static_cast<std::size_t>(lane)] = mass.row(first + lane).data();
            std::fill_n(out[static_cast<std::size_t>(lane)], n * n, 0.0);
          }
          const auto place = [&]<int Count>(std::integral_constant<int, Count>, int lanes_held) {
            const int held = Count > 0 ? Count : lanes_held;
            for (const ModelData::Lanes::MassPlacement& entry : lanes.mass_placement) {
              const double* values = lanes.work.mass.data() + entry.from;
              for (int lane = 0; lane < held; ++lane) {
                out[static_cast<std::size_t>(lane)][entry.to] = values[lane];
                out[static_cast<std::size_t>(lane)][entry.mirror] = values[lane];
              }
            }
          };
          if (count == 8) return place(std::integral_constant<int, 8>{}, count);
          if (count == 4) return place(std::integral_constant<int, 4>{}, count);
          place(std::integral_constant<int, 0>{}, count);
        });
  }
  run_rows(workspaces, rows, options.threads, [&](ModelData& data, long i) {
    // A row of n^2 entries: M column-major in place, then transposed to row-major (M may be
    // symmetric only to rounding).
    Eigen::Map<Eigen::MatrixXd> matrix(mass.row(i).data(), n, n);
    mass_matrix(model, data, row_vector(q, i), matrix);
    matrix.transposeInPlace();
  });
}

}  // namespace

void forward_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& tau, StateRows& qdd,
                            const BatchOptions& options) {
  check_three_inputs(model, q, qd, tau, "tau", options);
  qdd.resize(q.rows(), model.dof_count());
  forward_dynamics_rows(model, workspaces, q, qd, tau, qdd, options);
}

void forward_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& tau, Eigen::Ref<StateRows> qdd,
                            const BatchOptions& options) {
  check_three_inputs(model, q, qd, tau, "tau", options);
  check_output(qdd, q.rows(), model.dof_count(), "qdd");
  forward_dynamics_rows(model, workspaces, q, qd, tau, qdd, options);
}

void inverse_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& qdd, StateRows& tau,
                            const BatchOptions& options) {
  check_three_inputs(model, q, qd, qdd, "qdd", options);
  tau.resize(q.rows(), model.dof_count());
  inverse_dynamics_rows(model, workspaces, q, qd, qdd, tau, options);
}

void inverse_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& qdd, Eigen::Ref<StateRows> tau,
                            const BatchOptions& options) {
  check_three_inputs(model, q, qd, qdd, "qdd", options);
  check_output(tau, q.rows(), model.dof_count(), "tau");
  inverse_dynamics_rows(model, workspaces, q, qd, qdd, tau, options);
}

void mass_matrix_batch(const Model& model, WorkspacePool& workspaces,
                       const Eigen::Ref<const StateRows>& q, StateRows& mass,
                       const BatchOptions& options) {
  check_rows(model, q, q.rows(), "q", options);
  mass.resize(q.rows(), static_cast<long>(model.dof_count()) * model.dof_count());
  mass_matrix_rows(model, workspaces, q, mass, options);
}

void mass_matrix_batch(const Model& model, WorkspacePool& workspaces,
                       const Eigen::Ref<const StateRows>& q, Eigen::Ref<StateRows> mass,
                       const BatchOptions& options) {
  check_rows(model, q, q.rows(), "q", options);
  check_output(mass, q.rows(), static_cast<long>(model.dof_count()) * model.dof_count(), "mass");
  mass_matrix_rows(model, workspaces, q, mass, options);
}

}  // namespace skograph

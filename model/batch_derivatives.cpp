// Batches of the dynamics' derivatives (model/batch.hpp): in SIMD lanes where the model's tree
// allows (rigid/lanes.hpp), else state by state through the single call.
#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "batch_internal.hpp"
#include "skograph/model/batch.hpp"
#include "skograph/model/derivatives.hpp"

namespace skograph {

using model_detail::check_output;
using model_detail::check_rows;
using model_detail::each_lane;
using model_detail::kMaxLanes;
using model_detail::row_vector;
using model_detail::run_lane_blocks;
using model_detail::run_rows;

namespace {

// A dofs x dofs matrix row-major at `out`.
void write_row_major(const Eigen::MatrixXd& matrix, double* out) {
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      out, matrix.rows(), matrix.cols()) = matrix;
}

void check_inputs(const Model& model, const Eigen::Ref<const StateRows>& q,
                  const Eigen::Ref<const StateRows>& qd, const Eigen::Ref<const StateRows>& third,
                  const char* third_name, const BatchOptions& options) {
  if (model.is_closed_chain())
    throw UsageError(model.file() +
                     ": a closed chain's derivatives are in its independent coordinates, which "
                     "may differ from state to state: call the states one at a time");
  check_rows(model, q, q.rows(), "q", options);
  check_rows(model, qd, q.rows(), "qd", options);
  check_rows(model, third, q.rows(), third_name, options);
}

// Which derivatives a batch computes: inverse dynamics' at (q, qd, qdd), or forward dynamics' at
// (q, qd, tau).
enum class Dynamics { kInverse, kForward };

// The derivatives of checked rows into `out` (rows x 3 dofs^2): per row the single call's three
// matrices, or a block of rows in SIMD lanes, a lane the kernel marks recomputed by the single
// call (its result, or its error named with the row).
void derivative_rows(const Model& model, WorkspacePool& workspaces, Dynamics dynamics,
                     const Eigen::Ref<const StateRows>& q, const Eigen::Ref<const StateRows>& qd,
                     const Eigen::Ref<const StateRows>& third, Eigen::Ref<StateRows> out,
                     const BatchOptions& options) {
  const long n = model.dof_count(), size = n * n;
  const bool forward = dynamics == Dynamics::kForward;
  const auto one_state = [&](ModelData& data, long row) {
    double* to = out.row(row).data();
    if (forward) {
      ForwardDerivatives result;
      forward_dynamics_derivatives(model, data, row_vector(q, row), row_vector(qd, row),
                                   row_vector(third, row), options.gravity, result);
      write_row_major(result.dqdd_dq, to);
      write_row_major(result.dqdd_dqd, to + size);
      write_row_major(result.dqdd_dtau, to + 2 * size);
      return;
    }
    InverseDerivatives result;
    inverse_dynamics_derivatives(model, data, row_vector(q, row), row_vector(qd, row),
                                 row_vector(third, row), options.gravity, result);
    write_row_major(result.dtau_dq, to);
    write_row_major(result.dtau_dqd, to + size);
    write_row_major(result.mass, to + 2 * size);
  };
  Simd simd = batch_lanes_simd(model, options.simd);
  if (forward && simd != Simd::kScalar &&
      !workspaces.lease().data().lanes(model, simd).tree.forward_derivatives_supported())
    simd = Simd::kScalar;
  if (simd == Simd::kScalar) return run_rows(workspaces, q.rows(), options.threads, one_state);
  const DofOrder& order = model.dof_order();
  const int width = simd_width(simd);
  // Entry e of the lanes' three result matrices (model order, row-major; forward dynamics' first
  // two transposed) goes to place[e] of a row.
  std::vector<long> place(static_cast<std::size_t>(3 * size));
  for (long m = 0; m < 3; ++m)
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j) {
        const bool transposed = forward && m < 2;
        const long row = order.file_dof(static_cast<int>(transposed ? j : i)),
                   col = order.file_dof(static_cast<int>(transposed ? i : j));
        place[static_cast<std::size_t>(m * size + i * n + j)] = m * size + row * n + col;
      }
  run_lane_blocks(
      model, workspaces, q, options.threads, simd,
      [&](LaneWork& work, long row, int lane) {
        std::vector<double>& input = forward ? work.tau : work.qdd;
        for (int i = 0; i < n; ++i) {
          work.qd[model_detail::lane_entry(i, lane, width)] = qd(row, order.file_dof(i));
          input[model_detail::lane_entry(i, lane, width)] = third(row, order.file_dof(i));
        }
      },
      [&](ModelData::Lanes& lanes) {
        if (forward)
          forward_dynamics_derivatives_lanes(lanes.tree, simd, options.gravity, lanes.work);
        else
          inverse_dynamics_derivatives_lanes(lanes.tree, simd, options.gravity, lanes.work);
      },
      [&](ModelData& data, const ModelData::Lanes& lanes, long first, int count) {
        // Entry by entry for every lane at once (each entry's lanes are one cache line).
        std::array<double*, kMaxLanes> rows{};
        for (int lane = 0; lane < count; ++lane)
          rows[static_cast<std::size_t>(lane)] = out.row(first + lane).data();
        const double* const values =
            lanes.work.derivatives.data() + (forward ? 3 * size * width : 0);
        const auto place_all = [&]<int Count>(std::integral_constant<int, Count>, int held_lanes) {
          const int held = Count > 0 ? Count : held_lanes;
          for (long e = 0; e < 3 * size; ++e) {
            const long to = place[static_cast<std::size_t>(e)];
            for (int lane = 0; lane < held; ++lane)
              rows[static_cast<std::size_t>(lane)][to] = values[e * width + lane];
          }
        };
        if (count == 8)
          place_all(std::integral_constant<int, 8>{}, count);
        else if (count == 4)
          place_all(std::integral_constant<int, 4>{}, count);
        else
          place_all(std::integral_constant<int, 0>{}, count);
        each_lane(first, count, [&](long row, int lane) {
          if (lanes.work.singular[static_cast<std::size_t>(lane)] != 0.0) one_state(data, row);
        });
      });
}

}  // namespace

void inverse_dynamics_derivatives_batch(const Model& model, WorkspacePool& workspaces,
                                        const Eigen::Ref<const StateRows>& q,
                                        const Eigen::Ref<const StateRows>& qd,
                                        const Eigen::Ref<const StateRows>& qdd,
                                        StateRows& derivatives, const BatchOptions& options) {
  check_inputs(model, q, qd, qdd, "qdd", options);
  derivatives.resize(q.rows(), 3L * model.dof_count() * model.dof_count());
  derivative_rows(model, workspaces, Dynamics::kInverse, q, qd, qdd, derivatives, options);
}

void inverse_dynamics_derivatives_batch(const Model& model, WorkspacePool& workspaces,
                                        const Eigen::Ref<const StateRows>& q,
                                        const Eigen::Ref<const StateRows>& qd,
                                        const Eigen::Ref<const StateRows>& qdd,
                                        Eigen::Ref<StateRows> derivatives,
                                        const BatchOptions& options) {
  check_inputs(model, q, qd, qdd, "qdd", options);
  check_output(derivatives, q.rows(), 3L * model.dof_count() * model.dof_count(), "derivatives");
  derivative_rows(model, workspaces, Dynamics::kInverse, q, qd, qdd, derivatives, options);
}

void forward_dynamics_derivatives_batch(const Model& model, WorkspacePool& workspaces,
                                        const Eigen::Ref<const StateRows>& q,
                                        const Eigen::Ref<const StateRows>& qd,
                                        const Eigen::Ref<const StateRows>& tau,
                                        StateRows& derivatives, const BatchOptions& options) {
  check_inputs(model, q, qd, tau, "tau", options);
  derivatives.resize(q.rows(), 3L * model.dof_count() * model.dof_count());
  derivative_rows(model, workspaces, Dynamics::kForward, q, qd, tau, derivatives, options);
}

void forward_dynamics_derivatives_batch(const Model& model, WorkspacePool& workspaces,
                                        const Eigen::Ref<const StateRows>& q,
                                        const Eigen::Ref<const StateRows>& qd,
                                        const Eigen::Ref<const StateRows>& tau,
                                        Eigen::Ref<StateRows> derivatives,
                                        const BatchOptions& options) {
  check_inputs(model, q, qd, tau, "tau", options);
  check_output(derivatives, q.rows(), 3L * model.dof_count() * model.dof_count(), "derivatives");
  derivative_rows(model, workspaces, Dynamics::kForward, q, qd, tau, derivatives, options);
}

}  // namespace skograph

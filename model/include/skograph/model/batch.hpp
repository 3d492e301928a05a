// Many states of one model at once: one state per row of a row-major matrix (the file's dof
// order), the rows split into contiguous parts on a process-wide pool of threads kept between
// calls (not a thread per call), each part on a workspace leased from a WorkspacePool. On the
// scalar path every row's result is the single-state call's (model/dynamics.hpp), bit for bit,
// whatever the threads. A tree's forward and inverse dynamics and mass matrix run W states per
// instruction in the lanes of a SIMD register (rigid/lanes.hpp: AVX2, AVX-512, chosen at run
// time): a row then agrees with the single-state call to rounding (inverse dynamics and the mass
// matrix 1e-13 relative, forward dynamics 1e-13 cond(M)), and is the same bits whatever the
// threads and whatever its place in the batch. A row whose joint space inertia the lanes find
// singular is the single-state call's (its error, or its result by LU).
//
//   WorkspacePool workspaces(model);
//   StateRows qdd(q.rows(), model.dof_count());
//   forward_dynamics_batch(model, workspaces, q, qd, tau, qdd, {.threads = 2});
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>

#include "skograph/model/workspace_pool.hpp"
#include "skograph/rigid/lanes.hpp"

namespace skograph {

// States as rows (row-major, as NumPy's C-ordered arrays are).
using StateRows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct BatchOptions {
  int threads = 1;  // parts the rows are split into (at most one per row), each on its own thread
  Eigen::Vector3d gravity = kStandardGravity;
  // The lanes' instruction set: kAuto takes the environment variable SKOGRAPH_SIMD (auto, scalar,
  // avx2, avx512) or, without it, the widest the CPU runs (best_simd()); kScalar is the state by
  // state path. Closed chains and models the lanes do not support (supports_lanes) run state by
  // state whatever is asked.
  Simd simd = Simd::kAuto;
  // False: the caller has checked every input entry finite already (the Python module, which
  // names a bad entry in its own words); the shapes are checked whatever this says.
  bool check_finite = true;
};

// The instruction set a batch with `requested` runs on (BatchOptions::simd). UsageError for an
// unknown SKOGRAPH_SIMD or an instruction set this CPU does not run.
Simd batch_simd(Simd requested);
// What the forward and inverse dynamics and mass matrix batches run on for `model`:
// batch_simd(requested), or kScalar for a model the lanes do not take.
Simd batch_lanes_simd(const Model& model, Simd requested);
// "auto", "scalar", "avx2" or "avx512" as a Simd; UsageError "<what> must be ..." otherwise.
Simd parse_simd(const std::string& text, const std::string& what);

// Every entry of x[0 .. n) finite: the batches' input check, also the Python module's, by
// integer operations the compiler runs on several entries per instruction.
bool all_finite(const double* x, long n);
// How the input errors name a value that is not finite: "nan", "inf" or "-inf".
const char* non_finite_word(double value);
// The first of `rows` rows of `columns` entries (row i at data + i * stride) that holds an entry
// that is not finite, `rows` when every entry is finite: the rows split over `threads` threads as
// for_each_state splits a batch (a large batch's check is a few per cent of its time).
long first_non_finite_row(const double* data, long rows, long columns, long stride, int threads);

// row(data, i) for every i in [0, rows): on `threads` threads (the calling one and the pool's), the
// rows in contiguous parts, eight per thread, each thread claiming the next part until none is
// left, each part with a workspace of `workspaces`. A part stops at its first error; once every
// part has stopped, the error of the lowest row is rethrown as it was thrown.
void for_each_state(WorkspacePool& workspaces, long rows, int threads,
                    const std::function<void(ModelData& data, long row)>& row);

// Forward dynamics, inverse dynamics and the mass matrix of every row (model/dynamics.hpp; closed
// chains closed first, as a single call closes them). The inputs are checked before anything is
// computed, input by input (q, qd, then the third): as many rows as q, one column per dof, every
// entry finite (unless BatchOptions::check_finite is false: then a non-finite entry gives an
// unspecified row, or that row's own error); a bad input fails the whole call, UsageError naming
// the input, the first bad row (1-based) and the dof. An error while
// computing fails the call too, as Error "row R: <the row's error>" for the lowest failing row.
// The outputs are resized to the rows; `mass` holds each row's M row-major (rows x dofs^2).
void forward_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& tau, StateRows& qdd,
                            const BatchOptions& options = {});
void inverse_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& qdd, StateRows& tau,
                            const BatchOptions& options = {});
void mass_matrix_batch(const Model& model, WorkspacePool& workspaces,
                       const Eigen::Ref<const StateRows>& q, StateRows& mass,
                       const BatchOptions& options = {});

// The same into given storage (a map of another library's array: the Python module writes
// NumPy's this way): the output must already have q's rows and dofs columns (dofs^2 for the mass
// matrix), else UsageError "qdd is 3 x 7, not 4 x 7"; nothing is allocated for it.
void forward_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& tau, Eigen::Ref<StateRows> qdd,
                            const BatchOptions& options = {});
void inverse_dynamics_batch(const Model& model, WorkspacePool& workspaces,
                            const Eigen::Ref<const StateRows>& q,
                            const Eigen::Ref<const StateRows>& qd,
                            const Eigen::Ref<const StateRows>& qdd, Eigen::Ref<StateRows> tau,
                            const BatchOptions& options = {});
void mass_matrix_batch(const Model& model, WorkspacePool& workspaces,
                       const Eigen::Ref<const StateRows>& q, Eigen::Ref<StateRows> mass,
                       const BatchOptions& options = {});

// The derivatives of every row of a tree (model/derivatives.hpp): inverse dynamics' dtau/dq,
// dtau/dqd and M = dtau/dqdd at (q, qd, qdd), forward dynamics' dqdd/dq, dqdd/dqd and dqdd/dtau =
// M^-1 at (q, qd, tau), each dofs x dofs row-major in the file's dof order, one after the other in
// a row of 3 dofs^2 entries (rows x 3 dofs^2: the Python module's (rows, 3, dofs, dofs)). Checks
// and errors as above (given storage: as below). A closed chain is a UsageError: its independent
// coordinates, and so the derivatives' size, may differ from state to state (call the states one
// at a time).
void inverse_dynamics_derivatives_batch(const Model& model, WorkspacePool& workspaces,
                                        const Eigen::Ref<const StateRows>& q,
                                        const Eigen::Ref<const StateRows>& qd,
                                        const Eigen::Ref<const StateRows>& qdd,
                                        StateRows& derivatives, const BatchOptions& options = {});
void inverse_dynamics_derivatives_batch(const Model& model, WorkspacePool& workspaces,
                                        const Eigen::Ref<const StateRows>& q,
                                        const Eigen::Ref<const StateRows>& qd,
                                        const Eigen::Ref<const StateRows>& qdd,
                                        Eigen::Ref<StateRows> derivatives,
                                        const BatchOptions& options = {});
void forward_dynamics_derivatives_batch(const Model& model, WorkspacePool& workspaces,
                                        const Eigen::Ref<const StateRows>& q,
                                        const Eigen::Ref<const StateRows>& qd,
                                        const Eigen::Ref<const StateRows>& tau,
                                        StateRows& derivatives, const BatchOptions& options = {});
void forward_dynamics_derivatives_batch(const Model& model, WorkspacePool& workspaces,
                                        const Eigen::Ref<const StateRows>& q,
                                        const Eigen::Ref<const StateRows>& qd,
                                        const Eigen::Ref<const StateRows>& tau,
                                        Eigen::Ref<StateRows> derivatives,
                                        const BatchOptions& options = {});

}  // namespace skograph

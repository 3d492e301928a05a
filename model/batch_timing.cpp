// Wall time per state of a batch (model/timing.hpp: time_batch).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "skograph/model/batch.hpp"
#include "skograph/model/state.hpp"
#include "skograph/model/timing.hpp"

namespace skograph {

namespace {

// `batch` states about the generic state of time_algorithm (every entry nonzero and distinct),
// each entry moved by up to 0.2 (rates and inputs by up to 0.5), a fixed seed; closed chains
// closed (a row that does not close keeps the closed generic state).
struct BatchStates {
  StateRows q, qd, input;
};

BatchStates batch_states(const Model& model, long batch) {
  const int n = model.dof_count();
  BatchStates states{StateRows(batch, n), StateRows(batch, n), StateRows(batch, n)};
  std::mt19937_64 random(20261206);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (long i = 0; i < batch; ++i)
    for (int j = 0; j < n; ++j) {
      states.q(i, j) = 0.3 * std::sin(1.0 + j) + 0.2 * unit(random);
      states.qd(i, j) = 0.5 * std::cos(2.0 + j) + 0.5 * unit(random);
      states.input(i, j) = std::cos(4.0 + j) + 0.5 * unit(random);
    }
  if (!model.is_closed_chain()) return states;
  ModelData data(model);
  Eigen::VectorXd generic_q(n), generic_qd(n);
  for (int j = 0; j < n; ++j) {
    generic_q(j) = 0.3 * std::sin(1.0 + j);
    generic_qd(j) = 0.5 * std::cos(2.0 + j);
  }
  ClosedState generic;
  try {
    generic = close_state(model, data, generic_q, generic_qd);
  } catch (const Error& e) {
    throw UsageError(naming_file(model.file(), e.what()) + " (bench state)");
  }
  for (long i = 0; i < batch; ++i) {
    ClosedState closed;
    try {
      closed = close_state(model, data, states.q.row(i).transpose(), states.qd.row(i).transpose());
    } catch (const Error&) {
      closed = generic;
    }
    states.q.row(i) = closed.q.transpose();
    states.qd.row(i) = closed.qd.transpose();
  }
  return states;
}

}  // namespace

Timing time_batch(const Model& model, const std::string& algorithm, long batch, int threads,
                  int repeats, Simd simd) {
  const std::string& file = model.file();
  const bool derivatives = algorithm == "id-derivatives" || algorithm == "fd-derivatives";
  if (algorithm != "id" && algorithm != "fd" && algorithm != "mass" && !derivatives)
    throw UsageError("--batch times id, fd, mass, id-derivatives or fd-derivatives, not '" +
                     algorithm + "'");
  if (derivatives && model.is_closed_chain())
    throw UsageError(file +
                     ": --batch times a tree's derivatives; a closed chain's are in its "
                     "independent coordinates (time them without --batch)");
  if (batch < 1 || threads < 1 || repeats < 1)
    throw UsageError("a batch needs at least one state, one thread and one repeat");
  const int n = model.dof_count();
  if (n == 0) throw UsageError(file + ": the model has no dofs to time");
  // Four batch-sized matrices of states (three inputs and the output), or M per state, or three
  // inputs and three dofs x dofs matrices per state.
  const double per_dof = algorithm == "mass" ? n + 1.0 : derivatives ? 3.0 * n + 3.0 : 4.0;
  const double entries = static_cast<double>(batch) * n * per_dof;
  if (entries > 5e8)
    throw UsageError(file + ": a batch of " + std::to_string(batch) + " states of " +
                     std::to_string(n) + " dofs is too large for --algo " + algorithm +
                     " (at most 5e8 numbers)");
  const BatchStates states = batch_states(model, batch);
  WorkspacePool workspaces(model);
  const BatchOptions options{
      .threads = threads, .gravity = Eigen::Vector3d(0.0, 0.0, -9.81), .simd = simd};
  StateRows out;
  const auto run = [&] {
    if (algorithm == "id")
      inverse_dynamics_batch(model, workspaces, states.q, states.qd, states.input, out, options);
    else if (algorithm == "fd")
      forward_dynamics_batch(model, workspaces, states.q, states.qd, states.input, out, options);
    else if (algorithm == "id-derivatives")
      inverse_dynamics_derivatives_batch(model, workspaces, states.q, states.qd, states.input, out,
                                         options);
    else if (algorithm == "fd-derivatives")
      forward_dynamics_derivatives_batch(model, workspaces, states.q, states.qd, states.input, out,
                                         options);
    else
      mass_matrix_batch(model, workspaces, states.q, out, options);
  };
  try {
    run();  // every workspace sized, every thread started
  } catch (const Error& e) {
    throw UsageError(naming_file(file, e.what()));
  }
  if (!out.allFinite())
    throw UsageError(file + ": the dynamics are not finite (singular mass matrix?)");
  using Clock = std::chrono::steady_clock;
  std::vector<double> per_state(static_cast<std::size_t>(repeats));
  for (double& t : per_state) {
    const auto start = Clock::now();
    run();
    t = std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
        static_cast<double>(batch);
  }
  std::nth_element(per_state.begin(), per_state.begin() + repeats / 2, per_state.end());
  Timing timing;
  timing.ns_per_call = per_state[static_cast<std::size_t>(repeats / 2)];
  timing.dofs = n;
  timing.independent =
      model.is_closed_chain() ? static_cast<int>(workspaces.lease().data().independent.size()) : n;
  timing.simd = batch_lanes_simd(model, simd);
  return timing;
}

}  // namespace skograph

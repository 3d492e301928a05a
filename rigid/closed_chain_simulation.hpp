// Time integration of closed-chain (and tree) mechanisms in minimal coordinates
// (constraint-embedding §7; conventions.md "Constraint embedding").
//
//   ClosedChainModel model(mechanism);
//   ClosedChainData data(model);
//   SimulationOptions options;  options.duration = 2.0;  options.step = 1e-3;
//   const SimulationSummary summary = simulate(model, data, q, qd, options,
//       [](const SimulationSample& s) { /* s.time, s.q, s.qd, s.kinetic_energy, ... */ });
//
// The state is the full q (every tree dof) and the independent rates qd_R; the full rates are
// qd = X qd_R (the dependent entries follow the independent ones). The motion obeys the embedded
// equations M_R qdd_R = X* (tau - C) - X* M Xdot qd_R, solved by forward_dynamics() on the
// embedded SKO model, and dq/dt = configuration_rate(q, qd) (rotation-vector rates for spherical
// and floating joints). One step is classical fourth-order Runge-Kutta on (q, qd_R, W), W the work
// of the constant generalized forces tau (dW/dt = tau . qd), followed by the projection back onto
// the constraint manifold: close_positions() (Newton on the dependent q, independent q kept) and
// close_velocities() (dependent qd from the independent ones). Tree models (no loops, no
// couplings) integrate the same way with X = I and no projection work.
#pragma once

#include <Eigen/Core>
#include <functional>

#include "rigid/closed_chain_model.hpp"

namespace skograph {

struct SimulationOptions {
  double duration = 1.0;  // T > 0, seconds
  double step = 1e-3;     // h, 0 < h <= T; the last step is shortened to end exactly at T
  Eigen::Vector3d gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  // Constant generalized forces on all tree joints (dof order), mapped to the independent
  // coordinates by X*; empty means zero.
  Eigen::VectorXd tau;
};

// The state after a step (and the initial, closed state as step 0).
struct SimulationSample {
  int step = 0;        // 0 for the initial state, then 1 .. step_count
  int step_count = 0;  // steps of the whole run
  double time = 0.0;
  const Eigen::VectorXd* q = nullptr;   // full, closed
  const Eigen::VectorXd* qd = nullptr;  // full, consistent with the loops
  double kinetic_energy = 0.0;          // 1/2 qd* M qd
  double potential_energy = 0.0;        // gravity potential -sum m g . c
  double work = 0.0;                    // integral of tau . qd since t = 0
  double position_residual = 0.0;       // max |closure error| (rigid/closed_chain_model.hpp)
  double velocity_residual = 0.0;       // max |Q qd|
};

struct SimulationSummary {
  int steps = 0;
  double final_time = 0.0;
  // Energy balance E(t) - E(0) - W(t), E = kinetic + gravity potential, W the work of tau:
  // the largest |imbalance| over the run divided by the energy scale max(|E(0)|, max_t T(t)).
  double energy_drift = 0.0;
  // The same without the gravity potential: |T(t) - T(0) - W(t)| / max(T(0), max_t T(t)). With
  // gravity the kinetic energy is not conserved by itself; without gravity both drifts agree.
  double kinetic_energy_drift = 0.0;
  double energy_scale = 0.0;                        // max(|E(0)|, max_t T(t)), joules
  double initial_energy = 0.0, final_energy = 0.0;  // kinetic + gravity potential
  double initial_kinetic_energy = 0.0, final_kinetic_energy = 0.0;
  double work = 0.0;  // work of tau over the run
  // Largest constraint residuals after the projection of each step (and of the initial state).
  double max_position_residual = 0.0;
  double max_velocity_residual = 0.0;
};

using SimulationCallback = std::function<void(const SimulationSample&)>;

// Number of steps for duration T and step h (the last one shortened to end at T). Throws
// std::invalid_argument naming the problem for a duration or step that is not a positive finite
// number, a step longer than the duration, or more than 10^9 steps.
int simulation_step_count(double duration, double step);

// Integrates from (q, qd): q's independent entries are kept and the dependent ones closed by
// Newton, qd's dependent entries are set from the independent ones; then step_count() RK4 steps,
// each followed by the projection. `callback` (may be empty) sees the initial state and the state
// after every step. On return q and qd hold the final state. Throws std::invalid_argument for bad
// options or sizes and ClosureError, prefixed with the time, when the mechanism cannot be closed or
// becomes singular along the way.
SimulationSummary simulate(const ClosedChainModel& model, ClosedChainData& data, Eigen::VectorXd& q,
                           Eigen::VectorXd& qd, const SimulationOptions& options,
                           const SimulationCallback& callback = {});

}  // namespace skograph

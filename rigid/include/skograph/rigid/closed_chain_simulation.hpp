// Time integration of closed-chain (and tree) mechanisms in minimal coordinates
// (constraint-embedding §7; conventions.md "Constraint embedding").
//
//   ClosedChainModel model(mechanism);
//   ClosedChainData data(model);
//   SimulationOptions options;  options.duration = 2.0;  options.step = 1e-2;  // output interval
//   const SimulationSummary summary = simulate(model, data, q, qd, options,
//       [](const SimulationSample& s) { /* s.time, s.q, s.qd, s.kinetic_energy, ... */ });
//
// The state is the full q and the rates qd (their dependent entries follow the independent ones:
// qd = X qd_R) and W, the work of the constant generalized forces (dW/dt = tau . qd). The motion
// obeys the embedded equations M_R qdd_R = X* (tau - C) - X* M Xdot qd_R, solved by
// forward_dynamics() on the embedded SKO model, and dq/dt = configuration_rate(q, qd)
// (rotation-vector rates for spherical and floating joints).
//
// The integrator is Boost.Odeint's: by default the error-controlled Dormand-Prince 5(4) stepper
// with dense output (Hairer, Norsett & Wanner, Solving ODEs I, II.4-II.6), steps chosen for the
// tolerances, the samples every `step` seconds interpolated; or classical fourth-order
// Runge-Kutta with the fixed step `step`. After every accepted step the state is projected back
// onto the constraint manifold: close_positions() (Newton on the dependent q, the independent q
// kept) and close_velocities() (dependent qd from the independent ones); every sample is projected
// the same way. A step whose projection (or evaluation) fails is rejected and retried with a
// quarter of its length; only when the step would fall below 1e-12 T does the run stop. A
// singular configuration (the constraints lose rank) at a step's end or a sample stops the run.
#pragma once

#include <Eigen/Core>
#include <functional>

#include "skograph/rigid/closed_chain_model.hpp"

namespace skograph {

enum class Integrator {
  kDormandPrince,  // adaptive steps for the tolerances, dense output at the sample times
  kRungeKutta4,    // fixed steps of `step` seconds
};

struct SimulationOptions {
  double duration = 1.0;  // T > 0, seconds
  // h, 0 < h <= T: the samples are at 0, h, 2h, ... and T (the last interval shortened); the
  // step of the fixed-step integrator.
  double step = 1e-3;
  Integrator integrator = Integrator::kDormandPrince;
  // Dormand-Prince: each step's local error estimate e_i must satisfy
  // |e_i| <= absolute_tolerance + relative_tolerance * |x_i| (Odeint's default error checker).
  double relative_tolerance = 1e-9;
  double absolute_tolerance = 1e-9;
  long long max_steps = 100000000;  // accepted plus rejected steps; beyond, the run stops
  Eigen::Vector3d gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  // Constant generalized forces on all tree joints (dof order), mapped to the independent
  // coordinates by X*; empty means zero.
  Eigen::VectorXd tau;
};

// The state at a sample time (the initial, closed state is sample 0).
struct SimulationSample {
  int step = 0;        // sample index: 0 for the initial state, then 1 .. step_count
  int step_count = 0;  // samples after the initial one (simulation_step_count)
  double time = 0.0;
  const Eigen::VectorXd* q = nullptr;   // full, closed
  const Eigen::VectorXd* qd = nullptr;  // full, consistent with the loops
  double kinetic_energy = 0.0;          // 1/2 qd* M qd
  double potential_energy = 0.0;        // -sum m g . c, and flexible links' elastic energy
  double work = 0.0;                    // integral of tau . qd since t = 0
  double position_residual = 0.0;       // max |closure error| (rigid/closed_chain_model.hpp)
  double velocity_residual = 0.0;       // max |Q qd|
};

struct SimulationSummary {
  int steps = 0;                 // sample intervals (simulation_step_count)
  long long accepted_steps = 0;  // integrator steps kept
  long long rejected_steps = 0;  // by the error control, a failed projection or evaluation
  long long evaluations = 0;     // right-hand sides (forward dynamics) computed
  double smallest_step = 0.0, largest_step = 0.0;  // of the accepted steps, seconds
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
  // Largest constraint residuals of the samples (projected; the initial state included).
  double max_position_residual = 0.0;
  double max_velocity_residual = 0.0;
};

using SimulationCallback = std::function<void(const SimulationSample&)>;

// Number of sample intervals for duration T and interval h (the last one shortened to end at T).
// Throws std::invalid_argument naming the problem for a duration or step that is not a positive
// finite number, a step longer than the duration, or more than 10^9 samples.
int simulation_step_count(double duration, double step);

// Integrates from (q, qd): q's independent entries are kept and the dependent ones closed by
// Newton, qd's dependent entries are set from the independent ones; then to T as described above.
// `callback` (may be empty) sees the initial state and every sample, in time order. On return q
// and qd hold the state at T. Throws std::invalid_argument for bad options or sizes, and
// ClosureError prefixed with the time when the initial state cannot be closed, when the mechanism
// reaches a singular configuration (its constraints lose rank: SingularConfigurationError), when
// the step size falls below 1e-12 T (the last failure named), or after max_steps steps.
SimulationSummary simulate(const ClosedChainModel& model, ClosedChainData& data, Eigen::VectorXd& q,
                           Eigen::VectorXd& qd, const SimulationOptions& options,
                           const SimulationCallback& callback = {});

}  // namespace skograph

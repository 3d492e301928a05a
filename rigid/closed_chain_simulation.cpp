#include "rigid/closed_chain_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace skograph {

namespace {

// Scratch vectors of one run, sized once before the first step.
struct Stage {
  Eigen::VectorXd q, qd, q_rate, qdd;
  double power = 0.0;
};

// The right-hand side of the minimal-coordinate equations at a stage (constraint-embedding §7):
// qd's dependent entries from its independent ones (qd = X qd_R), dq/dt = configuration_rate,
// qdd = X qdd_R + Xdot qd_R from the embedded articulated-body forward dynamics, and the power
// tau . qd of the applied generalized forces.
void evaluate(const ClosedChainModel& model, ClosedChainData& data, const Eigen::VectorXd& tau,
              const Eigen::Vector3d& gravity, Stage& stage) {
  close_velocities(model, data, stage.q, stage.qd);
  configuration_rate(model.tree(), stage.q, stage.qd, stage.q_rate);
  stage.qdd = forward_dynamics(model, data, stage.q, stage.qd, tau, gravity);
  stage.power = tau.dot(stage.qd);
}

std::string at_time(double time) {
  std::ostringstream text;
  text << "at t = " << time << " s: ";
  return text.str();
}

}  // namespace

int simulation_step_count(double duration, double step) {
  if (!std::isfinite(duration) || duration <= 0.0)
    throw std::invalid_argument("the duration must be a positive number of seconds");
  if (!std::isfinite(step) || step <= 0.0)
    throw std::invalid_argument("the time step must be a positive number of seconds");
  if (step > duration) throw std::invalid_argument("the time step is longer than the duration");
  // The last step is shortened to end at T; a remainder below 1e-9 steps is rounding, not a step.
  const double steps = std::ceil(duration / step - 1e-9);
  if (steps > 1e9) throw std::invalid_argument("more than 10^9 time steps");
  return static_cast<int>(steps);
}

// Classical fourth-order Runge-Kutta on (q, qd_R, W) with the projection onto the constraint
// manifold after each step (Newton on the dependent q, then qd = X qd_R); see the header.
SimulationSummary simulate(const ClosedChainModel& model, ClosedChainData& data, Eigen::VectorXd& q,
                           Eigen::VectorXd& qd, const SimulationOptions& options,
                           const SimulationCallback& callback) {
  const int n = model.dof_count();
  if (q.size() != n || qd.size() != n)
    throw std::invalid_argument("q and qd must have one entry per dof (" + std::to_string(n) + ")");
  if (options.tau.size() != 0 && options.tau.size() != n)
    throw std::invalid_argument("tau must have one entry per dof (" + std::to_string(n) + ")");
  const int step_count = simulation_step_count(options.duration, options.step);
  const Eigen::VectorXd tau =
      options.tau.size() == n ? options.tau : Eigen::VectorXd::Zero(n).eval();

  SimulationSummary summary;
  SimulationSample sample;
  sample.step_count = step_count;
  sample.q = &q;
  sample.qd = &qd;
  double energy0 = 0.0, kinetic0 = 0.0, largest_imbalance = 0.0, largest_kinetic_imbalance = 0.0;
  double largest_kinetic = 0.0, work = 0.0, time = 0.0;

  // Energies and residuals of the closed state (q, qd) at `time`; passed to the callback.
  auto observe = [&](int step) {
    update_kinematics(model.tree(), q, qd, data.tree);
    sample.step = step;
    sample.time = time;
    sample.kinetic_energy = kinetic_energy(model.tree(), data.tree);
    sample.potential_energy = potential_energy(model.tree(), data.tree, options.gravity);
    sample.work = work;
    sample.position_residual = position_residual(model, data, q);
    sample.velocity_residual = velocity_residual(model, data, q, qd);
    const double energy = sample.kinetic_energy + sample.potential_energy;
    if (step == 0) {
      energy0 = energy;
      kinetic0 = sample.kinetic_energy;
      summary.initial_energy = energy;
      summary.initial_kinetic_energy = sample.kinetic_energy;
    }
    largest_imbalance = std::max(largest_imbalance, std::abs(energy - energy0 - work));
    largest_kinetic_imbalance =
        std::max(largest_kinetic_imbalance, std::abs(sample.kinetic_energy - kinetic0 - work));
    largest_kinetic = std::max(largest_kinetic, sample.kinetic_energy);
    summary.max_position_residual =
        std::max(summary.max_position_residual, sample.position_residual);
    summary.max_velocity_residual =
        std::max(summary.max_velocity_residual, sample.velocity_residual);
    summary.final_energy = energy;
    summary.final_kinetic_energy = sample.kinetic_energy;
    if (callback) callback(sample);
  };

  Stage stage[4];
  for (Stage& s : stage) {
    s.q.resize(n);
    s.qd.resize(n);
    s.q_rate.resize(n);
    s.qdd.resize(n);
  }
  try {
    close_positions(model, data, q);
    close_velocities(model, data, q, qd);
    observe(0);
    for (int step = 1; step <= step_count; ++step) {
      const double next_time = step == step_count ? options.duration : step * options.step;
      const double h = next_time - time;
      // k1 at (q, qd), k2 and k3 at the half step, k4 at the full step (dependent qd entries are
      // recomputed from the independent ones inside evaluate()).
      stage[0].q = q;
      stage[0].qd = qd;
      evaluate(model, data, tau, options.gravity, stage[0]);
      stage[1].q = q + 0.5 * h * stage[0].q_rate;
      stage[1].qd = qd + 0.5 * h * stage[0].qdd;
      evaluate(model, data, tau, options.gravity, stage[1]);
      stage[2].q = q + 0.5 * h * stage[1].q_rate;
      stage[2].qd = qd + 0.5 * h * stage[1].qdd;
      evaluate(model, data, tau, options.gravity, stage[2]);
      stage[3].q = q + h * stage[2].q_rate;
      stage[3].qd = qd + h * stage[2].qdd;
      evaluate(model, data, tau, options.gravity, stage[3]);
      q += (h / 6.0) *
           (stage[0].q_rate + 2.0 * stage[1].q_rate + 2.0 * stage[2].q_rate + stage[3].q_rate);
      qd += (h / 6.0) * (stage[0].qdd + 2.0 * stage[1].qdd + 2.0 * stage[2].qdd + stage[3].qdd);
      work += (h / 6.0) *
              (stage[0].power + 2.0 * stage[1].power + 2.0 * stage[2].power + stage[3].power);
      time = next_time;
      // Back onto the constraint manifold: the independent q and qd are the integrated ones.
      close_positions(model, data, q);
      close_velocities(model, data, q, qd);
      observe(step);
    }
  } catch (const ClosureError& e) {
    throw ClosureError(at_time(time) + e.what());
  }

  summary.steps = step_count;
  summary.final_time = time;
  summary.work = work;
  const double scale = std::max(std::abs(energy0), largest_kinetic);
  const double kinetic_scale = largest_kinetic;
  summary.energy_scale = scale;
  summary.energy_drift = scale > 0.0 ? largest_imbalance / scale : 0.0;
  summary.kinetic_energy_drift =
      kinetic_scale > 0.0 ? largest_kinetic_imbalance / kinetic_scale : 0.0;
  return summary;
}

}  // namespace skograph

#include "skograph/rigid/closed_chain_simulation.hpp"

#include "closed_chain/internal.hpp"

#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <functional>
#include <iomanip>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace skograph {

namespace {

namespace odeint = boost::numeric::odeint;

// A tree with flexible links runs on the tree's own dynamics: it has nothing to close (a closed
// chain with flexible links runs on its own dense dynamics, closed_chain/dynamics.cpp).
bool tree_with_flexible_links(const ClosedChainModel& model) {
  return model.aggregate_count() == 0 && model.tree().has_flexible_links();
}

// The integrator's state x = (q, qd, W): full q, full qd (dependent entries follow the
// independent ones at every evaluation and projection) and the work of tau.
using OdeState = std::vector<double>;

// The right-hand side of the minimal-coordinate equations (constraint-embedding §7): qd's
// dependent entries from its independent ones (qd = X qd_R), dq/dt = configuration_rate,
// qdd = X qdd_R + Xdot qd_R from the embedded articulated-body forward dynamics, and the power
// tau . qd of the applied generalized forces. Odeint gets it through std::ref (no copies).
class MinimalCoordinateSystem {
 public:
  MinimalCoordinateSystem(const ClosedChainModel& model, ClosedChainData& data,
                          const Eigen::VectorXd& tau, const Eigen::Vector3d& gravity)
      : model_(model),
        data_(data),
        tau_(tau),
        gravity_(gravity),
        tree_only_(tree_with_flexible_links(model)) {
    const int n = model.dof_count();
    q_.resize(n);
    qd_.resize(n);
    q_rate_.resize(n);
  }

  void operator()(const OdeState& x, OdeState& rate, double /*time*/) {
    const Eigen::Index n = q_.size();
    q_ = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
    qd_ = Eigen::Map<const Eigen::VectorXd>(x.data() + n, n);
    if (!tree_only_) close_velocities(model_, data_, q_, qd_);
    configuration_rate(model_.tree(), q_, qd_, q_rate_);
    const Eigen::VectorXd& qdd =
        tree_only_ ? forward_dynamics(model_.tree(), data_.tree, q_, qd_, tau_, gravity_)
                   : forward_dynamics(model_, data_, q_, qd_, tau_, gravity_);
    Eigen::Map<Eigen::VectorXd>(rate.data(), n) = q_rate_;
    Eigen::Map<Eigen::VectorXd>(rate.data() + n, n) = qdd;
    rate[static_cast<std::size_t>(2 * n)] = tau_.dot(qd_);
    ++evaluations;
  }

  long long evaluations = 0;

 private:
  const ClosedChainModel& model_;
  ClosedChainData& data_;
  const Eigen::VectorXd& tau_;
  const Eigen::Vector3d gravity_;
  const bool tree_only_;
  Eigen::VectorXd q_, qd_, q_rate_;
};

// Back onto the constraint manifold: the dependent q by Newton (independent q kept; no global
// search, which could jump to another branch of the closure: a failure rejects the step), then
// the dependent qd from the independent ones. q and qd are scratch vectors of the right size.
void project(const ClosedChainModel& model, ClosedChainData& data, OdeState& x, Eigen::VectorXd& q,
             Eigen::VectorXd& qd) {
  if (tree_with_flexible_links(model)) return;  // nothing to close
  const Eigen::Index n = q.size();
  q = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
  qd = Eigen::Map<const Eigen::VectorXd>(x.data() + n, n);
  if (const closed_chain_detail::NewtonOutcome outcome =
          closed_chain_detail::newton_closure(model, data, q, -1);
      !outcome.closed)
    throw outcome.error();  // the step is rejected
  close_velocities(model, data, q, qd);
  Eigen::Map<Eigen::VectorXd>(x.data(), n) = q;
  Eigen::Map<Eigen::VectorXd>(x.data() + n, n) = qd;
}

// A singular configuration met at a state of the trajectory (a step's end or a sample), as opposed
// to one met by a stage evaluation inside a step, which a shorter step may avoid.
struct SingularState {
  double time;
  std::string message;
  int loop;  // the loop the error names (ClosedChainError::loop), -1 for none
};

// The loop a closed-chain error is about, -1 for other errors.
int error_loop(const Error& error) {
  const auto* closed = dynamic_cast<const ClosedChainError*>(&error);
  return closed != nullptr ? closed->loop() : -1;
}

// Rethrows the closed-chain error being handled with `prefix` before its message, keeping its
// type (one type per condition, graph/error.hpp).
[[noreturn]] void rethrow_prefixed(const std::string& prefix) {
  try {
    throw;
  } catch (const SingularConfigurationError& e) {
    throw SingularConfigurationError(prefix + e.what(), e.loop());
  } catch (const SingularMassMatrixError& e) {
    throw SingularMassMatrixError(e.node(), prefix + e.what());
  } catch (const ClosureError& e) {
    throw ClosureError(prefix + e.what(), e.loop());
  }
}

std::string at_time(double time) {
  std::ostringstream text;
  text << "at t = " << time << " s: ";
  return text.str();
}

std::string seconds(double value) {
  std::ostringstream text;
  text << std::setprecision(3) << value << " s";
  return text.str();
}

}  // namespace

int simulation_step_count(double duration, double step) {
  if (!std::isfinite(duration) || duration <= 0.0)
    throw std::invalid_argument("the duration must be a positive number of seconds");
  if (!std::isfinite(step) || step <= 0.0)
    throw std::invalid_argument("the time step must be a positive number of seconds");
  if (step > duration) throw std::invalid_argument("the time step is longer than the duration");
  // The last interval is shortened to end at T; a remainder below 1e-9 steps is rounding.
  const double steps = std::ceil(duration / step - 1e-9);
  if (steps > 1e9) throw std::invalid_argument("more than 10^9 time steps");
  return static_cast<int>(steps);
}

// Boost.Odeint's Dormand-Prince 5(4) with dense output, or its classical RK4, with the projection
// onto the constraint manifold after every step and at every sample; see the header.
SimulationSummary simulate(const ClosedChainModel& model, ClosedChainData& data, Eigen::VectorXd& q,
                           Eigen::VectorXd& qd, const SimulationOptions& options,
                           const SimulationCallback& callback) {
  const int n = model.dof_count();
  if (q.size() != n || qd.size() != n)
    throw std::invalid_argument("q and qd must have one entry per dof (" + std::to_string(n) + ")");
  if (options.tau.size() != 0 && options.tau.size() != n)
    throw std::invalid_argument("tau must have one entry per dof (" + std::to_string(n) + ")");
  const int sample_count = simulation_step_count(options.duration, options.step);
  const auto positive = [](double value) { return std::isfinite(value) && value > 0.0; };
  if (options.integrator == Integrator::kDormandPrince &&
      (!positive(options.relative_tolerance) || !positive(options.absolute_tolerance)))
    throw std::invalid_argument("the tolerances must be positive numbers");
  const Eigen::VectorXd tau =
      options.tau.size() == n ? options.tau : Eigen::VectorXd::Zero(n).eval();
  const auto sample_time = [&](int k) {
    return k == sample_count ? options.duration : k * options.step;
  };

  SimulationSummary summary;
  SimulationSample sample;
  sample.step_count = sample_count;
  sample.q = &q;
  sample.qd = &qd;
  double energy0 = 0.0, kinetic0 = 0.0, largest_imbalance = 0.0, largest_kinetic_imbalance = 0.0;
  double largest_kinetic = 0.0, work = 0.0;

  // Energies and residuals of the closed state (q, qd, work) at sample k; passed to the callback.
  auto observe = [&](int k) {
    update_kinematics(model.tree(), q, qd, data.tree);
    sample.step = k;
    sample.time = sample_time(k);
    sample.kinetic_energy = kinetic_energy(model.tree(), data.tree);
    sample.potential_energy = potential_energy(model.tree(), data.tree, q, options.gravity);
    sample.work = work;
    sample.position_residual = position_residual(model, data, q);
    sample.velocity_residual = velocity_residual(model, data, q, qd);
    const double energy = sample.kinetic_energy + sample.potential_energy;
    if (k == 0) {
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
  const auto unpack = [&](const OdeState& x) {
    q = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
    qd = Eigen::Map<const Eigen::VectorXd>(x.data() + n, n);
    work = x[static_cast<std::size_t>(2 * n)];
  };

  try {
    if (tree_with_flexible_links(model)) {
      data.independent.resize(static_cast<std::size_t>(n));  // every dof
      std::iota(data.independent.begin(), data.independent.end(), 0);
    } else {
      close_positions(model, data, q);
      close_velocities(model, data, q, qd);
    }
  } catch (const Error&) {
    rethrow_prefixed(at_time(0.0));
  }
  OdeState x(static_cast<std::size_t>(2 * n + 1), 0.0);
  Eigen::Map<Eigen::VectorXd>(x.data(), n) = q;
  Eigen::Map<Eigen::VectorXd>(x.data() + n, n) = qd;
  observe(0);

  MinimalCoordinateSystem system(model, data, tau, options.gravity);
  Eigen::VectorXd q_scratch(n), qd_scratch(n);
  auto note_step = [&](double length) {
    summary.smallest_step =
        summary.accepted_steps == 0 ? length : std::min(summary.smallest_step, length);
    summary.largest_step = std::max(summary.largest_step, length);
    ++summary.accepted_steps;
  };

  if (options.integrator == Integrator::kRungeKutta4) {
    // Fixed steps ending at the sample times; a failed projection stops the run.
    odeint::runge_kutta4<OdeState> stepper;
    double time = 0.0;
    for (int k = 1; k <= sample_count; ++k) {
      const double next_time = sample_time(k);
      try {
        stepper.do_step(std::ref(system), x, time, next_time - time);
        project(model, data, x, q_scratch, qd_scratch);
      } catch (const Error&) {
        rethrow_prefixed(at_time(time));
      }
      note_step(next_time - time);
      time = next_time;
      unpack(x);
      observe(k);
    }
  } else {
    auto stepper = odeint::make_dense_output(options.absolute_tolerance, options.relative_tolerance,
                                             odeint::runge_kutta_dopri5<OdeState>());
    const double smallest_allowed = 1e-12 * options.duration;
    double next_step = std::min(options.step, options.duration) / 16.0;
    double time = 0.0;
    stepper.initialize(x, time, next_step);
    OdeState end = x, interpolated = x;
    std::vector<OdeState> samples;  // the projected samples of the step being tried
    int next_sample = 1;
    while (next_sample <= sample_count) {
      if (summary.accepted_steps + summary.rejected_steps >= options.max_steps)
        throw ClosureError(at_time(time) + "more than " + std::to_string(options.max_steps) +
                           " integration steps (tolerances too tight for this motion?)");
      double tried = next_step;
      std::size_t projected = 0;
      try {
        const auto interval = stepper.do_step(std::ref(system));
        tried = interval.second - interval.first;
        end = stepper.current_state();
        const auto project_state = [&](OdeState& state, double at) {
          try {
            project(model, data, state, q_scratch, qd_scratch);
          } catch (const SingularConfigurationError& e) {
            throw SingularState{at, e.what(), e.loop()};
          }
        };
        project_state(end, interval.second);
        // The samples inside the step, projected before any is reported: a failure rejects the
        // whole step.
        for (int k = next_sample; k <= sample_count && sample_time(k) <= interval.second; ++k) {
          stepper.calc_state(sample_time(k), interpolated);
          project_state(interpolated, sample_time(k));
          if (samples.size() <= projected) samples.emplace_back();
          samples[projected++] = interpolated;
        }
        note_step(tried);
        time = interval.second;
        next_step = stepper.current_time_step();
      } catch (const SingularState& singular) {
        // The trajectory itself reaches a singular configuration: the run ends there.
        throw SingularConfigurationError(at_time(singular.time) + singular.message, singular.loop);
      } catch (const Error& e) {
        // Rejected (a projection that fails, or a stage evaluation at a singular configuration
        // that a shorter step may avoid): back to the last accepted state with a quarter of the
        // step.
        ++summary.rejected_steps;
        next_step = tried / 4.0;
        if (next_step < smallest_allowed)
          throw ClosureError(at_time(time) + "the step size fell below " +
                                 seconds(smallest_allowed) + ": " + e.what(),
                             error_loop(e));
        stepper.initialize(x, time, next_step);
        continue;
      } catch (const odeint::step_adjustment_error&) {
        throw ClosureError(at_time(time) + "the step size fell below " +
                           seconds(stepper.current_time_step()) +
                           " (the error control rejected 500 steps in a row)");
      }
      for (std::size_t s = 0; s < projected; ++s) {
        unpack(samples[s]);
        observe(next_sample++);
      }
      x = end;
      stepper.initialize(x, time, next_step);
    }
  }
  summary.evaluations = system.evaluations;
  // q and qd hold the last sample, the state at T (Dormand-Prince's last step may end past T).
  summary.steps = sample_count;
  summary.final_time = options.duration;
  summary.work = work;
  const double scale = std::max(std::abs(energy0), largest_kinetic);
  summary.energy_scale = scale;
  summary.energy_drift = scale > 0.0 ? largest_imbalance / scale : 0.0;
  summary.kinetic_energy_drift =
      largest_kinetic > 0.0 ? largest_kinetic_imbalance / largest_kinetic : 0.0;
  return summary;
}

}  // namespace skograph

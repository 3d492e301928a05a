#include "simulate_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/simulation.hpp"
#include "skograph/report/json_output.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;
using report::format_json;
using report::vector_json;

constexpr const char* kUsage =
    "usage: skograph simulate MODEL [--state STATE.json] --t T --dt H [--method dopri5|rk4] "
    "[--rtol R] [--atol A] [--out TRAJ.csv [--loop-forces]] [--json] [--strict] "
    "[--independent JOINT,...] [--loops LOOPS.yaml] [--base LINK]";

struct SimulateArguments {
  std::string file, state_file, csv, duration_text, step_text;
  double duration = 0.0, step = 0.0;
  Integrator integrator = Integrator::kDormandPrince;
  double relative_tolerance = SimulationOptions().relative_tolerance;
  double absolute_tolerance = SimulationOptions().absolute_tolerance;
  bool has_duration = false, has_step = false, json = false;
  bool loop_forces = false;  // --loop-forces: the trajectory gets the loop and coupling forces
  ReadOptions read;          // --strict, --independent, --loops
};

SimulateArguments parse_simulate_arguments(const std::vector<std::string>& args) {
  SimulateArguments parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    if (parse_model_option(args, i, parsed.read, kUsage)) continue;
    const std::string& arg = args[i];
    if (arg == "--json") {
      parsed.json = true;
    } else if (arg == "--loop-forces") {
      parsed.loop_forces = true;
    } else if (arg == "--state" || arg == "--t" || arg == "--dt" || arg == "--out" ||
               arg == "--method" || arg == "--rtol" || arg == "--atol") {
      const std::string& value = require_value(args, i, kUsage);
      if (arg == "--state") parsed.state_file = value;
      if (arg == "--out") parsed.csv = value;
      if (arg == "--method") {
        if (value == "dopri5")
          parsed.integrator = Integrator::kDormandPrince;
        else if (value == "rk4")
          parsed.integrator = Integrator::kRungeKutta4;
        else
          throw UsageError("--method must be dopri5 or rk4, not '" + value + "'");
      }
      if (arg == "--rtol" || arg == "--atol") {
        const double tolerance = parse_number(arg, value);
        if (!(tolerance > 0.0 && tolerance < 1.0))
          throw UsageError(arg + " must be a number between 0 and 1, not '" + value + "'");
        (arg == "--rtol" ? parsed.relative_tolerance : parsed.absolute_tolerance) = tolerance;
      }
      if (arg == "--t") {
        parsed.duration = parse_number(arg, value);
        parsed.duration_text = value;
        parsed.has_duration = true;
      }
      if (arg == "--dt") {
        parsed.step = parse_number(arg, value);
        parsed.step_text = value;
        parsed.has_step = true;
      }
    } else {
      positional_argument(arg, parsed.file, kUsage, "MODEL");
    }
  }
  require_argument(parsed.file, kUsage, "MODEL");
  if (!parsed.has_duration) throw UsageError(std::string("no --t given (") + kUsage + ")");
  if (!parsed.has_step) throw UsageError(std::string("no --dt given (") + kUsage + ")");
  if (parsed.loop_forces && parsed.csv.empty())
    throw UsageError("--loop-forces adds columns to the trajectory: give --out TRAJ.csv too");
  if (is_standard_output(parsed.csv) && parsed.json)
    throw UsageError("--out - and --json would both write to standard output");
  try {
    simulation_step_count(parsed.duration, parsed.step);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--t " + parsed.duration_text + " --dt " + parsed.step_text + ": " + e.what());
  }
  return parsed;
}

// The trajectory: a file written through OutputFile (graph/output_file.hpp: no partial file when
// the run fails, devices and FIFOs written in place), or standard output for "-".
class Trajectory {
 public:
  Trajectory(const std::string& path, std::ostream& out) {
    if (is_standard_output(path))
      stream_ = &out;
    else if (!path.empty())
      file_.emplace(path);
  }
  bool enabled() const { return stream_ != nullptr || file_.has_value(); }
  void write(const std::string& text) {
    if (file_) file_->write(text);
    if (stream_) write_standard_output(*stream_, text, "-");
  }
  void commit() {
    if (file_) file_->commit();
    if (stream_) write_standard_output(*stream_, "", "-");
  }

 private:
  std::optional<OutputFile> file_;
  std::ostream* stream_ = nullptr;
};

int run_simulate(const std::vector<std::string>& arguments, std::ostream& out, std::ostream& err) {
  const SimulateArguments args = parse_simulate_arguments(arguments);
  const Model loaded = load_model(args.file, args.read);
  keep_warnings(loaded);
  const DofOrder& order = loaded.dof_order();  // outputs are in the file's order
  const ModelState state = load_state(args.state_file, loaded);
  check_forces_move_mass(
      loaded, state.tau,
      args.state_file.empty() ? std::string("the zero state") : "the state " + args.state_file);
  const std::vector<std::string>& dofs = order.names();
  SimulationOptions options;
  options.duration = args.duration;
  options.step = args.step;
  options.integrator = args.integrator;
  options.relative_tolerance = args.relative_tolerance;
  options.absolute_tolerance = args.absolute_tolerance;
  options.gravity = state.gravity;
  const Eigen::VectorXd& tau = state.tau;
  options.tau = tau;

  Trajectory csv(args.csv, out);
  if (csv.enabled()) {
    // Header: t, the dofs' q, their qd (suffix _qd), the energy (kinetic + gravity potential).
    std::string header = "t";
    for (const std::string& dof : dofs) header += "," + dof;
    for (const std::string& dof : dofs) header += "," + dof + "_qd";
    header += ",energy";
    if (args.loop_forces)
      for (const std::string& column : constraint_force_names(loaded)) header += "," + column;
    csv.write(header + "\n");
  }
  // The forces of each sample's motion (model/dynamics.hpp: constraint_forces), on a workspace of
  // their own (the run keeps its own).
  ModelData workspace(loaded), force_workspace(loaded);
  if (loaded.is_closed_chain()) note_whole_mechanism(args.file, *loaded.closed_chain());
  int reported_tenths = 0;
  const bool show_progress = &err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  Simulation run;
  try {
    run = simulate(loaded, workspace, state.q, state.qd, options,
                   [&](const SimulationSample& sample) {
                     if (sample.step == 0)
                       add_state_messages(args.file, state_messages(loaded, workspace));
                     if (csv.enabled()) {
                       std::ostringstream row;
                       row << std::setprecision(17) << sample.time;
                       for (Eigen::Index i = 0; i < sample.q->size(); ++i)
                         row << "," << (*sample.q)(i);
                       for (Eigen::Index i = 0; i < sample.qd->size(); ++i)
                         row << "," << (*sample.qd)(i);
                       row << "," << sample.kinetic_energy + sample.potential_energy;
                       if (args.loop_forces) {
                         const ConstraintForces forces = constraint_forces(
                             loaded, force_workspace, *sample.q, *sample.qd, tau, state.gravity);
                         for (const auto& force : forces.loop)
                           for (int i = 0; i < 6; ++i) row << "," << force(i);
                         for (const auto& force : forces.coupling)
                           for (Eigen::Index i = 0; i < force.size(); ++i) row << "," << force(i);
                       }
                       row << "\n";
                       csv.write(row.str());
                     }
                     // Progress of long runs on a terminal only (a line every 10 % of the samples):
                     // redirected, stderr stays the one line of an error or nothing.
                     if (show_progress && sample.step_count > 1000) {
                       const int tenths = static_cast<int>(10LL * sample.step / sample.step_count);
                       if (tenths > reported_tenths) {
                         reported_tenths = tenths;
                         err << "skograph simulate: " << 10 * tenths << "% (t = " << sample.time
                             << " s)" << std::endl;
                       }
                     }
                   });
  } catch (const OutputError&) {  // the trajectory file
    throw;
  } catch (const Error& e) {  // cannot close, singular configuration, singular mass matrix
    throw closure_failure(args.file, args.state_file, e, loaded.mechanism());
  }
  csv.commit();
  const SimulationSummary& summary = run.summary;
  const std::vector<std::string>& independent = run.independent;
  const Eigen::VectorXd& q = run.q;
  const Eigen::VectorXd& qd = run.qd;
  if (args.json) {
    Json report;
    report["dofs"] = dofs;
    report["independent"] = independent;
    report["steps"] = summary.steps;
    report["t"] = summary.final_time;
    report["dt"] = args.step;
    report["method"] = args.integrator == Integrator::kDormandPrince ? "dopri5" : "rk4";
    if (args.integrator == Integrator::kDormandPrince) {
      report["rtol"] = args.relative_tolerance;
      report["atol"] = args.absolute_tolerance;
    }
    report["accepted_steps"] = summary.accepted_steps;
    report["rejected_steps"] = summary.rejected_steps;
    report["evaluations"] = summary.evaluations;
    report["energy_drift"] = summary.energy_drift;
    report["kinetic_energy_drift"] = summary.kinetic_energy_drift;
    report["initial_energy"] = summary.initial_energy;
    report["final_energy"] = summary.final_energy;
    report["work"] = summary.work;
    report["position_residual"] = summary.max_position_residual;
    report["velocity_residual"] = summary.max_velocity_residual;
    report["q"] = vector_json(q);
    report["qd"] = vector_json(qd);
    out << format_json(report);
    return kExitOk;
  }
  std::ostringstream text;
  text << std::setprecision(6);
  text << "model " << args.file << ": " << dofs.size() << " dofs, " << independent.size()
       << " independent:";
  for (const std::string& name : independent) text << " " << name;
  text << "\n";
  if (args.integrator == Integrator::kDormandPrince)
    text << "simulated to t = " << summary.final_time << " s with Dormand-Prince 5(4) (rtol "
         << args.relative_tolerance << ", atol " << args.absolute_tolerance
         << "): " << summary.accepted_steps << " steps of " << summary.smallest_step << " to "
         << summary.largest_step << " s, " << summary.rejected_steps
         << " rejected after a failed projection, " << summary.evaluations
         << " evaluations; samples every " << args.step << " s\n";
  else
    text << "simulated " << summary.accepted_steps << " RK4 steps of " << args.step
         << " s to t = " << summary.final_time << " s (" << summary.evaluations
         << " evaluations)\n";
  text << std::setprecision(3) << "energy drift: " << summary.energy_drift
       << " (largest |E(t) - E(0) - W(t)|, E = kinetic + gravity potential, W = work of tau, "
          "relative to "
       << summary.energy_scale << " J = max(|E(0)|, largest kinetic energy))\n"
       << "energy drift without the gravity potential: " << summary.kinetic_energy_drift
       << " (kinetic energy alone: conserved only without gravity)\n"
       << "constraint residuals: position " << summary.max_position_residual << ", velocity "
       << summary.max_velocity_residual << " (largest over the samples)\n"
       << std::setprecision(6) << "energy " << summary.initial_energy << " J at t = 0, "
       << summary.final_energy << " J at the end; work of tau " << summary.work << " J\n"
       << "final state:\n";
  text << std::left << std::setw(14) << "dof" << std::right << std::setw(14) << "q" << std::setw(14)
       << "qd"
       << "\n";
  for (size_t i = 0; i < dofs.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    text << std::left << std::setw(14) << dofs[i] << std::right << std::setw(14) << q(k)
         << std::setw(14) << qd(k) << "\n";
  }
  if (csv.enabled()) text << "trajectory: " << args.csv << " (" << summary.steps + 1 << " rows)\n";
  // With the trajectory on standard output, the summary goes to standard error.
  (is_standard_output(args.csv) ? err : out) << text.str();
  return kExitOk;
}

}  // namespace

int simulate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run_simulate(args, out, err);
}

}  // namespace skograph::cli

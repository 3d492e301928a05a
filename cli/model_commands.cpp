#include "model_commands.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include <optional>
#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/model/batch.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/timing.hpp"
#include "skograph/report/json_output.hpp"
#include "skograph/sparse/sparse_export.hpp"

#include "usage.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;
using report::format_json;
using report::matrix_json;
using report::vector_json;

constexpr const char* kDynamicsUsage =
    "usage: skograph dynamics MODEL [--state STATE.json] [--json] [--mass dense|sparse|none] "
    "[--solver embedding|multipliers] [--strict] [--independent JOINT,...] [--loops LOOPS.yaml] "
    "[--base LINK]";
// Above this many dofs `dynamics` gives M sparse unless --mass dense asks (a dense 2000 x 2000
// matrix is 32 MB of numbers); a dense M (dynamics --mass dense, bench's mass and fd-crba) is
// refused above kDenseLimit dofs (5000: a 200 MB matrix, about 350 MB as text), so that no input
// asks for more memory than the machine has.
constexpr int kDenseMassDofs = 2000;
constexpr int kDenseLimit = 5000;
constexpr const char* kBenchUsage =
    "usage: skograph bench MODEL --algo id|fd|mass|fd-crba|id-derivatives|fd-derivatives|ALGO "
    "[--solver embedding|multipliers] "
    "[--batch N [--threads T] [--simd S]] [--reps N] [--json] [--strict] "
    "[--independent JOINT,...] [--loops LOOPS.yaml] [--base LINK]";

// The value of --solver at args[i] (i moves to it): UsageError when missing or unknown.
ClosedChainSolver solver_option(const std::vector<std::string>& args, std::size_t& i,
                                const char* usage) {
  if (i + 1 == args.size())
    throw UsageError(std::string("--solver needs embedding or multipliers (") + usage + ")");
  const std::optional<ClosedChainSolver> solver = parse_solver(args[++i]);
  if (!solver)
    throw UsageError("unknown --solver '" + args[i] + "' (expected embedding or multipliers)");
  return *solver;
}

std::string dynamics_text(const std::vector<std::string>& dofs, const ModelState& state,
                          const Eigen::MatrixXd& mass, const Eigen::VectorXd& bias,
                          const Eigen::VectorXd& qdd, const Eigen::VectorXd& tau) {
  std::ostringstream text;
  text << dofs.size() << " dofs, " << gravity_text(state.gravity) << "\n";
  write_table(text, dofs, nullptr,
              {{"q", &state.q},
               {"qd", &state.qd},
               {"bias", &bias},
               {"tau in", &state.tau},
               {"qdd out", &qdd},
               {"qdd in", &state.qdd},
               {"tau out", &tau}});
  text << "bias = C(q, qd) with gravity; qdd out = forward dynamics for tau in; tau out = inverse "
          "dynamics for qdd in\nmass matrix M(q):\n";
  write_matrix(text, mass);
  return text.str();
}

DynamicsArguments parse_dynamics_arguments(const std::vector<std::string>& args) {
  DynamicsArguments parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    if (parse_model_option(args, i, parsed.read, kDynamicsUsage)) continue;
    if (args[i] == "--json") {
      parsed.json = true;
    } else if (args[i] == "--mass") {
      if (i + 1 == args.size())
        throw UsageError(std::string("--mass needs dense, sparse or none (") + kDynamicsUsage +
                         ")");
      const std::string& value = args[++i];
      if (value == "dense")
        parsed.mass = MassOutput::kDense;
      else if (value == "sparse")
        parsed.mass = MassOutput::kSparse;
      else if (value == "none")
        parsed.mass = MassOutput::kNone;
      else
        throw UsageError("unknown --mass '" + value + "' (expected dense, sparse or none)");
    } else if (args[i] == "--state") {
      if (i + 1 == args.size())
        throw UsageError(std::string("--state needs a file (") + kDynamicsUsage + ")");
      parsed.state_file = args[++i];
    } else if (args[i] == "--solver") {
      parsed.solver = solver_option(args, i, kDynamicsUsage);
    } else {
      positional_argument(args[i], parsed.file, kDynamicsUsage, "MODEL");
    }
  }
  require_argument(parsed.file, kDynamicsUsage, "MODEL");
  return parsed;
}

// M as the JSON of docs/command-line.md: dense rows, or the lower triangle in coordinate form
// (1-based rows and columns, as Matrix Market's symmetric storage).
Json sparse_mass_json(const Eigen::SparseMatrix<double>& mass) {
  Json rows = Json::array(), columns = Json::array(), values = Json::array();
  for (int c = 0; c < mass.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(mass, c); it; ++it)
      if (it.row() >= c) {
        rows.push_back(it.row() + 1);
        columns.push_back(c + 1);
        values.push_back(it.value());
      }
  Json json;
  json["format"] = "coordinate";
  json["symmetry"] = "lower";
  json["size"] = mass.rows();
  json["rows"] = rows;
  json["columns"] = columns;
  json["values"] = values;
  return json;
}

int run_tree_dynamics(const DynamicsArguments& args, const Model& model, std::ostream& out) {
  const DofOrder& order = model.dof_order();
  const ModelState state = load_state(args.state_file, model);
  check_forces_move_mass(model, state.tau, state_source(args.state_file));
  // Everything through the library's file-order calls (model/model.hpp).
  const ModelState& shown = state;
  ModelData data(model);
  MassOutput mass_output = args.mass;
  if (mass_output == MassOutput::kDefault)
    mass_output = model.dof_count() > kDenseMassDofs ? MassOutput::kSparse : MassOutput::kDense;
  Eigen::MatrixXd mass;
  Eigen::SparseMatrix<double> sparse_mass;
  if (mass_output == MassOutput::kDense) {
    if (model.dof_count() > kDenseLimit)
      throw UsageError(args.file + ": a dense mass matrix of " + std::to_string(model.dof_count()) +
                       " dofs is too large (at most " + std::to_string(kDenseLimit) +
                       "): use --mass sparse");
    mass = mass_matrix(model, data, shown.q);
  } else if (mass_output == MassOutput::kSparse) {
    const ModelSko sko = model_sko(model, data, shown.q, false);
    sparse_mass = SparseExport(*sko.sko, {sko.hinge_rows, sko.node_rows}).mass();
  }
  const Eigen::VectorXd bias = bias_forces(model, data, shown.q, shown.qd, state.gravity);
  Eigen::VectorXd qdd;
  try {
    qdd = forward_dynamics(model, data, shown.q, shown.qd, shown.tau, state.gravity);
  } catch (const SingularMassMatrixError& e) {
    throw UsageError(args.file + ": " + e.what() + " (" + state_source(args.state_file) + ")");
  }
  const Eigen::VectorXd tau =
      inverse_dynamics(model, data, shown.q, shown.qd, shown.qdd, state.gravity);
  const bool mass_finite =
      mass.allFinite() &&
      Eigen::Map<const Eigen::VectorXd>(sparse_mass.valuePtr(), sparse_mass.nonZeros()).allFinite();
  if (!mass_finite || !bias.allFinite() || !qdd.allFinite() || !tau.allFinite())
    throw UsageError(args.file +
                     ": the dynamics are not finite at this state (singular mass matrix?)");

  // Everything is computed before anything is written: no partial output.
  if (args.json) {
    Json report;
    Json dofs = Json::array();
    for (const std::string& name : order.names()) dofs.push_back(name);
    report["dofs"] = dofs;
    report["q"] = vector_json(shown.q);
    report["qd"] = vector_json(shown.qd);
    if (mass_output == MassOutput::kDense) report["M"] = matrix_json(mass);
    if (mass_output == MassOutput::kSparse) report["M"] = sparse_mass_json(sparse_mass);
    report["bias"] = vector_json(bias);
    report["qdd"] = vector_json(qdd);
    report["tau"] = vector_json(tau);
    out << format_json(report);
  } else {
    std::string text = dynamics_text(order.names(), shown, mass, bias, qdd, tau);
    if (mass_output != MassOutput::kDense) {
      text = text.substr(0, text.rfind("mass matrix M(q):\n"));
      text += mass_output == MassOutput::kSparse
                  ? "mass matrix M(q): " + std::to_string(model.dof_count()) + " x " +
                        std::to_string(model.dof_count()) + ", " +
                        std::to_string(sparse_mass.nonZeros()) +
                        " nonzeros (not printed: --json gives them, skograph export writes them)\n"
                  : std::string();
    }
    out << "model " << args.file << "\n" << text;
  }
  return kExitOk;
}

int run_dynamics(const std::vector<std::string>& arguments, std::ostream& out) {
  const DynamicsArguments args = parse_dynamics_arguments(arguments);
  const Model model = load_model(args.file, args.read);
  keep_warnings(model);
  if (model.is_closed_chain()) return run_closed_dynamics(args, model, out);
  return run_tree_dynamics(args, model, out);
}

int run_bench(const std::vector<std::string>& args, std::ostream& out) {
  std::string file, algo;
  int reps = 31, threads = 1;
  long batch = 0;
  std::optional<Simd> simd;
  bool json = false;
  std::optional<ClosedChainSolver> solver;
  ReadOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    if (parse_model_option(args, i, options, kBenchUsage)) continue;
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--solver") {
      solver = solver_option(args, i, kBenchUsage);
    } else if (args[i] == "--simd") {
      simd = parse_simd(require_value(args, i, kBenchUsage), "--simd");
    } else if (args[i] == "--algo" || args[i] == "--reps" || args[i] == "--batch" ||
               args[i] == "--threads") {
      const std::string option = args[i];
      const std::string value = require_value(args, i, kBenchUsage);
      if (option == "--algo")
        algo = value;
      else if (option == "--reps")
        reps = parse_integer("--reps", value, 1, 100000);
      else if (option == "--batch")
        batch = parse_integer("--batch", value, 1, 10000000);
      else
        threads = parse_integer("--threads", value, 1, 256);
    } else {
      positional_argument(args[i], file, kBenchUsage, "MODEL");
    }
  }
  require_argument(file, kBenchUsage, "MODEL");
  const std::vector<std::string>& algorithms = timed_algorithms();
  if (std::ranges::find(algorithms, algo) == algorithms.end()) {
    std::string expected;
    for (const std::string& name : algorithms) expected += (expected.empty() ? "" : ", ") + name;
    throw UsageError(
        (algo.empty() ? std::string("no --algo given") : "unknown --algo '" + algo + "'") +
        " (expected " + expected + ")");
  }
  if (solver && algo != "fd") throw UsageError("--solver applies to --algo fd only");
  if (batch == 0 && threads != 1) throw UsageError("--threads splits a --batch: give --batch N");
  if (batch > 0 && solver) throw UsageError("--batch times the embedded dynamics, not --solver");
  if (batch == 0 && simd) throw UsageError("--simd chooses a --batch's lanes: give --batch N");

  const Model loaded = load_model(file, options);
  keep_warnings(loaded);
  if (loaded.is_closed_chain()) note_whole_mechanism(file, *loaded.closed_chain());
  const Timing timing =
      batch > 0
          ? time_batch(loaded, algo, batch, threads, reps, simd.value_or(Simd::kAuto))
          : time_algorithm(loaded, algo, solver.value_or(ClosedChainSolver::kEmbedding), reps);
  const double ns = timing.ns_per_call;
  if (json) {
    Json report;
    report["algo"] = algo;
    report["ns_per_call"] = ns;
    out << format_json(report);
  } else {
    out << "skograph bench " << file << ": " << algo << " " << std::setprecision(4) << ns
        << (batch > 0 ? " ns per state (median of " : " ns per call (median of ") << reps
        << (batch > 0 ? " runs of " + std::to_string(batch) + " states on " +
                            std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
                            (timing.simd == Simd::kScalar
                                 ? std::string(", state by state")
                                 : std::string(", ") + simd_name(timing.simd) + " lanes")
                      : std::string(" batches"))
        << ", " << timing.dofs << " dofs";
    if (loaded.is_closed_chain()) out << ", " << timing.independent << " independent";
    out << ")\n";
  }
  return kExitOk;
}

}  // namespace

int dynamics_command(const std::vector<std::string>& args, std::ostream& out) {
  return run_dynamics(args, out);
}

int bench_command(const std::vector<std::string>& args, std::ostream& out) {
  return run_bench(args, out);
}

}  // namespace skograph::cli

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
#include "bench_algorithms.hpp"
#include "dynamics_report.hpp"
#include "skograph/cli/commands.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/io/state_reader.hpp"
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
    "usage: skograph bench MODEL --algo id|fd|mass|fd-crba|ALGO [--solver embedding|multipliers] "
    "[--reps N] [--json] [--strict] [--independent JOINT,...] [--loops LOOPS.yaml] [--base LINK]";

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

std::string dynamics_text(const std::vector<std::string>& dofs, const MechanismState& state,
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
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError("unknown option '" + args[i] + "' (" + kDynamicsUsage + ")");
    } else if (parsed.file.empty()) {
      parsed.file = args[i];
    } else {
      throw UsageError("more than one MODEL given ('" + parsed.file + "', '" + args[i] + "')");
    }
  }
  if (parsed.file.empty()) throw UsageError(std::string("no MODEL given (") + kDynamicsUsage + ")");
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
  const MechanismState state = load_state(args.state_file, model);
  check_forces_move_mass(model, state.tau, state_source(args.state_file));
  // Everything through the library's file-order calls (model/model.hpp).
  const MechanismState shown = in_file_order(order, state);
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

// A generic state: every coordinate, rate and input nonzero and distinct.
struct BenchState {
  explicit BenchState(int n) : q(n), qd(n), qdd(n), tau(n), solution(n) {
    for (int i = 0; i < n; ++i) {
      q(i) = 0.3 * std::sin(1.0 + i);
      qd(i) = 0.5 * std::cos(2.0 + i);
      qdd(i) = 0.2 * std::sin(3.0 + i);
      tau(i) = std::cos(4.0 + i);
    }
  }
  // Closed chains: the generic q assembled (rigid/closed_chain_model.hpp), the dependent qd from
  // the independent ones.
  void close(const ClosedChainModel& model, ClosedChainData& data, const std::string& file) {
    try {
      assemble(model, data, q);
      close_velocities(model, data, q, qd);
    } catch (const Error& e) {
      throw UsageError(naming_file(file, e.what()) + " (bench state)");
    }
  }
  Eigen::VectorXd q, qd, qdd, tau, solution;
  const Eigen::Vector3d gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
};

double bench_tree(const RigidBodyModel& model, RigidBodyData& data, BenchState& s,
                  const std::string& algo, int reps, double& sink) {
  if (algo == "id")
    return median_ns_per_call(
        reps, [&] { sink += inverse_dynamics(model, data, s.q, s.qd, s.qdd, s.gravity)(0); });
  if (algo == "fd")
    return median_ns_per_call(
        reps, [&] { sink += forward_dynamics(model, data, s.q, s.qd, s.tau, s.gravity)(0); });
  if (algo == "mass")
    return median_ns_per_call(reps, [&] { sink += mass_matrix(model, data, s.q)(0, 0); });
  // Forward dynamics by composite body inertias: M and C by the recursions, then a dense
  // Cholesky solve of M qdd = tau - C (O(N^3)).
  Eigen::LLT<Eigen::MatrixXd> cholesky(model.dof_count());
  return median_ns_per_call(reps, [&] {
    cholesky.compute(mass_matrix(model, data, s.q));
    s.solution = s.tau - bias_forces(model, data, s.q, s.qd, s.gravity);
    cholesky.solveInPlace(s.solution);
    sink += s.solution(0);
  });
}

// The same algorithms in minimal coordinates (rigid/closed_chain_model.hpp): id = X* (M qdd + C)
// for the independent qdd (Newton-Euler on the tree), fd = the articulated-body forward dynamics
// through each aggregate's member tree, mass = M_R = X* M X from the tree's composite inertias,
// fd-crba = M_R, the minimal bias X* (M Xdot qd_R + C)
// and a dense Cholesky solve of M_R qdd_R = X* tau - bias_R.
double bench_closed_chain(const ClosedChainModel& model, ClosedChainData& data, BenchState& s,
                          const std::string& algo, ClosedChainSolver solver, int reps,
                          double& sink) {
  const auto n_independent = static_cast<Eigen::Index>(data.independent.size());
  const Eigen::VectorXd qdd_independent = s.qdd.head(n_independent);
  const Eigen::VectorXd zero_independent = Eigen::VectorXd::Zero(n_independent);
  Eigen::VectorXd reduced(n_independent);
  if (algo == "id")
    return median_ns_per_call(reps, [&] {
      sink += inverse_dynamics(model, data, s.q, s.qd, qdd_independent, s.gravity)(0);
    });
  if (algo == "fd" && solver == ClosedChainSolver::kMultipliers) {
    MultiplierWorkspace work(model);  // the augmented system (rigid/multiplier_dynamics.hpp)
    return median_ns_per_call(reps, [&] {
      sink += forward_dynamics_by_multipliers(model, data, work, s.q, s.qd, s.tau, s.gravity)(0);
    });
  }
  if (algo == "fd")
    return median_ns_per_call(
        reps, [&] { sink += forward_dynamics(model, data, s.q, s.qd, s.tau, s.gravity)(0); });
  if (algo == "mass")
    return median_ns_per_call(reps, [&] { sink += reduced_mass_matrix(model, data, s.q)(0, 0); });
  Eigen::LLT<Eigen::MatrixXd> cholesky(n_independent);
  return median_ns_per_call(reps, [&] {
    cholesky.compute(reduced_mass_matrix(model, data, s.q));
    reduced = -inverse_dynamics(model, data, s.q, s.qd, zero_independent, s.gravity);
    reduced.noalias() += data.X.transpose() * s.tau;
    cholesky.solveInPlace(reduced);
    sink += reduced(0);
  });
}

int run_bench(const std::vector<std::string>& args, std::ostream& out) {
  std::string file, algo;
  int reps = 31;
  bool json = false;
  std::optional<ClosedChainSolver> solver;
  ReadOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    if (parse_model_option(args, i, options, kBenchUsage)) continue;
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--solver") {
      solver = solver_option(args, i, kBenchUsage);
    } else if (args[i] == "--algo" || args[i] == "--reps") {
      if (i + 1 == args.size()) throw UsageError(args[i] + " needs a value (" + kBenchUsage + ")");
      const std::string value = args[++i];
      if (args[i - 1] == "--algo") {
        algo = value;
      } else {
        reps = parse_integer("--reps", value, 1, 100000);
      }
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError("unknown option '" + args[i] + "' (" + kBenchUsage + ")");
    } else if (file.empty()) {
      file = args[i];
    } else {
      throw UsageError("more than one MODEL given ('" + file + "', '" + args[i] + "')");
    }
  }
  if (file.empty()) throw UsageError(std::string("no MODEL given (") + kBenchUsage + ")");
  const std::vector<std::string>& family = family_algorithms();
  const bool in_family = std::ranges::find(family, algo) != family.end();
  if (algo != "id" && algo != "fd" && algo != "mass" && algo != "fd-crba" && !in_family) {
    std::string expected = "id, fd, mass, fd-crba";
    for (const std::string& name : family) expected += ", " + name;
    throw UsageError(
        (algo.empty() ? std::string("no --algo given") : "unknown --algo '" + algo + "'") +
        " (expected " + expected + ")");
  }
  if (solver && algo != "fd") throw UsageError("--solver applies to --algo fd only");

  const Model loaded = load_model(file, options);
  keep_warnings(loaded);
  const bool closed = loaded.is_closed_chain();
  double ns = 0.0, sink = 0.0;  // sink keeps the calls observable
  int n = 0, independent_count = 0;
  if (closed && in_family)
    throw UsageError(file + ": --algo " + algo +
                     " runs on trees (the SKO model of the spanning tree is not the closed "
                     "chain's); closed chains take id, fd, mass or fd-crba");
  if (closed) {
    const ClosedChainModel& model = *loaded.closed_chain();
    ClosedChainData data(model);
    n = model.dof_count();
    if (n == 0) throw UsageError(file + ": the model has no dofs to time");
    BenchState state(n);
    state.close(model, data, file);
    independent_count = static_cast<int>(data.independent.size());
    if (independent_count == 0)
      throw UsageError(file + ": the loops lock the mechanism: no independent coordinate to time");
    note_whole_mechanism(file, model);
    try {
      ns = bench_closed_chain(model, data, state, algo,
                              solver.value_or(ClosedChainSolver::kEmbedding), reps, sink);
    } catch (const Error& e) {  // the multiplier method on a model whose M is singular
      throw UsageError(naming_file(file, e.what()));
    }
  } else {
    const RigidBodyModel& model = loaded.tree();
    if ((algo == "mass" || algo == "fd-crba" || family_builds_dense_matrix(algo)) &&
        model.dof_count() > kDenseLimit)
      throw UsageError(file + ": --algo " + algo + " builds a dense mass matrix, and " +
                       std::to_string(model.dof_count()) + " dofs are too many for it (at most " +
                       std::to_string(kDenseLimit) + "; id and fd are O(N))");
    if (model.dof_count() == 0) throw UsageError(file + ": the model has no dofs to time");
    // The SKO family's forward dynamics solve with M, which a joint moving no mass leaves
    // singular (the world-frame fd prescribes zero acceleration there instead).
    if (in_family && algo.starts_with("fd-") && !loaded.massless_joints().empty())
      throw UsageError(file + ": --algo " + algo + " solves with M, which is singular (joint '" +
                       loaded.mechanism().joints[loaded.massless_joints().front()].name +
                       "' moves no mass)");
    if (algo.starts_with("fd-base-invariant"))
      for (const int k : model.forest().bases())
        if (model.joint_geometry(k).type != JointType::kFloating)
          throw UsageError(file + ": --algo " + algo + " needs a free-flying tree (joint '" +
                           loaded.mechanism().joints[static_cast<std::size_t>(k)].name +
                           "' attaches a base link to the world and is not floating)");
    RigidBodyData data(model);
    n = model.dof_count();
    BenchState state(n);
    independent_count = n;
    ns = in_family ? bench_family(model, data, state.q, state.qd, state.qdd, state.tau,
                                  state.gravity, algo, reps, sink)
                   : bench_tree(model, data, state, algo, reps, sink);
  }
  if (!std::isfinite(sink))
    throw UsageError(file + ": the dynamics are not finite (singular mass matrix?)");
  if (json) {
    Json report;
    report["algo"] = algo;
    report["ns_per_call"] = ns;
    out << format_json(report);
  } else {
    out << "skograph bench " << file << ": " << algo << " " << std::setprecision(4) << ns
        << " ns per call (median of " << reps << " batches, " << n << " dofs";
    if (closed) out << ", " << independent_count << " independent";
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

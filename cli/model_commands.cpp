#include "cli/model_commands.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/json_output.hpp"
#include "graph/digraph.hpp"
#include "io/mechanism_file.hpp"
#include "io/state_reader.hpp"
#include "rigid/rigid_body_model.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kDynamicsUsage =
    "usage: skograph dynamics MODEL [--state STATE.json] [--json]";
constexpr const char* kBenchUsage =
    "usage: skograph bench MODEL --algo id|fd|mass|fd-crba [--reps N] [--json]";

// Bad usage or input: reported by the command as one line, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The model of a tree mechanism file (massless fixed leaves dropped, see io/mechanism_file.hpp).
// Closed chains are refused: `dynamics` and `bench` need constraint embedding for them.
RigidBodyModel load_tree_model(const std::string& file) {
  Mechanism mechanism = read_mechanism_file(file);
  if (!mechanism.loops.empty() || !mechanism.couplings.empty())
    throw InputError(
        file, 0,
        "closed chains (" + std::to_string(mechanism.loops.size()) + " loop(s), " +
            std::to_string(mechanism.couplings.size()) +
            " coupling(s)) need constraint embedding, which this version of skograph does not "
            "provide; 'skograph graph " +
            file + "' shows their digraph");
  try {
    return RigidBodyModel(without_massless_fixed_leaves(mechanism));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // names the file (Mechanism::source)
  }
}

Json vector_json(const Eigen::VectorXd& v) {
  Json list = Json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) list.push_back(v(i));
  return list;
}

std::string dynamics_text(const std::vector<std::string>& dofs, const MechanismState& state,
                          const Eigen::MatrixXd& mass, const Eigen::VectorXd& bias,
                          const Eigen::VectorXd& qdd, const Eigen::VectorXd& tau) {
  std::ostringstream text;
  text << dofs.size() << " dofs, gravity (" << state.gravity.x() << ", " << state.gravity.y()
       << ", " << state.gravity.z() << ")\n";
  text << std::left << std::setw(14) << "dof" << std::right;
  for (const char* column : {"q", "qd", "bias", "tau in", "qdd out", "qdd in", "tau out"})
    text << std::setw(13) << column;
  text << "\n";
  text << std::setprecision(6);
  for (size_t i = 0; i < dofs.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    text << std::left << std::setw(14) << dofs[i] << std::right;
    for (double value :
         {state.q(k), state.qd(k), bias(k), state.tau(k), qdd(k), state.qdd(k), tau(k)})
      text << std::setw(13) << value;
    text << "\n";
  }
  text << "bias = C(q, qd) with gravity; qdd out = forward dynamics for tau in; tau out = inverse "
          "dynamics for qdd in\nmass matrix M(q):\n";
  for (Eigen::Index r = 0; r < mass.rows(); ++r) {
    for (Eigen::Index c = 0; c < mass.cols(); ++c) text << std::setw(13) << mass(r, c);
    text << "\n";
  }
  return text.str();
}

int run_dynamics(const std::vector<std::string>& args, std::ostream& out) {
  std::string file, state_file;
  bool json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--state") {
      if (i + 1 == args.size())
        throw UsageError(std::string("--state needs a file (") + kDynamicsUsage + ")");
      state_file = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError("unknown option '" + args[i] + "' (" + kDynamicsUsage + ")");
    } else if (file.empty()) {
      file = args[i];
    } else {
      throw UsageError("more than one MODEL given ('" + file + "', '" + args[i] + "')");
    }
  }
  if (file.empty()) throw UsageError(std::string("no MODEL given (") + kDynamicsUsage + ")");

  const RigidBodyModel model = load_tree_model(file);
  const MechanismState state = state_file.empty() ? zero_state(model.mechanism())
                                                  : read_state_file(state_file, model.mechanism());
  RigidBodyData data(model);
  const Eigen::MatrixXd mass = mass_matrix(model, data, state.q);
  const Eigen::VectorXd bias = bias_forces(model, data, state.q, state.qd, state.gravity);
  const Eigen::VectorXd qdd =
      forward_dynamics(model, data, state.q, state.qd, state.tau, state.gravity);
  const Eigen::VectorXd tau =
      inverse_dynamics(model, data, state.q, state.qd, state.qdd, state.gravity);
  if (!mass.allFinite() || !bias.allFinite() || !qdd.allFinite() || !tau.allFinite())
    throw UsageError(file + ": the dynamics are not finite at this state (singular mass matrix?)");

  // Everything is computed before anything is written: no partial output.
  if (json) {
    Json report;
    Json dofs = Json::array(), rows = Json::array();
    for (const std::string& name : model.dof_names()) dofs.push_back(name);
    for (Eigen::Index r = 0; r < mass.rows(); ++r)
      rows.push_back(vector_json(mass.row(r).transpose()));
    report["dofs"] = dofs;
    report["q"] = vector_json(state.q);
    report["qd"] = vector_json(state.qd);
    report["M"] = rows;
    report["bias"] = vector_json(bias);
    report["qdd"] = vector_json(qdd);
    report["tau"] = vector_json(tau);
    out << format_json(report);
  } else {
    out << "model " << file << "\n"
        << dynamics_text(model.dof_names(), state, mass, bias, qdd, tau);
  }
  return kExitOk;
}

// Median wall time per call of `call`: batches of calls long enough (>= 0.2 ms) for the clock,
// `reps` batches, the median batch divided by its size.
template <class Call>
double median_ns_per_call(int reps, Call call) {
  using Clock = std::chrono::steady_clock;
  auto batch_seconds = [&](long calls) {
    const auto start = Clock::now();
    for (long i = 0; i < calls; ++i) call();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  long calls = 1;
  while (batch_seconds(calls) < 2e-4 && calls < (1L << 30)) calls *= 2;
  std::vector<double> per_call(static_cast<size_t>(reps));
  for (double& t : per_call) t = batch_seconds(calls) * 1e9 / static_cast<double>(calls);
  std::nth_element(per_call.begin(), per_call.begin() + reps / 2, per_call.end());
  return per_call[static_cast<size_t>(reps / 2)];
}

int run_bench(const std::vector<std::string>& args, std::ostream& out) {
  std::string file, algo;
  int reps = 31;
  bool json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--algo" || args[i] == "--reps") {
      if (i + 1 == args.size()) throw UsageError(args[i] + " needs a value (" + kBenchUsage + ")");
      const std::string value = args[++i];
      if (args[i - 1] == "--algo") {
        algo = value;
      } else {
        size_t used = 0;
        long parsed = 0;
        try {
          parsed = std::stol(value, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != value.size() || parsed < 1 || parsed > 100000)
          throw UsageError("--reps must be an integer from 1 to 100000, not '" + value + "'");
        reps = static_cast<int>(parsed);
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
  if (algo != "id" && algo != "fd" && algo != "mass" && algo != "fd-crba")
    throw UsageError(
        (algo.empty() ? std::string("no --algo given") : "unknown --algo '" + algo + "'") +
        " (expected id, fd, mass or fd-crba)");

  const RigidBodyModel model = load_tree_model(file);
  RigidBodyData data(model);
  // A generic state: every coordinate, rate and input nonzero and distinct.
  const int n = model.dof_count();
  Eigen::VectorXd q(n), qd(n), qdd(n), tau(n), solution(n);
  for (int i = 0; i < n; ++i) {
    q(i) = 0.3 * std::sin(1.0 + i);
    qd(i) = 0.5 * std::cos(2.0 + i);
    qdd(i) = 0.2 * std::sin(3.0 + i);
    tau(i) = std::cos(4.0 + i);
  }
  const Eigen::Vector3d gravity(0.0, 0.0, -9.81);
  Eigen::LLT<Eigen::MatrixXd> cholesky(n);
  double sink = 0.0;  // keeps the calls observable
  double ns = 0.0;
  if (algo == "id") {
    ns = median_ns_per_call(reps,
                            [&] { sink += inverse_dynamics(model, data, q, qd, qdd, gravity)(0); });
  } else if (algo == "fd") {
    ns = median_ns_per_call(reps,
                            [&] { sink += forward_dynamics(model, data, q, qd, tau, gravity)(0); });
  } else if (algo == "mass") {
    ns = median_ns_per_call(reps, [&] { sink += mass_matrix(model, data, q)(0, 0); });
  } else {
    // Forward dynamics by composite body inertias: M and C by the recursions, then a dense
    // Cholesky solve of M qdd = tau - C (O(N^3)).
    ns = median_ns_per_call(reps, [&] {
      cholesky.compute(mass_matrix(model, data, q));
      solution = tau - bias_forces(model, data, q, qd, gravity);
      cholesky.solveInPlace(solution);
      sink += solution(0);
    });
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
        << " ns per call (median of " << reps << " batches, " << n << " dofs)\n";
  }
  return kExitOk;
}

// One line on stderr for every kind of bad input, exit status 2, nothing on stdout.
template <class Run>
int guarded(const char* command, Run run, std::ostream& err) {
  try {
    return run();
  } catch (const InputError& e) {
    err << "skograph " << command << ": " << e.what() << "\n";
  } catch (const UsageError& e) {
    err << "skograph " << command << ": " << e.what() << "\n";
  }
  return kExitBadInput;
}

}  // namespace

int dynamics_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded(
      "dynamics", [&] { return run_dynamics(args, out); }, err);
}

int bench_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return guarded(
      "bench", [&] { return run_bench(args, out); }, err);
}

}  // namespace skograph::cli

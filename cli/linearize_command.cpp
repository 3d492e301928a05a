// `skograph linearize`: the linearization at a state file's state, as text or JSON
// (docs/command-line.md); everything computed before anything is written.
#include "linearize_command.hpp"

#include <iomanip>
#include <numbers>
#include <ostream>
#include <sstream>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/model/linearization.hpp"
#include "skograph/report/json_output.hpp"
#include "usage.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;
using report::format_json;
using report::matrix_json;
using report::vector_json;

constexpr const char* kLinearizeUsage =
    "usage: skograph linearize MODEL [--state STATE.json] [--inputs NAME,...] [--dt DT] "
    "[--hold | --rest] [--json] [--strict] [--independent JOINT,...] [--loops LOOPS.yaml] "
    "[--base LINK]";
// The state has 2 dofs entries: A is (2 dofs)^2, refused above this many dofs.
constexpr int kDenseLinearizationLimit = 2500;

struct LinearizeArguments {
  std::string file, state_file;
  std::vector<std::string> inputs;
  double dt = 0.0;
  bool hold = false, rest = false, json = false;
  ReadOptions read;
};

LinearizeArguments parse_arguments(const std::vector<std::string>& args) {
  LinearizeArguments parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    if (parse_model_option(args, i, parsed.read, kLinearizeUsage)) continue;
    if (args[i] == "--json") {
      parsed.json = true;
    } else if (args[i] == "--hold") {
      parsed.hold = true;
    } else if (args[i] == "--rest") {
      parsed.rest = true;
    } else if (args[i] == "--state") {
      parsed.state_file = require_value(args, i, kLinearizeUsage);
    } else if (args[i] == "--inputs") {
      parsed.inputs = parse_name_list("--inputs", require_value(args, i, kLinearizeUsage));
    } else if (args[i] == "--dt") {
      parsed.dt = parse_number("--dt", require_value(args, i, kLinearizeUsage));
      if (!(parsed.dt > 0.0))
        throw UsageError("--dt must be a positive number of seconds, not '" + args[i] + "'");
    } else {
      positional_argument(args[i], parsed.file, kLinearizeUsage, "MODEL");
    }
  }
  require_argument(parsed.file, kLinearizeUsage, "MODEL");
  if (parsed.hold && parsed.rest)
    throw UsageError(std::string("--hold and --rest do not go together (") + kLinearizeUsage + ")");
  return parsed;
}

Json names_json(const std::vector<std::string>& names) {
  Json list = Json::array();
  for (const std::string& name : names) list.push_back(name);
  return list;
}

const char* stability_word(Stability stability) {
  switch (stability) {
    case Stability::kStable:
      return "stable";
    case Stability::kUnstable:
      return "unstable";
    case Stability::kMarginal:
      return "marginal";
  }
  return "";
}

// "stable": true, false or "marginal".
Json stability_json(Stability stability) {
  if (stability == Stability::kMarginal) return "marginal";
  return stability == Stability::kStable;
}

struct Operating {
  Eigen::VectorXd q, qd, tau;
};

}  // namespace

int linearize_command(const std::vector<std::string>& arguments, std::ostream& out) {
  const LinearizeArguments args = parse_arguments(arguments);
  const Model model = load_model(args.file, args.read);
  keep_warnings(model);
  if (model.dof_count() > kDenseLinearizationLimit)
    throw UsageError(args.file + ": a dense linearization of " + std::to_string(model.dof_count()) +
                     " dofs is too large (at most " + std::to_string(kDenseLinearizationLimit) +
                     ")");
  const ModelState state = load_state(args.state_file, model);
  if (!args.hold)  // the state's tau is the operating point's (the hold finds its own)
    check_forces_move_mass(model, state.tau, state_source(args.state_file));
  ModelData data(model);
  input_dofs(model, args.inputs);  // an unknown input named before anything is computed
  Operating at{state.q, state.qd, state.tau};
  Hold held;
  Rest rested;
  Linearization lin;
  try {
    if (args.hold) {
      held = hold(model, data, state.q, args.inputs, state.gravity);
      at.qd.setZero();
      at.tau = held.tau;
    }
    if (args.rest) {
      rested = rest(model, data, state.q, state.gravity);
      at.q = rested.q;
      at.qd.setZero();
    }
    lin = linearize(model, data, at.q, at.qd, at.tau, args.inputs, args.dt, state.gravity);
  } catch (const Error& e) {  // what the state leads to: named with it
    throw state_failure(args.file, args.state_file, e.what());
  }

  const std::vector<std::string>& dofs = model.dof_names();
  if (args.json) {
    Json report;
    report["states"] = names_json(lin.states);
    report["inputs"] = names_json(lin.inputs);
    report["A"] = matrix_json(lin.A);
    report["B"] = matrix_json(lin.B);
    Json eigenvalues = Json::array();
    for (const std::complex<double>& lambda : lin.eigenvalues)
      eigenvalues.push_back(Json::array({lambda.real(), lambda.imag()}));
    report["eigenvalues"] = eigenvalues;
    Json modes = Json::array();
    for (const OscillatoryMode& mode : lin.modes) {
      Json shape = Json::object();
      for (std::size_t i = 0; i < dofs.size(); ++i)
        shape[dofs[i]] = mode.shape[static_cast<Eigen::Index>(i)];
      modes.push_back(Json{{"frequency_hz", mode.frequency_hz},
                           {"damping_ratio", mode.damping_ratio},
                           {"shape", shape}});
    }
    report["modes"] = modes;
    if (args.dt > 0.0) {
      report["A_d"] = matrix_json(lin.A_d);
      report["B_d"] = matrix_json(lin.B_d);
    }
    if (args.hold) {
      Json forces = Json::object();
      for (std::size_t a = 0; a < held.inputs.size(); ++a)
        forces[held.inputs[a]] = held.input_forces[static_cast<Eigen::Index>(a)];
      report["tau_hold"] = forces;
      report["hold_residual"] = held.residual;
    }
    if (args.rest) {
      report["q_rest"] = vector_json(rested.q);
      report["stable"] = stability_json(rested.stability);
    }
    out << format_json(report);
    return kExitOk;
  }
  std::ostringstream text;
  text << "model " << args.file << "\n"
       << dofs.size() << " dofs, " << gravity_text(state.gravity) << "; x = (q, qd) in tangent "
       << "coordinates (docs/derivatives.md), u = the inputs' forces (" << lin.inputs.size()
       << ")\n";
  if (model.is_closed_chain()) {
    text << "closed chain: x = (q_R, qd_R) in its independent coordinates at the closed state:";
    for (std::size_t a = 0; a < lin.states.size() / 2; ++a) text << " " << lin.states[a];
    text << "; mode shapes over every dof (X v_R)\n";
  }
  if (args.hold) {
    text << "held at rest by the inputs' forces (residual acceleration " << held.residual << "):\n";
    for (std::size_t a = 0; a < held.inputs.size(); ++a)
      text << "  " << held.inputs[a] << " " << held.input_forces[static_cast<Eigen::Index>(a)]
           << "\n";
  }
  if (args.rest) {
    text << "rest configuration (" << stability_word(rested.stability) << "):\n";
    for (std::size_t i = 0; i < dofs.size(); ++i)
      text << "  " << dofs[i] << " " << rested.q[static_cast<Eigen::Index>(i)] << "\n";
  }
  text << "eigenvalues of A:\n";
  for (const std::complex<double>& lambda : lin.eigenvalues)
    text << "  " << lambda.real() << (lambda.imag() < 0 ? " - " : " + ") << std::abs(lambda.imag())
         << "i\n";
  text << "oscillatory modes: " << lin.modes.size() << "\n";
  for (const OscillatoryMode& mode : lin.modes) {
    text << "  " << mode.frequency_hz << " Hz, damping ratio " << mode.damping_ratio << ", shape";
    for (std::size_t i = 0; i < dofs.size(); ++i)
      text << " " << dofs[i] << "=" << mode.shape[static_cast<Eigen::Index>(i)];
    text << "\n";
  }
  text << "A (states: q then qd):\n";
  write_matrix(text, lin.A);
  text << "B (inputs:";
  for (const std::string& name : lin.inputs) text << " " << name;
  text << "):\n";
  write_matrix(text, lin.B);
  if (args.dt > 0.0) {
    text << "A_d (zero-order hold, dt " << args.dt << "):\n";
    write_matrix(text, lin.A_d);
    text << "B_d:\n";
    write_matrix(text, lin.B_d);
  }
  out << text.str();
  return kExitOk;
}

}  // namespace skograph::cli

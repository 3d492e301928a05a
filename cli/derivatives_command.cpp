// `skograph derivatives`: the model's derivatives at a state file's state, as text or JSON
// (docs/command-line.md), every matrix computed before anything is written.
#include "derivatives_command.hpp"

#include <ostream>
#include <sstream>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/report/json_output.hpp"
#include "usage.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;
using report::format_json;
using report::matrix_json;
using report::vector_json;

constexpr const char* kDerivativesUsage =
    "usage: skograph derivatives MODEL [--state STATE.json] [--json] [--strict] "
    "[--independent JOINT,...] [--loops LOOPS.yaml] [--base LINK]";
// Dense dofs x dofs results are refused above this many dofs, as `dynamics` refuses a dense M.
constexpr int kDenseDerivativesLimit = 5000;

struct DerivativesArguments {
  std::string file, state_file;
  bool json = false;
  ReadOptions read;
};

DerivativesArguments parse_arguments(const std::vector<std::string>& args) {
  DerivativesArguments parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    if (parse_model_option(args, i, parsed.read, kDerivativesUsage)) continue;
    if (args[i] == "--json") {
      parsed.json = true;
    } else if (args[i] == "--state") {
      parsed.state_file = require_value(args, i, kDerivativesUsage);
    } else {
      positional_argument(args[i], parsed.file, kDerivativesUsage, "MODEL");
    }
  }
  require_argument(parsed.file, kDerivativesUsage, "MODEL");
  return parsed;
}

std::string derivatives_text(const std::vector<std::string>& dofs, const ModelState& state,
                             const ForwardDerivatives& forward, const InverseDerivatives& inverse) {
  std::ostringstream text;
  text << dofs.size() << " dofs, " << gravity_text(state.gravity) << "\n";
  write_table(text, dofs, nullptr,
              {{"q", &state.q},
               {"qd", &state.qd},
               {"tau", &state.tau},
               {"qdd", &forward.qdd},
               {"qdd in", &state.qdd},
               {"tau out", &inverse.tau}});
  text << "qdd = forward dynamics for tau, where dqdd/* are taken; dtau/* at qdd in (tau out = "
          "inverse dynamics there); d/dq along the configuration's tangent (docs/derivatives.md); "
          "rows and columns in the dofs' order above\n";
  const std::pair<const char*, const Eigen::MatrixXd*> matrices[] = {
      {"dqdd/dq", &forward.dqdd_dq},
      {"dqdd/dqd", &forward.dqdd_dqd},
      {"dqdd/dtau = M^-1", &forward.dqdd_dtau},
      {"dtau/dq", &inverse.dtau_dq},
      {"dtau/dqd", &inverse.dtau_dqd},
      {"dtau/dqdd = M", &inverse.mass}};
  for (const auto& [name, matrix] : matrices) {
    text << name << ":\n";
    write_matrix(text, *matrix);
  }
  return text.str();
}

}  // namespace

int derivatives_command(const std::vector<std::string>& arguments, std::ostream& out) {
  const DerivativesArguments args = parse_arguments(arguments);
  const Model model = load_model(args.file, args.read);
  keep_warnings(model);
  if (model.dof_count() > kDenseDerivativesLimit)
    throw UsageError(args.file + ": dense derivatives of " + std::to_string(model.dof_count()) +
                     " dofs are too large (at most " + std::to_string(kDenseDerivativesLimit) +
                     ")");
  const ModelState state = load_state(args.state_file, model);
  check_forces_move_mass(model, state.tau, state_source(args.state_file));
  ModelData data(model);
  ForwardDerivatives forward;
  InverseDerivatives inverse;
  try {
    forward_dynamics_derivatives(model, data, state.q, state.qd, state.tau, state.gravity, forward);
    inverse_dynamics_derivatives(model, data, state.q, state.qd, state.qdd, state.gravity, inverse);
  } catch (const Error& e) {  // what the state leads to (singular M, overflow): named with it
    throw state_failure(args.file, args.state_file, e.what());
  }

  // Everything is computed before anything is written: no partial output.
  if (args.json) {
    Json report;
    Json dofs = Json::array();
    for (const std::string& name : model.dof_names()) dofs.push_back(name);
    report["dofs"] = dofs;
    report["q"] = vector_json(state.q);
    report["qd"] = vector_json(state.qd);
    report["tau"] = vector_json(state.tau);
    report["qdd"] = vector_json(forward.qdd);
    report["dqdd_dq"] = matrix_json(forward.dqdd_dq);
    report["dqdd_dqd"] = matrix_json(forward.dqdd_dqd);
    report["dqdd_dtau"] = matrix_json(forward.dqdd_dtau);
    report["dtau_dq"] = matrix_json(inverse.dtau_dq);
    report["dtau_dqd"] = matrix_json(inverse.dtau_dqd);
    report["M"] = matrix_json(inverse.mass);
    out << format_json(report);
  } else {
    out << "model " << args.file << "\n"
        << derivatives_text(model.dof_names(), state, forward, inverse);
  }
  return kExitOk;
}

}  // namespace skograph::cli

// `skograph derivatives`: the model's derivatives at a state file's state, as text or JSON
// (docs/command-line.md), every matrix computed before anything is written.
#include "derivatives_command.hpp"

#include <ostream>
#include <sstream>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/state.hpp"
#include "skograph/report/json_output.hpp"
#include "usage.hpp"
#include "warnings.hpp"

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
  const bool closed = forward.independent.size() != dofs.size();  // in q_R
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
          "inverse dynamics there); d/dq along the configuration's tangent (docs/derivatives.md); ";
  if (!closed) {
    text << "rows and columns in the dofs' order above\n";
  } else {
    text << "closed chain: q, qd closed; tau out the actuator forces; in the independent "
            "coordinates q_R, rows and columns in their order (dqdd/dtau: columns every dof):";
    for (const std::string& name : forward.independent) text << " " << name;
    text << "\n";
  }
  const std::pair<const char*, const Eigen::MatrixXd*> matrices[] = {
      {"dqdd/dq", &forward.dqdd_dq},
      {"dqdd/dqd", &forward.dqdd_dqd},
      {closed ? "dqdd/dtau = M_R^-1 X*" : "dqdd/dtau = M^-1", &forward.dqdd_dtau},
      {"dtau/dq", &inverse.dtau_dq},
      {"dtau/dqd", &inverse.dtau_dqd},
      {closed ? "dtau/dqdd = M_R" : "dtau/dqdd = M", &inverse.mass}};
  for (const auto& [name, matrix] : matrices) {
    text << name << ":\n";
    write_matrix(text, *matrix);
  }
  return text.str();
}

// A closed chain's "independent", "M_reduced" and, per loop and coupling, its force's
// derivatives {"dq", "dqd", "dtau"} (docs/command-line.md).
void add_closed_json(const Model& model, const ForwardDerivatives& forward,
                     const InverseDerivatives& inverse, Json& report) {
  report["independent"] = forward.independent;
  report["M_reduced"] = matrix_json(inverse.mass);
  const Mechanism& mechanism = model.closed_chain()->mechanism();
  const auto entry = [](const Eigen::MatrixXd& dq, const Eigen::MatrixXd& dqd,
                        const Eigen::MatrixXd& dtau) {
    Json out;
    out["dq"] = matrix_json(dq);
    out["dqd"] = matrix_json(dqd);
    out["dtau"] = matrix_json(dtau);
    return out;
  };
  Json loops = Json::object(), couplings = Json::object();
  for (std::size_t l = 0; l < mechanism.loops.size(); ++l)
    loops[mechanism.loops[l].name] =
        entry(forward.loop_by_q[l], forward.loop_by_qd[l], forward.loop_by_tau[l]);
  for (std::size_t c = 0; c < mechanism.couplings.size(); ++c)
    couplings[mechanism.couplings[c].name] =
        entry(forward.coupling_by_q[c], forward.coupling_by_qd[c], forward.coupling_by_tau[c]);
  report["loop_force_derivatives"] = loops;
  report["coupling_force_derivatives"] = couplings;
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
  ModelState shown = state;  // a closed chain's closed (the independent q and qd kept)
  StateMessages messages;    // what closing it did
  try {
    if (model.is_closed_chain()) {
      const ClosedState closed = close_state(model, data, state.q, state.qd);
      shown.q = closed.q;
      shown.qd = closed.qd;
      messages = state_messages(model, data);
    }
    forward_dynamics_derivatives(model, data, shown.q, shown.qd, state.tau, state.gravity, forward);
    inverse_dynamics_derivatives(model, data, shown.q, shown.qd, state.qdd, state.gravity, inverse);
  } catch (const Error& e) {  // what the state leads to (singular M, overflow): named with it
    throw state_failure(args.file, args.state_file, e.what());
  }
  Eigen::MatrixXd tree_mass;
  if (model.is_closed_chain()) {
    tree_mass = mass_matrix(model, data, shown.q);
    note_whole_mechanism(args.file, *model.closed_chain());
    add_state_messages(args.file, messages);
  }

  // Everything is computed before anything is written: no partial output.
  if (args.json) {
    Json report;
    Json dofs = Json::array();
    for (const std::string& name : model.dof_names()) dofs.push_back(name);
    report["dofs"] = dofs;
    report["q"] = vector_json(shown.q);
    report["qd"] = vector_json(shown.qd);
    report["tau"] = vector_json(state.tau);
    report["qdd"] = vector_json(forward.qdd);
    report["dqdd_dq"] = matrix_json(forward.dqdd_dq);
    report["dqdd_dqd"] = matrix_json(forward.dqdd_dqd);
    report["dqdd_dtau"] = matrix_json(forward.dqdd_dtau);
    report["dtau_dq"] = matrix_json(inverse.dtau_dq);
    report["dtau_dqd"] = matrix_json(inverse.dtau_dqd);
    // A closed chain's "M" is the tree's, as `dynamics --json` gives it; M_R is "M_reduced".
    report["M"] = matrix_json(model.is_closed_chain() ? tree_mass : inverse.mass);
    if (model.is_closed_chain()) add_closed_json(model, forward, inverse, report);
    out << format_json(report);
  } else {
    out << "model " << args.file << "\n"
        << derivatives_text(model.dof_names(), shown, forward, inverse);
  }
  return kExitOk;
}

}  // namespace skograph::cli

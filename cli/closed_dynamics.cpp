// `skograph dynamics` of closed chains through the model's calls: the closed state, forward
// dynamics, actuator forces, X and M_R, and what goes through the loops with the state of each
// aggregate's constraints.
#include <cmath>
#include <iomanip>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/model/constraints.hpp"
#include "skograph/report/json_output.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;
using report::format_json;
using report::matrix_json;
using report::vector_json;

bool all_finite(const ConstraintForces& forces) {
  for (const auto& force : forces.loop)
    if (!force.allFinite()) return false;
  for (const auto& force : forces.coupling)
    if (!force.allFinite()) return false;
  return true;
}

// "aggregates": one object per aggregate (docs: "skograph dynamics on closed chains").
Json aggregates_json(const std::vector<AggregateStatus>& status) {
  Json list = Json::array();
  for (const AggregateStatus& a : status) {
    Json entry;
    entry["loops"] = a.loops;
    entry["couplings"] = a.couplings;
    entry["rows"] = a.rows;
    entry["rank"] = a.rank;
    entry["dependent"] = a.dependent;
    entry["independent"] = a.independent;
    entry["condition_number"] = a.condition_number;
    list.push_back(entry);
  }
  return list;
}

void write_aggregates(std::ostringstream& text, const std::vector<AggregateStatus>& status) {
  text << "aggregates: constraint rows, their rank (= dependent dofs), the condition number of "
          "the constraints on the dependent dofs\n"
       << std::setprecision(3);
  for (const AggregateStatus& a : status) {
    // "loops a b, coupling c"
    std::string closures;
    for (const auto& [kind, names] :
         {std::pair{"loop", a.loops}, std::pair{"coupling", a.couplings}}) {
      if (names.empty()) continue;
      closures +=
          (closures.empty() ? "" : ", ") + std::string(kind) + (names.size() > 1 ? "s" : "");
      for (const std::string& name : names) closures += " " + name;
    }
    text << "  " << closures << ": " << a.rows << " rows, rank " << a.rank << "; dependent:";
    for (const std::string& name : a.dependent) text << " " << name;
    text << "; condition number " << a.condition_number << "\n";
  }
}

void write_forces(std::ostringstream& text, const Mechanism& m, const ConstraintForces& forces) {
  text << std::setprecision(6);
  if (!m.loops.empty()) {
    text << "loop forces (qdd out, tau in): on the child link from the parent, about the joint, "
            "in F_p\n"
         << std::left << std::setw(14) << "loop" << std::right;
    for (const char* name : {"mx", "my", "mz", "fx", "fy", "fz"}) text << std::setw(13) << name;
    text << "\n";
    for (std::size_t l = 0; l < m.loops.size(); ++l) {
      text << std::left << std::setw(14) << m.loops[l].name << std::right;
      for (int i = 0; i < 6; ++i) text << std::setw(13) << forces.loop[l](i);
      text << "\n";
    }
  }
  if (!m.couplings.empty()) {
    text << "coupling forces (qdd out, tau in): on the first joint; the second gets -ratio times\n";
    for (std::size_t c = 0; c < m.couplings.size(); ++c) {
      text << std::left << std::setw(14) << m.couplings[c].name << std::right;
      for (Eigen::Index i = 0; i < forces.coupling[c].size(); ++i)
        text << std::setw(13) << forces.coupling[c](i);
      text << "\n";
    }
  }
}

void add_forces_json(const Mechanism& m, const ConstraintForces& forces, Json& report) {
  Json loops = Json::object(), couplings = Json::object();
  for (std::size_t l = 0; l < m.loops.size(); ++l)
    loops[m.loops[l].name] = vector_json(forces.loop[l]);
  for (std::size_t c = 0; c < m.couplings.size(); ++c)
    couplings[m.couplings[c].name] = vector_json(forces.coupling[c]);
  report["loop_forces"] = loops;
  report["coupling_forces"] = couplings;
}

}  // namespace

// Closed chains by constraint embedding (rigid/closed_chain_model.hpp): the state's independent
// q are kept and the dependent ones closed by Newton, qd = X qd_R; "qdd" is the forward dynamics
// for the state's tau acting on all joints (X* tau in minimal coordinates); "tau" the actuator
// forces for the state's independent qdd: nonzero only at the independent dofs, X* tau = T_R
// (the minimal-coordinate inverse dynamics), so that tau fed back gives qdd_R again;
// the loop and coupling forces of the forward-dynamics motion (qdd for the state's tau) and each
// aggregate's rank, dependent dofs and conditioning.
int run_closed_dynamics(const DynamicsArguments& args, const Model& loaded, std::ostream& out) {
  const ClosedChainModel& model = *loaded.closed_chain();
  const DofOrder& order = loaded.dof_order();
  const ModelState state = load_state(args.state_file, loaded);
  check_forces_move_mass(loaded, state.tau, state_source(args.state_file));
  const int n = model.dof_count();
  ModelData workspace(loaded);
  // Everything below in the file's dof order, through the model's calls (model/dynamics.hpp,
  // model/constraints.hpp), each at the same closed state.
  const Eigen::VectorXd &given_q = state.q, &given_qd = state.qd, &given_qdd = state.qdd,
                        &given_tau = state.tau;
  Eigen::VectorXd q, qd, qdd, qdd_in, tau, bias;
  Eigen::MatrixXd X, mass, reduced_mass;
  Eigen::VectorXd lambda;  // --solver multipliers: one per row of G
  std::vector<std::string> lambda_labels;
  ConstraintForces forces;
  std::vector<AggregateStatus> status;
  std::vector<std::string> independent_names;
  std::vector<ModelData::Moved> moved;
  StateMessages messages;
  try {
    // The given state closed by the library's assembly (model/state.hpp: close_state).
    const ClosedState closed = close_state(loaded, workspace, given_q, given_qd);
    q = closed.q;
    qd = closed.qd;
    independent_names = workspace.independent;
    moved = workspace.moved;  // what this assembly did (later calls start from the closed q)
    messages = state_messages(loaded, workspace);
    const ClosedDynamics dynamics =
        forward_dynamics(loaded, workspace, q, qd, given_tau, state.gravity, args.solver);
    qdd = dynamics.acceleration;
    lambda = dynamics.multipliers;
    lambda_labels = dynamics.labels;
    forces = constraint_forces(loaded, workspace, q, qd, given_tau, state.gravity);
    status = aggregate_status(loaded, workspace, q);
    X = embedding_matrix(loaded, workspace, q);
    qdd_in = consistent_accelerations(loaded, workspace, q, qd, given_qdd);
    reduced_mass = reduced_mass_matrix(loaded, workspace, q);
    tau = inverse_dynamics(loaded, workspace, q, qd, given_qdd, state.gravity);
  } catch (const Error& e) {  // cannot close, singular configuration, singular mass matrix
    throw closure_failure(args.file, args.state_file, e, model.mechanism());
  }
  mass = mass_matrix(loaded, workspace, q);
  bias = bias_forces(loaded, workspace, q, qd, state.gravity);
  if (!mass.allFinite() || !bias.allFinite() || !qdd.allFinite() || !tau.allFinite() ||
      !X.allFinite() || !reduced_mass.allFinite() || !all_finite(forces))
    throw UsageError(args.file + ": the dynamics are not finite at this state");

  // The independent column's mark per dof: "*" kept as the state gives it, "moved" where the
  // assembly had to move it (the warning says by how much).
  std::vector<std::string> is_independent(static_cast<size_t>(n));
  for (std::size_t i = 0; i < order.names().size(); ++i) {
    for (const std::string& name : independent_names)
      if (order.names()[i] == name) is_independent[i] = "*";
    for (const ModelData::Moved& entry : moved)
      if (order.names()[i] == entry.dof) is_independent[i] = "moved";
  }
  note_whole_mechanism(args.file, model);
  add_state_messages(args.file, messages);
  if (args.json) {
    Json report;
    Json dofs = Json::array(), names = Json::array();
    for (const std::string& name : order.names()) dofs.push_back(name);
    for (const std::string& name : independent_names) names.push_back(name);
    report["dofs"] = dofs;
    report["q"] = vector_json(q);
    report["qd"] = vector_json(qd);
    report["M"] = matrix_json(mass);
    report["bias"] = vector_json(bias);
    report["qdd"] = vector_json(qdd);
    report["tau"] = vector_json(tau);
    report["independent"] = names;
    report["X"] = matrix_json(X);
    report["M_reduced"] = matrix_json(reduced_mass);
    add_forces_json(model.mechanism(), forces, report);
    if (args.solver == ClosedChainSolver::kMultipliers) {  // the default keys stay as they were
      report["solver"] = solver_name(args.solver);
      Json rows = Json::array();
      for (Eigen::Index i = 0; i < lambda.size(); ++i)
        rows.push_back(
            {{"constraint", lambda_labels[static_cast<std::size_t>(i)]}, {"lambda", lambda(i)}});
      report["multipliers"] = rows;
    }
    report["aggregates"] = aggregates_json(status);
    out << format_json(report);
    return kExitOk;
  }
  std::ostringstream text;
  const Mechanism& m = model.mechanism();
  text << "model " << args.file << "\n"
       << "closed chain: " << m.loops.size() << " loop(s), " << m.couplings.size()
       << " coupling(s), " << model.aggregate_count() << " aggregate(s):";
  for (int s = 0; s < model.aggregate_count(); ++s)
    text << " {" << aggregate_links(model, s) << "}";
  text << "\n" << independent_names.size() << " of " << n << " dofs independent:";
  for (const std::string& name : independent_names) text << " " << name;
  text << "\n" << n << " dofs, " << gravity_text(state.gravity) << "\n";
  write_table(text, order.names(), &is_independent,
              {{"q", &q},
               {"qd", &qd},
               {"bias", &bias},
               {"tau in", &state.tau},
               {"qdd out", &qdd},
               {"qdd in", &qdd_in},
               {"tau out", &tau}});
  text << "indep * = independent coordinate: its q and qd are the state's, the others are solved "
          "from the loops\n";
  if (!moved.empty())
    text << "indep moved = independent coordinate that had to move to close the loops (the "
            "warning says by how much): its qd is the state's\n";
  text << "bias = C(q, qd) with gravity; qdd out = forward dynamics for tau in on "
          "all joints (X* tau in the minimal coordinates)\nqdd in = the state's independent qdd "
          "made consistent with the loops; tau out = actuator forces for it at the independent "
          "joints (X* tau out = minimal inverse dynamics; zero at the passive joints)\n";
  write_aggregates(text, status);
  write_forces(text, model.mechanism(), forces);
  if (args.solver == ClosedChainSolver::kMultipliers) {
    text << "multipliers (qdd out by the multiplier method): lambda per independent constraint "
            "row, M qdd + C = tau + G* lambda\n";
    for (Eigen::Index i = 0; i < lambda.size(); ++i)
      text << "  " << std::left << std::setw(36) << lambda_labels[static_cast<std::size_t>(i)]
           << std::right << std::setw(13) << lambda(i) << "\n";
  }
  text << "X (dofs x independent: qd = X qd_R):\n";
  write_matrix(text, X);
  text << "reduced mass matrix M_R = X* M X:\n";
  write_matrix(text, reduced_mass);
  text << "tree mass matrix M(q):\n";
  write_matrix(text, mass);
  out << text.str();
  return kExitOk;
}

}  // namespace skograph::cli

// `skograph dynamics|simulate|bench` on closed chains, running the real binary: the JSON keys and
// shapes of the README, X and M_reduced against the tree "M" (M_R = X* M X), the projected
// equations X*(M qdd + C - tau) = 0, the state's independent values kept, an inverse/forward
// round trip, the trajectory CSV, progress lines, and every kind of bad input (one stderr line
// naming the file, exit status 2, nothing on stdout, no trajectory file left behind).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "support/cli_support.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::scratch_dir;
using io_test::write_file;
using OrderedJson = nlohmann::ordered_json;

using cli_test::CliRun;
using cli_test::run_cli;

std::string example(const std::string& name) {
  return cli_test::example_model(name);
}

const char* const kClosedChainExamples[] = {
    "fourbar",       "fourbar_internal_cut", "fourbar_terminal_cut", "geared_links",
    "fourbar_chain", "stewart_platform",     "suspension",           "slider_crank"};

bool swallows_whole_mechanism(const std::string& name) {
  return name == "fourbar" || name == "stewart_platform" || name == "slider_crank";
}

using cli_test::vector_of;

// The rows of a report's matrix, each expected to have `columns` entries.
Eigen::MatrixXd matrix_with_columns(const OrderedJson& rows, Eigen::Index columns) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()), columns);
  for (size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(static_cast<Eigen::Index>(rows[r].size()), columns);
    m.row(static_cast<Eigen::Index>(r)) = vector_of(rows[r]).transpose();
  }
  return m;
}

// The value of dof `name` ("joint" or "joint:i") under `key` of a state file, 0 when absent.
double state_value(const nlohmann::json& state, const char* key, const std::string& name) {
  const auto colon = name.find(':');
  const std::string joint = name.substr(0, colon);
  if (!state.contains(key) || !state[key].contains(joint)) return 0.0;
  return colon == std::string::npos
             ? state[key][joint].get<double>()
             : state[key][joint][std::stoi(name.substr(colon + 1))].get<double>();
}

Eigen::VectorXd state_vector(const nlohmann::json& state, const char* key,
                             const OrderedJson& dofs) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(dofs.size()));
  for (size_t i = 0; i < dofs.size(); ++i)
    v(static_cast<Eigen::Index>(i)) = state_value(state, key, dofs[i].get<std::string>());
  return v;
}

// A state file text with full q, qd, qdd (joint-keyed, multi-dof joints as arrays).
// The state file of q, qd, qdd (and tau), with the original state's gravity when it names one.
std::string state_text(const OrderedJson& original, const OrderedJson& dofs,
                       const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                       const Eigen::VectorXd& qdd, const Eigen::VectorXd* tau = nullptr) {
  std::vector<std::pair<std::string, Eigen::VectorXd>> vectors = {
      {"q", q}, {"qd", qd}, {"qdd", qdd}};
  if (tau) vectors.emplace_back("tau", *tau);
  OrderedJson state = OrderedJson::parse(cli_test::state_json(dofs, vectors));
  if (original.contains("gravity")) state["gravity"] = original["gravity"];
  return state.dump();
}

std::vector<int> independent_indices(const OrderedJson& report) {
  std::vector<int> indices;
  for (const auto& name : report["independent"]) {
    int found = -1;
    for (size_t i = 0; i < report["dofs"].size(); ++i)
      if (report["dofs"][i] == name) found = static_cast<int>(i);
    EXPECT_GE(found, 0) << name;
    indices.push_back(found);
  }
  return indices;
}

TEST(ClosedChainCli, DynamicsJsonOfEveryClosedExampleHasTheDocumentedKeysAndConsistentValues) {
  for (const std::string name : kClosedChainExamples) {
    SCOPED_TRACE(name);
    const std::string state_path = example(name + "_state.json");
    const CliRun run =
        run_cli("dynamics " + example(name + ".yaml") + " --state " + state_path + " --json");
    ASSERT_EQ(run.status, 0) << run.err;
    if (swallows_whole_mechanism(name)) {
      EXPECT_NE(run.err.find("note:"), std::string::npos) << run.err;
      EXPECT_NE(run.err.find("one aggregate holds all"), std::string::npos) << run.err;
      EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
    } else {
      EXPECT_EQ(run.err, "");
    }
    const auto report = OrderedJson::parse(run.out);
    std::vector<std::string> keys;
    for (auto it = report.begin(); it != report.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"dofs", "q", "qd", "M", "bias", "qdd", "tau",
                                              "independent", "X", "M_reduced", "loop_forces",
                                              "coupling_forces", "aggregates"}));
    // The aggregates' dependent dofs are exactly the dofs that are not independent, as many as
    // each aggregate's rank.
    std::set<std::string> dependent;
    for (const auto& aggregate : report["aggregates"]) {
      EXPECT_EQ(aggregate["rank"].get<std::size_t>(), aggregate["dependent"].size());
      EXPECT_LE(aggregate["rank"].get<int>(), aggregate["rows"].get<int>());
      for (const auto& dof : aggregate["dependent"]) dependent.insert(dof.get<std::string>());
    }
    for (const auto& dof : report["dofs"]) {
      const bool is_independent =
          std::find(report["independent"].begin(), report["independent"].end(), dof) !=
          report["independent"].end();
      EXPECT_NE(is_independent, dependent.count(dof.get<std::string>()) == 1) << dof;
    }
    const auto n = static_cast<Eigen::Index>(report["dofs"].size());
    const auto r = static_cast<Eigen::Index>(report["independent"].size());
    ASSERT_GT(r, 0);
    ASSERT_LT(r, n);
    ASSERT_EQ(static_cast<Eigen::Index>(report["X"].size()), n);
    ASSERT_EQ(static_cast<Eigen::Index>(report["M_reduced"].size()), r);
    const Eigen::MatrixXd M = matrix_with_columns(report["M"], n),
                          X = matrix_with_columns(report["X"], r);
    const Eigen::MatrixXd M_reduced = matrix_with_columns(report["M_reduced"], r);
    const Eigen::VectorXd q = vector_of(report["q"]), qd = vector_of(report["qd"]);
    const Eigen::VectorXd bias = vector_of(report["bias"]), qdd = vector_of(report["qdd"]);
    const std::vector<int> independent = independent_indices(report);

    // X: identity rows at the independent dofs; M_R = X* M X (from the tree M of the JSON).
    for (Eigen::Index j = 0; j < r; ++j) {
      Eigen::VectorXd unit = Eigen::VectorXd::Zero(r);
      unit(j) = 1.0;
      EXPECT_LT(
          (X.row(independent[static_cast<size_t>(j)]).transpose() - unit).cwiseAbs().maxCoeff(),
          1e-15);
    }
    const Eigen::MatrixXd expected = X.transpose() * M * X;
    EXPECT_LT((M_reduced - expected).cwiseAbs().maxCoeff(), 1e-9 * expected.cwiseAbs().maxCoeff());
    EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(M_reduced).info(), Eigen::Success);

    // The state's independent q (single-dof joints) and qd are kept; qd = X qd_R.
    std::ifstream state_file(state_path);
    const auto state = nlohmann::json::parse(state_file);
    Eigen::VectorXd qd_independent(r);
    for (Eigen::Index j = 0; j < r; ++j) {
      const int k = independent[static_cast<size_t>(j)];
      const std::string dof = report["dofs"][static_cast<size_t>(k)];
      // A rotation vector's entries are not velocity directions: Newton composes rotations, so
      // only single-dof coordinates are kept literally.
      if (dof.find(':') == std::string::npos) {
        EXPECT_EQ(q(k), state_value(state, "q", dof)) << dof;
      }
      EXPECT_EQ(qd(k), state_value(state, "qd", dof)) << dof;
      qd_independent(j) = qd(k);
    }
    EXPECT_LT((qd - X * qd_independent).cwiseAbs().maxCoeff(),
              1e-9 * (1 + qd.cwiseAbs().maxCoeff()));

    // Forward dynamics: the projected equations X*(M qdd + C - tau) = 0 with the state's tau.
    const Eigen::VectorXd tau_in = state_vector(state, "tau", report["dofs"]);
    const double scale = 1 + M.cwiseAbs().maxCoeff() * qdd.cwiseAbs().maxCoeff() +
                         bias.cwiseAbs().maxCoeff() + tau_in.cwiseAbs().maxCoeff();
    EXPECT_LT((X.transpose() * (M * qdd + bias - tau_in)).cwiseAbs().maxCoeff(), 1e-9 * scale);
    // ... and qdd follows the loops: its independent part determines it, qdd = X qdd_R + Xdot
    // qd_R, so it differs from X qdd_R only by a velocity term, zero at rest (checked below).

    // Round trip: with qdd (consistent) as the input acceleration, "tau" maps by X* to X* tau_in.
    const std::string round_trip =
        write_file(name + "_round_trip.json", state_text(state, report["dofs"], q, qd, qdd));
    const CliRun inverse =
        run_cli("dynamics " + example(name + ".yaml") + " --state " + round_trip + " --json");
    ASSERT_EQ(inverse.status, 0) << inverse.err;
    const auto again = OrderedJson::parse(inverse.out);
    EXPECT_EQ(again["independent"], report["independent"]);
    EXPECT_LT((vector_of(again["q"]) - q).cwiseAbs().maxCoeff(), 1e-12);
    const Eigen::VectorXd tau_out = vector_of(again["tau"]);
    EXPECT_LT((X.transpose() * (tau_out - tau_in)).cwiseAbs().maxCoeff(), 1e-9 * scale);
    // Actuator forces: zero at the dependent (passive) dofs ...
    std::vector<bool> is_independent(static_cast<std::size_t>(n), false);
    for (const int k : independent) is_independent[static_cast<std::size_t>(k)] = true;
    for (Eigen::Index k = 0; k < n; ++k)
      if (!is_independent[static_cast<std::size_t>(k)]) {
        EXPECT_EQ(tau_out(k), 0.0) << k;
      }
    // ... and fed back as the state's tau they give the same motion (to 1e-10).
    const std::string actuated = write_file(
        name + "_actuated.json", state_text(state, report["dofs"], q, qd, qdd, &tau_out));
    const CliRun forward =
        run_cli("dynamics " + example(name + ".yaml") + " --state " + actuated + " --json");
    ASSERT_EQ(forward.status, 0) << forward.err;
    EXPECT_LT((vector_of(OrderedJson::parse(forward.out)["qdd"]) - qdd).cwiseAbs().maxCoeff(),
              1e-10 * (1 + qdd.cwiseAbs().maxCoeff()));
  }
}

TEST(ClosedChainCli, AtRestTheAccelerationIsXTimesTheIndependentAcceleration) {
  // qd = 0: Xdot qd_R = 0, so qdd = X qdd_R exactly, and M_R qdd_R = X* (tau - C).
  const std::string state =
      write_file("rest.json", R"({"tau": {"slide": 3.0, "rocker_joint": 0.4}})");
  const CliRun run =
      run_cli("dynamics " + example("fourbar_internal_cut.yaml") + " --state " + state + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto report = OrderedJson::parse(run.out);
  const auto n = static_cast<Eigen::Index>(report["dofs"].size());
  const auto r = static_cast<Eigen::Index>(report["independent"].size());
  const Eigen::MatrixXd X = matrix_with_columns(report["X"], r),
                        M_R = matrix_with_columns(report["M_reduced"], r);
  const Eigen::VectorXd qdd = vector_of(report["qdd"]), bias = vector_of(report["bias"]);
  const std::vector<int> independent = independent_indices(report);
  Eigen::VectorXd qdd_R(r), tau = Eigen::VectorXd::Zero(n);
  for (Eigen::Index j = 0; j < r; ++j) qdd_R(j) = qdd(independent[static_cast<size_t>(j)]);
  tau(0) = 3.0;
  tau(4) = 0.4;
  EXPECT_LT((qdd - X * qdd_R).cwiseAbs().maxCoeff(), 1e-12);
  const Eigen::VectorXd expected = M_R.llt().solve(X.transpose() * (tau - bias));
  EXPECT_LT((qdd_R - expected).cwiseAbs().maxCoeff(), 1e-9 * (1 + expected.cwiseAbs().maxCoeff()));
}

TEST(ClosedChainCli, DynamicsTextSaysWhichCoordinatesAreIndependent) {
  const CliRun run = run_cli("dynamics " + example("geared_links.yaml") + " --state " +
                             example("geared_links_state.json"));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("2 of 4 dofs independent:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("aggregate(s): {"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("reduced mass matrix M_R = X* M X:"), std::string::npos) << run.out;
  // The independent rows carry the mark.
  const OrderedJson report =
      OrderedJson::parse(run_cli("dynamics " + example("geared_links.yaml") + " --state " +
                                 example("geared_links_state.json") + " --json")
                             .out);
  for (const auto& name : report["independent"]) {
    std::istringstream lines(run.out);
    std::string line;
    bool marked = false;
    while (std::getline(lines, line))
      if (line.rfind(name.get<std::string>() + " ", 0) == 0 &&
          line.find(" * ") != std::string::npos)
        marked = true;
    EXPECT_TRUE(marked) << name;
  }
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream cells_of(line);
    std::string cell;
    while (std::getline(cells_of, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(ClosedChainCli, SimulateWritesTheDocumentedTrajectoryAndSummary) {
  const std::string csv = (scratch_dir() / "fourbar_trajectory.csv").string();
  std::filesystem::remove(csv);
  const std::string state = write_file(
      "free_fourbar.json", R"({"qd": {"slide": 0.3, "coupler_joint": -1.5, "tool_joint": -1.0}})");
  const CliRun run = run_cli("simulate " + example("fourbar_internal_cut.yaml") + " --state " +
                             state + " --t 0.5 --dt 5e-4 --out " + csv + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");  // 1000 steps: no progress lines
  const auto report = OrderedJson::parse(run.out);
  std::vector<std::string> keys;
  for (auto it = report.begin(); it != report.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"dofs",
                                            "independent",
                                            "steps",
                                            "t",
                                            "dt",
                                            "method",
                                            "rtol",
                                            "atol",
                                            "accepted_steps",
                                            "rejected_steps",
                                            "evaluations",
                                            "energy_drift",
                                            "kinetic_energy_drift",
                                            "initial_energy",
                                            "final_energy",
                                            "work",
                                            "position_residual",
                                            "velocity_residual",
                                            "q",
                                            "qd"}));
  EXPECT_EQ(report["steps"], 1000);
  EXPECT_EQ(report["method"], "dopri5");
  EXPECT_EQ(report["rtol"].get<double>(), 1e-9);
  EXPECT_EQ(report["atol"].get<double>(), 1e-9);
  // Dormand-Prince takes far fewer steps than samples here, each of 6 or 7 evaluations.
  EXPECT_GT(report["accepted_steps"].get<int>(), 10);
  EXPECT_LT(report["accepted_steps"].get<int>(), 1000);
  EXPECT_GE(report["evaluations"].get<int>(), 6 * report["accepted_steps"].get<int>());
  EXPECT_EQ(report["t"].get<double>(), 0.5);
  EXPECT_LT(report["energy_drift"].get<double>(), 1e-6);
  EXPECT_LT(report["position_residual"].get<double>(), 1e-10);
  EXPECT_LT(report["velocity_residual"].get<double>(), 1e-10);
  EXPECT_EQ(report["work"].get<double>(), 0.0);

  const auto rows = read_csv(csv);
  ASSERT_EQ(rows.size(), 1002u);  // header + t = 0 + 1000 steps
  std::vector<std::string> header{"t"};
  for (const auto& dof : report["dofs"]) header.push_back(dof);
  for (const auto& dof : report["dofs"]) header.push_back(dof.get<std::string>() + "_qd");
  header.push_back("energy");
  EXPECT_EQ(rows[0], header);
  const size_t n = report["dofs"].size();
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 2 * n + 2);
    EXPECT_NEAR(std::stod(rows[i][0]), 5e-4 * static_cast<double>(i - 1), 1e-12);
  }
  // The last row is the final state of the summary, to the 17 digits written.
  for (size_t k = 0; k < n; ++k) {
    EXPECT_EQ(std::stod(rows.back()[1 + k]), report["q"][k].get<double>());
    EXPECT_EQ(std::stod(rows.back()[1 + n + k]), report["qd"][k].get<double>());
  }
  EXPECT_EQ(std::stod(rows[1].back()), report["initial_energy"].get<double>());
  EXPECT_EQ(std::stod(rows.back().back()), report["final_energy"].get<double>());
  // The energy column is constant to the drift: no forces, no loss.
  for (size_t i = 1; i < rows.size(); ++i)
    EXPECT_NEAR(std::stod(rows[i].back()), report["initial_energy"].get<double>(),
                1e-6 * std::abs(report["initial_energy"].get<double>()));
  // No temporary left next to it.
  for (const auto& entry : std::filesystem::directory_iterator(scratch_dir()))
    EXPECT_EQ(entry.path().string().find(".partial-"), std::string::npos) << entry.path();
}

TEST(ClosedChainCli, EveryExampleSimulatesWithSmallResiduals) {
  for (const std::string name : kClosedChainExamples) {
    SCOPED_TRACE(name);
    const CliRun run = run_cli("simulate " + example(name + ".yaml") + " --state " +
                               example(name + "_state.json") + " --t 0.2 --dt 1e-3 --json");
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err.empty(), !swallows_whole_mechanism(name)) << run.err;
    const auto report = OrderedJson::parse(run.out);
    EXPECT_LT(report["position_residual"].get<double>(), 1e-10);
    EXPECT_LT(report["velocity_residual"].get<double>(), 1e-10);
    EXPECT_LT(report["energy_drift"].get<double>(), 1e-3);
  }
  // Tree models simulate too.
  const CliRun tree = run_cli("simulate " + example("arm7.urdf") + " --state " +
                              example("arm7_state.json") + " --t 0.1 --dt 1e-3 --json");
  ASSERT_EQ(tree.status, 0) << tree.err;
  EXPECT_EQ(OrderedJson::parse(tree.out)["independent"].size(), 7u);
}

TEST(ClosedChainCli, LongRunsReportProgressEveryTenPercentOnATerminalOnly) {
  const std::string arguments = "simulate " + example("geared_links.yaml") + " --t 1.2 --dt 1e-3";
  // Redirected, stderr stays empty on success (and holds one line on failure).
  const CliRun redirected = run_cli(arguments);
  ASSERT_EQ(redirected.status, 0) << redirected.err;
  EXPECT_EQ(redirected.err, "");
  EXPECT_NE(redirected.out.find("energy drift: "), std::string::npos) << redirected.out;
  // On a terminal (script(1) gives the program a pseudo-terminal; stdout goes to /dev/null):
  // a line every 10 %.
  const std::string captured = (scratch_dir() / "progress.txt").string();
  const std::string command = "script -qec '" + std::string(SKOGRAPH_CLI) + " " + arguments +
                              " > /dev/null' /dev/null > " + captured + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(captured);
  std::string line;
  std::vector<std::string> progress;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the terminal's line ends
    progress.push_back(line);
  }
  ASSERT_EQ(progress.size(), 10u);
  EXPECT_EQ(progress.front().rfind("skograph simulate: 10% (t = ", 0), 0u) << progress.front();
  EXPECT_EQ(progress.back(), "skograph simulate: 100% (t = 1.2 s)");
}

TEST(ClosedChainCli, BenchRunsOnClosedChains) {
  for (const std::string algo : {"id", "fd", "mass", "fd-crba"}) {
    const CliRun run =
        run_cli("bench " + example("fourbar_chain.yaml") + " --algo " + algo + " --reps 3 --json");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto report = OrderedJson::parse(run.out);
    EXPECT_EQ(report["algo"], algo);
    EXPECT_GT(report["ns_per_call"].get<double>(), 0.0);
  }
}

// Exit 2, one line on stderr naming `where`, containing `problem`, nothing on stdout.
void expect_bad_input(const std::string& arguments, const std::string& where,
                      const std::vector<std::string>& problems) {
  SCOPED_TRACE(arguments);
  const CliRun run = run_cli(arguments);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "");
  ASSERT_FALSE(run.err.empty());
  // Exactly one line (notes and warnings are printed on success only).
  const std::string& last = run.err;
  EXPECT_EQ(last.find('\n'), last.size() - 1) << run.err;
  EXPECT_NE(last.find(where), std::string::npos) << "expected " << where << " in " << last;
  EXPECT_TRUE(std::ranges::any_of(
      problems,
      [&](const std::string& problem) { return last.find(problem) != std::string::npos; }))
      << "expected " << problems.front() << " in " << last;
}

void expect_bad_input(const std::string& arguments, const std::string& where,
                      const std::string& problem) {
  expect_bad_input(arguments, where, std::vector<std::string>{problem});
}

// A closed chain without dofs (one link welded to the world by its loop) or whose loops lock every
// dof has nothing to time (bench read entry 0 of the results) and nothing to linearize: exit 2
// and one line, not a crash.
TEST(ClosedChainCli, BenchRefusesAClosedChainWithNothingToTime) {
  const std::string urdf = write_file("one_link.urdf", R"(<robot name="one">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>
)");
  const std::string loops =
      write_file("one_link_loops.yaml", "closed_loop: [['base', 'world']]\ntype: ['6d']\n");
  const std::string hinged = write_file("hinged_link.urdf", R"(<robot name="hinged">
  <link name="root"/>
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="revolute"><parent link="root"/><child link="base"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
)");
  for (const std::string algo : {"id", "fd", "mass", "fd-crba"}) {
    expect_bad_input("bench " + urdf + " --loops " + loops + " --algo " + algo + " --reps 3", urdf,
                     "no dofs to time");
    expect_bad_input("bench " + hinged + " --loops " + loops + " --algo " + algo + " --reps 3",
                     hinged, "no independent coordinate to time");
  }
  // Nothing to linearize, hold or rest either: one line, not an eigenproblem of size zero.
  for (const std::string mode : {"", " --hold", " --rest", " --dt 0.01"})
    expect_bad_input("linearize " + hinged + " --loops " + loops + mode, hinged,
                     "cannot move at this state");
  // A tree without dofs (the link alone, no loops) says so, not that loops lock it.
  for (const std::string mode : {"", " --hold", " --rest", " --dt 0.01"})
    expect_bad_input("linearize " + urdf + mode, urdf, "has no degree of freedom");
}

const std::string kTwoLinks = R"(links:
  - {name: a, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
  - {name: b, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
joints:
  - {name: ja, type: revolute, parent: world, child: a, axis: [0, 0, 1]}
  - {name: jb, type: revolute, parent: a, child: b, axis: [0, 0, 1], origin: {xyz: [0.2, 0, 0]}}
)";

std::string edit_first(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ClosedChainCli, ALoopNamingAnUnknownLinkIsReportedAtItsLine) {
  const std::string model = write_file(
      "unknown_link.yaml", kTwoLinks +
                               "loops:\n  - {name: tip, type: spherical, parent: world,\n"
                               "     child: c}\n");
  expect_bad_input("dynamics " + model, model + ":9:", "unknown link 'c'");
  expect_bad_input("simulate " + model + " --t 1 --dt 0.1", model + ":9:", "unknown link 'c'");
}

TEST(ClosedChainCli, AClosureThatCannotBeAssembledIsOneLineAndLeavesNoTrajectory) {
  // The 0.4 m arm's tip tied to a world point 1 m away.
  const std::string model = write_file(
      "reach.yaml", kTwoLinks +
                        "loops:\n  - {name: tip, type: spherical, parent: world, child: b,\n"
                        "     origin: {xyz: [1.0, 0, 0]}, child_origin: {xyz: [0.2, 0, 0]}}\n");
  expect_bad_input("dynamics " + model, model + ":", "loop 'tip' cannot be closed");
  const std::string csv = (scratch_dir() / "reach.csv").string();
  std::filesystem::remove(csv);
  expect_bad_input("simulate " + model + " --t 1 --dt 0.01 --out " + csv, model + ":",
                   "loop 'tip' cannot be closed");
  EXPECT_FALSE(std::filesystem::exists(csv));
  for (const auto& entry : std::filesystem::directory_iterator(scratch_dir()))
    EXPECT_EQ(entry.path().string().find(".partial-"), std::string::npos) << entry.path();
}

TEST(ClosedChainCli, ACouplingOfJointsWithDifferentDofCountsIsReportedAtItsLine) {
  const std::string model = write_file(
      "coupling.yaml", edit_first(kTwoLinks, "jb, type: revolute", "jb, type: spherical") +
                           "couplings:\n  - {name: g, joints: [ja, jb], ratio: 2}\n");
  expect_bad_input("dynamics " + model, model + ":8:", "different dof counts");
  expect_bad_input("simulate " + model + " --t 1 --dt 0.1", model + ":8:", "different dof counts");
}

// A parallelogram four-bar (crank and rocker 0.3 m, coupler and ground 0.35 m) with its change
// point, all links on the x axis, at q = 0.
const std::string kParallelogram = R"(links:
  - {name: crank, mass: 0.3, com: [0.15, 0, 0], inertia: {ixx: 1.0e-5, iyy: 2.3e-3, izz: 2.3e-3}}
  - {name: coupler, mass: 0.4, com: [0.175, 0, 0], inertia: {ixx: 1.0e-5, iyy: 4.1e-3, izz: 4.1e-3}}
  - {name: rocker, mass: 0.3, com: [0.15, 0, 0], inertia: {ixx: 1.0e-5, iyy: 2.3e-3, izz: 2.3e-3}}
joints:
  - {name: crank_joint, type: continuous, parent: world, child: crank, axis: [0, 0, 1]}
  - {name: coupler_joint, type: continuous, parent: crank, child: coupler, axis: [0, 0, 1], origin: {xyz: [0.3, 0, 0]}}
  - {name: rocker_joint, type: continuous, parent: world, child: rocker, axis: [0, 0, 1], origin: {xyz: [0.35, 0, 0]}}
loops:
  - {name: pin, type: revolute, parent: coupler, child: rocker, axis: [0, 0, 1], origin: {xyz: [0.35, 0, 0]}, child_origin: {xyz: [0.3, 0, 0]}}
)";

TEST(ClosedChainCli, FastChainsAndThePlatformRunToTheEndWithinTheGoals) {
  // Fixed-step RK4 with --dt 0.01 gave up at t = 0.29 s on the chain of four-bars and at 0.45 s
  // on the platform (loops that could not be closed); Dormand-Prince with its default tolerances
  // runs both to the end with energy drift below 1e-6 and closure residuals below 1e-9.
  // The runs that gave up: the chain from its state, the platform from the zero state (it falls).
  for (const auto& [model, options] : std::vector<std::pair<std::string, std::string>>{
           {"fourbar_chain", " --state " + example("fourbar_chain_state.json") + " --dt 0.01"},
           {"stewart_platform", " --dt 0.05"}}) {
    SCOPED_TRACE(model);
    const CliRun run = run_cli("simulate " + example(model + ".yaml") + options + " --t 2 --json");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto report = OrderedJson::parse(run.out);
    EXPECT_EQ(report["t"].get<double>(), 2.0);
    EXPECT_LT(report["energy_drift"].get<double>(), 1e-6);
    EXPECT_LT(report["position_residual"].get<double>(), 1e-9);
    EXPECT_LT(report["velocity_residual"].get<double>(), 1e-9);
  }
  // With RK4 at those steps both still stop, in one line with the time. The platform's RK4 step
  // lands the legs where they swing through near-singular configurations (0.4-0.45 s): which of
  // the two ways it stops there (Newton cannot close the step, or the loops lose rank) depends on
  // the choice of dependent coordinates, not on the mechanism.
  expect_bad_input("simulate " + example("fourbar_chain.yaml") + " --state " +
                       example("fourbar_chain_state.json") + " --method rk4 --dt 0.01 --t 2",
                   example("fourbar_chain.yaml") + ": at t = 0.2", "cannot be closed");
  expect_bad_input("simulate " + example("stewart_platform.yaml") + " --method rk4 --dt 0.05 --t 2",
                   example("stewart_platform.yaml") + ": at t = 0.4",
                   std::vector<std::string>{"cannot be closed", "singular configuration"});
}

TEST(ClosedChainCli, ARunIntoASingularConfigurationEndsWithTheStepSizeLine) {
  // The delta robot without motor torques falls until its arms straighten (the loops lose rank):
  // the steps shrink towards that point until they underflow. The fall passes near several such
  // points after about 1.1 s, and trajectories integrated in different dependent coordinates
  // (kept or re-made near a singular configuration: different integration errors) agree to 4e-4
  // until then and part after it, so at which point the step control gives up is not fixed (2.35,
  // 2.71, 3.07 and 4.77 s under the selection policies tried): the time is checked to lie in the
  // fall, not to the digit.
  const std::string model = example("delta_robot.yaml");
  const std::string where = model + ": at t = ";
  const std::string arguments =
      "simulate " + model + " --state " + example("delta_robot_state.json") + " --dt 0.05 --t 5.5";
  expect_bad_input(arguments, where,
                   "s: the step size fell below 5.5e-12 s: singular configuration: ");
  const CliRun run = run_cli(arguments);
  const std::size_t at = run.err.find(where);
  ASSERT_NE(at, std::string::npos) << run.err;
  // After the first near-singular passage, and the loops named.
  EXPECT_GT(std::stod(run.err.substr(at + where.size())), 1.0) << run.err;
  EXPECT_NE(run.err.find("loses rank (10 -> 9)"), std::string::npos) << run.err;
}

TEST(ClosedChainCli, ASingularConfigurationStopsTheRunWithItsTime) {
  // The parallelogram turning through its change point (all links on one line) at t = 0.5 s: the
  // loop's rank drops from 2 to 1 there, a sample time. An existing trajectory file is kept.
  const std::string model = write_file("parallelogram.yaml", kParallelogram);
  const std::string state = write_file(
      "parallelogram.json",
      R"({"gravity": [0, 0, 0], "q": {"crank_joint": 0.5, "coupler_joint": -0.5, "rocker_joint": 0.5},
          "qd": {"crank_joint": -1.0, "coupler_joint": 1.0, "rocker_joint": -1.0}})");
  const std::string csv = write_file("parallelogram.csv", "kept\n");
  expect_bad_input("simulate " + model + " --state " + state + " --t 1 --dt 1e-3 --out " + csv,
                   model + ": at t = 0.5 s",
                   "singular configuration: loop 'pin' loses rank (2 -> 1)");
  std::ifstream kept(csv);
  std::string text((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "kept\n");
}

TEST(ClosedChainCli, DynamicsAtASingularConfigurationIsOneLine) {  // and its derivatives
  // The state is the change point itself: the first update must see the rank drop (generic rank
  // 2, 1 here), not take 1 as the mechanism's rank and give two independent coordinates.
  const std::string model = write_file("parallelogram_at_change.yaml", kParallelogram);
  const std::string state =
      write_file("parallelogram_at_change.json",
                 R"({"q": {"crank_joint": 0.0, "coupler_joint": 0.0, "rocker_joint": 0.0}})");
  expect_bad_input("dynamics " + model + " --state " + state + " --json", model + ":",
                   "singular configuration: loop 'pin' loses rank (2 -> 1)");
  // The derivatives and the linearization there: the state file named, the same words.
  for (const char* command : {"derivatives ", "linearize "})
    expect_bad_input(command + model + " --state " + state + " --json", state + ":",
                     "singular configuration: loop 'pin' loses rank (2 -> 1)");
  // Just off the change point the same model has one independent coordinate.
  const std::string regular =
      write_file("parallelogram_regular.json",
                 R"({"q": {"crank_joint": 0.5, "coupler_joint": -0.5, "rocker_joint": 0.5}})");
  const CliRun run = run_cli("dynamics " + model + " --state " + regular + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(OrderedJson::parse(run.out)["independent"].size(), 1u);
}

TEST(ClosedChainCli, BadDurationsAndStepsAreOneLine) {
  const std::string model = example("fourbar_internal_cut.yaml");
  const std::pair<std::string, std::string> cases[] = {
      {"--t 1", "no --dt given"},
      {"--dt 0.1", "no --t given"},
      {"--t -1 --dt 0.1", "the duration must be a positive number"},
      {"--t 0 --dt 0.1", "the duration must be a positive number"},
      {"--t 1 --dt 0", "the time step must be a positive number"},
      {"--t 1 --dt -0.1", "the time step must be a positive number"},
      {"--t 1 --dt 2", "the time step is longer than the duration"},
      {"--t 1e6 --dt 1e-6", "more than 10^9 time steps"},
      {"--t 1 --dt 0.1 --method euler", "--method must be dopri5 or rk4, not 'euler'"},
      {"--t 1 --dt 0.1 --rtol 0", "--rtol must be a number between 0 and 1, not '0'"},
      {"--t 1 --dt 0.1 --atol 2", "--atol must be a number between 0 and 1, not '2'"},
      {"--t 1 --dt 0.1 --rtol x", "--rtol must be a number"},
      {"--t abc --dt 0.1", "--t must be a number of seconds, not 'abc'"},
      {"--t 1 --dt 0.1s", "--dt must be a number of seconds, not '0.1s'"},
      {"--t 1 --dt nan", "--dt must be a number of seconds, not 'nan'"},
      {"--t 1 --dt", "--dt needs a value"},
      {"--t 1 --dt 0.1 --steps 4", "unknown option '--steps'"},
  };
  for (const auto& [options, problem] : cases)
    expect_bad_input("simulate " + model + " " + options, "skograph simulate: ", problem);
  expect_bad_input("simulate --t 1 --dt 0.1", "skograph simulate: ", "no MODEL given");
  expect_bad_input("simulate " + model + " --t 1 --dt 0.1 --out /nonexistent/dir/t.csv",
                   "/nonexistent/dir/t.csv", "cannot write: No such file or directory");
}

TEST(ClosedChainCli, AnAggregateSwallowingTheWholeMechanismIsANoteAndStillWorks) {
  for (const std::string command : {"dynamics ", "simulate "}) {
    const CliRun run = run_cli(command + example("stewart_platform.yaml") + " --state " +
                               example("stewart_platform_state.json") +
                               (command == "simulate " ? " --t 0.01 --dt 1e-3" : ""));
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err, "skograph " + command.substr(0, command.size() - 1) +
                           ": note: " + example("stewart_platform.yaml") +
                           ": one aggregate holds all 19 joints of the mechanism, so the embedded "
                           "model is a single node (results are exact; the recursions gain "
                           "nothing from the tree structure)\n");
    EXPECT_FALSE(run.out.empty());
  }
}

}  // namespace
}  // namespace skograph

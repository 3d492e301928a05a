// `skograph graph|dynamics|bench` on model files, running the real binary: exact JSON keys, values
// cross-checked against each other and against closed forms, every example model, and every kind
// of bad input (exit status 2, one stderr line naming the file, nothing on stdout).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_support.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::scratch_dir;
using io_test::write_file;

using cli_test::CliRun;
using cli_test::run_cli;

std::string example(const std::string& name) {
  return cli_test::example_model(name);
}

using cli_test::matrix_of;
using cli_test::vector_of;

TEST(ModelCli, GraphOfAModelWithALoopAndACouplingIsTheJsonOfItsStandardDigraph) {
  // The four-bar: tree joints world->crank->coupler, world->rocker, world->rotor; loop
  // coupler->rocker; gear motor->crank_joint, i.e. the cut edge rotor->crank. The same digraph in
  // DOT, edges listed so that the breadth-first tree is the joint tree, must give the same report.
  const std::string dot = write_file("fourbar.dot",
                                     "digraph { world; crank; coupler; rocker; rotor;\n  world -> "
                                     "crank; world -> rocker; world -> rotor; crank -> coupler;\n"
                                     "  coupler -> rocker; rotor -> crank }\n");
  const CliRun from_model = run_cli("graph " + example("fourbar.yaml") + " --json");
  const CliRun from_dot = run_cli("graph " + dot + " --json");
  ASSERT_EQ(from_model.status, 0) << from_model.err;
  ASSERT_EQ(from_dot.status, 0) << from_dot.err;
  EXPECT_EQ(from_model.err, "");
  const auto got = nlohmann::ordered_json::parse(from_model.out);
  EXPECT_EQ(got, nlohmann::ordered_json::parse(from_dot.out));
  EXPECT_EQ(got["nodes"],
            nlohmann::json::parse(R"(["world", "crank", "coupler", "rocker", "rotor"])"));
  EXPECT_EQ(
      got["spanning_tree"]["edges"],
      nlohmann::json::parse(
          R"([["world", "crank"], ["world", "rocker"], ["world", "rotor"], ["crank", "coupler"]])"));
  EXPECT_EQ(got["spanning_tree"]["cut_edges"],
            nlohmann::json::parse(R"([["coupler", "rocker"], ["rotor", "crank"]])"));
}

TEST(ModelCli, GraphKeepsTheJointTreeWhereABreadthFirstSearchWouldTakeTheLoop) {
  const std::string model = write_file("wall.yaml", R"(links:
  - {name: a, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
  - {name: b, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
joints:
  - {name: ja, type: revolute, parent: world, child: a}
  - {name: jb, type: revolute, parent: a, child: b}
loops:
  - {name: wall, type: weld, parent: world, child: b}
)");
  const CliRun run = run_cli("graph " + model + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto got = nlohmann::json::parse(run.out);
  EXPECT_EQ(got["spanning_tree"]["edges"],
            nlohmann::json::parse(R"([["world", "a"], ["a", "b"]])"));
  EXPECT_EQ(got["spanning_tree"]["cut_edges"], nlohmann::json::parse(R"([["world", "b"]])"));
}

TEST(ModelCli, DynamicsJsonHasTheDocumentedKeysAndConsistentValues) {
  for (const std::string name : {"arm7", "humanoid", "space_arm"}) {
    SCOPED_TRACE(name);
    const std::string model = example(name + (name == "humanoid" ? ".yaml" : ".urdf"));
    const std::string state_path = example(name + "_state.json");
    const CliRun run = run_cli("dynamics " + model + " --state " + state_path + " --json");
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err, "");
    const auto report = nlohmann::ordered_json::parse(run.out);
    std::vector<std::string> keys;
    for (auto it = report.begin(); it != report.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"dofs", "q", "qd", "M", "bias", "qdd", "tau"}));
    const Eigen::MatrixXd M = matrix_of(report["M"]);
    const Eigen::VectorXd bias = vector_of(report["bias"]), qdd = vector_of(report["qdd"]);
    const Eigen::VectorXd tau = vector_of(report["tau"]);
    const auto n = M.rows();
    ASSERT_EQ(static_cast<Eigen::Index>(report["dofs"].size()), n);
    EXPECT_LT((M - M.transpose()).cwiseAbs().maxCoeff(), 1e-9 * M.cwiseAbs().maxCoeff());
    EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(M).info(), Eigen::Success);  // positive definite
    // Inputs as given in the state file, in dof order.
    std::ifstream state_file(state_path);
    const auto state = nlohmann::json::parse(state_file);
    Eigen::VectorXd tau_in = Eigen::VectorXd::Zero(n), qdd_in = Eigen::VectorXd::Zero(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const std::string dof = report["dofs"][static_cast<size_t>(i)];
      const auto colon = dof.find(':');
      const std::string joint = dof.substr(0, colon);
      const int index = colon == std::string::npos ? -1 : std::stoi(dof.substr(colon + 1));
      auto value = [&](const char* key) {
        if (!state.contains(key) || !state[key].contains(joint)) return 0.0;
        return index < 0 ? state[key][joint].get<double>() : state[key][joint][index].get<double>();
      };
      tau_in(i) = value("tau");
      qdd_in(i) = value("qdd");
      EXPECT_EQ(report["q"][static_cast<size_t>(i)].get<double>(), value("q")) << dof;
      EXPECT_EQ(report["qd"][static_cast<size_t>(i)].get<double>(), value("qd")) << dof;
    }
    const double scale = 1.0 + M.cwiseAbs().maxCoeff() + bias.cwiseAbs().maxCoeff();
    // Inverse dynamics: tau = M qdd + C; forward dynamics inverts it.
    EXPECT_LT((tau - (M * qdd_in + bias)).cwiseAbs().maxCoeff(), 1e-9 * scale);
    EXPECT_LT((M * qdd + bias - tau_in).cwiseAbs().maxCoeff(), 1e-9 * scale);
  }
}

TEST(ModelCli, DynamicsOfAPendulumMatchesTheClosedForm) {
  // A point-like bob of mass m at distance l on a horizontal y axis: M = m l^2 + I_yy,
  // C = m g l cos(q) (gravity torque about y is -m g l cos q for x rotating towards -z), so
  // qdd = (tau - C) / M. The velocity adds nothing for a single revolute joint.
  const double m = 2.0, l = 0.7, iyy = 1e-3, g = 9.81, q = 0.4, tau = 1.5, qdd = -0.8;
  const std::string model = write_file("pendulum.urdf", R"(<robot name="pendulum">
  <link name="support"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="bob"><inertial><origin xyz="0.7 0 0"/><mass value="2"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
  <joint name="swing" type="continuous"><parent link="support"/><child link="bob"/><axis xyz="0 1 0"/></joint>
</robot>)");
  const std::string state =
      write_file("pendulum.json", R"({"q": {"swing": 0.4}, "qd": {"swing": 3.0},
    "tau": {"swing": 1.5}, "qdd": {"swing": -0.8}})");
  const CliRun run = run_cli("dynamics " + model + " --state " + state + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["dofs"], nlohmann::json::parse(R"(["swing"])"));
  const double mass = m * l * l + iyy, bias = -m * g * l * std::cos(q);
  EXPECT_NEAR(report["M"][0][0].get<double>(), mass, 1e-12);
  EXPECT_NEAR(report["bias"][0].get<double>(), bias, 1e-12);
  EXPECT_NEAR(report["qdd"][0].get<double>(), (tau - bias) / mass, 1e-12);
  EXPECT_NEAR(report["tau"][0].get<double>(), mass * qdd + bias, 1e-12);
}

TEST(ModelCli, BenchReportsAPositiveMedianForEachAlgorithm) {
  // The world-frame recursions and the serial-chain paper's families on the SKO model.
  for (const std::string algo :
       {"id", "fd", "mass", "fd-crba", "id-sko", "id-composite", "mass-sko", "mass-direct",
        "mass-symmetry", "fd-direct", "fd-symmetry", "fd-sko-crba", "fd-innovations", "fd-cg",
        "fd-pcg", "fd-sko"}) {
    const CliRun run =
        run_cli("bench " + example("arm7.urdf") + " --algo " + algo + " --reps 3 --json");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto report = nlohmann::ordered_json::parse(run.out);
    ASSERT_EQ(report.size(), 2u);
    EXPECT_EQ(report.begin().key(), "algo");
    EXPECT_EQ(report["algo"], algo);
    EXPECT_GT(report["ns_per_call"].get<double>(), 0.0);
  }
}

TEST(ModelCli, BenchTimesTheBaseInvariantAlgorithmOnFreeFlyersOnly) {
  for (const std::string algo : {"fd-base-invariant", "fd-base-invariant-2"}) {
    const CliRun run =
        run_cli("bench " + example("space_arm.urdf") + " --algo " + algo + " --reps 3 --json");
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_GT(nlohmann::json::parse(run.out)["ns_per_call"].get<double>(), 0.0);
    const CliRun grounded = run_cli("bench " + example("arm7.urdf") + " --algo " + algo);
    EXPECT_EQ(grounded.status, 2);
    EXPECT_NE(grounded.err.find("needs a free-flying tree"), std::string::npos) << grounded.err;
  }
}

bool graph_has_cut_edges(const std::string& graph_json) {
  return !nlohmann::json::parse(graph_json)["spanning_tree"]["cut_edges"].empty();
}

TEST(ModelCli, EveryExampleModelRunsThroughGraphAndDynamics) {
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SKOGRAPH_SOURCE_DIR) + "/examples/models")) {
    const std::string path = entry.path().string();
    // States, trajectories, loop files (NAME_loops.yaml) and files included by other models
    // (include/) are not models.
    if (entry.path().extension() == ".json" || entry.path().extension() == ".csv" ||
        entry.is_directory() || path.ends_with("_loops.yaml"))
      continue;
    SCOPED_TRACE(path);
    const CliRun graph = run_cli("graph " + path + " --json");
    EXPECT_EQ(graph.status, 0) << graph.err;
    EXPECT_TRUE(nlohmann::json::parse(graph.out)["spanning_tree"]["root"] == "world");
    std::string state = path.substr(0, path.rfind('.')) + "_state.json";
    ASSERT_TRUE(std::filesystem::exists(state));
    const CliRun dynamics = run_cli("dynamics " + path + " --state " + state + " --json");
    EXPECT_EQ(dynamics.status, 0) << dynamics.err;
    const auto report = nlohmann::json::parse(dynamics.out);
    EXPECT_EQ(report["M"].size(), report["dofs"].size());
    // Closed chains (tests/cli/closed_chain_cli_test.cpp) add the minimal coordinates.
    EXPECT_EQ(report.contains("independent"), graph_has_cut_edges(graph.out));
  }
}

// Exit 2, one line on stderr naming `file` (and `file:line` when line > 0), nothing on stdout.
void expect_bad_input(const std::string& arguments, const std::string& file, int line,
                      const std::string& problem) {
  SCOPED_TRACE(arguments);
  const CliRun run = run_cli(arguments);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "");
  ASSERT_FALSE(run.err.empty());
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
  const std::string where = line > 0 ? file + ":" + std::to_string(line) + ":" : file;
  EXPECT_NE(run.err.find(where), std::string::npos) << "expected " << where << " in " << run.err;
  EXPECT_NE(run.err.find(problem), std::string::npos)
      << "expected " << problem << " in " << run.err;
}

// kinematics on the satellite: every frame's velocity is its Jacobian times qd (the panels'
// modal rates included); operators takes the operational space of a link.
TEST(ModelCli, KinematicsOfAFlexibleModelAgreeWithTheirJacobians) {
  const std::string model = example("satellite.yaml");
  const std::string state = example("satellite_state.json");
  const CliRun run = run_cli("kinematics " + model + " --state " + state + " --frames all --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  const CliRun dynamics = run_cli("dynamics " + model + " --state " + state + " --json");
  ASSERT_EQ(dynamics.status, 0) << dynamics.err;
  const Eigen::VectorXd qd = vector_of(nlohmann::json::parse(dynamics.out)["qd"]);
  for (const std::string frame : {"hub", "right_panel", "left_panel"}) {
    const nlohmann::json& rows = report["jacobians"][frame]["world"];
    Eigen::MatrixXd jacobian(6, qd.size());
    for (int r = 0; r < 6; ++r) jacobian.row(r) = vector_of(rows[r]).transpose();
    const Eigen::VectorXd velocity = vector_of(report["frames"][frame]["v"]);
    EXPECT_LT((velocity - jacobian * qd).norm(), 1e-12 * std::max(1.0, velocity.norm())) << frame;
  }
  const CliRun operators = run_cli("operators " + model + " --state " + state + " --frames hub");
  EXPECT_EQ(operators.status, 0) << operators.err;
}

// A four-bar with a flexible coupler (examples/models/fourbar_flexible.yaml): the coupler's modes
// are independent coordinates beside the crank, simulate keeps the loop closed and, with the
// beam's modal damping, loses energy; derivatives and linearize take it; the KKT export, which
// does not yet, refuses in one line with exit status 2.
TEST(ModelCli, AFourBarWithAFlexibleCouplerSimulatesWithItsModesIndependent) {
  const std::string model = example("fourbar_flexible.yaml");
  const std::string state = example("fourbar_flexible_state.json");
  const CliRun run =
      run_cli("simulate " + model + " --state " + state + " --t 0.2 --dt 0.02 --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["independent"],
            nlohmann::json::parse(R"(["crank_joint", "coupler:eta1", "coupler:eta2"])"));
  EXPECT_LT(report["position_residual"].get<double>(), 1e-8);
  EXPECT_LT(report["velocity_residual"].get<double>(), 1e-8);
  // Damping only takes energy out: E(T) - E(0) - W < 0 (W the crank torque's work).
  EXPECT_LT(report["final_energy"].get<double>() - report["initial_energy"].get<double>() -
                report["work"].get<double>(),
            0.0);
  // Its derivatives and linearization in the independent coordinates, modes among them; the
  // constraint Jacobian's export still refuses flexible loops in one line.
  const CliRun derivatives = run_cli("derivatives " + model + " --state " + state + " --json");
  ASSERT_EQ(derivatives.status, 0) << derivatives.err;
  const nlohmann::json by = nlohmann::json::parse(derivatives.out);
  EXPECT_EQ(by["independent"], report["independent"]);
  EXPECT_EQ(matrix_of(by["dqdd_dq"]).rows(), 3);
  EXPECT_EQ(matrix_of(by["dqdd_dtau"]).cols(), 5);
  const CliRun linearized = run_cli("linearize " + model + " --state " + state + " --rest --json");
  ASSERT_EQ(linearized.status, 0) << linearized.err;
  const nlohmann::json lin = nlohmann::json::parse(linearized.out);
  // At rest under gravity: three damped oscillations (the crank's pendulum mode and the
  // two bending modes), stable.
  ASSERT_EQ(lin["modes"].size(), 3u);
  for (const auto& mode : lin["modes"]) {
    EXPECT_GT(mode["frequency_hz"].get<double>(), 0.1);
    EXPECT_GT(mode["damping_ratio"].get<double>(), 0.0);  // damped, oscillating
    EXPECT_LT(mode["damping_ratio"].get<double>(), 1.0);
  }
  const CliRun exported = run_cli("export " + model + " --state " + state + " --kkt " +
                                  (scratch_dir() / "flexible_kkt.mtx").string());
  EXPECT_EQ(exported.status, 2);
  EXPECT_NE(exported.err.find("do not take flexible links"), std::string::npos) << exported.err;
}

// analyze on the satellite (a hub with two panels of six modes): the report's node operators have
// 6 + modes rows per node, M one row per dof, M's structural pattern covers every nonzero of the
// dense M that `dynamics` prints, and the canonical order factors M without fill while the
// root-first order couples the two panels' dofs (7 x 7 fill: a hinge and six modes each).
TEST(ModelCli, AnalyzeCountsModalRowsAndTheCanonicalOrderDoesNotFill) {
  const std::string model = example("satellite.yaml");
  const std::string state = example("satellite_state.json");
  const CliRun dynamics = run_cli("dynamics " + model + " --state " + state + " --json");
  ASSERT_EQ(dynamics.status, 0) << dynamics.err;
  const nlohmann::json values = nlohmann::json::parse(dynamics.out);
  const int dofs = static_cast<int>(values["dofs"].size());
  int modes = 0;
  for (const auto& name : values["dofs"])
    if (name.get<std::string>().find(":eta") != std::string::npos) ++modes;
  EXPECT_EQ(modes, 12);
  const Eigen::MatrixXd mass = matrix_of(values["M"]);
  const long numeric_nonzeros = (mass.array() != 0.0).count();

  const auto dir = scratch_dir() / "satellite_analyze";
  std::filesystem::remove_all(dir);
  const CliRun analyze = run_cli("analyze " + model + " --out " + dir.string());
  ASSERT_EQ(analyze.status, 0) << analyze.err;
  std::ifstream in(dir / "report.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  const int bodies = report["model"]["bodies"].get<int>();
  const nlohmann::json& sparsity = report["sparsity"];
  EXPECT_EQ(sparsity["E"]["rows"].get<int>(), 6 * bodies + modes);
  EXPECT_EQ(sparsity["A"]["rows"].get<int>(), 6 * bodies + modes);
  EXPECT_EQ(sparsity["M"]["rows"].get<int>(), dofs);
  const long structural = sparsity["M"]["nonzeros"].get<long>();
  EXPECT_GE(structural, numeric_nonzeros);
  EXPECT_EQ(structural, static_cast<long>(dofs) * dofs - 2 * 7 * 7);  // the panels are unrelated
  EXPECT_EQ(sparsity["L"]["canonical"]["fill"].get<long>(), 0);
  EXPECT_EQ(sparsity["L"]["canonical"]["nonzeros"].get<long>(), (structural + dofs) / 2);
  EXPECT_EQ(sparsity["L"]["root-first"]["fill"].get<long>(), 7 * 7);
}

const std::string kGoodUrdf = R"(<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="j" type="continuous"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>
</robot>
)";

const std::string kGoodYaml = R"(links:
  - {name: a, mass: 1, inertia: {ixx: 0.1, iyy: 0.1, izz: 0.1}}
  - {name: b, mass: 1, inertia: {ixx: 0.1, iyy: 0.1, izz: 0.1}}
joints:
  - {name: ja, type: free, parent: world, child: a}
  - {name: jb, type: revolute, parent: a, child: b, axis: [0, 0, 1]}
)";

std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ModelCli, EveryKindOfBadModelIsOneLineAndExitStatusTwo) {
  struct Case {
    std::string name, text;
    int line;
    std::string problem;
  };
  const Case cases[] = {
      {"malformed.urdf", edit(kGoodUrdf, "</robot>", "</robt>"), 5, "malformed XML"},
      {"type.urdf", edit(kGoodUrdf, "continuous", "helical"), 4, "unknown type 'helical'"},
      {"missing.urdf", edit(kGoodUrdf, "child link=\"b\"", "child link=\"c\""), 4,
       "missing child link 'c'"},
      {"island.urdf", edit(kGoodUrdf, "</robot>", "<link name=\"c\"/>\n</robot>"), 5,
       "link 'c' is connected to the world by no chain of joints"},
      {"mass.urdf", edit(kGoodUrdf, "value=\"1\"", "value=\"-1\""), 2, "negative mass"},
      {"axis.urdf", edit(kGoodUrdf, "xyz=\"0 0 1\"", "xyz=\"0 0 0\""), 4, "zero-length axis"},
      {"nan.urdf", edit(kGoodUrdf, "xyz=\"0 0 1\"", "xyz=\"0 nan 1\""), 4, "not a finite number"},
      {"malformed.yaml", edit(kGoodYaml, "  - {name: b,", "  - {name: b, mass: [1,"), 3,
       "malformed YAML"},
      {"type.yaml", edit(kGoodYaml, "type: revolute", "type: hinge"), 6, "unknown type 'hinge'"},
      {"missing.yaml", edit(kGoodYaml, "child: b,", "child: c,"), 6, "unknown link 'c'"},
      {"mass.yaml", edit(kGoodYaml, "{name: b, mass: 1", "{name: b, mass: -1"), 3, "negative mass"},
      {"inf.yaml", edit(kGoodYaml, "axis: [0, 0, 1]", "axis: [0, .inf, 1]"), 6,
       "not a finite number"},
      {"key.yaml", edit(kGoodYaml, "joints:", "joint:"), 4, "unknown key 'joint'"},
      {"coupling.yaml", kGoodYaml + "couplings:\n  - {name: g, joints: [ja, jb], ratio: 2}\n", 8,
       "different dof counts"},
      {"model.txt", kGoodYaml, 0, "unknown"},
  };
  for (const Case& c : cases) {
    const std::string path = write_file(c.name, c.text);
    expect_bad_input("dynamics " + path, path, c.line, c.problem);
    // The extension decides for `graph` too: .txt is neither a model nor a DOT file.
    expect_bad_input("graph " + path + " --json", path, c.line, c.problem);
  }
  // Physically inconsistent inertias: refused at their line with --strict, otherwise one warning.
  const Case strict_cases[] = {
      {"inertia.urdf", edit(kGoodUrdf, "ixy=\"0\"", "ixy=\"0.2\""), 2,
       "not positive semi-definite"},
      {"triangle.urdf", edit(kGoodUrdf, "izz=\"0.1\"", "izz=\"0.3\""), 2, "triangle inequality"},
  };
  for (const Case& c : strict_cases) {
    const std::string path = write_file(c.name, c.text);
    for (const char* command : {"dynamics", "graph", "bench", "analyze"})
      expect_bad_input(std::string(command) + " " + path + " --strict" +
                           (std::string(command) == "bench" ? " --algo fd" : "") +
                           (std::string(command) == "analyze" ? " --out /nonexistent/x" : ""),
                       path, c.line, c.problem);
    const CliRun accepted = run_cli("dynamics " + path + " --json");
    EXPECT_EQ(accepted.status, 0) << accepted.err;
    EXPECT_EQ(std::count(accepted.err.begin(), accepted.err.end(), '\n'), 1) << accepted.err;
    EXPECT_NE(accepted.err.find("warning: " + path +
                                ": physically inconsistent inertias "
                                "accepted (--strict refuses them)"),
              std::string::npos)
        << accepted.err;
  }
}

TEST(ModelCli, BadStatesAndBadUsageAreOneLineAndExitStatusTwo) {
  const std::string model = write_file("good.yaml", kGoodYaml);
  const std::string unknown = write_file("unknown.json", R"({"q": {"jc": 1}})");
  expect_bad_input("dynamics " + model + " --state " + unknown, unknown, 0, "unknown joint 'jc'");
  const std::string length = write_file("length.json", R"({"qd": {"ja": [1, 2, 3]}})");
  expect_bad_input("dynamics " + model + " --state " + length, length, 0, "array of 6 numbers");
  const std::string malformed = write_file("malformed.json", "{\n\"q\": {\"jb\": 1,}\n}");
  expect_bad_input("dynamics " + model + " --state " + malformed, malformed, 2, "malformed JSON");
  const std::string key = write_file("key.json", R"({"torque": {}})");
  expect_bad_input("dynamics " + model + " --state " + key, key, 0, "unknown key \"torque\"");
  expect_bad_input("dynamics " + model + " --state /nonexistent/s.json", "/nonexistent/s.json", 0,
                   "cannot open");
  expect_bad_input("bench " + model + " --algo crba", "bench", 0, "unknown --algo 'crba'");
  expect_bad_input("bench " + model + " --algo crba", "bench", 0, "mass-symmetry");
  expect_bad_input("bench " + example("fourbar.yaml") + " --algo fd-innovations", "bench", 0,
                   "runs on trees");
  expect_bad_input("bench " + model + " --algo id --reps 0", "bench", 0,
                   "--reps must be an integer");
  expect_bad_input("dynamics " + model + " --frobnicate", "dynamics", 0, "unknown option");
}

}  // namespace
}  // namespace skograph

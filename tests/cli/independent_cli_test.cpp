// Closed chains in the coordinates users choose (`independent:` in YAML, --independent
// on the command line). References: the physics does not depend on the choice, so at the same
// closed state and forces the motion (qdd) equals that of the automatic choice; the chosen
// coordinates are the independent ones (unit rows of X); the actuator forces ("tau") are zero at
// the passive joints and, fed back as the state's tau, give the same independent accelerations;
// the loop and coupling forces do not depend on the choice either.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_support.hpp"

namespace {

using cli_test::CliRun;
using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::matrix_of;
using cli_test::run_cli;
using cli_test::vector_of;
using Json = nlohmann::json;
using skograph::io_test::write_file;

Json dynamics(const std::string& arguments) {
  return cli_test::dynamics_json(arguments);
}

// A state file with q, qd, tau (and qdd) as the report lists them (dofs "joint:k" grouped).
std::string state_file(const std::string& name, const Json& dofs,
                       const std::vector<std::pair<std::string, Eigen::VectorXd>>& vectors) {
  return write_file(name, cli_test::state_json(dofs, vectors));
}

struct Choice {
  const char* model;
  const char* independent;  // comma-separated, in the order the report lists them
};

class IndependentCli : public testing::TestWithParam<Choice> {};

TEST_P(IndependentCli, TheChosenCoordinatesGiveTheSameMotionAndTheirActuatorForces) {
  const std::string model = example_model(std::string(GetParam().model) + ".yaml");
  const std::string original = example_model(std::string(GetParam().model) + "_state.json");
  // The automatic choice closes the example state; both choices then start from that closed state.
  const Json automatic = dynamics(model + " --state " + original);
  const Json& dofs = automatic["dofs"];
  const auto n = static_cast<Eigen::Index>(dofs.size());
  Eigen::VectorXd tau(n), qdd(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    tau(i) = 0.3 * std::sin(1.0 + static_cast<double>(i));
    qdd(i) = 0.5 * std::cos(2.0 + static_cast<double>(i));
  }
  const std::string closed = state_file(std::string(GetParam().model) + "_closed.json", dofs,
                                        {{"q", vector_of(automatic["q"])},
                                         {"qd", vector_of(automatic["qd"])},
                                         {"tau", tau},
                                         {"qdd", qdd}});
  const Json reference = dynamics(model + " --state " + closed);
  const Json chosen =
      dynamics(model + " --state " + closed + " --independent " + GetParam().independent);

  std::vector<std::string> names;
  std::stringstream list(GetParam().independent);
  for (std::string name; std::getline(list, name, ',');) names.push_back(name);
  EXPECT_EQ(chosen["independent"].get<std::vector<std::string>>(), names);
  EXPECT_LT((vector_of(chosen["q"]) - vector_of(reference["q"])).norm(), 1e-12);
  EXPECT_LT((vector_of(chosen["qd"]) - vector_of(reference["qd"])).norm(), 1e-9);
  const Eigen::VectorXd motion = vector_of(reference["qdd"]);
  EXPECT_LT((vector_of(chosen["qdd"]) - motion).norm(), 1e-8 * (1 + motion.norm()));
  // X has unit rows at the chosen coordinates; M_R = X* M X.
  const Eigen::MatrixXd X = matrix_of(chosen["X"]), M = matrix_of(chosen["M"]);
  std::vector<Eigen::Index> at;
  for (const std::string& name : names)
    for (Eigen::Index i = 0; i < n; ++i)
      if (dofs[static_cast<std::size_t>(i)] == name) at.push_back(i);
  ASSERT_EQ(at.size(), names.size());
  for (std::size_t a = 0; a < at.size(); ++a)
    for (Eigen::Index c = 0; c < X.cols(); ++c)
      EXPECT_NEAR(X(at[a], c), c == static_cast<Eigen::Index>(a) ? 1.0 : 0.0, 1e-12);
  EXPECT_LT((X.transpose() * M * X - matrix_of(chosen["M_reduced"])).norm(), 1e-9 * (1 + M.norm()));

  // The forces through the loops and couplings are physics too: the same for either choice.
  for (const char* key : {"loop_forces", "coupling_forces"}) {
    ASSERT_EQ(chosen[key].size(), reference[key].size()) << key;
    for (const auto& [name, force] : reference[key].items()) {
      const Eigen::VectorXd expected = vector_of(force);
      EXPECT_LT((vector_of(chosen[key][name]) - expected).norm(), 1e-7 * (1 + expected.norm()))
          << key << " " << name;
    }
  }

  // Actuator forces at the chosen joints only; fed back, they give qdd's chosen entries again.
  const Eigen::VectorXd actuators = vector_of(chosen["tau"]);
  for (Eigen::Index i = 0; i < n; ++i)
    if (std::find(at.begin(), at.end(), i) == at.end()) {
      EXPECT_EQ(actuators(i), 0.0) << dofs[static_cast<std::size_t>(i)];
    }
  const std::string actuated = state_file(
      std::string(GetParam().model) + "_actuated.json", dofs,
      {{"q", vector_of(chosen["q"])}, {"qd", vector_of(chosen["qd"])}, {"tau", actuators}});
  const Eigen::VectorXd again = vector_of(
      dynamics(model + " --state " + actuated + " --independent " + GetParam().independent)["qdd"]);
  for (const Eigen::Index i : at)
    EXPECT_NEAR(again(i), qdd(i), 1e-10 * (1 + qdd.cwiseAbs().maxCoeff()))
        << dofs[static_cast<std::size_t>(i)];
}

INSTANTIATE_TEST_SUITE_P(
    Examples, IndependentCli,
    testing::Values(Choice{"stewart_platform", "leg1,leg2,leg3,leg4,leg5,leg6"},
                    Choice{"delta_robot", "arm1,arm2,arm3"},
                    Choice{"suspension", "lower_pivot,rack_ball:1,hub"},
                    Choice{"fourbar", "crank_joint"},
                    Choice{"fourbar_chain",
                           "crank1_joint,crank2_joint,crank3_joint,crank4_joint,"
                           "crank5_joint,crank6_joint,crank7_joint,crank8_joint"}),
    [](const testing::TestParamInfo<Choice>& choice) { return std::string(choice.param.model); });

TEST(IndependentCli, TheYamlKeyIsTheOption) {
  std::ifstream in(example_model("stewart_platform.yaml"));
  std::stringstream text;
  text << in.rdbuf() << "independent: [leg1, leg2, leg3, leg4, leg5, leg6]\n";
  const std::string model = write_file("stewart_in_legs.yaml", text.str());
  const std::string state = example_model("stewart_platform_state.json");
  const Json from_key = dynamics(model + " --state " + state);
  const Json from_option = dynamics(example_model("stewart_platform.yaml") + " --state " + state +
                                    " --independent leg1,leg2,leg3,leg4,leg5,leg6");
  EXPECT_EQ(from_key, from_option);
}

TEST(IndependentCli, BadChoicesAreOneLine) {
  const std::string stewart = example_model("stewart_platform.yaml");
  expect_one_line_error(run_cli("dynamics " + stewart + " --independent legX"),
                        "'legX' is not a joint");
  expect_one_line_error(run_cli("dynamics " + stewart + " --independent leg1,leg2"),
                        "has 6 independent coordinate(s), and 2 of its dofs are named");
  expect_one_line_error(
      run_cli("dynamics " + stewart + " --independent leg1,leg2,leg3,leg4,leg5,leg6,u1a"),
      "and 7 of its dofs are named");
  expect_one_line_error(run_cli("dynamics " + stewart + " --independent leg1,,leg2"),
                        "--independent needs joint names separated by commas");
  // A fixed joint has no coordinate; in the YAML key, at its line.
  const std::string fixed = write_file("fixed_independent.yaml", R"(links:
  - {name: a, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
  - {name: b, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
  - {name: c, mass: 0.1, inertia: {ixx: 0.001, iyy: 0.001, izz: 0.001}}
joints:
  - {name: ja, type: revolute, parent: world, child: a, axis: [0, 0, 1]}
  - {name: jb, type: revolute, parent: a, child: b, axis: [0, 0, 1], origin: {xyz: [0.2, 0, 0]}}
  - {name: jc, type: fixed, parent: b, child: c}
loops:
  - {name: tip, type: revolute, parent: world, child: b, axis: [0, 0, 1],
     origin: {xyz: [0.3, 0.1, 0]}, child_origin: {xyz: [0.2, 0, 0]}}
independent:
  - jc
)");
  expect_one_line_error(run_cli("dynamics " + fixed),
                        fixed + ":13: independent: joint 'jc' is fixed");
  expect_one_line_error(run_cli("dynamics " + example_model("fourbar.yaml") + " --independent jc"),
                        "'jc' is not a joint");
  // A joint outside every aggregate is independent anyway: accepted.
  const Json internal =
      dynamics(example_model("fourbar_internal_cut.yaml") + " --independent slide,coupler_joint");
  EXPECT_EQ(internal["independent"].size(), 3u);
  // A choice singular at the state: the parallelogram at its change point, driven by the rocker.
  const CliRun singular = run_cli("dynamics " + std::string(SKOGRAPH_SOURCE_DIR) +
                                  "/examples/bad/parallelogram.yaml --independent rocker_joint");
  expect_one_line_error(singular,
                        "singular configuration for the chosen independent coordinates "
                        "'rocker_joint' of loop 'pin': the constraints on the other "
                        "coordinates have rank 1 of 2 (condition number");
  EXPECT_NE(singular.err.find("(zero state)"), std::string::npos);
  // A simulation keeps the choice through its ill-conditioned approach (used as chosen, forward
  // dynamics refined) and stops at the change point, t = 0.5 s, where it loses rank (the
  // automatic choice runs through it: ClosedChainCli).
  const std::string bad = std::string(SKOGRAPH_SOURCE_DIR) + "/examples/bad/";
  expect_one_line_error(run_cli("simulate " + bad + "parallelogram.yaml --state " + bad +
                                "parallelogram.json --t 1 --dt 1e-3 --independent rocker_joint"),
                        "parallelogram.yaml: at t = 0.5 s: singular configuration for the "
                        "chosen independent coordinates 'rocker_joint' of loop 'pin': the "
                        "constraints on the other coordinates have rank 1 of 2");
}

TEST(IndependentCli, EveryModelCommandTakesTheOption) {
  const std::string model = example_model("delta_robot.yaml") + " --independent arm1,arm2,arm3";
  const std::string dir = skograph::io_test::scratch_dir().string();
  EXPECT_EQ(run_cli("simulate " + model + " --t 0.05 --dt 0.01 --json").status, 0);
  EXPECT_EQ(run_cli("export " + model + " --mass " + dir + "/delta_MR.mtx").status, 0);
  const CliRun analyze = run_cli("analyze " + model + " --out " + dir + "/delta_analysis");
  ASSERT_EQ(analyze.status, 0) << analyze.err;
  std::ifstream report(dir + "/delta_analysis/report.json");
  const Json json = Json::parse(report);
  EXPECT_NE(json.dump().find("\"arm1\""), std::string::npos);
}

}  // namespace

// `skograph derivatives`: the JSON's keys exactly as docs/command-line.md lists them, its matrices
// against `skograph dynamics --json` (M, qdd) and the identities dqdd/dtau M = 1 and, at qdd =
// FD(q, qd, tau), dqdd/dq = -M^-1 dtau/dq and dqdd/dqd = -M^-1 dtau/dqd; the text report; bad
// input in one line with exit status 2. Closed chains in their independent coordinates against
// `skograph dynamics --json` (M_R, qdd, X) and the same identities with M_R.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_support.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using cli_test::CliRun;
using cli_test::dynamics_json;
using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::matrix_of;
using cli_test::run_cli;
using cli_test::vector_of;
using io_test::write_file;
using Json = nlohmann::json;

double relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

TEST(DerivativesCli, JsonKeysAndTheDynamicsIdentities) {
  const std::string model = example_model("arm7.urdf");
  const std::string state = example_model("arm7_state.json");
  const CliRun run = run_cli("derivatives " + model + " --state " + state + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const Json report = Json::parse(run.out);
  std::vector<std::string> keys;
  const nlohmann::ordered_json in_order = nlohmann::ordered_json::parse(run.out);
  for (const auto& item : in_order.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"dofs", "q", "qd", "tau", "qdd", "dqdd_dq", "dqdd_dqd",
                                            "dqdd_dtau", "dtau_dq", "dtau_dqd", "M"}));
  const Json dynamics = dynamics_json(model + " --state " + state + " --mass dense");
  EXPECT_EQ(report["dofs"], dynamics["dofs"]);
  const Eigen::MatrixXd mass = matrix_of(report["M"]);
  EXPECT_LT(relative(mass, matrix_of(dynamics["M"])), 1e-14);
  EXPECT_LT(relative(vector_of(report["qdd"]), vector_of(dynamics["qdd"])), 1e-14);
  const int n = static_cast<int>(mass.rows());
  EXPECT_LT(relative(matrix_of(report["dqdd_dtau"]) * mass, Eigen::MatrixXd::Identity(n, n)),
            1e-10);

  // The inverse dynamics' derivatives at the state's qdd: give it FD's qdd and the forward
  // dynamics' derivatives follow from them (ID(q, qd, FD(q, qd, tau)) = tau).
  Json with_qdd = Json::parse(std::ifstream(state));
  for (std::size_t i = 0; i < report["dofs"].size(); ++i)
    with_qdd["qdd"][report["dofs"][i].get<std::string>()] = report["qdd"][i];
  const std::string state_qdd = write_file("arm7_state_qdd.json", with_qdd.dump());
  const Json at_qdd =
      Json::parse(run_cli("derivatives " + model + " --state " + state_qdd + " --json").out);
  const Eigen::MatrixXd inverse_mass = matrix_of(at_qdd["dqdd_dtau"]);
  EXPECT_LT(relative(matrix_of(at_qdd["dqdd_dq"]), -inverse_mass * matrix_of(at_qdd["dtau_dq"])),
            1e-10);
  EXPECT_LT(relative(matrix_of(at_qdd["dqdd_dqd"]), -inverse_mass * matrix_of(at_qdd["dtau_dqd"])),
            1e-10);
  EXPECT_GT(matrix_of(at_qdd["dtau_dqd"]).norm(), 1e-3);  // the state moves: Coriolis terms

  const CliRun text = run_cli("derivatives " + model + " --state " + state);
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* heading :
       {"dqdd/dq:", "dqdd/dqd:", "dqdd/dtau = M^-1:", "dtau/dq:", "dtau/dqd:", "dtau/dqdd = M:"})
    EXPECT_NE(text.out.find(heading), std::string::npos) << heading;
}

TEST(DerivativesCli, BadInputIsOneLine) {
  const std::string model = example_model("arm7.urdf");
  expect_one_line_error(run_cli("derivatives"), "MODEL");
  expect_one_line_error(run_cli("derivatives " + model + " --state"), "--state");
  const std::string nan_state = write_file("nan_state.json", "{\"q\": {\"joint1\": \"nan\"}}\n");
  expect_one_line_error(run_cli("derivatives " + model + " --state " + nan_state),
                        "nan_state.json");
  expect_one_line_error(
      run_cli("derivatives " + example_model("slider_crank.yaml") + " --independent nothing"),
      "nothing");
}

// Closed chains: the keys, "independent" and the shapes in the independent coordinates; M and
// M_reduced are `dynamics`' M and M_reduced, qdd its qdd, dqdd_dtau = M_R^-1 X* with its X; one
// entry per loop and coupling; with the forces on the independent dofs only (X* tau constant along
// q_R) and qdd in = qdd, dqdd_R/dq_R = -M_R^-1 dtau_R/dq_R and dqdd_R/dqd_R = -M_R^-1 dtau_R/dqd_R.
TEST(DerivativesCli, ClosedChainsInTheirIndependentCoordinates) {
  for (const std::string name : {"fourbar", "slider_crank", "geared_links", "differential",
                                 "stewart_platform", "delta_robot", "fourbar_chain"}) {
    SCOPED_TRACE(name);
    const std::string model = example_model(name + ".yaml");
    const std::string state = example_model(name + "_state.json");
    const CliRun run = run_cli("derivatives " + model + " --state " + state + " --json");
    ASSERT_EQ(run.status, 0) << run.err;
    std::vector<std::string> keys;
    const nlohmann::ordered_json in_order = nlohmann::ordered_json::parse(run.out);
    for (const auto& item : in_order.items()) keys.push_back(item.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"dofs", "q", "qd", "tau", "qdd", "dqdd_dq",
                                              "dqdd_dqd", "dqdd_dtau", "dtau_dq", "dtau_dqd", "M",
                                              "independent", "M_reduced", "loop_force_derivatives",
                                              "coupling_force_derivatives"}));
    const Json report = Json::parse(run.out);
    const Json dynamics = dynamics_json(model + " --state " + state);
    EXPECT_EQ(report["independent"], dynamics["independent"]);
    const auto n = static_cast<Eigen::Index>(report["dofs"].size());
    const auto r = static_cast<Eigen::Index>(report["independent"].size());
    const Eigen::MatrixXd reduced = matrix_of(report["M_reduced"]);
    ASSERT_EQ(reduced.rows(), r);
    EXPECT_LT(relative(reduced, matrix_of(dynamics["M_reduced"])), 1e-12);
    EXPECT_LT(relative(matrix_of(report["M"]), matrix_of(dynamics["M"])), 1e-14);
    EXPECT_LT(relative(vector_of(report["qdd"]), vector_of(dynamics["qdd"])), 1e-10);
    EXPECT_LT(relative(vector_of(report["q"]), vector_of(dynamics["q"])), 1e-14);
    const Eigen::MatrixXd X = matrix_of(dynamics["X"]);
    const Eigen::MatrixXd by_tau = matrix_of(report["dqdd_dtau"]);
    ASSERT_EQ(by_tau.rows(), r);
    ASSERT_EQ(by_tau.cols(), n);
    EXPECT_LT(relative(reduced * by_tau, X.transpose()), 1e-10);
    for (const char* key : {"dqdd_dq", "dqdd_dqd", "dtau_dq", "dtau_dqd"}) {
      EXPECT_EQ(matrix_of(report[key]).rows(), r) << key;
      EXPECT_EQ(matrix_of(report[key]).cols(), r) << key;
    }
    for (const char* group : {"loop_force_derivatives", "coupling_force_derivatives"})
      for (const auto& [joint, entry] : report[group].items()) {
        EXPECT_EQ(matrix_of(entry["dq"]).cols(), r) << joint;
        EXPECT_EQ(matrix_of(entry["dqd"]).cols(), r) << joint;
        EXPECT_EQ(matrix_of(entry["dtau"]).cols(), n) << joint;
      }
    EXPECT_EQ(report["loop_force_derivatives"].size(), dynamics["loop_forces"].size());
    EXPECT_EQ(report["coupling_force_derivatives"].size(), dynamics["coupling_forces"].size());

    // Forces on the independent dofs only, then qdd in = that motion's qdd.
    std::vector<int> independent;
    for (const auto& dof : report["independent"])
      for (Eigen::Index i = 0; i < n; ++i)
        if (report["dofs"][static_cast<std::size_t>(i)] == dof)
          independent.push_back(static_cast<int>(i));
    Eigen::VectorXd tau = Eigen::VectorXd::Zero(n);
    for (std::size_t a = 0; a < independent.size(); ++a)
      tau[independent[a]] = 0.3 * std::cos(static_cast<double>(a));
    const Eigen::VectorXd q = vector_of(report["q"]), qd = vector_of(report["qd"]);
    Json with_tau =
        Json::parse(cli_test::state_json(report["dofs"], {{"q", q}, {"qd", qd}, {"tau", tau}}));
    const Json original = Json::parse(std::ifstream(state));
    if (original.contains("gravity")) with_tau["gravity"] = original["gravity"];
    const Json forward =
        Json::parse(run_cli("derivatives " + model + " --state " +
                            write_file(name + "_actuated.json", with_tau.dump()) + " --json")
                        .out);
    Json with_qdd = with_tau;
    const Json qdd_state =
        Json::parse(cli_test::state_json(report["dofs"], {{"qdd", vector_of(forward["qdd"])}}));
    with_qdd["qdd"] = qdd_state["qdd"];
    const Json at_qdd =
        Json::parse(run_cli("derivatives " + model + " --state " +
                            write_file(name + "_actuated_qdd.json", with_qdd.dump()) + " --json")
                        .out);
    const Eigen::MatrixXd inverse_mass = matrix_of(at_qdd["M_reduced"]).inverse();
    EXPECT_LT(relative(matrix_of(at_qdd["dqdd_dq"]), -inverse_mass * matrix_of(at_qdd["dtau_dq"])),
              1e-8);
    EXPECT_LT(
        relative(matrix_of(at_qdd["dqdd_dqd"]), -inverse_mass * matrix_of(at_qdd["dtau_dqd"])),
        1e-8);
  }
  // The independent coordinate chosen: the slider's.
  const Json chosen = Json::parse(run_cli("derivatives " + example_model("slider_crank.yaml") +
                                          " --independent slider_joint --json")
                                      .out);
  EXPECT_EQ(chosen["independent"], Json::array({"slider_joint"}));
  // Closed chains time their derivatives too.
  const CliRun bench =
      run_cli("bench " + example_model("fourbar.yaml") + " --algo fd-derivatives --reps 2");
  EXPECT_EQ(bench.status, 0) << bench.err;
}

}  // namespace
}  // namespace skograph

// `skograph derivatives`: the JSON's keys exactly as docs/command-line.md lists them, its matrices
// against `skograph dynamics --json` (M, qdd) and the identities dqdd/dtau M = 1 and, at qdd =
// FD(q, qd, tau), dqdd/dq = -M^-1 dtau/dq and dqdd/dqd = -M^-1 dtau/dqd; the text report; bad
// input in one line with exit status 2.
#include <gtest/gtest.h>

#include <Eigen/Dense>
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
  expect_one_line_error(run_cli("derivatives " + example_model("fourbar.yaml")),
                        "derivatives of closed chains");
  expect_one_line_error(
      run_cli("bench " + example_model("fourbar.yaml") + " --algo fd-derivatives"),
      "derivatives of closed chains");
}

}  // namespace
}  // namespace skograph

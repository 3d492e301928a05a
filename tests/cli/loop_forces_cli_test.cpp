// The loop and coupling reaction forces and the aggregates' constraint ranks through the
// program. References: statics by hand (the geared arm held by its motors), the rank of a planar
// loop closed by a 3-D revolute (2 of its 5 rows) plus one gear row, and `dynamics` itself for the
// columns `simulate --loop-forces` adds (the same state, the same forces). The dense Lagrange-
// multiplier reference is tests/rigid/closed_chain_forces_test.cpp's.
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
using cli_test::run_cli;
using cli_test::vector_of;
using Json = nlohmann::json;
using skograph::io_test::write_file;

Json dynamics(const std::string& arguments) {
  return cli_test::dynamics_json(arguments);
}

// geared_links.yaml at rest with both arms along x (gravity -z, joints about y), held by the
// motors. Gravity torques about +y (r x F with F = (0, 0, -m g): +x m g): shoulder
// g (2.0 * 0.2 + 0.3 * 0.4 + 1.2 * 0.55), elbow g (1.2 * 0.15). The passive joint's equation
// C = -ratio lambda gives the gear's force on its motor lambda = torque / ratio, and the motor,
// whose rotor's centre is on its axis, exerts -lambda: the state's tau holds the arm still.
TEST(LoopForcesCli, GearsHoldingTheArmMatchStaticsByHand) {
  const double g = 9.81;
  const double shoulder = g * (2.0 * 0.2 + 0.3 * 0.4 + 1.2 * 0.55) / 100.0;
  const double elbow = g * 1.2 * 0.15 / 50.0;
  std::ostringstream state;
  state.precision(17);
  state << R"({"tau": {"shoulder_motor": )" << -shoulder << R"(, "elbow_motor": )" << -elbow
        << "}}";
  const std::string file = write_file("geared_hold.json", state.str());
  const Json report = dynamics(example_model("geared_links.yaml") + " --state " + file +
                               " --independent shoulder_motor,elbow_motor");
  EXPECT_LT(vector_of(report["qdd"]).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_NEAR(report["coupling_forces"]["shoulder_gear"][0].get<double>(), shoulder, 1e-14);
  EXPECT_NEAR(report["coupling_forces"]["elbow_gear"][0].get<double>(), elbow, 1e-14);
  EXPECT_EQ(report["loop_forces"], Json::object());
  // The actuator forces for qdd = 0 are the same holding torques.
  const Eigen::VectorXd tau = vector_of(report["tau"]);
  EXPECT_NEAR(tau(0), -shoulder, 1e-14);
  EXPECT_NEAR(tau(2), -elbow, 1e-14);
  ASSERT_EQ(report["aggregates"].size(), 2u);
  EXPECT_EQ(report["aggregates"][0]["couplings"], Json::array({"shoulder_gear"}));
  EXPECT_EQ(report["aggregates"][0]["dependent"], Json::array({"shoulder"}));
  EXPECT_EQ(report["aggregates"][0]["independent"], Json::array({"shoulder_motor"}));
  EXPECT_EQ(report["aggregates"][0]["rows"], 1);
  EXPECT_EQ(report["aggregates"][0]["rank"], 1);
  // One gear row [1, -ratio] restricted to the dependent column: condition number 1.
  EXPECT_DOUBLE_EQ(report["aggregates"][0]["condition_number"].get<double>(), 1.0);
}

// The geared four-bar: a planar loop closed by a revolute (5 rows, of which the 2 in-plane linear
// rows are independent: rank 2) and a gear (1 row): 6 rows of rank 3, so 3 of its 4 dofs are
// dependent. A planar loop transmits no moment about its axis and, with least-norm multipliers,
// nothing out of its plane (statically indeterminate there).
TEST(LoopForcesCli, TheFourBarsAggregateAndItsPlanarLoopForce) {
  const Json report =
      dynamics(example_model("fourbar.yaml") + " --state " + example_model("fourbar_state.json"));
  ASSERT_EQ(report["aggregates"].size(), 1u);
  const Json& aggregate = report["aggregates"][0];
  EXPECT_EQ(aggregate["loops"], Json::array({"pin_c"}));
  EXPECT_EQ(aggregate["couplings"], Json::array({"gearbox"}));
  EXPECT_EQ(aggregate["rows"], 6);
  EXPECT_EQ(aggregate["rank"], 3);
  EXPECT_EQ(aggregate["dependent"].size() + aggregate["independent"].size(), 4u);
  EXPECT_EQ(aggregate["dependent"].size(), 3u);
  EXPECT_GE(aggregate["condition_number"].get<double>(), 1.0);
  const Eigen::VectorXd pin = vector_of(report["loop_forces"]["pin_c"]);
  ASSERT_EQ(pin.size(), 6);
  EXPECT_EQ(pin(0), 0.0);  // mx, my: out of plane
  EXPECT_EQ(pin(1), 0.0);
  EXPECT_EQ(pin(2), 0.0);  // mz: about the axis
  EXPECT_EQ(pin(5), 0.0);  // fz: out of plane
  EXPECT_GT(pin.segment(3, 2).norm(), 1e-3);

  const CliRun text = run_cli("dynamics " + example_model("fourbar.yaml") + " --state " +
                              example_model("fourbar_state.json"));
  EXPECT_NE(text.out.find("  loop pin_c, coupling gearbox: 6 rows, rank 3; dependent:"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("loop forces (qdd out, tau in)"), std::string::npos);
  EXPECT_NE(text.out.find("coupling forces (qdd out, tau in)"), std::string::npos);
}

// simulate --out --loop-forces: the forces of each sample; the first sample is the closed initial
// state, whose forces `dynamics` reports.
TEST(LoopForcesCli, SimulateAddsTheForceColumns) {
  const std::string model = example_model("stewart_platform.yaml");
  const std::string state = example_model("stewart_platform_state.json");
  const std::string csv = skograph::io_test::scratch_dir().string() + "/stewart_forces.csv";
  const CliRun run = run_cli("simulate " + model + " --state " + state +
                             " --t 0.02 --dt 0.01 --out " + csv + " --loop-forces");
  ASSERT_EQ(run.status, 0) << run.err;
  std::ifstream in(csv);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  std::vector<std::string> columns, values;
  for (std::stringstream s(header); std::getline(s, columns.emplace_back(), ',');) {
  }
  columns.pop_back();
  for (std::stringstream s(first); std::getline(s, values.emplace_back(), ',');) {
  }
  values.pop_back();
  ASSERT_EQ(columns.size(), values.size());
  const Json report = dynamics(model + " --state " + state);
  int checked = 0;
  for (const auto& [name, force] : report["loop_forces"].items()) {
    const Eigen::VectorXd expected = vector_of(force);
    const char* parts[] = {"_mx", "_my", "_mz", "_fx", "_fy", "_fz"};
    for (int i = 0; i < 6; ++i) {
      const auto at = std::find(columns.begin(), columns.end(), name + parts[i]);
      ASSERT_NE(at, columns.end()) << name + parts[i];
      EXPECT_NEAR(std::stod(values[static_cast<std::size_t>(at - columns.begin())]), expected(i),
                  1e-9 * (1 + expected.norm()))
          << name + parts[i];
      ++checked;
    }
  }
  EXPECT_EQ(checked, 30);  // five top joints
  expect_one_line_error(run_cli("simulate " + model + " --t 0.02 --dt 0.01 --loop-forces"),
                        "--loop-forces adds columns to the trajectory: give --out TRAJ.csv too");
}

}  // namespace

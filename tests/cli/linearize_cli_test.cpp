// `skograph linearize`: the JSON's keys exactly as docs/command-line.md lists them (with --dt,
// --hold, --rest), a compound pendulum's frequency sqrt(m g d / I) and mode, the held forces
// against the closed-form gravity torque, the rest configuration found from a displaced state, the
// text report; bad input (an unknown input, no rest configuration, options that do not go
// together, a closed chain) in one line with exit status 2.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <vector>

#include "support/cli_support.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using cli_test::CliRun;
using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::run_cli;
using io_test::write_file;
using OrderedJson = nlohmann::ordered_json;

// m = 2 kg, d = 0.3 m below the pivot, I_c = 0.05 kg m^2 about y.
const char* kPendulum =
    "name: pendulum\nlinks:\n  - {name: bob, mass: 2, com: [0, 0, -0.3], inertia: {ixx: 0.05, "
    "iyy: 0.05, izz: 0.05}}\njoints:\n  - {name: pivot, type: continuous, parent: world, child: "
    "bob, axis: [0, 1, 0]}\n";

std::vector<std::string> keys_of(const OrderedJson& json) {
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  return keys;
}

OrderedJson linearize_json(const std::string& arguments) {
  const CliRun run = run_cli("linearize " + arguments + " --json");
  EXPECT_EQ(run.status, 0) << arguments << ": " << run.err;
  return OrderedJson::parse(run.out.empty() ? "{}" : run.out);
}

TEST(LinearizeCli, KeysFrequencyHoldAndRest) {
  const std::string model = write_file("pendulum.yaml", kPendulum);
  const std::vector<std::string> base = {"states", "inputs", "A", "B", "eigenvalues", "modes"};
  const OrderedJson plain = linearize_json(model);
  EXPECT_EQ(keys_of(plain), base);
  const double omega = std::sqrt(2 * 9.81 * 0.3 / (0.05 + 2 * 0.09));
  ASSERT_EQ(plain["modes"].size(), 1u);
  EXPECT_NEAR(plain["modes"][0]["frequency_hz"].get<double>(), omega / (2 * std::numbers::pi),
              1e-12);
  EXPECT_EQ(keys_of(plain["modes"][0]),
            (std::vector<std::string>{"frequency_hz", "damping_ratio", "shape"}));
  EXPECT_EQ(plain["modes"][0]["shape"]["pivot"].get<double>(), 1.0);
  EXPECT_EQ(plain["states"], OrderedJson::parse(R"(["pivot", "pivot_qd"])"));
  ASSERT_EQ(plain["eigenvalues"].size(), 2u);
  EXPECT_NEAR(std::abs(plain["eigenvalues"][0][1].get<double>()), omega, 1e-12);

  std::vector<std::string> with_dt = base;
  with_dt.insert(with_dt.end(), {"A_d", "B_d"});
  const OrderedJson discrete = linearize_json(model + " --dt 0.01");
  EXPECT_EQ(keys_of(discrete), with_dt);
  // One dof: A_d = [[cos, sin / omega], [-omega sin, cos]] of omega dt.
  const double c = std::cos(omega * 0.01), s = std::sin(omega * 0.01);
  EXPECT_NEAR(discrete["A_d"][0][0].get<double>(), c, 1e-12);
  EXPECT_NEAR(discrete["A_d"][0][1].get<double>(), s / omega, 1e-12);
  EXPECT_NEAR(discrete["A_d"][1][0].get<double>(), -omega * s, 1e-12);

  const std::string state = write_file("pendulum_state.json", R"({"q": {"pivot": 0.4}})");
  std::vector<std::string> with_hold = base;
  with_hold.insert(with_hold.end(), {"tau_hold", "hold_residual"});
  const OrderedJson held = linearize_json(model + " --state " + state + " --hold");
  EXPECT_EQ(keys_of(held), with_hold);
  EXPECT_NEAR(held["tau_hold"]["pivot"].get<double>(), 2 * 9.81 * 0.3 * std::sin(0.4), 1e-12);
  EXPECT_NEAR(held["hold_residual"].get<double>(), 0.0, 1e-12);
  // Held at 0.4 rad the pendulum swings about it: the frequency of m g d cos(0.4).
  EXPECT_NEAR(held["modes"][0]["frequency_hz"].get<double>(),
              omega * std::sqrt(std::cos(0.4)) / (2 * std::numbers::pi), 1e-12);

  std::vector<std::string> with_rest = base;
  with_rest.insert(with_rest.end(), {"q_rest", "stable"});
  const OrderedJson rested = linearize_json(model + " --state " + state + " --rest");
  EXPECT_EQ(keys_of(rested), with_rest);
  EXPECT_NEAR(rested["q_rest"][0].get<double>(), 0.0, 1e-9);
  EXPECT_EQ(rested["stable"], true);

  const CliRun text = run_cli("linearize " + model + " --dt 0.01 --hold");
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* part : {"eigenvalues of A:", "oscillatory modes: 1", "A (states", "B (inputs",
                           "A_d (zero-order hold", "held at rest"})
    EXPECT_NE(text.out.find(part), std::string::npos) << part;
}

TEST(LinearizeCli, BadInputIsOneLine) {
  const std::string model = write_file("pendulum_bad.yaml", kPendulum);
  expect_one_line_error(run_cli("linearize " + model + " --inputs elbow"), "unknown input 'elbow'");
  expect_one_line_error(run_cli("linearize " + model + " --hold --rest"), "do not go together");
  expect_one_line_error(run_cli("linearize " + model + " --dt -1"), "--dt");
  expect_one_line_error(run_cli("linearize " + model + " --dt nan"), "--dt");
  const std::string free = write_file(
      "free_body.yaml",
      "name: free\nlinks:\n  - {name: body, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n"
      "joints:\n  - {name: root, type: free, parent: world, child: body}\n");
  expect_one_line_error(run_cli("linearize " + free + " --rest"), "no rest configuration");
  // A state whose numbers overflow: the state file named first.
  const std::string overflowing =
      write_file("overflowing_state.json", R"({"gravity": [1e308, 0, -1e308]})");
  const CliRun overflow = run_cli("linearize " + model + " --state " + overflowing + " --hold");
  expect_one_line_error(overflow, "not finite at this state");
  EXPECT_EQ(overflow.err.find("skograph linearize: " + overflowing), 0u) << overflow.err;
  expect_one_line_error(run_cli("linearize " + example_model("fourbar.yaml") + " --inputs nothing"),
                        "nothing");
}

// A closed chain in its independent coordinates: the states its independent dofs (`dynamics`'
// "independent"), the inputs by default the same, A's lower blocks the derivatives' JSON, the
// mode shapes over every dof; --rest finds the four-bar's stable rest under gravity in its plane,
// and --hold there needs no force.
TEST(LinearizeCli, ClosedChainInItsIndependentCoordinates) {
  const std::string model = example_model("fourbar.yaml");
  const std::string state = write_file("fourbar_in_plane.json", R"({"gravity": [0, -9.81, 0]})");
  const CliRun run = run_cli("linearize " + model + " --state " + state + " --rest --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const OrderedJson report = OrderedJson::parse(run.out);
  const OrderedJson dynamics = cli_test::dynamics_json(model + " --state " + state);
  ASSERT_EQ(report["states"].size(), 2 * dynamics["independent"].size());
  EXPECT_EQ(report["states"][0], dynamics["independent"][0]);
  EXPECT_EQ(report["inputs"], dynamics["independent"]);
  EXPECT_EQ(report["stable"], true);
  ASSERT_EQ(report["modes"].size(), 1u);
  EXPECT_EQ(report["modes"][0]["shape"].size(), dynamics["dofs"].size());
  EXPECT_GT(report["modes"][0]["frequency_hz"].get<double>(), 0.0);
  // Held at the rest configuration: no force.
  OrderedJson at_rest = OrderedJson::parse(std::string(R"({"gravity": [0, -9.81, 0]})"));
  for (std::size_t i = 0; i < dynamics["dofs"].size(); ++i)
    at_rest["q"][dynamics["dofs"][i].get<std::string>()] = report["q_rest"][i];
  const OrderedJson held =
      OrderedJson::parse(run_cli("linearize " + model + " --state " +
                                 write_file("fourbar_rest.json", at_rest.dump()) + " --hold --json")
                             .out);
  for (const auto& [input, force] : held["tau_hold"].items())
    EXPECT_NEAR(force.get<double>(), 0.0, 1e-8) << input;
  EXPECT_NEAR(held["modes"][0]["frequency_hz"].get<double>(),
              report["modes"][0]["frequency_hz"].get<double>(), 1e-8);
}

}  // namespace
}  // namespace skograph

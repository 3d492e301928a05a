// A model linearized (model/linearization.hpp) against closed forms and simulation: a compound
// pendulum's sqrt(m g d / I) and an inverted one's unstable eigenvalue; the two frequencies of a
// double pendulum of point masses; A_d against the difference of simulate runs from perturbed
// states about a held state; A's tangent block against the flow of a spinning free body; B =
// [0; M^-1 S]; the forces that hold a configuration against the closed-form gravity torque and
// their least-squares optimality; the rest configuration and its stability; bad inputs.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

#include "skograph/graph/error.hpp"
#include "skograph/io/yaml_reader.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/linearization.hpp"
#include "skograph/model/simulation.hpp"

namespace skograph {
namespace {

constexpr double kG = 9.81;

Model model_from_yaml_text(const std::string& text) {
  return build_model(parse_yaml(text, "test.yaml"), "test.yaml");
}

// A pendulum about y with its centre of mass `d` below the pivot (above when d < 0).
std::string pendulum(double mass, double d, double iyy) {
  std::ostringstream text;
  text << "name: pendulum\nlinks:\n  - {name: bob, mass: " << mass << ", com: [0, 0, " << -d
       << "], inertia: {ixx: " << iyy << ", iyy: " << iyy << ", izz: " << iyy << "}}\n"
       << "joints:\n  - {name: pivot, type: continuous, parent: world, child: bob, axis: [0, 1, "
          "0]}\n";
  return text.str();
}

// Two point masses (tiny inertias) on massless rods of lengths l1, l2, pivots about y.
std::string double_pendulum(double m1, double m2, double l1, double l2) {
  std::ostringstream text;
  text << "name: double\nlinks:\n"
       << "  - {name: a, mass: " << m1 << ", com: [0, 0, " << -l1
       << "], inertia: {ixx: 1e-12, iyy: 1e-12, izz: 1e-12}}\n"
       << "  - {name: b, mass: " << m2 << ", com: [0, 0, " << -l2
       << "], inertia: {ixx: 1e-12, iyy: 1e-12, izz: 1e-12}}\n"
       << "joints:\n"
       << "  - {name: shoulder, type: continuous, parent: world, child: a, axis: [0, 1, 0]}\n"
       << "  - {name: elbow, type: continuous, parent: a, child: b, origin: {xyz: [0, 0, " << -l1
       << "]}, axis: [0, 1, 0]}\n";
  return text.str();
}

TEST(Linearization, CompoundPendulumFrequencyAndInvertedPendulumsUnstableEigenvalue) {
  const double m = 2.0, d = 0.3, inertia = 0.05;
  const double omega = std::sqrt(m * kG * d / (inertia + m * d * d));
  {
    const Model model = model_from_yaml_text(pendulum(m, d, inertia));
    ModelData data(model);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(1);
    const Linearization lin = linearize(model, data, zero, zero, zero, {}, 0.0);
    EXPECT_EQ(lin.states, (std::vector<std::string>{"pivot", "pivot_qd"}));
    EXPECT_EQ(lin.inputs, (std::vector<std::string>{"pivot"}));
    ASSERT_EQ(lin.modes.size(), 1u);
    EXPECT_NEAR(lin.modes[0].frequency_hz, omega / (2 * std::numbers::pi), 1e-12);
    EXPECT_NEAR(lin.modes[0].damping_ratio, 0.0, 1e-12);
    EXPECT_NEAR(lin.modes[0].shape[0], 1.0, 1e-15);
    EXPECT_NEAR(lin.B(1, 0), 1.0 / (inertia + m * d * d), 1e-12);
    const Rest at = rest(model, data, Eigen::VectorXd::Constant(1, 2.5));
    EXPECT_NEAR(std::remainder(at.q[0], 2 * std::numbers::pi), 0.0, 1e-9);
    EXPECT_EQ(at.stability, Stability::kStable);
    // Upright: the rest search leaves the maximum for the minimum below.
    const Rest down = rest(model, data, Eigen::VectorXd::Constant(1, std::numbers::pi));
    EXPECT_NEAR(std::remainder(down.q[0], 2 * std::numbers::pi), 0.0, 1e-9);
  }
  const Model inverted = model_from_yaml_text(pendulum(m, -d, inertia));
  ModelData data(inverted);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(1);
  const Linearization lin = linearize(inverted, data, zero, zero, zero, {}, 0.0);
  EXPECT_TRUE(lin.modes.empty());
  EXPECT_NEAR(lin.eigenvalues[1].real(), omega, 1e-12);
  EXPECT_NEAR(lin.eigenvalues[0].real(), -omega, 1e-12);
  EXPECT_NEAR(std::abs(lin.eigenvalues[1].imag()), 0.0, 1e-12);
  // Held upright by the pendulum's gravity torque m g d sin(theta) (d above the pivot).
  const double theta = 0.4;
  const Hold held = hold(inverted, data, Eigen::VectorXd::Constant(1, theta), {});
  EXPECT_NEAR(held.input_forces[0], -m * kG * d * std::sin(theta), 1e-12);
  EXPECT_NEAR(held.residual, 0.0, 1e-12);
}

// The cart-pole of examples/models: upright, lambda^2 = m g l (M + m) / ((M + m)(I + m l^2) -
// m^2 l^2) for cart mass M, pole mass m, centre of mass l above the hinge, inertia I about it.
TEST(Linearization, CartPolesUnstableEigenvalueInClosedForm) {
  const Model model =
      load_model(std::string(SKOGRAPH_SOURCE_DIR) + "/examples/models/cartpole.yaml");
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(2);
  const Linearization lin = linearize(model, data, zero, zero, zero, {"cart"}, 0.0);
  const double cart = 1.0, m = 0.2, l = 0.5, inertia = 0.0167;
  const double lambda =
      std::sqrt(m * kG * l * (cart + m) / ((cart + m) * (inertia + m * l * l) - m * m * l * l));
  EXPECT_NEAR(lin.eigenvalues[3].real(), lambda, 1e-12);
  EXPECT_EQ(lin.inputs, (std::vector<std::string>{"cart"}));
  // B: the cart's force accelerates the cart forward and tips the pole back.
  EXPECT_GT(lin.B(2, 0), 0.0);
  EXPECT_LT(lin.B(3, 0), 0.0);
}

TEST(Linearization, DoublePendulumsTwoFrequencies) {
  const double m1 = 1.5, m2 = 0.7, l1 = 0.6, l2 = 0.4;
  const Model model = model_from_yaml_text(double_pendulum(m1, m2, l1, l2));
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(2);
  const Linearization lin = linearize(model, data, zero, zero, zero, {}, 0.0);
  // omega^2 = g / (2 m1 l1 l2) [(m1 + m2)(l1 + l2) -+ sqrt((m1 + m2)((m1 + m2)(l1 + l2)^2 -
  // 4 m1 l1 l2))] for point masses.
  const double M = m1 + m2, root = std::sqrt(M * (M * (l1 + l2) * (l1 + l2) - 4 * m1 * l1 * l2));
  const double slow = std::sqrt(kG * (M * (l1 + l2) - root) / (2 * m1 * l1 * l2));
  const double fast = std::sqrt(kG * (M * (l1 + l2) + root) / (2 * m1 * l1 * l2));
  ASSERT_EQ(lin.modes.size(), 2u);
  EXPECT_NEAR(lin.modes[0].frequency_hz * 2 * std::numbers::pi, slow, 1e-8 * slow);
  EXPECT_NEAR(lin.modes[1].frequency_hz * 2 * std::numbers::pi, fast, 1e-8 * fast);
  // The slow mode swings both links the same way, the fast one against each other.
  EXPECT_GT(lin.modes[0].shape[0] * lin.modes[0].shape[1], 0.0);
  EXPECT_LT(lin.modes[1].shape[0] * lin.modes[1].shape[1], 0.0);
  EXPECT_NEAR(lin.modes[0].shape.cwiseAbs().maxCoeff(), 1.0, 1e-15);

  // Only the shoulder acts: the least-squares hold, no better force nearby.
  const Eigen::VectorXd q(Eigen::Vector2d(0.4, -0.3));
  const Hold partial = hold(model, data, q, {"shoulder"});
  ASSERT_EQ(partial.inputs, (std::vector<std::string>{"shoulder"}));
  EXPECT_GT(partial.residual, 1e-3);
  const Eigen::MatrixXd inverse =
      forward_dynamics_derivatives(model, data, q, zero, zero).dqdd_dtau;
  for (const double nudge : {-1e-4, 1e-4}) {
    Eigen::VectorXd tau = partial.tau;
    tau[0] += nudge;
    EXPECT_GT((forward_dynamics(model, data, q, zero, tau)).norm(), partial.residual);
  }
  EXPECT_NEAR(forward_dynamics(model, data, q, zero, partial.tau).norm(), partial.residual, 1e-12);
}

// A_d dx against simulate about a held state: the central difference of two runs from x +- h dx
// over dt (its error O(h^2) and the integrator's tolerance).
TEST(Linearization, DiscreteMatricesAgreeWithSimulation) {
  const Model model = model_from_yaml_text(double_pendulum(1.5, 0.7, 0.6, 0.4));
  ModelData data(model);
  const Eigen::VectorXd q(Eigen::Vector2d(0.4, -0.3)), zero = Eigen::VectorXd::Zero(2);
  const Hold held = hold(model, data, q, {});
  const double dt = 0.05;
  const Linearization lin = linearize(model, data, q, zero, held.tau, {}, dt);
  const Eigen::Vector4d dx(0.3, -0.5, 0.8, 0.2);
  SimulationOptions options;
  options.duration = dt;
  options.step = dt;
  options.relative_tolerance = options.absolute_tolerance = 1e-13;
  options.tau = held.tau;
  const auto run = [&](double h) {
    const Simulation end = simulate(model, data, q + h * dx.head(2), h * dx.tail(2), options);
    Eigen::Vector4d x;
    x << end.q, end.qd;
    return x;
  };
  const double h = 1e-4;
  const Eigen::Vector4d simulated = (run(h) - run(-h)) / (2 * h);
  EXPECT_LT((simulated - lin.A_d * dx).norm(), 1e-6 * dx.norm());
  // B_d: the response to a held step in the shoulder's force.
  options.tau = held.tau + Eigen::Vector2d(h, 0.0);
  const Simulation pushed = simulate(model, data, q, zero, options);
  options.tau = held.tau - Eigen::Vector2d(h, 0.0);
  const Simulation pulled = simulate(model, data, q, zero, options);
  Eigen::Vector4d response;
  response << (pushed.q - pulled.q) / (2 * h), (pushed.qd - pulled.qd) / (2 * h);
  EXPECT_LT((response - lin.B_d.col(0)).norm(), 1e-6 * lin.B_d.col(0).norm());
}

// A free body spinning without gravity: the tangent block -ad(qd) of A against the flow over a
// short dt, measured in tangent coordinates at the unperturbed trajectory (first order in dt).
TEST(Linearization, FloatingJointsTangentBlockFollowsTheFlow) {
  const Model model = model_from_yaml_text(
      "name: free\nlinks:\n  - {name: body, mass: 2.0, com: [0.1, -0.05, 0.2], inertia: {ixx: "
      "0.3, iyy: 0.5, izz: 0.7, ixy: 0.02}}\njoints:\n  - {name: root, type: free, parent: "
      "world, child: body}\n");
  ModelData data(model);
  const Eigen::Vector3d no_gravity = Eigen::Vector3d::Zero();
  Eigen::VectorXd q(6), qd(6);
  q << 0.3, -0.2, 0.5, 0.1, 0.2, -0.3;
  qd << 1.2, -0.7, 0.9, 0.4, -0.3, 0.6;
  const Linearization lin =
      linearize(model, data, q, qd, Eigen::VectorXd::Zero(6), {"root"}, 0.0, no_gravity);
  EXPECT_GT(lin.A.topLeftCorner(6, 6).norm(), 0.5);  // the body turns: the block is not zero
  SimulationOptions options;
  const double dt = 1e-4;
  options.duration = dt;
  options.step = dt;
  options.gravity = no_gravity;
  options.relative_tolerance = options.absolute_tolerance = 1e-14;
  Eigen::VectorXd dx(12);
  dx << 0.3, -0.5, 0.8, 0.2, 0.1, -0.4, 0.7, 0.2, -0.3, 0.5, 0.6, -0.1;
  const Simulation base = simulate(model, data, q, qd, options);
  const auto at = [&](double h) {
    const Simulation end =
        simulate(model, data, integrate(model, q, dx.head(6), h), qd + h * dx.tail(6), options);
    Eigen::VectorXd x(12);
    x << difference(model, base.q, end.q), end.qd - base.qd;
    return x;
  };
  const double h = 1e-5;
  const Eigen::VectorXd flow = (at(h) - at(-h)) / (2 * h);  // = dx + dt A dx + O(dt^2)
  const Eigen::VectorXd rate = (flow - dx) / dt;
  EXPECT_LT((rate - lin.A * dx).norm(), 1e-3 * (lin.A * dx).norm());
}

TEST(Linearization, RestStabilityAndRefusals) {
  // About the vertical: every configuration is at rest, neutrally.
  const Model spinner = model_from_yaml_text(
      "name: spinner\nlinks:\n  - {name: arm, mass: 1, com: [0.2, 0, 0], inertia: {ixx: 0.01, "
      "iyy: 0.01, izz: 0.01}}\njoints:\n  - {name: spin, type: continuous, parent: world, child: "
      "arm, axis: [0, 0, 1]}\n");
  ModelData spinner_data(spinner);
  const Rest neutral = rest(spinner, spinner_data, Eigen::VectorXd::Constant(1, 0.7));
  EXPECT_EQ(neutral.stability, Stability::kMarginal);
  EXPECT_NEAR(neutral.q[0], 0.7, 1e-15);
  // A free body falls: no rest configuration.
  const Model free = model_from_yaml_text(
      "name: free\nlinks:\n  - {name: body, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n"
      "joints:\n  - {name: root, type: free, parent: world, child: body}\n");
  ModelData free_data(free);
  try {
    rest(free, free_data, Eigen::VectorXd::Zero(6));
    ADD_FAILURE() << "a falling body has a rest configuration";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no rest configuration"), std::string::npos);
  }
  // The free body's default inputs leave out the floating joint; unknown names are refused.
  ModelData data(free);
  EXPECT_TRUE(input_dofs(free, {}).empty());
  EXPECT_EQ(input_dofs(free, {"root"}).size(), 6u);
  EXPECT_EQ(input_dofs(free, {"root:2"}), (std::vector<int>{2}));
  EXPECT_THROW(input_dofs(free, {"elbow"}), UsageError);
  EXPECT_THROW(input_dofs(free, {"root:1", "root"}), UsageError);
}

}  // namespace
}  // namespace skograph

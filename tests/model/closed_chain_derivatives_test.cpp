// A closed chain's derivatives, linearization, hold and rest through the model's calls
// (model/derivatives.hpp, model/linearization.hpp): on every closed-chain example at its state
// file's state (loops of every kind, gears, a differential, the Stewart platform, the delta robot)
// against Richardson of the model's own dynamics (support/closed_chain_derivatives_check.hpp);
// a parallelogram linkage, one degree of freedom, against the closed form of its pendulum
// frequency, the torque that holds it and its rest configuration; the four-bar's frequency
// against simulate's period; A's tangent block of a moving suspension (a ball joint split between
// q_R and the dependent dofs) against the flow.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <sstream>
#include <string>

#include "skograph/graph/error.hpp"
#include "skograph/io/yaml_reader.hpp"
#include "skograph/model/linearization.hpp"
#include "skograph/model/simulation.hpp"
#include "support/closed_chain_derivatives_check.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;
using testing_support::expect_closed_chain_derivatives;

using skograph::testing_support::kExamples;

TEST(ModelClosedChainDerivatives, EveryClosedExampleAgreesWithRichardsonOnTheManifold) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kExamples)) {
    const fs::path& file = entry.path();
    const std::string extension = file.extension().string();
    if (extension != ".yaml" && extension != ".xml" && extension != ".urdf") continue;
    if (file.stem().string().ends_with("_loops")) continue;  // a loops file, not a model
    fs::path state_file = file;
    state_file.replace_filename(file.stem().string() + "_state.json");
    if (!fs::exists(state_file)) continue;
    const Mechanism mechanism = load_mechanism(file.string());
    const Model model = build_model(mechanism, file.string());
    // Flexible links in a loop: the closed-chain derivatives refuse them (docs/flexible-bodies.md).
    if (!model.is_closed_chain() || model.tree().has_flexible_links()) continue;
    const ModelState state = read_model_state(state_file.string(), model);
    // Moving, with the state's forces and a qdd whose independent part inverse dynamics takes.
    Eigen::VectorXd qd = state.qd;
    for (Eigen::Index i = 0; i < qd.size(); ++i) qd[i] += 0.2 * std::sin(1.0 + i);
    Eigen::VectorXd qdd(model.dof_count());
    for (Eigen::Index i = 0; i < qdd.size(); ++i) qdd[i] = std::cos(2.0 + i);
    const double largest =
        expect_closed_chain_derivatives(mechanism, file.string(), model, state.q, qd, state.tau,
                                        qdd, state.gravity, file.filename());
    EXPECT_GT(largest, 1e-3) << file.filename();
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

constexpr double kG = 9.81;

// A parallelogram linkage hanging in the xz plane: two cranks of length L on pivots at x = 0 and
// x = b, each with mass m and inertia I about its pivot (centre of mass d below it), a coupler
// of mass mc (centre of mass at its middle) pinned to their ends. The coupler translates, so the
// linkage is one pendulum in theta: I_total = 2 I + mc L^2, the gravity moment
// (2 m d + mc L) g sin(theta), omega^2 = (2 m d + mc L) g / I_total.
struct Parallelogram {
  double L = 0.4, b = 0.5, m = 0.7, d = 0.15, I = 0.7 * 0.15 * 0.15 + 2e-3, mc = 1.3;
  double inertia() const { return 2 * I + mc * L * L; }
  double moment() const { return (2 * m * d + mc * L) * kG; }
  std::string yaml() const {
    const double own = I - m * d * d;  // about the centre of mass
    std::ostringstream text;
    text << "name: parallelogram\nlinks:\n"
         << "  - {name: left, mass: " << m << ", com: [0, 0, " << -d << "], inertia: {ixx: " << own
         << ", iyy: " << own << ", izz: " << own << "}}\n"
         << "  - {name: right, mass: " << m << ", com: [0, 0, " << -d << "], inertia: {ixx: " << own
         << ", iyy: " << own << ", izz: " << own << "}}\n"
         << "  - {name: coupler, mass: " << mc << ", com: [" << b / 2
         << ", 0, 0], inertia: {ixx: 1e-3, iyy: 1e-3, izz: 1e-3}}\n"
         << "joints:\n"
         << "  - {name: left_pivot, type: continuous, parent: world, child: left, axis: [0, 1, "
            "0]}\n"
         << "  - {name: right_pivot, type: continuous, parent: world, child: right, origin: "
            "{xyz: ["
         << b << ", 0, 0]}, axis: [0, 1, 0]}\n"
         << "  - {name: coupler_pin, type: continuous, parent: left, child: coupler, origin: "
            "{xyz: [0, 0, "
         << -L << "]}, axis: [0, 1, 0]}\n"
         << "loops:\n"
         << "  - {name: right_pin, type: revolute, parent: coupler, child: right, origin: {xyz: ["
         << b << ", 0, 0]}, child_origin: {xyz: [0, 0, " << -L << "]}, axis: [0, 1, 0]}\n";
    return text.str();
  }
};

Model from_yaml(const std::string& text) {
  return build_model(parse_yaml(text, "test.yaml"), "test.yaml");
}

TEST(ModelClosedChainLinearization, ParallelogramIsOnePendulumInClosedForm) {
  const Parallelogram p;
  const Model model = from_yaml(p.yaml());
  ASSERT_TRUE(model.is_closed_chain());
  ModelData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  const Linearization lin = linearize(model, data, zero, zero, zero, {}, 0.0);
  ASSERT_EQ(lin.states.size(), 2u);  // one independent coordinate
  ASSERT_EQ(lin.inputs.size(), 1u);
  EXPECT_EQ(lin.inputs[0], lin.states[0]);
  const double omega = std::sqrt(p.moment() / p.inertia());
  ASSERT_EQ(lin.modes.size(), 1u);
  EXPECT_NEAR(lin.modes[0].frequency_hz, omega / (2 * std::numbers::pi), 1e-9);
  EXPECT_NEAR(lin.modes[0].damping_ratio, 0.0, 1e-9);
  // The mode moves both cranks alike and turns the coupler back (it translates).
  const auto shape_of = [&](const std::string& dof) {
    for (int i = 0; i < n; ++i)
      if (model.dof_names()[static_cast<std::size_t>(i)] == dof) return lin.modes[0].shape[i];
    ADD_FAILURE() << dof;
    return 0.0;
  };
  EXPECT_NEAR(std::abs(shape_of("left_pivot")), 1.0, 1e-9);
  EXPECT_NEAR(shape_of("right_pivot"), shape_of("left_pivot"), 1e-9);
  EXPECT_NEAR(shape_of("coupler_pin"), -shape_of("left_pivot"), 1e-9);
  // B: the input's torque on the pendulum, 1 / I_total (the input is an independent crank or the
  // coupler pin, which turns the pendulum by -1 per unit: either way |B| = 1 / I_total).
  EXPECT_NEAR(std::abs(lin.B(1, 0)), 1.0 / p.inertia(), 1e-9);

  // Held at theta (every crank at theta, the coupler at -theta): the gravity moment.
  const double theta = 0.35;
  Eigen::VectorXd q = zero;
  for (int i = 0; i < n; ++i)
    q[i] = model.dof_names()[static_cast<std::size_t>(i)] == "coupler_pin" ? -theta : theta;
  const Hold held = hold(model, data, q, {"left_pivot"});
  EXPECT_NEAR(held.input_forces[0], p.moment() * std::sin(theta), 1e-9);
  EXPECT_NEAR(held.residual, 0.0, 1e-9);
  // Released there it comes back to hanging, stable.
  const Rest at = rest(model, data, q);
  EXPECT_NEAR(at.q.cwiseAbs().maxCoeff(), 0.0, 1e-7);
  EXPECT_EQ(at.stability, Stability::kStable);
}

// The four-bar of examples/models swinging about its rest configuration under gravity along -y
// (in its plane): linearize's frequency against the period simulate gives a small swing, its
// zero crossings refined by linear interpolation.
TEST(ModelClosedChainLinearization, FourBarFrequencyAgreesWithSimulation) {
  const Model model = load_model((kExamples / "fourbar.yaml").string());
  ModelData data(model);
  const int n = model.dof_count();
  const Eigen::Vector3d gravity(0, -kG, 0);
  const Rest at = rest(model, data, Eigen::VectorXd::Zero(n), gravity);
  ASSERT_EQ(at.stability, Stability::kStable);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  const Linearization lin = linearize(model, data, at.q, zero, zero, {}, 0.0, gravity);
  ASSERT_EQ(lin.modes.size(), 1u);
  const double frequency = lin.modes[0].frequency_hz;
  ASSERT_GT(frequency, 0.0);
  // A swing of 1e-4 along the mode's independent coordinate.
  const Eigen::MatrixXd X = embedding_matrix(model, data, at.q);
  const Eigen::VectorXd start = integrate(model, at.q, X.col(0) * 1e-4, 1.0);
  SimulationOptions options;
  options.duration = 3.0 / frequency;
  options.step = 1e-3 / frequency;
  options.gravity = gravity;
  options.relative_tolerance = options.absolute_tolerance = 1e-12;
  const int k = static_cast<int>(
      std::find(model.dof_names().begin(), model.dof_names().end(), lin.states[0]) -
      model.dof_names().begin());
  std::vector<double> crossings;  // downward zero crossings of q_R - q_R(rest)
  double last_time = 0.0, last_offset = 0.0;
  simulate(model, data, start, zero, options, [&](const SimulationSample& sample) {
    const double offset = (*sample.q)[k] - at.q[k];
    if (sample.step > 0 && last_offset > 0 && offset <= 0)
      crossings.push_back(last_time +
                          (sample.time - last_time) * last_offset / (last_offset - offset));
    last_time = sample.time;
    last_offset = offset;
  });
  ASSERT_GE(crossings.size(), 2u);
  const double period = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  EXPECT_NEAR(period * frequency, 1.0, 1e-4);
}

// The suspension's tie rod hangs on a ball joint whose spin is an independent coordinate and whose
// other two dofs are dependent. Moving, A's tangent block d(dq_R)/dt is the independent rows of
// the drift of dq = X dq_R (not the drift's independent block alone): against the flow, the rate
// of the independent entries of difference(q0(t), q1(t)) for a state q1 moved along X e_m and
// closed with q_R and qd_R kept, both moving freely (integrate along their own rates).
TEST(ModelClosedChainLinearization, TangentBlockFollowsTheFlowWithASplitBallJoint) {
  const std::string file = (kExamples / "suspension.yaml").string();
  const Model model = load_model(file);
  ModelData data(model);
  const ModelState state = read_model_state((kExamples / "suspension_state.json").string(), model);
  const int n = model.dof_count();
  Eigen::VectorXd qd(n);
  for (int i = 0; i < n; ++i) qd[i] = 1.5 * std::sin(1.0 + 2.0 * i);
  const ClosedState start = close_state(model, data, state.q, qd);
  const Linearization lin =
      linearize(model, data, start.q, start.qd, Eigen::VectorXd::Zero(n), {}, 0.0);
  const auto r = static_cast<Eigen::Index>(lin.states.size() / 2);
  const Eigen::MatrixXd X = embedding_matrix(model, data, start.q);
  ASSERT_EQ(X.cols(), r);
  // X's columns are the independent dofs the linearization's states name, in that order.
  ASSERT_EQ(data.independent, std::vector<std::string>(lin.states.begin(), lin.states.begin() + r));
  std::vector<int> at;  // the independent dofs' file positions
  for (Eigen::Index a = 0; a < r; ++a)
    at.push_back(static_cast<int>(std::ranges::find(model.dof_names(), lin.states[a]) -
                                  model.dof_names().begin()));
  // A joint with several dofs (the ball joints) split between q_R and the dependent dofs.
  bool split = false;
  for (int i = 0; i < n; ++i) {
    const std::string& name = model.dof_names()[static_cast<std::size_t>(i)];
    const std::string joint = name.substr(0, name.find(':') + 1);
    int independent = 0, dependent = 0;
    for (int k = 0; k < n && name.find(':') != std::string::npos; ++k)
      if (model.dof_names()[static_cast<std::size_t>(k)].starts_with(joint))
        (std::ranges::find(at, k) != at.end() ? independent : dependent) += 1;
    split = split || (independent > 0 && dependent > 0);
  }
  ASSERT_TRUE(split) << "the test needs a ball joint split between q_R and the dependent dofs";
  const double epsilon = 1e-5, h = 1e-4;
  const Eigen::MatrixXd block = lin.A.topLeftCorner(r, r);
  for (Eigen::Index m = 0; m < r; ++m) {
    const ClosedState moved =
        close_state(model, data, integrate(model, start.q, X.col(m) * epsilon, 1.0), start.qd);
    const auto offset = [&](double t) {
      return difference(model, integrate(model, start.q, start.qd, t),
                        integrate(model, moved.q, moved.qd, t));
    };
    const Eigen::VectorXd rate = (offset(h) - offset(-h)) / (2.0 * h);
    const Eigen::VectorXd delta = offset(0.0);
    Eigen::VectorXd rate_r(r), delta_r(r);
    for (Eigen::Index a = 0; a < r; ++a) {
      rate_r[a] = rate[at[static_cast<std::size_t>(a)]];
      delta_r[a] = delta[at[static_cast<std::size_t>(a)]];
    }
    const Eigen::VectorXd predicted = block * delta_r;
    EXPECT_LT((rate_r - predicted).norm(), 1e-3 * predicted.norm() + 1e-4 * epsilon)
        << "column " << m << ": " << rate_r.transpose() << " against " << predicted.transpose();
  }
}

}  // namespace
}  // namespace skograph

// Flexible links through the model's calls, against physics: a clamped beam's period in simulate
// against the clamped-free Euler-Bernoulli frequency; a pinned beam's coupled frequencies in
// linearize converging from above to the pinned-free roots of tan x = tanh x; a free-floating
// satellite with a flexible panel keeping its momentum and energy, and losing energy with modal
// damping; the modal coordinates' names, state files and refusals.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "skograph/graph/error.hpp"
#include "skograph/io/yaml_reader.hpp"
#include "skograph/model/base_change.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/model/linearization.hpp"
#include "skograph/model/simulation.hpp"
#include "skograph/model/state.hpp"
#include "support/io_support.hpp"
#include "support/richardson.hpp"

namespace skograph {
namespace {

constexpr double kPi = std::numbers::pi;

Model from_yaml(const std::string& text) {
  return build_model(parse_yaml(text, "beam.yaml"), "beam.yaml");
}

// A unit beam (L = 1, rho A = 1; EI_z bends it in the x-y plane) on a joint of `type` about z.
std::string unit_beam(const std::string& type, int modes, double ei_y, double damping = 0.0) {
  std::ostringstream text;
  text << "links:\n  - name: beam\n    flexible: {beam: {length: 1.0, EI_y: " << ei_y
       << ", EI_z: 1.0, rho_A: 1.0, modes: " << modes
       << ", axis: x, radius: 0.001, damping_ratio: " << damping << "}}\n"
       << "joints:\n  - {name: root, type: " << type
       << ", parent: world, child: beam, axis: [0, 0, 1]}\n";
  return text.str();
}

// The root of f(x) = 0 by Newton's method from x.
template <typename F, typename Slope>
double newton_root(F f, Slope slope, double x) {
  for (int i = 0; i < 60; ++i) x -= f(x) / slope(x);
  return x;
}

// The time in [t0, t0 + h] where the cubic Hermite interpolant of (f0, d0) and (f1, d1) is zero.
double hermite_zero(double t0, double h, double f0, double d0, double f1, double d1) {
  const auto value = [&](double s) {
    const double s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * f0 + (s3 - 2 * s2 + s) * h * d0 + (-2 * s3 + 3 * s2) * f1 +
           (s3 - s2) * h * d1;
  };
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    ((value(lo) < 0) == (value(mid) < 0) ? lo : hi) = mid;
  }
  return t0 + 0.5 * (lo + hi) * h;
}

TEST(FlexiblePhysics, ClampedBeamVibratesAtItsFirstModalFrequency) {
  // beta_1 L: the first root of cos x cosh x = -1.
  const double root = newton_root(
      [](double x) { return std::cos(x) * std::cosh(x) + 1.0; },
      [](double x) { return -std::sin(x) * std::cosh(x) + std::cos(x) * std::sinh(x); }, 1.9);
  const double period = 2.0 * kPi / (root * root);  // omega = (beta L)^2 sqrt(EI / (rho A L^4))
  const Model model = from_yaml(unit_beam("fixed", 2, 1.0));
  ASSERT_EQ(model.dof_names(),
            (std::vector<std::string>{"beam:eta1", "beam:eta2", "beam:eta3", "beam:eta4"}));
  ModelData data(model);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(4), qd = q;
  q[0] = 1e-3;  // the first mode of the EI_y plane
  SimulationOptions options;
  options.integrator = Integrator::kRungeKutta4;
  options.step = period / 2000.0;
  options.duration = 10.5 * period;
  options.gravity.setZero();
  // Up-crossings of eta1 located on the Hermite cubic of (eta1, eta1dot) between samples.
  std::vector<double> crossings;
  double last_time = 0.0, last_value = 0.0, last_rate = 0.0;
  simulate(model, data, q, qd, options, [&](const SimulationSample& sample) {
    const double value = (*sample.q)[0], rate = (*sample.qd)[0];
    if (sample.step > 0 && last_value < 0.0 && value >= 0.0)
      crossings.push_back(
          hermite_zero(last_time, sample.time - last_time, last_value, last_rate, value, rate));
    last_time = sample.time;
    last_value = value;
    last_rate = rate;
  });
  ASSERT_GE(crossings.size(), 10u);
  const double measured = (crossings.back() - crossings.front()) / (crossings.size() - 1.0);
  EXPECT_NEAR(measured / period, 1.0, 1e-6);
}

// The first two frequencies ((beta L)^2, unit beam) of a beam pinned on a revolute joint, from
// linearize at rest with `modes` clamped-free modes per plane; the other plane made stiff enough
// (EI_y = 1e4) that its modes lie far above.
std::vector<double> pinned_frequencies(int modes) {
  const Model model = from_yaml(unit_beam("revolute", modes, 1e4));
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());
  const Linearization linear =
      linearize(model, data, zero, zero, zero, {}, 0.0, Eigen::Vector3d::Zero());
  std::vector<double> frequencies;
  for (const OscillatoryMode& mode : linear.modes)
    if (mode.frequency_hz > 1e-3) frequencies.push_back(2.0 * kPi * mode.frequency_hz);
  return frequencies;
}

TEST(FlexiblePhysics, PinnedBeamFrequenciesConvergeFromAboveToThePinnedFreeValues) {
  // Pinned-free: tan x = tanh x, roots near 5 pi / 4 and 9 pi / 4.
  const auto f = [](double x) { return std::sin(x) * std::cosh(x) - std::cos(x) * std::sinh(x); };
  const auto slope = [](double x) { return 2.0 * std::sin(x) * std::sinh(x); };
  const double first = std::pow(newton_root(f, slope, 3.93), 2);
  const double second = std::pow(newton_root(f, slope, 7.07), 2);
  EXPECT_NEAR(first, 15.4182, 1e-4);  // the values the literature tabulates
  EXPECT_NEAR(second, 49.9649, 1e-4);
  double previous_first = INFINITY, previous_second = INFINITY;
  for (int modes = 2; modes <= 5; ++modes) {
    const std::vector<double> frequencies = pinned_frequencies(modes);
    ASSERT_GE(frequencies.size(), 2u) << modes;
    // A Ritz approximation: from above, and closer with every mode added.
    EXPECT_GT(frequencies[0], first) << modes;
    EXPECT_GT(frequencies[1], second) << modes;
    EXPECT_LT(frequencies[0], previous_first) << modes;
    EXPECT_LT(frequencies[1], previous_second) << modes;
    previous_first = frequencies[0];
    previous_second = frequencies[1];
    if (modes == 5) {
      EXPECT_LT(frequencies[0] / first - 1.0, 5e-4);
      EXPECT_LT(frequencies[1] / second - 1.0, 5e-4);
    }
  }
}

// A free-floating hub carrying a flexible panel on a hinge off its centre.
std::string satellite(double damping) {
  std::ostringstream text;
  text << "links:\n"
          "  - {name: hub, mass: 20.0, com: [0.01, 0.02, -0.01], inertia: {ixx: 2.0, iyy: 2.5, "
          "izz: 3.0, ixy: 0.1}}\n"
          "  - name: panel\n"
          "    flexible: {beam: {length: 2.0, EI_y: 40.0, EI_z: 60.0, rho_A: 1.5, modes: 2, "
          "axis: x, damping_ratio: "
       << damping
       << "}}\n"
          "joints:\n"
          "  - {name: float, type: free, parent: world, child: hub}\n"
          "  - {name: hinge, type: revolute, parent: hub, child: panel, origin: {xyz: [0.5, 0.1, "
          "0]}, axis: [0, 1, 0]}\n";
  return text.str();
}

// The system's momentum [angular about the world origin; linear] in world axes: each node's
// body-frame momentum M_fl(k) nu(k) (its rigid rows) carried to the world.
Vector6d world_momentum(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  const RigidBodyModel& tree = model.tree();
  RigidBodyData data(tree);
  update_kinematics(tree, model.dof_order().model_vector(q), model.dof_order().model_vector(qd),
                    data);
  const std::vector<Eigen::Isometry3d>& poses = link_poses(tree, data);
  Vector6d total = Vector6d::Zero();
  for (int k = 0; k < tree.node_count(); ++k) {
    const int offset = data.sko.structure().node.offset(k), size = 6 + tree.modes(k);
    const Vector6d body = tree.node_inertia(k).topRows<6>() * data.velocity.segment(offset, size);
    const Eigen::Matrix3d& R = poses[k].linear();
    const Eigen::Vector3d linear = R * body.tail<3>();
    total.head<3>() += R * body.head<3>() + poses[k].translation().cross(linear);
    total.tail<3>() += linear;
  }
  return total;
}

// The centre of mass and a link frame through the model on the satellite: c' = J qd, and J against
// Richardson-extrapolated central differences of c along each dof's configuration rate (the
// floating hub's, the hinge's and the panel's modes, which move its first moment); the panel's
// subtree too.
TEST(FlexiblePhysics, CentreOfMassAndLinkFramesFollowTheModes) {
  const Model model = from_yaml(satellite(0.0));
  ModelData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = Eigen::VectorXd::LinSpaced(n, -0.4, 0.5);
  const Eigen::VectorXd qd = Eigen::VectorXd::LinSpaced(n, 0.7, -0.3);
  for (const std::string subtree : {"", "panel"}) {
    const Eigen::MatrixXd jacobian = center_of_mass_jacobian(model, data, q, subtree);
    EXPECT_LT((center_of_mass_velocity(model, data, q, qd, subtree) - jacobian * qd).norm(),
              1e-13 * std::max(1.0, (jacobian * qd).norm()));
    const auto moved = [&](int j, double e) -> Eigen::VectorXd {
      return center_of_mass(model, data, integrate(model, q, Eigen::VectorXd::Unit(n, j), e),
                            subtree);
    };
    const testing_support::RichardsonColumns differences =
        testing_support::richardson_columns(n, moved, 1e-3);
    const double error = (differences.fine - differences.coarse).cwiseAbs().maxCoeff();
    EXPECT_LT((jacobian - differences.fine).cwiseAbs().maxCoeff(), std::max(1e-9, 10 * error))
        << "subtree '" << subtree << "'";
    // The panel's modes move the centre (their columns are not zero).
    const int first_mode = n - 4;
    EXPECT_GT(jacobian.middleCols(first_mode, 4).norm(), 1e-3);
  }
  // The panel's link frame: V = J qd, and J's linear rows against differences of its origin.
  const Eigen::MatrixXd frame = frame_jacobian(model, data, q, "panel", FrameAxes::kWorld);
  EXPECT_LT((frame_velocity(model, data, q, qd, "panel", FrameAxes::kWorld) - frame * qd).norm(),
            1e-13 * std::max(1.0, (frame * qd).norm()));
  const auto origin = [&](int j, double e) -> Eigen::VectorXd {
    return frame_pose(model, data, integrate(model, q, Eigen::VectorXd::Unit(n, j), e), "panel")
        .translation();
  };
  const testing_support::RichardsonColumns differences =
      testing_support::richardson_columns(n, origin, 1e-3);
  const double error = (differences.fine - differences.coarse).cwiseAbs().maxCoeff();
  EXPECT_LT((frame.bottomRows<3>() - differences.fine).cwiseAbs().maxCoeff(),
            std::max(1e-9, 10 * error));
}

TEST(FlexiblePhysics, FreeFloatingSatelliteKeepsItsMomentumAndEnergy) {
  const Model model = from_yaml(satellite(0.0));
  ASSERT_EQ(model.dof_count(), 6 + 1 + 4);
  ModelData data(model);
  Eigen::VectorXd q(11), qd(11);
  q << 0.1, -0.2, 0.3, 0.5, -0.4, 0.2, 0.3, 0.02, -0.01, 0.015, 0.01;
  qd << 0.3, -0.2, 0.5, 0.1, 0.2, -0.3, 0.8, 0.05, -0.1, 0.08, 0.06;
  SimulationOptions options;
  options.duration = 3.0;
  options.step = 0.01;
  options.relative_tolerance = options.absolute_tolerance = 1e-12;
  options.gravity.setZero();
  const Vector6d start = world_momentum(model, q, qd);
  const Simulation run = simulate(model, data, q, qd, options);
  const Vector6d end = world_momentum(model, run.q, run.qd);
  EXPECT_LT((end - start).norm(), 1e-10 * start.norm()) << start.transpose() << "\n"
                                                        << end.transpose();
  EXPECT_LT(run.summary.energy_drift, 1e-9);
  // The panel moved: its modes were excited and exchanged energy with the rigid motion.
  EXPECT_GT((run.q - q).tail(4).norm(), 1e-3);
}

TEST(FlexiblePhysics, EnergyIsConservedUnderGravityAndDecreasesWithModalDamping) {
  // A hinged panel swinging under gravity for 10 s.
  const std::string hinged =
      "links:\n  - name: panel\n    flexible: {beam: {length: 1.5, EI_y: 30.0, EI_z: 50.0, rho_A: "
      "2.0, modes: 2, axis: x, damping_ratio: DAMPING}}\n"
      "joints:\n  - {name: hinge, type: revolute, parent: world, child: panel, axis: [0, 1, 0]}\n";
  const auto with_damping = [&](const std::string& ratio) {
    std::string text = hinged;
    text.replace(text.find("DAMPING"), 7, ratio);
    return from_yaml(text);
  };
  Eigen::VectorXd q = Eigen::VectorXd::Zero(5), qd = q;
  q << 0.7, 0.01, 0.0, -0.02, 0.0;
  SimulationOptions options;
  options.duration = 10.0;
  options.step = 0.01;
  options.relative_tolerance = options.absolute_tolerance = 1e-12;
  {
    const Model model = with_damping("0");
    ModelData data(model);
    const Simulation run = simulate(model, data, q, qd, options);
    EXPECT_LT(run.summary.energy_drift, 1e-8);
  }
  const Model model = with_damping("0.05");
  ModelData data(model);
  double previous = INFINITY, first = 0.0, last = 0.0;
  bool decreasing = true;
  simulate(model, data, q, qd, options, [&](const SimulationSample& sample) {
    const double energy = sample.kinetic_energy + sample.potential_energy;
    if (sample.step == 0) first = energy;
    decreasing = decreasing && energy <= previous + 1e-12 * std::abs(first);
    previous = last = energy;
  });
  EXPECT_TRUE(decreasing);
  EXPECT_LT(last, first - 1e-3 * std::abs(first));
}

TEST(FlexiblePhysics, ModalCoordinatesInStateFilesAndNames) {
  const Model model = from_yaml(satellite(0.0));
  const std::vector<std::string>& names = model.dof_names();
  ASSERT_EQ(names.size(), 11u);
  EXPECT_EQ(names[6], "hinge");
  EXPECT_EQ(names[7], "panel:eta1");
  EXPECT_EQ(names[10], "panel:eta4");
  const std::string path = io_test::write_file(
      "satellite_state.json",
      "{\"q\": {\"hinge\": 0.3, \"panel:eta\": [1, 2, 3, 4]}, \"qd\": {\"panel:eta3\": 0.5}}");
  const ModelState state = read_model_state(path, model);
  EXPECT_EQ(state.q.tail(5), (Eigen::VectorXd(5) << 0.3, 1, 2, 3, 4).finished());
  EXPECT_EQ(state.qd[9], 0.5);
  // Written back in the same words, and read again to the same numbers.
  const std::string text = model_state_text(model, state);
  EXPECT_NE(text.find("\"panel:eta\": [1, 2, 3, 4]"), std::string::npos) << text;
  const ModelState again =
      read_model_state(io_test::write_file("satellite_state_again.json", text), model);
  EXPECT_EQ(again.q, state.q);
  EXPECT_EQ(again.qd, state.qd);
  for (const char* bad : {"{\"q\": {\"panel:eta\": [1, 2]}}", "{\"q\": {\"panel:eta5\": 1}}",
                          "{\"q\": {\"panel:eta0\": 1}}", "{\"q\": {\"hub:eta1\": 1}}"}) {
    const std::string bad_path = io_test::write_file("bad_state.json", bad);
    EXPECT_THROW(read_model_state(bad_path, model), InputError) << bad;
  }
}

TEST(FlexiblePhysics, CallsThatDoNotTakeFlexibleLinksSaySoInOneLine) {
  const Model model = from_yaml(satellite(0.0));
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());
  try {
    inverse_kinematics(model, data, "panel", Eigen::Isometry3d::Identity(), zero);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "beam.yaml: inverse kinematics do not take flexible links yet "
              "(docs/flexible-bodies.md lists what does)");
  }
  // A loop whose joints cannot follow the panel's modes (its one hinge turns about one axis, the
  // modes move the strut's end in two directions): refused at the model, naming the mode.
  std::string looped = satellite(0.0);
  looped +=
      "loops:\n  - {name: strut, type: spherical, parent: hub, child: panel, origin: {xyz: "
      "[1, 0, 0]}, child_origin: {xyz: [0.5, 0, 0]}}\n";
  try {
    from_yaml(looped);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("loop 'strut' cannot follow modal coordinate 'panel:eta"),
              std::string::npos)
        << e.what();
  }
}

TEST(FlexiblePhysics, NamesBaseChangesAndInputsOfFlexibleModels) {
  // A base change would carry no modal coordinates across: refused in one line.
  const Model model = from_yaml(satellite(0.0));
  try {
    with_base(model, "panel");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "beam.yaml: base body 'panel': base changes do not take flexible links yet "
              "(docs/flexible-bodies.md)");
  }
  // A joint named like a modal coordinate: two dofs of one name, refused at the model.
  std::string clash = satellite(0.0);
  clash.replace(clash.find("joints:\n"), 8,
                "  - {name: lamp, mass: 0.1, inertia: {ixx: 0.01, iyy: 0.01, izz: 0.01}}\n"
                "joints:\n  - {name: 'panel:eta1', type: revolute, parent: hub, child: lamp, "
                "axis: [0, 0, 1]}\n");
  try {
    from_yaml(clash);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("two dofs are named 'panel:eta1'"), std::string::npos)
        << e.what();
  }
  // A joint named like its flexible child link: the joint's name is its dof, not the link's modes.
  const Model arm = from_yaml(
      "links:\n  - name: arm\n    flexible: {beam: {length: 1.0, EI_y: 1.0, EI_z: 1.0, rho_A: "
      "1.0, modes: 1}}\njoints:\n  - {name: arm, type: revolute, parent: world, child: arm, axis: "
      "[0, 0, 1]}\n");
  EXPECT_EQ(input_dofs(arm, {"arm"}), std::vector<int>{0});
  EXPECT_EQ(input_dofs(arm, {}), std::vector<int>{0});
}

}  // namespace
}  // namespace skograph

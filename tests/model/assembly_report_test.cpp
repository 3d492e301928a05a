// What assembly reports is true, and closed-chain dynamics are as accurate as the equations
// allow (model/model.hpp: close_state, state_messages, forward_dynamics):
// - every independent coordinate either keeps its given value or is listed in `moved` with its
//   displacement (the published parallel robots from the zero state and random starts; the
//   five-bar driven where it cannot close);
// - the loop files' motors are kept where the loops allow, and the notes say where no choice of
//   independent coordinates keeps the constraints' condition number within the limit;
// - a chosen set that is full rank but ill-conditioned is used with a warning naming its
//   condition number, not refused as singular;
// - twins in two formats started from a state that gives only the motor angles keep them and
//   agree in their closed q and qdd to 1e-8: the delta robot in YAML and in MJCF with redundant
//   <connect>s; the five-bar as a URDF with a loop file and as a URDF+ with its <loop>;
// - forward dynamics of robot_delta and talos_like against a long-double solution of the same
//   constrained equations (M, C, G and Gdot qd from the library at the closed state, the KKT system
//   [M G*; G 0] solved by full-pivot LU in long double): 5e-11 and 1.5e-11 max-norm relative.
// Robots of ../shared are skipped when it is absent.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "skograph/model/constraints.hpp"
#include "skograph/model/dynamics.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;

using skograph::testing_support::kExamples;
using skograph::testing_support::kParallelRobots;

Model robot(const std::string& name, const std::vector<std::string>& independent = {}) {
  ReadOptions options;
  options.loops_file = (kParallelRobots / name / "robot.yaml").string();
  options.independent = independent;
  return load_model((kParallelRobots / name / "robot.urdf").string(), options);
}

double at(const Model& model, const Eigen::VectorXd& v, const std::string& dof) {
  const std::vector<std::string>& names = model.dof_names();
  return v[std::find(names.begin(), names.end(), dof) - names.begin()];
}

// Every independent coordinate of data's last call kept (within the closure tolerance) or
// listed in data.moved with its displacement; returns how many moved.
int expect_honest_report(const Model& model, const ModelData& data, const Eigen::VectorXd& start,
                         const Eigen::VectorXd& closed) {
  std::map<std::string, double> moved;
  for (const ModelData::Moved& m : data.moved) moved[m.dof] = m.by;
  for (const std::string& dof : data.independent) {
    const double by = at(model, closed, dof) - at(model, start, dof);
    if (moved.count(dof)) {
      EXPECT_GT(std::abs(by), kClosureTolerance) << dof;
      EXPECT_NEAR(moved[dof], by, 1e-12) << dof;
    } else {
      EXPECT_LE(std::abs(by), kClosureTolerance) << dof << " moved by " << by << ", not reported";
    }
  }
  for (const auto& [dof, by] : moved)
    EXPECT_NE(std::find(data.independent.begin(), data.independent.end(), dof),
              data.independent.end())
        << dof << " is reported moved but is not independent";
  EXPECT_EQ(assembly_warning(data).empty(), moved.empty());
  return static_cast<int>(moved.size());
}

TEST(AssemblyReport, EveryIndependentCoordinateIsKeptOrReportedMoved) {
  const std::vector<std::string> robots{
      "5bar_linkage",         "5bar_linkage_iso3d", "5bar_linkage_iso6d", "battobot_6d",
      "cassie_like",          "digit_like",         "digit_like_2legs",   "digit_like_2legs_6D",
      "digit_like_2legs_old", "disney_like",        "disney_robot",       "robot_delta",
      "talos_like",           "wl16_like"};
  if (!fs::exists(kParallelRobots)) GTEST_SKIP() << "no ../shared robots";
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const std::string& name : robots) {
    SCOPED_TRACE(name);
    const Model model = robot(name);
    ModelData data(model);
    const int n = model.dof_count();
    for (int trial = 0; trial < 4; ++trial) {
      Eigen::VectorXd start = Eigen::VectorXd::Zero(n);
      if (trial > 0)
        for (int i = 0; i < n; ++i) start[i] = 0.3 * normal(rng);
      const ClosedState closed = close_state(model, data, start, Eigen::VectorXd::Zero(n));
      expect_honest_report(model, data, start, closed.q);
    }
  }
}

TEST(AssemblyReport, TheFiveBarKeepsItsCoordinatesAndSaysWhichMoveWhereItCannot) {
  if (!fs::exists(kParallelRobots / "5bar_linkage")) GTEST_SKIP() << "no ../shared robots";
  const Model model = robot("5bar_linkage");
  ModelData data(model);
  const int n = model.dof_count();
  // From zero: the motors and the third independent coordinate kept, nothing moved; the same on
  // the first call of a fresh model and every later one.
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  const ClosedState first = close_state(model, data, zero, zero);
  EXPECT_EQ(expect_honest_report(model, data, zero, first.q), 0);
  EXPECT_EQ(at(model, first.q, "mot1"), 0.0);
  EXPECT_EQ(at(model, first.q, "mot2"), 0.0);
  EXPECT_EQ(at(model, first.q, "closedloop1_A"), 0.0);  // independent, kept
  const ClosedState again = close_state(model, data, zero, zero);
  EXPECT_TRUE((again.q.array() == first.q.array()).all());
  // Motors 3 rad apart leave no closure: they move, and say so.
  Eigen::VectorXd apart = zero;
  apart[std::find(model.dof_names().begin(), model.dof_names().end(), "mot1") -
        model.dof_names().begin()] = 1.5;
  apart[std::find(model.dof_names().begin(), model.dof_names().end(), "mot2") -
        model.dof_names().begin()] = -1.5;
  const ClosedState moved = close_state(model, data, apart, zero);
  EXPECT_GT(expect_honest_report(model, data, apart, moved.q), 0);
  EXPECT_NE(assembly_warning(data).find("had to move to close the loops"), std::string::npos);
}

TEST(AssemblyReport, TheDeltaKeepsItsMotorsAndNotesTheConditioning) {
  if (!fs::exists(kParallelRobots / "robot_delta")) GTEST_SKIP() << "no ../shared robots";
  const Model model = robot("robot_delta");
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());
  const ClosedState closed = close_state(model, data, zero, zero);
  EXPECT_EQ(expect_honest_report(model, data, zero, closed.q), 0);
  for (const std::string motor : {"mot1_rod1", "mot1_rod2"}) {  // the loop file's name_mot
    EXPECT_NE(std::find(data.independent.begin(), data.independent.end(), motor),
              data.independent.end())
        << motor;
    EXPECT_EQ(at(model, closed.q, motor), 0.0) << motor;
  }
  // No choice keeps within 10^3 on this delta: the note says so, with the limit and the best.
  const StateMessages messages = state_messages(model, data);
  ASSERT_EQ(messages.notes.size(), 1u);
  EXPECT_NE(messages.notes[0].find("keeps the constraints' condition number within the "
                                   "conditioning limit 1000 (--conditioning-limit"),
            std::string::npos)
      << messages.notes[0];
  EXPECT_NE(messages.notes[0].find("the best choice found"), std::string::npos);
  // The same set chosen by the user: used (full rank), with a warning naming its condition
  // number, not "singular configuration".
  ModelData chosen_data(model);
  const Model chosen = robot("robot_delta", data.independent);
  const ClosedState again = close_state(chosen, chosen_data, closed.q, zero);
  EXPECT_LT((again.q - closed.q).cwiseAbs().maxCoeff(), 1e-12);
  const StateMessages warned = state_messages(chosen, chosen_data);
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_NE(warned.warnings[0].find("are ill-conditioned at this state: the constraints on the "
                                    "other coordinates have condition number"),
            std::string::npos)
      << warned.warnings[0];
  EXPECT_NO_THROW(forward_dynamics(chosen, chosen_data, again.q, zero, zero));
  // With a higher limit the same choice is well conditioned: no warning.
  ReadOptions relaxed;
  relaxed.loops_file = (kParallelRobots / "robot_delta" / "robot.yaml").string();
  relaxed.independent = data.independent;
  relaxed.conditioning_limit = 1e6;
  const Model loose =
      load_model((kParallelRobots / "robot_delta" / "robot.urdf").string(), relaxed);
  ModelData loose_data(loose);
  close_state(loose, loose_data, closed.q, zero);
  EXPECT_TRUE(state_messages(loose, loose_data).warnings.empty());
}

TEST(AssemblyReport, CassieKeepsEveryIndependentCoordinateFromZero) {
  if (!fs::exists(kParallelRobots / "cassie_like")) GTEST_SKIP() << "no ../shared robots";
  const Model model = robot("cassie_like");
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());
  const ClosedState closed = close_state(model, data, zero, zero);
  EXPECT_EQ(expect_honest_report(model, data, zero, closed.q), 0);
  for (const std::string& dof : data.independent) EXPECT_EQ(at(model, closed.q, dof), 0.0) << dof;
}

// Each twin from the state that gives `motors` their angles and every other coordinate zero:
// the motors kept, nothing moved; the twins' closed q and qdd (zero tau, gravity) agree to 1e-8.
void expect_twins_agree(const std::vector<std::pair<std::string, ReadOptions>>& twins,
                        const std::map<std::string, double>& motors) {
  std::vector<Eigen::VectorXd> q, qdd;
  std::vector<std::vector<std::string>> names;
  for (const auto& [file, options] : twins) {
    SCOPED_TRACE(file);
    const Model model = load_model((kExamples / file).string(), options);
    ModelData data(model);
    const int n = model.dof_count();
    Eigen::VectorXd start = Eigen::VectorXd::Zero(n);
    for (const auto& [motor, angle] : motors)
      start[std::find(model.dof_names().begin(), model.dof_names().end(), motor) -
            model.dof_names().begin()] = angle;
    const ClosedState closed = close_state(model, data, start, Eigen::VectorXd::Zero(n));
    EXPECT_EQ(expect_honest_report(model, data, start, closed.q), 0);
    for (const auto& [motor, angle] : motors) EXPECT_EQ(at(model, closed.q, motor), angle) << motor;
    q.push_back(closed.q);
    qdd.push_back(forward_dynamics(model, data, closed.q, closed.qd, Eigen::VectorXd::Zero(n)));
    names.push_back(model.dof_names());
  }
  ASSERT_EQ(names[0], names[1]);  // the same joints, the same dofs
  EXPECT_LT((q[0] - q[1]).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((qdd[0] - qdd[1]).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + qdd[0].cwiseAbs().maxCoeff()));
}

TEST(AssemblyReport, TwinsInTwoFormatsKeepTheMotorAnglesAndAgree) {
  ReadOptions arms;
  arms.independent = {"arm1", "arm2", "arm3"};
  // The MJCF twin has the YAML's dofs (a massless cross link per rod, the same joint names).
  expect_twins_agree({{"delta_robot.yaml", arms}, {"delta_robot_redundant.xml", arms}},
                     {{"arm1", 0.05}, {"arm2", 0.0}, {"arm3", 0.0}});
  ReadOptions loop_file;
  loop_file.loops_file = (kExamples / "fivebar_loops.yaml").string();
  expect_twins_agree({{"fivebar.urdf", loop_file}, {"fivebar_plus.urdf", {}}},
                     {{"motor1", 0.2}, {"motor2", -0.1}});
}

// max |qdd - qdd*| / max |qdd*| with qdd* the long-double solution of the constrained equations
// at the closed state.
double relative_error(const Model& model, ModelData& data, const ClosedState& state,
                      const Eigen::VectorXd& tau) {
  using Long = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
  const Eigen::VectorXd qdd = forward_dynamics(model, data, state.q, state.qd, tau);
  const Eigen::MatrixXd mass = mass_matrix(model, data, state.q);
  const Eigen::VectorXd bias = bias_forces(model, data, state.q, state.qd);
  const ConstraintSystem constraints = constraint_system(model, data, state.q, state.qd);
  const Eigen::MatrixXd g = constraints.jacobian;
  const Eigen::Index n = mass.rows(), m = g.rows();
  Long kkt = Long::Zero(n + m, n + m);
  kkt.topLeftCorner(n, n) = mass.cast<long double>();
  kkt.topRightCorner(n, m) = g.transpose().cast<long double>();
  kkt.bottomLeftCorner(m, n) = g.cast<long double>();
  Eigen::Matrix<long double, Eigen::Dynamic, 1> right(n + m);
  right.head(n) = (tau - bias).cast<long double>();
  right.tail(m) = (-constraints.bias).cast<long double>();
  const Eigen::VectorXd exact = kkt.fullPivLu().solve(right).head(n).cast<double>();
  return (qdd - exact).cwiseAbs().maxCoeff() / exact.cwiseAbs().maxCoeff();
}

TEST(ClosedChainAccuracy, ForwardDynamicsAgainstALongDoubleSolveOfTheSameEquations) {
  if (!fs::exists(kParallelRobots)) GTEST_SKIP() << "no ../shared robots";
  for (const auto& [name, bound] : std::vector<std::pair<std::string, double>>{
           {"robot_delta", 5e-11}, {"talos_like", 1.5e-11}}) {
    SCOPED_TRACE(name);
    const Model model = robot(name);
    ModelData data(model);
    const int n = model.dof_count();
    std::mt19937 rng(11);
    std::normal_distribution<double> normal(0.0, 1.0);
    double worst = 0.0;
    for (int trial = 0; trial < 20; ++trial) {
      Eigen::VectorXd start = Eigen::VectorXd::Zero(n), rates(n), tau(n);
      for (int i = 0; i < n; ++i) {
        if (trial > 0) start[i] = 0.2 * normal(rng);
        rates[i] = normal(rng);
        tau[i] = normal(rng);
      }
      const ClosedState state = close_state(model, data, start, rates);
      worst = std::max(worst, relative_error(model, data, state, tau));
    }
    EXPECT_LT(worst, bound);
  }
}

}  // namespace
}  // namespace skograph

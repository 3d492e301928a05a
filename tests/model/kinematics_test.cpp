// Kinematics against first principles: Jacobians against central differences of the
// poses along the configuration rates (for spherical and floating joints qd is not dq/dt), the
// bias term Jdot qd against differences of J qd along the motion, velocities and accelerations
// against J qd and J qdd + Jdot qd, the centre of mass against the masses of the file's links
// placed by their poses (fused links and static bodies included), T = 1/2 qd* M qd, the power
// identity d(T + V)/dt = qd* tau, and for closed chains J_R against differences of the assembled
// forward kinematics in the independent coordinates, inverse kinematics round trips and the
// singularity measures growing without bound toward a singular configuration. The 8 benchmark
// robots of ../shared/robots/benchmark (skipped when ../shared is absent) and examples/.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <filesystem>
#include <random>

#include "skograph/io/mechanism_file.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/rigid/kinematics.hpp"
#include "support/allocation_counter.hpp"
#include "support/matrix_difference.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;

using skograph::testing_support::kExamples;
const fs::path kBenchmark =
    fs::path(SKOGRAPH_SOURCE_DIR) / ".." / "shared" / "robots" / "benchmark";

std::vector<fs::path> tree_models() {
  std::vector<fs::path> models = {kExamples / "arm7.urdf", kExamples / "space_arm.urdf",
                                  kExamples / "humanoid.yaml", kExamples / "humanoid.xml"};
  if (fs::is_directory(kBenchmark))
    for (const char* robot : {"anymal_c_float.urdf", "panda.urdf", "pr2.urdf", "solo12_float.urdf",
                              "talos_float.urdf", "tiago_pro.urdf", "ur5.urdf", "z1.urdf"})
      models.push_back(kBenchmark / robot);
  return models;
}

using skograph::testing_support::difference;

// The world angular velocity that turns `before` into `after` in time 2h, and the origin's.
Vector6d pose_rate(const Eigen::Isometry3d& before, const Eigen::Isometry3d& after, double h) {
  const Eigen::AngleAxisd turn(after.linear() * before.linear().transpose());
  Vector6d rate;
  rate.head<3>() = turn.angle() * turn.axis() / (2 * h);
  rate.tail<3>() = (after.translation() - before.translation()) / (2 * h);
  return rate;
}

// A state in the model's order and q moved along the configuration rate of qd by t.
struct Walk {
  const RigidBodyModel& tree;
  Eigen::VectorXd along(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t) const {
    Eigen::VectorXd rate(q.size());
    configuration_rate(tree, q, qd, rate);
    return q + t * rate;
  }
};

class TreeKinematics : public testing::TestWithParam<fs::path> {};

TEST_P(TreeKinematics, JacobiansVelocitiesAndAccelerationsAreDerivativesOfThePoses) {
  const Model model = load_model(GetParam().string());
  const RigidBodyModel& tree = model.tree();
  RigidBodyData data(tree);
  const int n = tree.dof_count();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-0.8, 0.8);
  Eigen::VectorXd q(n), qd(n), qdd(n);
  for (int i = 0; i < n; ++i) q(i) = uniform(rng), qd(i) = uniform(rng), qdd(i) = uniform(rng);
  const Walk walk{tree};
  const std::vector<std::string> names = frame_names(model);
  Eigen::MatrixXd jacobian(6, n), local(6, n), shifted(6, n);
  const double h = 1e-6;
  for (std::size_t f = 0; f < names.size(); f += std::max<std::size_t>(1, names.size() / 12)) {
    SCOPED_TRACE(names[f]);
    const FrameRef frame = find_frame(tree, names[f]);
    update_kinematics(tree, q, qd, data);
    frame_jacobian(tree, data, frame, FrameAxes::kWorld, jacobian);
    frame_jacobian(tree, data, frame, FrameAxes::kLocal, local);
    const Eigen::Isometry3d pose = frame_pose(tree, data, frame);
    // Local = the world columns in the frame's axes.
    Eigen::MatrixXd turned(6, n);
    turned.topRows<3>() = pose.linear().transpose() * jacobian.topRows<3>();
    turned.bottomRows<3>() = pose.linear().transpose() * jacobian.bottomRows<3>();
    EXPECT_LT(difference(local, turned), 1e-13);
    // J qd is the velocity, in both axes.
    EXPECT_LT(difference(frame_velocity(tree, data, frame, FrameAxes::kWorld), jacobian * qd),
              1e-13);
    EXPECT_LT(difference(frame_velocity(tree, data, frame, FrameAxes::kLocal), local * qd), 1e-13);
    // Columns against the poses moved along each dof's configuration rate.
    for (int i = 0; i < n; i += std::max(1, n / 8)) {
      const Eigen::VectorXd unit = Eigen::VectorXd::Unit(n, i);
      update_positions(tree, walk.along(q, unit, -h), data);
      const Eigen::Isometry3d before = frame_pose(tree, data, frame);
      update_positions(tree, walk.along(q, unit, h), data);
      const Eigen::Isometry3d after = frame_pose(tree, data, frame);
      EXPECT_LT(difference(pose_rate(before, after, h), jacobian.col(i)), 2e-7) << "dof " << i;
    }
    // Jdot qd: the derivative of J qd along the motion at qdd = 0.
    update_kinematics(tree, q, qd, data);
    const Vector6d bias = frame_jacobian_bias(tree, data, frame, FrameAxes::kWorld);
    const Vector6d local_bias = frame_jacobian_bias(tree, data, frame, FrameAxes::kLocal);
    Eigen::VectorXd q_before = walk.along(q, qd, -h), q_after = walk.along(q, qd, h);
    update_positions(tree, q_before, data);
    frame_jacobian(tree, data, frame, FrameAxes::kWorld, shifted);
    Vector6d before = shifted * qd;
    frame_jacobian(tree, data, frame, FrameAxes::kLocal, shifted);
    Vector6d local_before = shifted * qd;
    update_positions(tree, q_after, data);
    frame_jacobian(tree, data, frame, FrameAxes::kWorld, shifted);
    EXPECT_LT(difference((shifted * qd - before) / (2 * h), bias), 2e-6);
    frame_jacobian(tree, data, frame, FrameAxes::kLocal, shifted);
    EXPECT_LT(difference((shifted * qd - local_before) / (2 * h), local_bias), 2e-6);
    // The classical acceleration: J qdd + Jdot qd.
    update_kinematics(tree, q, qd, data);
    update_accelerations(tree, data, qdd);
    EXPECT_LT(
        difference(frame_acceleration(tree, data, frame, FrameAxes::kWorld), jacobian * qdd + bias),
        1e-12);
  }
}

TEST_P(TreeKinematics, CentreOfMassIsTheFileLinksMassesPlacedByTheirPoses) {
  const Model model = load_model(GetParam().string());
  const Mechanism file = read_mechanism_file(GetParam().string());
  const int n = model.dof_count();
  ModelData data(model);
  Eigen::VectorXd q = Eigen::VectorXd::LinSpaced(n, -0.7, 0.6),
                  qd = Eigen::VectorXd::LinSpaced(n, 0.9, -0.4);
  // Every link of the file, wherever fusion put it (a link, a frame, the world).
  double mass = 0.0;
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();
  for (const Link& link : file.links) {
    mass += link.mass;
    moment += link.mass * (frame_pose(model, data, q, link.name) * link.center_of_mass);
  }
  EXPECT_NEAR(total_mass(model), mass, 1e-12 * mass);
  const Eigen::Vector3d com = center_of_mass(model, data, q);
  EXPECT_LT(difference(com, moment / mass), 1e-13);
  // c' = J_c qd, and J_c against differences of c along each dof's configuration rate.
  const Eigen::MatrixXd com_jacobian = center_of_mass_jacobian(model, data, q);
  EXPECT_LT(difference(center_of_mass_velocity(model, data, q, qd), com_jacobian * qd), 1e-13);
  const Walk walk{model.tree()};
  const DofOrder& order = model.dof_order();
  for (int i = 0; i < n; i += std::max(1, n / 8)) {
    const Eigen::VectorXd unit = Eigen::VectorXd::Unit(n, i);
    const Eigen::VectorXd model_q = order.model_vector(q), model_unit = order.model_vector(unit);
    const double h = 1e-6;
    const Eigen::Vector3d ahead =
        center_of_mass(model, data, order.vector(walk.along(model_q, model_unit, h)));
    const Eigen::Vector3d behind =
        center_of_mass(model, data, order.vector(walk.along(model_q, model_unit, -h)));
    EXPECT_LT(difference((ahead - behind) / (2 * h), com_jacobian.col(i)), 2e-7) << "dof " << i;
  }
  // The subtree of the first moving link's parent chain: its mass is that link's subtree's.
  const std::string first =
      model.mechanism()
          .links[static_cast<std::size_t>(model.mechanism().joints.front().child)]
          .name;
  double subtree = 0.0;
  for (int k = 0; k < model.tree().node_count(); ++k)
    if (model.tree().forest().is_ancestor_or_self(0, k))
      subtree += model.tree().rigid_inertia(k).mass;
  EXPECT_NEAR(total_mass(model, first), subtree, 1e-12 * (1 + subtree));
}

TEST_P(TreeKinematics, EnergiesAreTheMassMatrixsAndTheirRateIsThePower) {
  const Model model = load_model(GetParam().string());
  const int n = model.dof_count();
  ModelData data(model);
  const Eigen::VectorXd q = Eigen::VectorXd::LinSpaced(n, 0.5, -0.5);
  const Eigen::VectorXd qd = Eigen::VectorXd::LinSpaced(n, -1.0, 1.2);
  const Eigen::VectorXd tau = Eigen::VectorXd::LinSpaced(n, 2.0, -1.0);
  const Eigen::MatrixXd M = mass_matrix(model, data, q);
  const double T = kinetic_energy(model, data, q, qd);
  EXPECT_NEAR(T, 0.5 * qd.dot(M * qd), 1e-12 * (1 + T));
  // d(T + V)/dt = qd* tau along the motion qdd = M^-1 (tau - C) (gravity in C and V).
  const Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, tau);
  const DofOrder& order = model.dof_order();
  const Walk walk{model.tree()};
  const double h = 1e-6;
  auto energy = [&](double t) {
    const Eigen::VectorXd qt =
        order.vector(walk.along(order.model_vector(q), order.model_vector(qd), t));
    const Eigen::VectorXd qdt = qd + t * qdd;
    return kinetic_energy(model, data, qt, qdt) + potential_energy(model, data, qt);
  };
  EXPECT_NEAR((energy(h) - energy(-h)) / (2 * h), qd.dot(tau), 1e-5 * (1 + std::abs(qd.dot(tau))));
}

TEST_P(TreeKinematics, KernelsDoNotAllocateAfterTheFirstCall) {
  const Model model = load_model(GetParam().string());
  const RigidBodyModel& tree = model.tree();
  RigidBodyData data(tree);
  const int n = tree.dof_count();
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(n, 0.3),
                        qd = Eigen::VectorXd::Constant(n, -0.2);
  Eigen::MatrixXd jacobian(6, n), com_jacobian(3, n);
  const FrameRef frame = find_frame(tree, frame_names(model).back());
  Vector6d sink = Vector6d::Zero();
  auto kernels = [&] {
    update_kinematics(tree, q, qd, data);
    frame_jacobian(tree, data, frame, FrameAxes::kWorld, jacobian);
    sink += frame_jacobian_bias(tree, data, frame, FrameAxes::kLocal);
    sink += frame_velocity(tree, data, frame, FrameAxes::kWorld);
    update_accelerations(tree, data, qd);
    sink += frame_acceleration(tree, data, frame, FrameAxes::kLocal);
    center_of_mass_jacobian(tree, data, com_jacobian);
    sink.head<3>() += center_of_mass(tree, data) + center_of_mass_velocity(tree, data);
  };
  kernels();
  if (testing_support::counting_available()) {
    EXPECT_EQ(testing_support::allocations_in(kernels), 0);
  }
  EXPECT_TRUE(sink.allFinite());
}

INSTANTIATE_TEST_SUITE_P(Models, TreeKinematics, testing::ValuesIn(tree_models()),
                         [](const testing::TestParamInfo<fs::path>& param) {
                           std::string name = param.param.filename().string();
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// --- closed chains -------------------------------------------------------------------------

struct ClosedCase {
  std::string file, loops, frame;
};

std::vector<ClosedCase> closed_cases() {
  std::vector<ClosedCase> cases = {{(kExamples / "stewart_platform.yaml").string(), "", "platform"},
                                   {(kExamples / "delta_robot.yaml").string(), "", "platform"},
                                   {(kExamples / "fourbar.yaml").string(), "", "coupler"},
                                   {(kExamples / "fivebar.urdf").string(),
                                    (kExamples / "fivebar_loops.yaml").string(), "tip_A"}};
  const fs::path parallel =
      fs::path(SKOGRAPH_SOURCE_DIR) / ".." / "shared" / "robots" / "example-parallel-robots";
  if (fs::is_directory(parallel))
    // (Not robot_delta: its actuated selection is ill-conditioned, so the automatic one the
    // assembly holds changes between neighbouring states and differences across it mean nothing.)
    for (const auto& [robot, frame] : {std::pair{"talos_like", ""}, std::pair{"cassie_like", ""}})
      cases.push_back({(parallel / robot / "robot.urdf").string(),
                       (parallel / robot / "robot.yaml").string(), frame});
  return cases;
}

Model load_case(const ClosedCase& c) {
  ReadOptions options;
  options.loops_file = c.loops;
  return load_model(c.file, options);
}

// The frame a case names, or the last link of the model.
std::string case_frame(const Model& model, const ClosedCase& c) {
  return c.frame.empty() ? model.mechanism().links.back().name : c.frame;
}

class ClosedKinematics : public testing::TestWithParam<ClosedCase> {};

// q moved along the configuration rate of the (full, file-order) velocity qd by t, then assembled
// with its independent coordinates there: the closed motion through q with velocity qd.
Eigen::VectorXd closed_motion(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& qd, double t) {
  const DofOrder& order = model.dof_order();
  const Walk walk{model.tree()};
  return assemble_positions(
      model, data, order.vector(walk.along(order.model_vector(q), order.model_vector(qd), t)));
}

TEST_P(ClosedKinematics,
       ReducedJacobianIsTheDerivativeOfTheAssembledPoseInTheIndependentCoordinates) {
  const Model model = load_case(GetParam());
  const std::string frame = case_frame(model, GetParam());
  ModelData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = assemble_positions(model, data, Eigen::VectorXd::Constant(n, 0.05));
  const Eigen::MatrixXd reduced = reduced_frame_jacobian(model, data, q, frame, FrameAxes::kWorld);
  const Eigen::MatrixXd X = embedding_matrix(model, data, q);
  const Eigen::Index independent = X.cols();
  ASSERT_EQ(reduced.cols(), independent);
  const double h = 1e-6;
  for (Eigen::Index a = 0; a < independent; ++a) {
    // The closed motion with qd_R = e_a (qd = X e_a): its frame moves at J_R e_a.
    const Eigen::Isometry3d after =
        frame_pose(model, data, closed_motion(model, data, q, X.col(a), h), frame);
    const Eigen::Isometry3d before =
        frame_pose(model, data, closed_motion(model, data, q, X.col(a), -h), frame);
    EXPECT_LT(difference(pose_rate(before, after, h), reduced.col(a)), 1e-6) << "independent " << a;
  }
  // The acceleration in the independent coordinates: J_R qdd_R + bias is what the consistent
  // qdd gives, and the bias is the derivative of J_R qd_R along the closed motion (qdd_R = 0).
  const Eigen::VectorXd qd_r = Eigen::VectorXd::LinSpaced(independent, 0.3, -0.2);
  const Eigen::VectorXd qdd_r = Eigen::VectorXd::LinSpaced(independent, -0.2, 0.4);
  const Eigen::VectorXd qd = X * qd_r;
  const ClosedState closed = close_state(model, data, q, qd);
  const std::vector<std::string> names = data.independent;
  Eigen::VectorXd qdd = Eigen::VectorXd::Zero(n);
  for (Eigen::Index a = 0; a < independent; ++a)
    qdd(std::find(model.dof_names().begin(), model.dof_names().end(),
                  names[static_cast<std::size_t>(a)]) -
        model.dof_names().begin()) = qdd_r(a);
  const Vector6d bias =
      reduced_jacobian_bias(model, data, closed.q, closed.qd, frame, FrameAxes::kWorld);
  EXPECT_LT(difference(
                frame_acceleration(model, data, closed.q, closed.qd, qdd, frame, FrameAxes::kWorld),
                reduced * qdd_r + bias),
            1e-9);
  EXPECT_LT(difference(frame_velocity(model, data, closed.q, closed.qd, frame, FrameAxes::kWorld),
                       reduced * qd_r),
            1e-9);
  auto velocity_at = [&](double t) {
    const Eigen::VectorXd qt = closed_motion(model, data, closed.q, closed.qd, t);
    return Vector6d(reduced_frame_jacobian(model, data, qt, frame, FrameAxes::kWorld) * qd_r);
  };
  const double step = 1e-5;
  EXPECT_LT(difference((velocity_at(step) - velocity_at(-step)) / (2 * step), bias), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, ClosedKinematics, testing::ValuesIn(closed_cases()),
                         [](const testing::TestParamInfo<ClosedCase>& param) {
                           std::string name =
                               fs::path(param.param.file).stem().string() + "_" +
                               fs::path(param.param.file).parent_path().filename().string();
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(InverseKinematics, TheStewartPlatformsPoseGivesItsLegsBack) {
  const Model model = load_model((kExamples / "stewart_platform.yaml").string());
  ModelData data(model);
  const int n = model.dof_count();
  const std::vector<std::string>& names = model.dof_names();
  // A closed configuration away from zero, its platform pose and its leg lengths.
  const Eigen::VectorXd q =
      assemble_positions(model, data, Eigen::VectorXd::LinSpaced(n, -0.04, 0.05));
  const Eigen::Isometry3d target = frame_pose(model, data, q, "platform");
  // From the zero configuration: the pose is reached and the legs are the ones that made it.
  const Eigen::VectorXd found =
      inverse_kinematics(model, data, "platform", target, Eigen::VectorXd::Zero(n));
  const Eigen::Isometry3d reached = frame_pose(model, data, found, "platform");
  EXPECT_LT((reached.matrix() - target.matrix()).cwiseAbs().maxCoeff(), 1e-10);
  for (int i = 1; i <= 6; ++i) {
    const auto at =
        std::find(names.begin(), names.end(), "leg" + std::to_string(i)) - names.begin();
    EXPECT_NEAR(found(at), q(at), 1e-9) << "leg" << i;
  }
}

TEST(InverseKinematics, TheFiveBarsTipReturnsItsMotorAnglesAndSaysWhenOutOfReach) {
  ReadOptions options;
  options.loops_file = (kExamples / "fivebar_loops.yaml").string();
  const Model model = load_model((kExamples / "fivebar.urdf").string(), options);
  ModelData data(model);
  const int n = model.dof_count();
  const std::vector<std::string>& names = model.dof_names();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(n);
  const auto motor1 = std::find(names.begin(), names.end(), "motor1") - names.begin();
  const auto motor2 = std::find(names.begin(), names.end(), "motor2") - names.begin();
  q(motor1) = 0.2;
  q(motor2) = -0.1;
  q = assemble_positions(model, data, q);
  const Eigen::Isometry3d target = frame_pose(model, data, q, "tip_A");
  const Eigen::VectorXd found =
      inverse_kinematics(model, data, "tip_A", target, Eigen::VectorXd::Zero(n));
  EXPECT_LT(
      (frame_pose(model, data, found, "tip_A").matrix() - target.matrix()).cwiseAbs().maxCoeff(),
      1e-10);
  EXPECT_NEAR(found(motor1), 0.2, 1e-9);
  EXPECT_NEAR(found(motor2), -0.1, 1e-9);
  // Two metres away, beyond the 0.45 m the arms reach: one line.
  Eigen::Isometry3d far = target;
  far.translation().y() += 2.0;
  try {
    inverse_kinematics(model, data, "tip_A", far, Eigen::VectorXd::Zero(n));
    ADD_FAILURE() << "an unreachable pose was reached";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("frame 'tip_A' cannot reach the pose"), std::string::npos)
        << e.what();
  }
}

TEST(Singularity, ConditionGrowsWithoutBoundTowardTheFiveBarsFoldedConfiguration) {
  // The five-bar's motors placed so that the elbows are 0.5 - eps apart: the distal links
  // (0.25 each) meet at their full reach, where they are collinear and the constraint rows on the
  // dependent elbow angles lose rank (type II). Its condition number grows like eps^-1/2.
  ReadOptions options;
  options.loops_file = (kExamples / "fivebar_loops.yaml").string();
  const Model model = load_model((kExamples / "fivebar.urdf").string(), options);
  ModelData data(model);
  const std::vector<std::string>& names = model.dof_names();
  const auto motor1 = std::find(names.begin(), names.end(), "motor1") - names.begin();
  const auto motor2 = std::find(names.begin(), names.end(), "motor2") - names.begin();
  std::vector<double> condition, smallest;
  for (const double eps : {1e-2, 1e-4, 1e-6}) {
    // Elbow 1 at (-0.25 + eps/2, y): cos(theta1) = (-0.15 + eps/2) / 0.2, theta1 = 120 deg + q1.
    const double theta1 = std::acos((-0.15 + eps / 2) / 0.2);
    Eigen::VectorXd q = Eigen::VectorXd::Zero(model.dof_count());
    q(motor1) = theta1 - 2.0943951023931953;
    q(motor2) = -q(motor1);  // the mirror image
    q = assemble_positions(model, data, q);
    const SingularityMeasures measures = singularity_measures(model, data, q, {"tip_A"});
    ASSERT_EQ(measures.constraint_condition.size(), 1u);
    condition.push_back(measures.constraint_condition[0]);
    smallest.push_back(measures.constraint_smallest_value[0]);
  }
  EXPECT_GT(condition[1], 5 * condition[0]);
  EXPECT_GT(condition[2], 5 * condition[1]);
  EXPECT_LT(smallest[1], smallest[0] / 5);  // toward 0 as sqrt(eps)
  EXPECT_LT(smallest[2], smallest[1] / 5);
}

}  // namespace
}  // namespace skograph

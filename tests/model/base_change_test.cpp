// Change of base body (free-flying-base-invariance Appendix A; model/base_change.hpp) on the space
// arm of examples/ and on random free-flying trees, under every choice of base link, against
// first principles: the converted state puts every link at the same pose with the same velocity
// (Lemma A.1), the kinetic energy 1/2 qd* M qd is the same in both coordinate sets (Eq. 44),
// forward dynamics gives every link the same acceleration, the operational-space inertia Lambda(k)
// and compliance Omega(k) of every link are the same (the paper's Section 4 claim), by
// (J M^-1 J*)^-1 and by the decoupled recursions of rigid/free_flying.hpp (Lambda = P + S, the
// dual Upsilon recursion), and the way back restores the file's coordinates.
#include "skograph/model/base_change.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <filesystem>
#include <random>

#include "skograph/model/kinematics.hpp"
#include "skograph/model/operators.hpp"
#include "skograph/operators/operational_space.hpp"
#include "skograph/rigid/free_flying.hpp"
#include "support/io_support.hpp"
#include "support/matrix_difference.hpp"
#include "support/rigid_support.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;

using skograph::testing_support::kExamples;
const Eigen::Vector3d kGravity(0.3, -0.2, -9.81);

using skograph::testing_support::difference;

Eigen::VectorXd random_vector(int size, std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> uniform(-scale, scale);
  Eigen::VectorXd v(size);
  for (int i = 0; i < size; ++i) v[i] = uniform(rng);
  return v;
}

std::vector<std::string> link_names(const Model& model) {
  std::vector<std::string> names;
  for (const Link& link : model.mechanism().links) names.push_back(link.name);
  return names;
}

// The decoupled Lambda(k) = P(k) + S(k) (Lemma 4.1) and Upsilon(k) by the dual recursion (Eq. 36)
// of a link at its declared frame (the frame its name names, on the body it was fused into when
// fusion took it) in world axes, as operational_space gives them: with V_link = A V_declared,
// Lambda_d = A* Lambda A and Upsilon_d = A^-1 Upsilon A^-*, then turned by the frame's rotation.
struct Decoupled {
  Matrix6d inertia, compliance, regular_compliance;  // the last by part II's Omega(k, k) (Eq. 34)
};
Decoupled decoupled_operational_space(const Model& model, ModelData& data,
                                      const Eigen::VectorXd& q_file, const std::string& link) {
  const RigidBodyModel& tree = model.tree();
  FreeFlyingData free_flying(tree);
  const Eigen::VectorXd q = model.dof_order().model_vector(q_file);
  const std::vector<Matrix6d>& upsilons =
      dual_operational_space_compliances(tree, data.tree(), free_flying, q);
  const std::vector<Matrix6d>& lambdas = free_flying.operational_space_inertia;  // the same call
  int index = -1;  // the link carrying the frame (a link fused into its body: that body)
  Eigen::Isometry3d declared;
  EXPECT_TRUE(tree.mechanism().locate_frame(link, index, declared)) << link;
  const Eigen::Matrix3d rotation = declared.linear();
  const Eigen::Vector3d offset = declared.inverse().translation();
  Matrix6d map = Matrix6d::Zero();
  map.topLeftCorner<3, 3>() = rotation;
  map.bottomRightCorner<3, 3>() = rotation;
  map.bottomLeftCorner<3, 3>() = -rotation * cross_matrix(offset);
  const Matrix6d inverse_map = map.inverse();
  const std::size_t node = static_cast<std::size_t>(tree.node_of_link(index));
  Matrix6d turn = Matrix6d::Zero();
  turn.topLeftCorner<3, 3>() = turn.bottomRightCorner<3, 3>() =
      frame_pose(model, data, q_file, link).linear();
  update_positions(tree, q, data.tree());
  synchronize_sko_model(tree, data.tree());
  OperationalSpaceWorkspace workspace(data.tree().sko.structure_ptr());
  const Matrix6d omega = operational_space_compliance_diagonal(data.tree().sko, workspace)
                             .block(static_cast<int>(node));
  return {turn * map.transpose() * lambdas[node] * map * turn.transpose(),
          turn * inverse_map * upsilons[node] * inverse_map.transpose() * turn.transpose(),
          turn * inverse_map * omega * inverse_map.transpose() * turn.transpose()};
}

// Every check of the file comment, for `file` rebased at each of its links.
void check_every_base(const Model& file, std::mt19937& rng) {
  const int n = file.dof_count();
  ModelState state{random_vector(n, rng, 1.0), random_vector(n, rng, 1.0),
                   random_vector(n, rng, 1.0), random_vector(n, rng, 5.0)};
  ModelData file_data(file);
  state.qdd = forward_dynamics(file, file_data, state.q, state.qd, state.tau, kGravity);
  const std::vector<std::string> links = link_names(file);
  const std::vector<FrameMotion> motions =
      frame_motions(file, file_data, state.q, state.qd, state.qdd, links, FrameAxes::kWorld);
  const Eigen::MatrixXd mass = mass_matrix(file, file_data, state.q);
  const double energy = 0.5 * state.qd.dot(mass * state.qd);
  const std::vector<OperationalSpace> spaces = operational_space(file, file_data, state.q, links);
  std::vector<Decoupled> file_decoupled;
  for (const std::string& link : links) {
    file_decoupled.push_back(decoupled_operational_space(file, file_data, state.q, link));
    // The recursions and J M^-1 J* agree on the file's model too.
    const OperationalSpace& space = spaces[file_decoupled.size() - 1];
    EXPECT_LT(difference(file_decoupled.back().inertia, space.inertia), 1e-11) << link;
    EXPECT_LT(difference(file_decoupled.back().compliance, space.compliance), 1e-11) << link;
  }

  for (const std::string& base : links) {
    SCOPED_TRACE("base " + base);
    const Model rebased = with_base(file, base);
    ASSERT_EQ(rebased.dof_count(), n);
    ModelData data(rebased);
    const ModelState converted = convert_state(file, rebased, state);
    // Lemma A.1: the same poses and velocities.
    const std::vector<FrameMotion> seen = frame_motions(rebased, data, converted.q, converted.qd,
                                                        converted.qdd, links, FrameAxes::kWorld);
    for (std::size_t k = 0; k < links.size(); ++k) {
      EXPECT_LT(difference(seen[k].pose.matrix(), motions[k].pose.matrix()), 1e-12) << links[k];
      EXPECT_LT(difference(seen[k].velocity, motions[k].velocity), 1e-12) << links[k];
      EXPECT_LT(difference(seen[k].acceleration, motions[k].acceleration), 1e-10) << links[k];
    }
    // Eq. 44: M_k = T* M_n T keeps the kinetic energy.
    const Eigen::MatrixXd rebased_mass = mass_matrix(rebased, data, converted.q);
    EXPECT_NEAR(0.5 * converted.qd.dot(rebased_mass * converted.qd), energy, 1e-12 * energy);
    // The converted forces give the converted accelerations.
    const Eigen::VectorXd qdd =
        forward_dynamics(rebased, data, converted.q, converted.qd, converted.tau, kGravity);
    EXPECT_LT(difference(qdd, converted.qdd), 1e-10);
    // Section 4: Lambda(k) and Omega(k) do not depend on the base body.
    const std::vector<OperationalSpace> rebased_spaces =
        operational_space(rebased, data, converted.q, links);
    // Lambda by the O(N) recursion agrees to 1e-12 under every base; J M_k^-1 J* through the dense
    // M_k^-1 and a 6 x 6 inverse loses a digit more where a light link is the base (M_k's
    // condition).
    for (std::size_t k = 0; k < links.size(); ++k) {
      EXPECT_LT(difference(rebased_spaces[k].compliance, spaces[k].compliance), 1e-11) << links[k];
      ASSERT_TRUE(rebased_spaces[k].has_inertia && spaces[k].has_inertia) << links[k];
      EXPECT_LT(difference(rebased_spaces[k].inertia, spaces[k].inertia), 1e-11) << links[k];
      const Decoupled decoupled = decoupled_operational_space(rebased, data, converted.q, links[k]);
      EXPECT_LT(difference(decoupled.inertia, file_decoupled[k].inertia), 1e-12) << links[k];
      // Omega(k) = Lambda(k)^-1 (Eq. 35): its entries span four orders of magnitude (the space
      // arm's 120 kg bus and 0.8 kg tip of 4e-4 kg m^2; the humanoid's hands), so relative to its
      // largest entry the rounding of part II's recursion (Eq. 34) reaches 4.3e-12 and that of
      // the dual recursion (Eq. 36, from the leaves' 6 x 6 inverses) 1.1e-11.
      EXPECT_LT(difference(decoupled.regular_compliance, file_decoupled[k].regular_compliance),
                1e-11)
          << links[k];
      EXPECT_LT(difference(decoupled.compliance, file_decoupled[k].compliance), 5e-11) << links[k];
    }
    // The way back: the file's coordinates again (the floating joint's rotation vector is
    // unique for angles below pi).
    const ModelState back = convert_state(rebased, file, converted);
    EXPECT_LT(difference(back.q, state.q), 1e-12);
    EXPECT_LT(difference(back.qd, state.qd), 1e-12);
    EXPECT_LT(difference(back.qdd, state.qdd), 1e-10);
    EXPECT_LT(difference(back.tau, state.tau), 1e-10);
  }
}

TEST(BaseChange, SpaceArmUnderEveryBaseBody) {
  const Model file = load_model((kExamples / "space_arm.urdf").string());
  std::mt19937 rng(7);
  check_every_base(file, rng);
}

TEST(BaseChange, HumanoidWithSphericalJointsUnderEveryBaseBody) {
  const Model file = load_model((kExamples / "humanoid.xml").string());
  std::mt19937 rng(8);
  check_every_base(file, rng);
}

TEST(BaseChange, RandomFreeFlyingTreesUnderEveryBaseBody) {
  for (int seed = 0; seed < 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(300 + seed);
    testing_support::RandomMechanismOptions options;
    options.links = 8 + 3 * seed;
    options.rotation_vectors = seed % 2 == 0;  // spherical joints reversed too
    options.planar = false;                    // a planar joint cannot be reversed
    const Model file = build_model(testing_support::random_mechanism(options, rng), "random");
    check_every_base(file, rng);
  }
}

// A closed chain afloat: examples/models/fourbar.yaml's geared four-bar on a floating frame, a
// loop and a gear coupling. Under every base the independent coordinates stay the file's, every
// link keeps its pose, velocity and acceleration (qdd taken through the independent entries), the
// converted forces give the converted accelerations, and the operational-space inertias of the
// closed mechanism (J_R M_R^-1 J_R*) agree.
const char* const kFloatingFourBar =
    R"(# examples/models/fourbar.yaml afloat: a planar four-bar linkage driven through a 50:1 gear. Ground pivots A = (0, 0) and
# D = (0.35, 0); crank AB 0.1 m, coupler BC 0.4 m, rocker DC 0.3 m, all in the xy plane. The tree
# is world -> crank -> coupler and world -> rocker; the loop closes the coupler-rocker pin at C.
# The geometry closes at q = 0 (C = (0.3464, 0.3000)).
name: fourbar
links:
  - name: frame
    mass: 2.0
    com: [0.1, 0.05, 0]
    inertia: {ixx: 0.02, iyy: 0.03, izz: 0.04}
  - name: crank
    mass: 0.3
    com: [0.05, 0, 0]
    inertia: {ixx: 2.0e-5, iyy: 2.6e-4, izz: 2.6e-4}
  - name: coupler
    mass: 0.8
    com: [0.2, 0, 0]
    inertia: {ixx: 5.0e-5, iyy: 1.07e-2, izz: 1.07e-2}
  - name: rocker
    mass: 0.6
    com: [0.15, 0, 0]
    inertia: {ixx: 4.0e-5, iyy: 4.5e-3, izz: 4.5e-3}
  - name: rotor
    mass: 0.2
    inertia: {ixx: 6.0e-5, iyy: 6.0e-5, izz: 1.0e-4}
joints:
  - name: float
    type: floating
    parent: world
    child: frame
    origin: {xyz: [0.2, 0.1, 0.3], rpy: [0.1, 0.2, 0.3]}
  - name: crank_joint
    type: revolute
    parent: frame
    child: crank
    origin: {xyz: [0, 0, 0], rpy: [0, 0, 1.5707963267948966]}
    axis: [0, 0, 1]
    limits: {lower: -6.3, upper: 6.3}
  - name: coupler_joint
    type: continuous
    parent: crank
    child: coupler
    origin: {xyz: [0.1, 0, 0], rpy: [0, 0, -1.0472591299386100]}
    axis: [0, 0, 1]
  - name: rocker_joint
    type: continuous
    parent: frame
    child: rocker
    origin: {xyz: [0.35, 0, 0], rpy: [0, 0, 1.5827216874342542]}
    axis: [0, 0, 1]
  - name: motor
    type: continuous
    parent: frame
    child: rotor
    origin: {xyz: [0, 0, -0.05]}
    axis: [0, 0, 1]
loops:
  - name: pin_c
    type: revolute
    parent: coupler
    child: rocker
    origin: {xyz: [0.4, 0, 0]}
    child_origin: {xyz: [0.3, 0, 0], rpy: [0, 0, -1.0591845152373657]}
    axis: [0, 0, 1]
couplings:
  - {name: gearbox, type: gear, joints: [motor, crank_joint], ratio: 50.0}
)";

TEST(BaseChange, FloatingGearedFourBarUnderEveryBaseBody) {
  const std::string path = skograph::io_test::write_file("floating_fourbar.yaml", kFloatingFourBar);
  const Model file = load_model(path);
  ASSERT_TRUE(file.is_closed_chain());
  ModelData file_data(file);
  std::mt19937 rng(11);
  const int n = file.dof_count();
  const ClosedState closed =
      close_state(file, file_data, 0.2 * random_vector(n, rng, 1.0), random_vector(n, rng, 1.0));
  const std::vector<std::string> file_independent = file_data.independent;
  ModelState state{closed.q, closed.qd, Eigen::VectorXd(), random_vector(n, rng, 0.5)};
  state.qdd = forward_dynamics(file, file_data, state.q, state.qd, state.tau, kGravity);
  const std::vector<std::string> links = link_names(file);
  const std::vector<FrameMotion> motions =
      frame_motions(file, file_data, state.q, state.qd, state.qdd, links, FrameAxes::kWorld);
  const std::vector<OperationalSpace> spaces = operational_space(file, file_data, state.q, links);
  for (const std::string& base : links) {
    SCOPED_TRACE("base " + base);
    const Model rebased = with_base(file, base);
    ModelData data(rebased);
    const ModelState converted = convert_state(file, rebased, state);
    const std::vector<FrameMotion> seen = frame_motions(rebased, data, converted.q, converted.qd,
                                                        converted.qdd, links, FrameAxes::kWorld);
    std::vector<std::string> expected = file_independent;
    for (std::string& name : expected)
      if (name.rfind("float:", 0) == 0 && base != "frame")
        name = base + "_floating" + name.substr(5);
    std::sort(expected.begin(), expected.end());
    std::vector<std::string> independent = data.independent;
    std::sort(independent.begin(), independent.end());
    EXPECT_EQ(independent, expected);
    for (std::size_t k = 0; k < links.size(); ++k) {
      EXPECT_LT(difference(seen[k].pose.matrix(), motions[k].pose.matrix()), 1e-12) << links[k];
      EXPECT_LT(difference(seen[k].velocity, motions[k].velocity), 1e-12) << links[k];
      EXPECT_LT(difference(seen[k].acceleration, motions[k].acceleration), 1e-9) << links[k];
    }
    const Eigen::VectorXd qdd =
        forward_dynamics(rebased, data, converted.q, converted.qd, converted.tau, kGravity);
    EXPECT_LT(difference(qdd, converted.qdd), 1e-9);
    const std::vector<OperationalSpace> rebased_spaces =
        operational_space(rebased, data, converted.q, links);
    for (std::size_t k = 0; k < links.size(); ++k)
      EXPECT_LT(difference(rebased_spaces[k].compliance, spaces[k].compliance), 1e-10) << links[k];
  }
}

TEST(BaseChange, LoadModelWithABaseIsWithBase) {
  ReadOptions options;
  options.base = "s_link3";
  const std::string path = (kExamples / "space_arm.urdf").string();
  const Model loaded = load_model(path, options);
  ASSERT_NE(loaded.file_model(), nullptr);
  EXPECT_EQ(loaded.base(), "s_link3");
  EXPECT_EQ(loaded.dof_names().front(), "s_link3_floating:0");
  const Model made = with_base(load_model(path), "s_link3");
  EXPECT_EQ(loaded.dof_names(), made.dof_names());
  // The file's base gives the file's model; a base change of a rebased model starts from the file.
  const Model back = with_base(loaded, "bus");
  EXPECT_EQ(back.file_model(), nullptr);
  EXPECT_EQ(back.dof_names(), load_model(path).dof_names());
  EXPECT_EQ(with_base(loaded, "s_link5").file_model()->dof_names(), back.dof_names());
}

TEST(BaseChange, KeepsEveryReadOption) {
  // A free-flying body with a massless tip: --strict refuses it, with a base change too, and the
  // lenient model's options (its conditioning limit) survive the change.
  const std::string inertial =
      "<inertial><mass value='1'/><inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/>"
      "</inertial>";
  const std::string file = io_test::write_file(
      "floating_massless_tip.urdf",
      "<robot name='r'><link name='world'/><link name='body'>" + inertial +
          "</link><link name='arm'>" + inertial +
          "</link><link name='tip'/><joint name='float' type='floating'><parent link='world'/>"
          "<child link='body'/></joint><joint name='j1' type='continuous'><parent link='body'/>"
          "<child link='arm'/></joint><joint name='j2' type='continuous'><parent link='arm'/>"
          "<child link='tip'/></joint></robot>");
  ReadOptions strict;
  strict.strict = true;
  EXPECT_THROW(load_model(file, strict), InputError);
  strict.base = "arm";
  EXPECT_THROW(load_model(file, strict), InputError);
  ReadOptions lenient;
  lenient.conditioning_limit = 500.0;
  const Model model = load_model(file, lenient);
  EXPECT_FALSE(model.warnings().empty());
  const Model rebased = with_base(model, "arm");
  EXPECT_EQ(rebased.build_options().conditioning_limit, 500.0);
  EXPECT_FALSE(rebased.build_options().strict);
  lenient.base = "arm";
  EXPECT_EQ(load_model(file, lenient).build_options().conditioning_limit, 500.0);
}

void expect_refusal(const Model& model, const std::string& link, const std::string& words) {
  try {
    with_base(model, link);
    ADD_FAILURE() << "base " << link << " accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(model.file()), std::string::npos) << e.what();
  }
}

TEST(BaseChange, RefusesWhatHasNoBaseToChange) {
  expect_refusal(load_model((kExamples / "space_arm.urdf").string()), "s_link9",
                 "the mechanism has no link 's_link9'");
  expect_refusal(load_model((kExamples / "arm7.urdf").string()), "link3",
                 "not by a floating joint");
  Mechanism mechanism;
  mechanism.links = {{"a", 1.0, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity()},
                     {"b", 1.0, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity()}};
  Joint floating, slider;
  floating.name = "float";
  floating.type = JointType::kFloating;
  floating.child = 0;
  slider.name = "slider";
  slider.type = JointType::kPlanar;
  slider.parent = 0;
  slider.child = 1;
  mechanism.joints = {floating, slider};
  expect_refusal(build_model(mechanism, "two_bodies"), "b",
                 "only fixed, 1-dof and spherical joints");
}

}  // namespace
}  // namespace skograph

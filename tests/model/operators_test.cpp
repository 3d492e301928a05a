// The operators of model/operators.hpp against dense references built from the mass matrix
// (CRBA, model/model.hpp) and the frame Jacobians: M^-1 against M's Cholesky inverse, log det M
// against the Cholesky factor's diagonal, M = F D F* and F F^-1 = I (part II Eq. 49-50), the
// Riccati D of a leaf joint equal to M's diagonal entry and of a base joint to 1 / (M^-1)(1, 1)
// (F is unit triangular with ancestors first, so these two entries of M and M^-1 see one D each),
// the operational-space compliance against J M^-1 J* and the inertia as its inverse. Closed
// chains: the same against M_R = X* M X and J X. Trees and closed chains of examples/.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <random>

#include "skograph/model/dynamics.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/model/operators.hpp"
#include "support/matrix_difference.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;

using skograph::testing_support::kExamples;

using skograph::testing_support::difference;

struct OperatorCase {
  std::string file, frame;
};

class ModelOperatorsTest : public testing::TestWithParam<OperatorCase> {};

TEST_P(ModelOperatorsTest, AgreeWithTheDenseMassMatrixAndTheFrameJacobian) {
  const Model model = load_model(GetParam().file);
  ModelData data(model);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-0.6, 0.6);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.dof_count());
  for (Eigen::Index i = 0; i < q.size(); ++i) q(i) = uniform(rng);
  // Closed chains: a closed configuration near the random one (the operators close q first).
  if (model.is_closed_chain()) q = assemble_positions(model, data, q);
  const ModelOperators ops = model_operators(model, data, q);
  const Eigen::MatrixXd mass =
      model.is_closed_chain() ? reduced_mass_matrix(model, data, q) : mass_matrix(model, data, q);
  const auto n = mass.rows();
  ASSERT_EQ(static_cast<Eigen::Index>(ops.dofs.size()), n);
  if (model.is_closed_chain()) {
    EXPECT_EQ(ops.dofs, data.independent);
  }
  const Eigen::LLT<Eigen::MatrixXd> cholesky(mass);
  ASSERT_EQ(cholesky.info(), Eigen::Success);
  const Eigen::MatrixXd inverse = cholesky.solve(Eigen::MatrixXd::Identity(n, n));
  EXPECT_LT(difference(ops.mass_inverse, inverse), 1e-9);
  double log_det = 0.0;
  for (Eigen::Index i = 0; i < n; ++i)
    log_det += 2.0 * std::log(Eigen::MatrixXd(cholesky.matrixL())(i, i));
  EXPECT_NEAR(ops.log_det_mass, log_det, 1e-9 * (1.0 + std::abs(log_det)));
  EXPECT_EQ(mass_log_determinant(model, data, q), ops.log_det_mass);
  EXPECT_LT(difference(mass_matrix_inverse(model, data, q), ops.mass_inverse), 1e-14);
  const Eigen::MatrixXd& F = ops.innovations_factor;
  EXPECT_LT(difference(F * ops.innovations_inertia * F.transpose(), mass), 1e-10);
  EXPECT_LT(difference(F * ops.innovations_inverse, Eigen::MatrixXd::Identity(n, n)), 1e-10);
  // The D blocks are innovations_inertia's diagonal blocks at their dofs' rows, in order of their
  // first dof, covering every dof once.
  std::vector<int> covered(static_cast<std::size_t>(n), 0);
  int previous_first = -1;
  for (std::size_t b = 0; b < ops.joint_blocks.size(); ++b) {
    const auto size = ops.joint_blocks[b].rows();
    ASSERT_EQ(static_cast<Eigen::Index>(ops.joint_block_dofs[b].size()), size);
    std::vector<int> at;
    for (const std::string& name : ops.joint_block_dofs[b]) {
      const auto found = std::ranges::find(ops.dofs, name);
      ASSERT_NE(found, ops.dofs.end()) << name;
      at.push_back(static_cast<int>(found - ops.dofs.begin()));
      ++covered[static_cast<std::size_t>(at.back())];
    }
    EXPECT_GT(at.front(), previous_first);
    previous_first = at.front();
    for (Eigen::Index i = 0; i < size; ++i)
      for (Eigen::Index j = 0; j < size; ++j)
        EXPECT_EQ(ops.joint_blocks[b](i, j), ops.innovations_inertia(at[i], at[j]));
  }
  EXPECT_EQ(covered, std::vector<int>(static_cast<std::size_t>(n), 1));
  if (!model.is_closed_chain()) {
    // The last dof of a joint with no descendants (the file lists its last joint last) and the
    // first dof of the first joint (a base joint) each see one D.
    const Eigen::MatrixXd& last = ops.joint_blocks.back();
    if (last.rows() == 1) {
      EXPECT_NEAR(last(0, 0), mass(n - 1, n - 1), 1e-10 * mass(n - 1, n - 1));
    }
    const Eigen::MatrixXd& first = ops.joint_blocks.front();
    if (first.rows() == 1) {
      EXPECT_NEAR(first(0, 0), 1.0 / inverse(0, 0), 1e-9 * first(0, 0));
    }
  }
  // Operational space of the case's frame and of the last link.
  const std::vector<std::string> frames = {GetParam().frame, model.mechanism().links.back().name};
  const std::vector<OperationalSpace> spaces = operational_space(model, data, q, frames);
  ASSERT_EQ(spaces.size(), frames.size());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    SCOPED_TRACE(frames[f]);
    Eigen::MatrixXd jacobian = frame_jacobian(model, data, q, frames[f], FrameAxes::kWorld);
    if (model.is_closed_chain()) jacobian = jacobian * embedding_matrix(model, data, q);
    const Eigen::MatrixXd compliance = jacobian * inverse * jacobian.transpose();
    EXPECT_LT(difference(spaces[f].compliance, compliance), 1e-9);
    const bool full_rank =
        Eigen::FullPivLU<Eigen::MatrixXd>(jacobian).setThreshold(1e-9).rank() == 6;
    EXPECT_EQ(spaces[f].has_inertia, full_rank);
    if (spaces[f].has_inertia) {
      EXPECT_LT(difference(spaces[f].inertia * compliance, Eigen::MatrixXd::Identity(6, 6)), 1e-7);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, ModelOperatorsTest,
    testing::Values(OperatorCase{(kExamples / "arm7.urdf").string(), "link7"},
                    OperatorCase{(kExamples / "humanoid.yaml").string(), "torso"},
                    OperatorCase{(kExamples / "space_arm.urdf").string(), "s_link3"},
                    OperatorCase{(kExamples / "stewart_platform.yaml").string(), "platform"},
                    OperatorCase{(kExamples / "delta_robot.yaml").string(), "platform"},
                    OperatorCase{(kExamples / "fourbar.yaml").string(), "coupler"},
                    // Several aggregates below one another: F is not the identity.
                    OperatorCase{(kExamples / "fourbar_chain.yaml").string(), "coupler2"}),
    [](const testing::TestParamInfo<OperatorCase>& parameter) {
      std::string name = fs::path(parameter.param.file).stem().string();
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

// A tree whose file lists a child's joint before its parent's (the model walks them depth first,
// so the file's order and the model's differ): node_quantities names the nodes in the file's
// joint order with the D blocks model_operators gives in that order, Omega(k, k) is J M^-1 J* at
// the link's origin in its axes, and every forward_dynamics_by method gives forward_dynamics' qdd
// in the file's order. A closed chain's nodes are its aggregates, named by their joints.
TEST(ModelOperators, NodeQuantitiesAndMethodsKeepTheFilesOrder) {
  const std::string yaml = R"(name: shuffled
links:
  - {name: b1, mass: 2.0, com: [0.1, 0, 0], inertia: {ixx: 0.02, iyy: 0.03, izz: 0.04}}
  - {name: b2, mass: 1.5, com: [0.2, 0.05, 0], inertia: {ixx: 0.01, iyy: 0.02, izz: 0.02}}
  - {name: b3, mass: 1.0, com: [0.1, 0, 0.02], inertia: {ixx: 0.01, iyy: 0.01, izz: 0.015}}
  - {name: b4, mass: 0.8, com: [0, 0.1, 0], inertia: {ixx: 0.005, iyy: 0.006, izz: 0.007}}
joints:
  - {name: j3, type: revolute, parent: b2, child: b3, origin: {xyz: [0.4, 0, 0]}, axis: [0, 1, 0], limits: {lower: -3, upper: 3}}
  - {name: j1, type: revolute, parent: world, child: b1, origin: {xyz: [0, 0, 0.5]}, axis: [0, 0, 1], limits: {lower: -3, upper: 3}}
  - {name: j4, type: revolute, parent: b1, child: b4, origin: {xyz: [0, 0.3, 0]}, axis: [1, 0, 0], limits: {lower: -3, upper: 3}}
  - {name: j2, type: revolute, parent: b1, child: b2, origin: {xyz: [0.3, 0, 0]}, axis: [0, 1, 0], limits: {lower: -3, upper: 3}}
)";
  const fs::path file = fs::temp_directory_path() / "skograph_operators_shuffled.yaml";
  { std::ofstream(file) << yaml; }
  const Model model = load_model(file.string());
  fs::remove(file);
  ASSERT_EQ(model.dof_names(), (std::vector<std::string>{"j3", "j1", "j4", "j2"}));
  ModelData data(model);
  const Eigen::Vector4d q(0.3, -0.5, 0.7, 0.2), qd(0.4, 1.0, -0.6, 0.3), tau(0.5, -1.0, 0.2, 0.8);
  const NodeQuantities nodes = node_quantities(model, data, q);
  EXPECT_EQ(nodes.nodes, (std::vector<std::string>{"j3", "j1", "j4", "j2"}));
  const ModelOperators ops = model_operators(model, data, q);
  ASSERT_EQ(ops.joint_blocks.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(ops.joint_block_dofs[k].front(), nodes.nodes[k]);
    EXPECT_LT(difference(nodes.innovations_inertia[k], ops.joint_blocks[k]), 1e-14);
  }
  for (std::size_t k = 0; k < 4; ++k) {
    const std::string link = std::vector<std::string>{"b3", "b1", "b4", "b2"}[k];
    const Eigen::Matrix3d rotation = frame_pose(model, data, q, link).linear();
    Eigen::MatrixXd axes = Eigen::MatrixXd::Zero(6, 6);
    axes.topLeftCorner(3, 3) = rotation;
    axes.bottomRightCorner(3, 3) = rotation;
    const Eigen::MatrixXd compliance = operational_space(model, data, q, {link})[0].compliance;
    EXPECT_LT(difference(axes * nodes.compliance[k] * axes.transpose(), compliance), 1e-10) << link;
  }
  // Lemma 7's recursion against Lemma 4's: P(p) - R(p) = sum over children of
  // psi P(k) phi* - phi R(k) phi* (both add M(p)), and psi P = phi P+ (P+ = tau-bar P, Eq. 32).
  for (std::size_t p = 0; p < 4; ++p) {
    Eigen::MatrixXd difference_of_sums = Eigen::MatrixXd::Zero(6, 6);
    for (std::size_t k = 0; k < 4; ++k) {
      if (nodes.parent[k] != nodes.nodes[p]) continue;
      const Eigen::MatrixXd& phi = nodes.transform[k];
      difference_of_sums +=
          nodes.projected_transform[k] * nodes.articulated_inertia[k] * phi.transpose() -
          phi * nodes.composite_inertia[k] * phi.transpose();
      EXPECT_LT(difference(nodes.projected_transform[k] * nodes.articulated_inertia[k],
                           phi * nodes.articulated_inertia_plus[k]),
                1e-12);
      EXPECT_LT(difference(nodes.gain_to_parent[k], phi * nodes.kalman_gain[k]), 1e-14);
    }
    EXPECT_LT(
        difference(nodes.articulated_inertia[p] - nodes.composite_inertia[p], difference_of_sums),
        1e-12)
        << nodes.nodes[p];
  }
  EXPECT_EQ(nodes.parent, (std::vector<std::string>{"j2", "", "j1", "j1"}));
  EXPECT_EQ(nodes.transform[1].size(), 0);
  const Eigen::VectorXd reference = forward_dynamics(model, data, q, qd, tau);
  for (const char* name : {"articulated-body", "cholesky", "innovations", "conjugate-gradient",
                           "preconditioned-conjugate-gradient"}) {
    const std::optional<ForwardDynamicsMethod> method = parse_forward_dynamics_method(name);
    ASSERT_TRUE(method.has_value()) << name;
    EXPECT_LT(difference(forward_dynamics_by(model, data, q, qd, tau, kStandardGravity, *method),
                         reference),
              1e-10)
        << name;
  }
  EXPECT_FALSE(parse_forward_dynamics_method("newton").has_value());

  const Model chain = load_model((kExamples / "fourbar_chain.yaml").string());
  ModelData chain_data(chain);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(chain.dof_count());
  const NodeQuantities aggregates =
      node_quantities(chain, chain_data, close_state(chain, chain_data, zero, zero).q);
  ASSERT_EQ(aggregates.nodes.size(), 8u);
  for (int i = 1; i <= 8; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_EQ(aggregates.nodes[static_cast<std::size_t>(i - 1)],
              "rocker" + n + "_joint+crank" + n + "_joint+coupler" + n + "_joint");
  }
  EXPECT_THROW(forward_dynamics_by(chain, chain_data, zero, zero, zero, kStandardGravity,
                                   ForwardDynamicsMethod::kCholesky),
               Error);
}

TEST(ModelOperators, AJointThatMovesNoMassIsRefusedInOneSentence) {
  // A massless link on a moving joint at the tip of a two-link arm: M is singular.
  const std::string urdf = R"(<robot name="r">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)";
  const fs::path file = fs::temp_directory_path() / "skograph_operators_massless.urdf";
  { std::ofstream(file) << urdf; }
  const Model model = load_model(file.string());
  fs::remove(file);
  ASSERT_FALSE(model.massless_joints().empty());
  ModelData data(model);
  try {
    model_operators(model, data, Eigen::VectorXd::Zero(model.dof_count()));
    FAIL() << "no error";
  } catch (const SingularMassMatrixError& e) {
    EXPECT_NE(std::string(e.what()).find("'j2' moves no mass"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace skograph

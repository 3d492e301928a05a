#include "skograph/operators/operational_space.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "support/operator_support.hpp"

namespace skograph {
namespace {

using Eigen::MatrixXd;
using testing_support::relative_error;

// Dense references: Omega = A* H* M^-1 H A (part II Eq. 59-60 with B = I), M^-1 by Cholesky of
// the dense mass matrix; and the definition psi* H* D^-1 H psi with psi = (I - E_psi)^-1.
TEST(OperationalSpace, ComplianceEqualsDenseAStarHStarMInverseHA) {
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937 rng(11000 + seed);
    const SkoModel model =
        testing_support::random_bounded_sko_model(testing_support::options_for_seed(seed, 60), rng);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    OperationalSpaceWorkspace workspace(model.structure_ptr());
    std::vector<int> all(model.size());
    for (int k = 0; k < model.size(); ++k) all[k] = k;
    MatrixXd compliance;
    operational_space_compliance(model, all, workspace, compliance);  // node id order = layout

    const MatrixXd mass = testing_support::dense_mass_matrix(model);
    const MatrixXd ha =
        testing_support::dense_hinge_map(model) * testing_support::dense_resolvent(model);
    const MatrixXd reference = ha.transpose() * mass.llt().solve(ha);
    EXPECT_LT(relative_error(compliance, reference), 1e-10);

    const BlockLayout& node = model.structure().node;
    const BlockLayout& hinge = model.structure().hinge;
    const MatrixXd psi = (MatrixXd::Identity(node.total(), node.total()) -
                          testing_support::dense_bwa(workspace.articulated.psi_kernel))
                             .inverse();
    const MatrixXd d = testing_support::dense_block_diagonal(
        workspace.articulated.innovations_inertia, hinge, hinge);
    const MatrixXd h = testing_support::dense_hinge_map(model);
    EXPECT_LT(relative_error(compliance, psi.transpose() * h.transpose() * d.inverse() * h * psi),
              1e-10);
    // The O(N) diagonal alone.
    const BlockDiagonal& diagonal = operational_space_compliance_diagonal(model, workspace);
    for (int k = 0; k < model.size(); ++k)
      EXPECT_LT(relative_error(diagonal.block(k), reference.block(node.offset(k), node.offset(k),
                                                                  node.dim(k), node.dim(k))),
                1e-10);
  }
}

TEST(OperationalSpace, InertiaOfChosenNodesIsTheInverseOfJMInverseJStar) {
  int checked = 0;
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(12000 + seed);
    testing_support::RandomSkoOptions options = testing_support::options_for_seed(seed, 80);
    options.max_dim = 6;
    const SkoModel model = testing_support::random_bounded_sko_model(options, rng);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    // Nodes whose own hinge spans their whole node space (r_k = m_k) give a full-row-rank J.
    std::vector<int> nodes;
    for (int k = 0; k < model.size() && nodes.size() < 3; ++k)
      if (model.hinge_dim(k) == model.node_dim(k)) nodes.push_back(k);
    if (nodes.empty()) continue;
    ++checked;
    OperationalSpaceWorkspace workspace(model.structure_ptr());
    MatrixXd inertia;
    operational_space_inertia(model, nodes, workspace, inertia);

    // J = B* A* H*: the rows of A* H* belonging to the chosen nodes.
    const BlockLayout& node = model.structure().node;
    const MatrixXd velocity_map = testing_support::dense_resolvent(model).transpose() *
                                  testing_support::dense_hinge_map(model).transpose();
    int rows = 0;
    for (const int k : nodes) rows += node.dim(k);
    MatrixXd jacobian(rows, velocity_map.cols());
    for (int n = 0, row = 0; n < static_cast<int>(nodes.size()); row += node.dim(nodes[n]), ++n)
      jacobian.middleRows(row, node.dim(nodes[n])) =
          velocity_map.middleRows(node.offset(nodes[n]), node.dim(nodes[n]));
    const MatrixXd mass = testing_support::dense_mass_matrix(model);
    const MatrixXd reference = (jacobian * mass.llt().solve(jacobian.transpose())).inverse();
    EXPECT_LT(relative_error(inertia, reference), 1e-10);
  }
  EXPECT_GT(checked, 10);
}

TEST(OperationalSpace, RankDeficientJacobianIsReported) {
  // A single 3-dimensional base node with a 1-dof hinge: J = H* is 3 x 1, J M^-1 J* has rank 1.
  auto structure = std::make_shared<const SkoStructure>(Forest(std::vector<int>{-1}),
                                                        std::vector<int>{3}, std::vector<int>{1});
  SkoModel model(structure);
  model.hinge_map(0) << 1.0, 0.0, 0.0;
  model.inertia(0) = Eigen::Matrix3d::Identity() * 2.0;
  OperationalSpaceWorkspace workspace(structure);
  MatrixXd inertia;
  const std::vector<int> nodes = {0};
  EXPECT_THROW(operational_space_inertia(model, nodes, workspace, inertia), std::runtime_error);
  MatrixXd compliance;
  operational_space_compliance(model, nodes, workspace, compliance);
  MatrixXd expected = MatrixXd::Zero(3, 3);
  expected(0, 0) = 0.5;  // H* (H M H*)^-1 H = e1 e1* / 2
  EXPECT_LT(relative_error(compliance, expected), 1e-15);
}

}  // namespace
}  // namespace skograph

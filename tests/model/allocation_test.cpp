// The loading path's dynamics calls with an output argument (model/model.hpp), the ones the Python
// module's batch rows make: no allocation once ModelData has seen a state, trees and closed
// chains (at closed states), file order different from the model's; the results equal the
// value-returning calls. The derivatives (model/derivatives.hpp) likewise.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "support/allocation_counter.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;
using testing_support::allocations_in;

using skograph::testing_support::kExamples;

class ModelAllocation : public testing::TestWithParam<std::string> {};

// States near the example's own (closed chains assemble them): one per row of a batch.
Eigen::MatrixXd states(const Model& model, int rows, double scale) {
  Eigen::MatrixXd result(rows, model.dof_count());
  for (int i = 0; i < rows; ++i)
    result.row(i) =
        scale * Eigen::RowVectorXd::LinSpaced(model.dof_count(), -0.1, 0.1) * (1.0 + 0.01 * i);
  return result;
}

// Row-major like NumPy's batches: each row one state, binding to Ref without a copy.
using Rows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A batch of states, q and qd closed as a trajectory's are (a state that must first be assembled
// runs Newton and the closure search, which may allocate), and a second input per row.
struct Batch {
  Rows q, qd, second;
};

Batch closed_batch(const Model& model, int rows) {
  Batch batch{states(model, rows, 1.0), states(model, rows, 2.0), states(model, rows, -3.0)};
  ModelData closing(model);
  for (int i = 0; i < rows; ++i) {
    const ClosedState closed =
        close_state(model, closing, batch.q.row(i).transpose(), batch.qd.row(i).transpose());
    batch.q.row(i) = closed.q.transpose();
    batch.qd.row(i) = closed.qd.transpose();
  }
  return batch;
}

TEST_P(ModelAllocation, DynamicsIntoGivenStorageAllocateNothingPerRow) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  const Model model = load_model((kExamples / GetParam()).string());
  const int n = model.dof_count(), rows = 20;
  const Batch batch = closed_batch(model, rows);
  const Rows &q = batch.q, &qd = batch.qd, &second = batch.second;
  Rows qdd(rows, n), tau(rows, n);
  Eigen::MatrixXd mass(n, n);
  ModelData data(model);
  const Eigen::Vector3d gravity = kStandardGravity;
  auto row = [&](int i) {
    forward_dynamics(model, data, q.row(i).transpose(), qd.row(i).transpose(),
                     second.row(i).transpose(), gravity, qdd.row(i).transpose());
    inverse_dynamics(model, data, q.row(i).transpose(), qd.row(i).transpose(),
                     second.row(i).transpose(), gravity, tau.row(i).transpose());
    mass_matrix(model, data, q.row(i).transpose(), mass);
  };
  row(0);
  row(1);
  for (int i = 0; i < rows; ++i) EXPECT_EQ(allocations_in([&] { row(i); }), 0) << "row " << i;
  // The same numbers as the value-returning calls, in the file's order.
  ModelData reference(model);
  for (int i = 0; i < rows; i += 7) {
    const Eigen::VectorXd qi = q.row(i).transpose(), qdi = qd.row(i).transpose(),
                          si = second.row(i).transpose();
    // (A data with another history may hold another, equally valid selection: 1e-10.)
    const Eigen::VectorXd expected_qdd = forward_dynamics(model, reference, qi, qdi, si, gravity);
    EXPECT_LT((qdd.row(i).transpose() - expected_qdd).norm(), 1e-10 * (1 + expected_qdd.norm()));
    const Eigen::VectorXd expected_tau = inverse_dynamics(model, reference, qi, qdi, si, gravity);
    EXPECT_LT((tau.row(i).transpose() - expected_tau).norm(), 1e-10 * (1 + expected_tau.norm()));
  }
  const Eigen::MatrixXd expected_mass =
      mass_matrix(model, reference, q.row(rows - 1).transpose().eval());
  EXPECT_LT((mass - expected_mass).norm(), 1e-12 * expected_mass.norm());
}

TEST_P(ModelAllocation, DerivativesIntoGivenResultsAllocateNothingPerRow) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  const Model model = load_model((kExamples / GetParam()).string());
  const int rows = 8;
  const Batch batch = closed_batch(model, rows);
  const Rows &q = batch.q, &qd = batch.qd, &second = batch.second;
  ModelData data(model);
  ForwardDerivatives forward;
  InverseDerivatives inverse;
  const Eigen::Vector3d gravity = kStandardGravity;
  auto row = [&](int i) {
    forward_dynamics_derivatives(model, data, q.row(i).transpose(), qd.row(i).transpose(),
                                 second.row(i).transpose(), gravity, forward);
    inverse_dynamics_derivatives(model, data, q.row(i).transpose(), qd.row(i).transpose(),
                                 second.row(i).transpose(), gravity, inverse);
  };
  // First called at rest (qd = 0: the rows' derivatives along qd are exactly zero, the fewest
  // nonzeros a pattern sees), then the moving rows allocate nothing either.
  const Eigen::VectorXd rest = Eigen::VectorXd::Zero(model.dof_count());
  forward_dynamics_derivatives(model, data, q.row(0).transpose(), rest, rest, gravity, forward);
  inverse_dynamics_derivatives(model, data, q.row(0).transpose(), rest, rest, gravity, inverse);
  for (int i = 0; i < rows; ++i) EXPECT_EQ(allocations_in([&] { row(i); }), 0) << "row " << i;
  // The same numbers as the value-returning calls on fresh data.
  ModelData reference(model);
  const ForwardDerivatives expected = forward_dynamics_derivatives(
      model, reference, q.row(rows - 1).transpose(), qd.row(rows - 1).transpose(),
      second.row(rows - 1).transpose(), gravity);
  const InverseDerivatives expected_inverse = inverse_dynamics_derivatives(
      model, reference, q.row(rows - 1).transpose(), qd.row(rows - 1).transpose(),
      second.row(rows - 1).transpose(), gravity);
  const Eigen::MatrixXd embedding = embedding_matrix(model, reference, q.row(rows - 1).transpose());
  row(rows - 1);
  const auto close = [](const Eigen::MatrixXd& got, const Eigen::MatrixXd& want) {
    return got.rows() == want.rows() && got.cols() == want.cols() &&
           (got - want).norm() <= 1e-9 * (1 + want.norm());
  };
  EXPECT_EQ(forward.independent, expected.independent);
  EXPECT_TRUE(close(forward.dqdd_dq, expected.dqdd_dq));
  EXPECT_TRUE(close(forward.dqdd_dqd, expected.dqdd_dqd));
  EXPECT_TRUE(close(forward.dqdd_dtau, expected.dqdd_dtau));
  EXPECT_EQ(inverse.independent, expected_inverse.independent);
  EXPECT_TRUE(close(inverse.dtau_dq, expected_inverse.dtau_dq));
  EXPECT_TRUE(close(inverse.dtau_dqd, expected_inverse.dtau_dqd));
  EXPECT_TRUE(close(inverse.mass, expected_inverse.mass));
  // The results' embedding is X at the state (the identity for a tree), in both results.
  EXPECT_TRUE(close(forward.embedding, embedding));
  EXPECT_TRUE(close(inverse.embedding, embedding));
}

INSTANTIATE_TEST_SUITE_P(Examples, ModelAllocation,
                         testing::Values("arm7.urdf", "humanoid.xml", "space_arm.urdf",
                                         "fourbar.yaml", "delta_robot.xml", "stewart_platform.yaml",
                                         "fourbar_chain.yaml"),
                         [](const testing::TestParamInfo<std::string>& test) {
                           std::string name = test.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace skograph

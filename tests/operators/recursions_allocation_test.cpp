// The O(N) recursions must not allocate once their workspace exists (house rule); malloc calls are
// counted by support/allocation_counter.hpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/lyapunov.hpp"
#include "skograph/operators/spo_products.hpp"
#include "support/allocation_counter.hpp"
#include "support/operator_support.hpp"

// Sanitizers own malloc: there the counter is not installed and the tests skip.

namespace skograph {
namespace {

using testing_support::allocations_in;

TEST(RecursionsAllocation, TheCounterSeesEigenAllocations) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  const long count = allocations_in([] {
    Eigen::VectorXd temporary(17);
    temporary.setZero();
    testing_support::keep_alive(temporary.data());
  });
  EXPECT_GE(count, 1);
}

TEST(RecursionsAllocation, RecursionsDoNotAllocate) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  std::mt19937 rng(61);
  testing_support::RandomSkoOptions options;
  options.nodes = 200;
  options.trees = 3;
  const SkoModel model = testing_support::random_sko_model(options, rng);
  const SkoStructure& s = model.structure();
  const Eigen::VectorXd thetadot = Eigen::VectorXd::Random(s.hinge.total());
  const Eigen::VectorXd thetaddot = Eigen::VectorXd::Random(s.hinge.total());
  const Eigen::VectorXd a = Eigen::VectorXd::Random(s.node.total());
  const Eigen::VectorXd b = Eigen::VectorXd::Random(s.node.total());
  Eigen::VectorXd y(s.node.total());
  InverseDynamicsWorkspace dynamics(s);
  const Eigen::VectorXd base = Eigen::VectorXd::Random(dynamics.base_acceleration_size);
  const BwaMatrix other = testing_support::random_kernel(model.structure_ptr(), rng);
  const BlockDiagonal x = testing_support::random_block_diagonal(s.node, rng);
  LyapunovWorkspace lyapunov(s);

  EXPECT_EQ(allocations_in([&] { resolvent_product(model.kernel(), a, y); }), 0);
  EXPECT_EQ(allocations_in([&] { resolvent_adjoint_product(model.kernel(), a, y); }), 0);
  EXPECT_EQ(allocations_in([&] { resolvent_tilde_product(model.kernel(), a, y); }), 0);
  EXPECT_EQ(allocations_in([&] { resolvent_tilde_adjoint_product(model.kernel(), a, y); }), 0);
  EXPECT_EQ(allocations_in([&] { inverse_dynamics(model, thetadot, thetaddot, a, b, dynamics); }),
            0);
  EXPECT_EQ(
      allocations_in([&] { inverse_dynamics(model, thetadot, thetaddot, a, b, base, dynamics); }),
      0);
  EXPECT_EQ(allocations_in([&] { generalized_bias(model, a, b, dynamics); }), 0);
  EXPECT_EQ(allocations_in([&] { backward_lyapunov_diagonal(model.kernel(), x, other, lyapunov); }),
            0);
  EXPECT_EQ(allocations_in([&] { forward_lyapunov_diagonal(model.kernel(), x, other, lyapunov); }),
            0);
}

}  // namespace
}  // namespace skograph

// The O(N) recursions must not allocate once their workspace exists (house rule). This test binary
// counts calls to malloc (which operator new and Eigen's aligned allocator both use) made by the
// current thread while a flag is set; outside the measured calls the counter is idle, so the other
// tests of the binary are unaffected.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "operators/inverse_dynamics.hpp"
#include "operators/lyapunov.hpp"
#include "operators/spo_products.hpp"
#include "support/operator_support.hpp"

// Sanitizers own malloc: there the counter is not installed and the tests skip.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SKOGRAPH_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SKOGRAPH_COUNT_MALLOC 0
#endif
#endif
#ifndef SKOGRAPH_COUNT_MALLOC
#define SKOGRAPH_COUNT_MALLOC 1
#endif

namespace {
thread_local bool counting_allocations = false;
thread_local long allocation_count = 0;
}  // namespace

#if SKOGRAPH_COUNT_MALLOC
extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* malloc(std::size_t size) {
  if (counting_allocations) ++allocation_count;
  return __libc_malloc(size);
}
#endif

namespace skograph {
namespace {

// Number of malloc calls made by `body`.
template <typename Body>
long allocations_in(Body&& body) {
  allocation_count = 0;
  counting_allocations = true;
  body();
  counting_allocations = false;
  return allocation_count;
}

TEST(RecursionsAllocation, TheCounterSeesEigenAllocations) {
  if (!SKOGRAPH_COUNT_MALLOC) GTEST_SKIP() << "malloc is not counted under sanitizers";
  const long count = allocations_in([] {
    Eigen::VectorXd temporary(17);
    temporary.setZero();
    EXPECT_EQ(temporary.size(), 17);
  });
  EXPECT_GE(count, 1);
}

TEST(RecursionsAllocation, RecursionsDoNotAllocate) {
  if (!SKOGRAPH_COUNT_MALLOC) GTEST_SKIP() << "malloc is not counted under sanitizers";
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

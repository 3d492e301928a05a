// Once RigidBodyData exists, the per-step rigid-body functions must not allocate (house rule). This
// test binary counts malloc calls of the current thread while a flag is set (the other tests of the
// binary are unaffected).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "rigid/free_flying.hpp"
#include "rigid/rigid_body_model.hpp"
#include "support/rigid_support.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SKOGRAPH_RIGID_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SKOGRAPH_RIGID_COUNT_MALLOC 0
#endif
#endif
#ifndef SKOGRAPH_RIGID_COUNT_MALLOC
#define SKOGRAPH_RIGID_COUNT_MALLOC 1
#endif

namespace {
thread_local bool counting_allocations = false;
thread_local long allocation_count = 0;
}  // namespace

#if SKOGRAPH_RIGID_COUNT_MALLOC
extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* malloc(std::size_t size) {
  if (counting_allocations) ++allocation_count;
  return __libc_malloc(size);
}
#endif

namespace skograph {
namespace {

template <typename Body>
long allocations_in(Body&& body) {
  allocation_count = 0;
  counting_allocations = true;
  body();
  counting_allocations = false;
  return allocation_count;
}

TEST(RigidAllocation, StepFunctionsDoNotAllocate) {
  if (!SKOGRAPH_RIGID_COUNT_MALLOC) GTEST_SKIP() << "malloc is not counted under sanitizers";
  EXPECT_GT(allocations_in([] { Eigen::VectorXd scratch = Eigen::VectorXd::Zero(17); }), 0);
  std::mt19937 rng(11);
  testing_support::RandomMechanismOptions options;
  options.links = 30;
  const RigidBodyModel model(testing_support::random_mechanism(options, rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = testing_support::rigid_random_state(n, rng);
  const Eigen::VectorXd qd = testing_support::rigid_random_state(n, rng);
  const Eigen::VectorXd qdd = testing_support::rigid_random_state(n, rng);
  const Eigen::Vector3d gravity(0, 0, -9.81);
  mass_matrix(model, data, q);  // sizes data.mass once
  EXPECT_EQ(allocations_in([&] { update_kinematics(model, q, qd, data); }), 0);
  EXPECT_EQ(allocations_in([&] { inverse_dynamics(model, data, q, qd, qdd, gravity); }), 0);
  EXPECT_EQ(allocations_in([&] { forward_dynamics(model, data, q, qd, qdd, gravity); }), 0);
  EXPECT_EQ(
      allocations_in([&] { forward_dynamics_through_operators(model, data, q, qd, qdd, gravity); }),
      0);
  EXPECT_EQ(allocations_in([&] { mass_matrix(model, data, q); }), 0);
  EXPECT_EQ(allocations_in([&] { bias_forces(model, data, q, qd, gravity); }), 0);
  FreeFlyingData free_flying(model);  // the random mechanism has a floating base
  EXPECT_EQ(allocations_in([&] {
              base_invariant_forward_dynamics(model, data, free_flying, q, qd, qdd, gravity);
            }),
            0);
  EXPECT_EQ(
      allocations_in([&] { decoupled_operational_space_inertias(model, data, free_flying, q); }),
      0);
}

}  // namespace
}  // namespace skograph

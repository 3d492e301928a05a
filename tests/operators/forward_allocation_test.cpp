// The forward-dynamics family must not allocate once its workspace exists (house rule).
//
// recursions_allocation_test.cpp already interposes malloc for this test binary, so this
// file watches the other end: it interposes free, counting calls while a CountingScope is alive
// (every temporary Eigen/std allocation made and released inside a call shows up as a free), and
// compares the bytes in use (mallinfo2) before and after (an allocation kept past the call shows
// up there). Either being non-zero is an allocation inside the measured call.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstddef>
#include <vector>

#include "operators/forward_dynamics.hpp"
#include "operators/forward_dynamics_alternatives.hpp"
#include "operators/mass_matrix.hpp"
#include "operators/operational_space.hpp"
#include "support/operator_support.hpp"

// Sanitizers own the allocator: there nothing is interposed and the tests skip.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SKOGRAPH_COUNT_FREE 0
#else
#define SKOGRAPH_COUNT_FREE 1
#endif

namespace {
thread_local bool counting_frees = false;
thread_local long free_count = 0;
}  // namespace

#if SKOGRAPH_COUNT_FREE
extern "C" void __libc_free(void* pointer);
extern "C" void free(void* pointer) {
  if (counting_frees && pointer != nullptr) ++free_count;
  __libc_free(pointer);
}
#endif

namespace skograph {
namespace {

struct AllocationCount {
  long frees = 0;
  long long bytes_kept = 0;
  bool none() const { return frees == 0 && bytes_kept == 0; }
};

std::ostream& operator<<(std::ostream& out, const AllocationCount& count) {
  return out << count.frees << " frees, " << count.bytes_kept << " bytes kept";
}

// Frees and net heap growth during `body`.
template <typename Body>
AllocationCount allocations_in(Body&& body) {
  const long long before = static_cast<long long>(mallinfo2().uordblks);
  free_count = 0;
  counting_frees = true;
  body();
  counting_frees = false;
  AllocationCount count;
  count.frees = free_count;
  count.bytes_kept = static_cast<long long>(mallinfo2().uordblks) - before;
  return count;
}

TEST(ForwardAllocation, TheCounterSeesTemporaryAndKeptAllocations) {
  if (!SKOGRAPH_COUNT_FREE) GTEST_SKIP() << "the allocator is not interposed under sanitizers";
  const AllocationCount temporary = allocations_in([] {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(1000);
    EXPECT_EQ(v.size(), 1000);
  });
  EXPECT_GT(temporary.frees, 0);
  std::vector<double> kept;
  const AllocationCount growth = allocations_in([&kept] { kept.assign(5000, 1.0); });
  EXPECT_GT(growth.bytes_kept, 0);
}

TEST(ForwardAllocation, RecursionsDoNotAllocateOnceTheWorkspaceExists) {
  std::mt19937 rng(21);
  testing_support::RandomSkoOptions options;
  options.nodes = 200;
  options.trees = 3;
  const SkoModel model = testing_support::random_bounded_sko_model(options, rng);
  const int dofs = model.structure().hinge.total(), nodes = model.structure().node.total();
  const Eigen::VectorXd thetadot = testing_support::random_vector(dofs, rng);
  const Eigen::VectorXd force = testing_support::random_vector(dofs, rng);
  const Eigen::VectorXd a = testing_support::random_vector(nodes, rng);
  const Eigen::VectorXd b = testing_support::random_vector(nodes, rng);
  ForwardDynamicsWorkspace forward(model.structure_ptr());
  CompositeInertiaWorkspace composite(model.structure());
  OperationalSpaceWorkspace operational(model.structure_ptr());
  AlternativeForwardDynamicsWorkspace alternatives(model.structure_ptr());
  Eigen::MatrixXd mass(dofs, dofs);
  {
    const AllocationCount count = allocations_in([&] {
      forward_dynamics(model, thetadot, force, a, b, forward);
      apply_mass_matrix_inverse(model, force, forward);
    });
    EXPECT_TRUE(count.none()) << "forward_dynamics"
                              << ": " << count;
  }
  {
    const AllocationCount count = allocations_in([&] {
      composite_body_inertias(model, composite);
      mass_matrix(model, composite, mass);
    });
    EXPECT_TRUE(count.none()) << "composite_body_inertias / mass_matrix"
                              << ": " << count;
  }
  {
    const AllocationCount count =
        allocations_in([&] { operational_space_compliance_diagonal(model, operational); });
    EXPECT_TRUE(count.none()) << "operational_space_compliance_diagonal"
                              << ": " << count;
  }
  // forward_dynamics_cholesky is left out: Eigen's blocked dense LLT takes its GEMM blocking
  // buffers from the heap once N x N exceeds the stack limit (documented in its header).
  {
    const AllocationCount count = allocations_in(
        [&] { forward_dynamics_innovations(model, thetadot, force, a, b, alternatives); });
    EXPECT_TRUE(count.none()) << "innovations"
                              << ": " << count;
  }
  {
    const AllocationCount count = allocations_in([&] {
      ConjugateGradientOptions cg;
      cg.preconditioner = ConjugateGradientPreconditioner::kCompositeBodyInertia;
      forward_dynamics_conjugate_gradient(model, thetadot, force, a, b, cg, alternatives);
    });
    EXPECT_TRUE(count.none()) << "cg"
                              << ": " << count;
  }
}

}  // namespace
}  // namespace skograph

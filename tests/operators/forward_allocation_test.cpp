// The forward-dynamics family must not allocate once its workspace exists (house rule). malloc is
// interposed for this test executable and counts calls while a test holds a CountingScope;
// operator new and Eigen's aligned allocator both end in malloc.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>

#include "operators/forward_dynamics.hpp"
#include "operators/forward_dynamics_alternatives.hpp"
#include "operators/mass_matrix.hpp"
#include "operators/operational_space.hpp"
#include "support/ops2_support.hpp"

extern "C" void* __libc_malloc(std::size_t size);

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

extern "C" void* malloc(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}

namespace skograph {
namespace {

class CountingScope {
 public:
  CountingScope() {
    allocations = 0;
    counting = true;
  }
  ~CountingScope() { counting = false; }
  long count() const { return allocations.load(); }
};

TEST(ForwardAllocation, InterpositionSeesAllocations) {
  // The counter works: a fresh dynamic Eigen vector allocates.
  long seen = 0;
  {
    CountingScope scope;
    Eigen::VectorXd v = Eigen::VectorXd::Zero(1000);
    asm volatile("" : : "g"(v.data()) : "memory");  // keep the allocation
    seen = scope.count();
  }
  EXPECT_GT(seen, 0);
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
    CountingScope scope;
    forward_dynamics(model, thetadot, force, a, b, forward);
    apply_mass_matrix_inverse(model, force, forward);
    EXPECT_EQ(scope.count(), 0) << "forward_dynamics";
  }
  {
    CountingScope scope;
    composite_body_inertias(model, composite);
    mass_matrix(model, composite, mass);
    EXPECT_EQ(scope.count(), 0) << "composite_body_inertias / mass_matrix";
  }
  {
    CountingScope scope;
    operational_space_compliance_diagonal(model, operational);
    EXPECT_EQ(scope.count(), 0) << "operational_space_compliance_diagonal";
  }
  // forward_dynamics_cholesky is left out: Eigen's blocked dense LLT takes its GEMM blocking
  // buffers from the heap once N x N exceeds the stack limit (documented in its header).
  {
    CountingScope scope;
    forward_dynamics_innovations(model, thetadot, force, a, b, alternatives);
    EXPECT_EQ(scope.count(), 0) << "innovations";
  }
  {
    CountingScope scope;
    ConjugateGradientOptions cg;
    cg.preconditioner = ConjugateGradientPreconditioner::kCompositeBodyInertia;
    forward_dynamics_conjugate_gradient(model, thetadot, force, a, b, cg, alternatives);
    EXPECT_EQ(scope.count(), 0) << "cg";
  }
}

}  // namespace
}  // namespace skograph

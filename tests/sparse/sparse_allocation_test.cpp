// Model/data split of the sparse layer: after the first call, refilling the mass matrix for a new
// configuration allocates nothing (malloc counted by support/allocation_counter.hpp). CHOLMOD's
// numeric factorization is not covered: it builds the permuted matrix P M P' (4 allocations per
// call with this build) before factorizing into the analysed L.
#include <gtest/gtest.h>

#include <random>

#include "skograph/sparse/sparse_assembly.hpp"
#include "support/allocation_counter.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using namespace testing_support;

TEST(SparseAllocation, CounterSeesAnAllocation) {
  if (!counting_available()) GTEST_SKIP() << "allocation counting unavailable (sanitizer build)";
  EXPECT_GT(allocations_in([] {
              Eigen::SparseMatrix<double> m(10, 10);
              m.insert(3, 4) = 1.0;
              keep_alive(m.valuePtr());
            }),
            0);
}

TEST(SparseAllocation, RefillingTheMassMatrixAllocatesNothing) {
  if (!counting_available()) GTEST_SKIP() << "allocation counting unavailable (sanitizer build)";
  std::mt19937 rng(5);
  RandomSkoOptions options;
  options.nodes = 50;
  options.trees = 2;
  SkoModel model = random_bounded_sko_model(options, rng);
  CompositeInertiaWorkspace workspace(model.structure());
  Eigen::SparseMatrix<double> mass;
  sparse_mass_matrix(model, workspace, mass);
  for (int configuration = 0; configuration < 3; ++configuration) {
    for (int k = 0; k < model.size(); ++k) model.inertia(k) = random_spd(model.node_dim(k), rng);
    EXPECT_EQ(allocations_in([&] { sparse_mass_matrix(model, workspace, mass); }), 0);
    EXPECT_LT(relative_error(Eigen::MatrixXd(mass), dense_mass_matrix(model)), 1e-10);
  }
}

}  // namespace
}  // namespace skograph

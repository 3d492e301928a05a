// O(N) SPO products (part II Lemmas 1-2, Corollary 3.1) against the dense resolvent.
#include "skograph/operators/spo_products.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::dense_resolvent;
using testing_support::model_with_kernel;
using testing_support::relative_error;

struct ProductCase {
  int nodes;
  int trees;
  int max_dim;
};

const ProductCase kProductCases[] = {{1, 1, 9},   {3, 1, 9},  {10, 2, 9},  {25, 1, 9},
                                     {40, 4, 9},  {60, 1, 7}, {100, 3, 5}, {150, 1, 4},
                                     {250, 6, 2}, {300, 1, 2}};

// Each case with the model's E_A and with a second random BWA matrix over the same structure (a
// stand-in for a derived operator such as E_psi, whose weights are singular).
TEST(SpoProducts, MatchTheDenseResolventOnTreesAndForests) {
  std::mt19937 rng(21);
  for (int seed = 0; seed < 3; ++seed) {
    for (const ProductCase& c : kProductCases) {
      testing_support::RandomSkoOptions options;
      options.nodes = c.nodes;
      options.trees = c.trees;
      options.max_dim = c.max_dim;
      const SkoModel model = testing_support::random_sko_model(options, rng);
      const BwaMatrix other = testing_support::random_kernel(model.structure_ptr(), rng);
      for (const BwaMatrix* kernel : {&model.kernel(), &other}) {
        const Eigen::MatrixXd a = dense_resolvent(model_with_kernel(*kernel));
        const Eigen::MatrixXd tilde = a - Eigen::MatrixXd::Identity(a.rows(), a.cols());
        const Eigen::VectorXd x = Eigen::VectorXd::Random(a.rows());
        Eigen::VectorXd y(a.rows());
        resolvent_product(*kernel, x, y);
        EXPECT_LT(relative_error(y, a * x), 1e-10) << c.nodes;
        resolvent_adjoint_product(*kernel, x, y);
        EXPECT_LT(relative_error(y, a.transpose() * x), 1e-10) << c.nodes;
        resolvent_tilde_product(*kernel, x, y);
        EXPECT_LT(relative_error(y, tilde * x), 1e-10) << c.nodes;
        resolvent_tilde_adjoint_product(*kernel, x, y);
        EXPECT_LT(relative_error(y, tilde.transpose() * x), 1e-10) << c.nodes;

        // In place for A x and A* x.
        Eigen::VectorXd z = x;
        resolvent_product(*kernel, z, z);
        EXPECT_LT(relative_error(z, a * x), 1e-10);
        z = x;
        resolvent_adjoint_product(*kernel, z, z);
        EXPECT_LT(relative_error(z, a.transpose() * x), 1e-10);
      }
    }
  }
}

TEST(SpoProducts, RejectWrongSizesAndAliasedTildeProducts) {
  std::mt19937 rng(22);
  testing_support::RandomSkoOptions options;
  options.nodes = 6;
  const SkoModel model = testing_support::random_sko_model(options, rng);
  const int total = model.structure().node.total();
  Eigen::VectorXd x = Eigen::VectorXd::Random(total), y(total), short_vector(total - 1);
  EXPECT_THROW(resolvent_product(model.kernel(), short_vector, y), std::invalid_argument);
  EXPECT_THROW(resolvent_adjoint_product(model.kernel(), x, short_vector), std::invalid_argument);
  EXPECT_THROW(resolvent_tilde_product(model.kernel(), x, x), std::invalid_argument);
  EXPECT_THROW(resolvent_tilde_adjoint_product(model.kernel(), x, x), std::invalid_argument);
}

}  // namespace
}  // namespace skograph

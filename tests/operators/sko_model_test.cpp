#include <gtest/gtest.h>

#include "support/random_sko.hpp"

namespace skograph {
namespace {

TEST(SkoModel, BlocksHaveTheLayoutShapesAndKeepTheirValues) {
  std::mt19937 rng(3);
  testing_support::RandomSkoOptions options;
  options.nodes = 30;
  options.trees = 3;
  const SkoModel model = testing_support::random_sko_model(options, rng);
  const Eigen::MatrixXd e = testing_support::dense_kernel(model);
  for (int k = 0; k < model.size(); ++k) {
    const int p = model.forest().parent(k);
    EXPECT_EQ(model.inertia(k).rows(), model.node_dim(k));
    EXPECT_EQ(model.hinge_map(k).rows(), model.hinge_dim(k));
    EXPECT_EQ(model.hinge_map(k).cols(), model.node_dim(k));
    if (p == Forest::kNone) {
      EXPECT_EQ(model.weight(k).size(), 0);
    } else {
      EXPECT_EQ(model.weight(k).rows(), model.node_dim(p));
      EXPECT_EQ(model.weight(k).cols(), model.node_dim(k));
    }
  }
  // E_A is nilpotent (part I Lemma 2): E^n = 0 for n nodes.
  Eigen::MatrixXd power = Eigen::MatrixXd::Identity(e.rows(), e.cols());
  for (int i = 0; i < model.size(); ++i) power = power * e;
  EXPECT_LT(power.norm(), 1e-12 * std::max(1.0, e.norm()));
}

}  // namespace
}  // namespace skograph

// Forward and backward Lyapunov recursions (part II section 4) against dense products.
#include "skograph/operators/lyapunov.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::dense_kernel;
using testing_support::dense_resolvent;
using testing_support::model_with_kernel;
using testing_support::relative_error;

struct LyapunovCase {
  int nodes;
  int trees;
  int max_dim;
};

const LyapunovCase kLyapunovCases[] = {{1, 1, 9},  {2, 1, 9},  {6, 2, 9},  {15, 1, 9},
                                       {30, 4, 7}, {50, 1, 5}, {80, 3, 4}, {120, 1, 3}};

// Two operators over one random structure, dense references and a random non-symmetric X.
struct LyapunovSetup {
  SkoModel model;
  BwaMatrix other;
  BlockDiagonal x;
  Eigen::MatrixXd e_a, e_b, a, b, x_dense;
};

LyapunovSetup make_setup(const LyapunovCase& c, std::mt19937& rng) {
  testing_support::RandomSkoOptions options;
  options.nodes = c.nodes;
  options.trees = c.trees;
  options.max_dim = c.max_dim;
  SkoModel model = testing_support::random_sko_model(options, rng);
  BwaMatrix other = testing_support::random_kernel(model.structure_ptr(), rng);
  BlockDiagonal x = testing_support::random_block_diagonal(model.structure().node, rng);
  const SkoModel other_model = model_with_kernel(other);
  Eigen::MatrixXd e_a = dense_kernel(model), e_b = dense_kernel(other_model);
  Eigen::MatrixXd a = dense_resolvent(model), b = dense_resolvent(other_model);
  Eigen::MatrixXd x_dense = x.to_dense();
  return {std::move(model), std::move(other), std::move(x), e_a, e_b, a, b, x_dense};
}

// Zeroes the off-diagonal blocks.
Eigen::MatrixXd diagonal_of(const Eigen::MatrixXd& z, const BlockLayout& layout) {
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(z.rows(), z.cols());
  for (int k = 0; k < layout.count(); ++k)
    d.block(layout.offset(k), layout.offset(k), layout.dim(k), layout.dim(k)) =
        z.block(layout.offset(k), layout.offset(k), layout.dim(k), layout.dim(k));
  return d;
}

// Part II Lemma 5 (Eq. 21-25) and Algorithm 4.3.
TEST(Lyapunov, BackwardDiagonalElementsAndDecomposition) {
  std::mt19937 rng(41);
  for (int seed = 0; seed < 2; ++seed) {
    for (const LyapunovCase& c : kLyapunovCases) {
      const LyapunovSetup s = make_setup(c, rng);
      const BwaMatrix& e_a = s.model.kernel();
      const BlockLayout& layout = s.model.structure().node;
      const Forest& forest = s.model.forest();
      const Eigen::MatrixXd z = s.a.transpose() * s.x_dense * s.b;

      LyapunovWorkspace workspace(s.model.structure());
      const BlockDiagonal& y = backward_lyapunov_diagonal(e_a, s.x, s.other, workspace);
      const Eigen::MatrixXd y_dense = y.to_dense();
      EXPECT_LT(relative_error(y_dense, diagonal_of(z, layout)), 1e-10) << c.nodes;
      // Eq. 22: X = Y - diagOf{E_A* Y E_B}.
      EXPECT_LT(relative_error(s.x_dense,
                               y_dense - diagonal_of(s.e_a.transpose() * y_dense * s.e_b, layout)),
                1e-10);
      // Eq. 25 / Algorithm 4.3, element by element, and the dense assembly.
      EXPECT_LT(relative_error(backward_lyapunov_dense(e_a, s.x, s.other), z), 1e-10);
      // Eq. 21: Z - (Y + A~* Y + Y B~) is the term R, non-zero only for unrelated pairs.
      const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(z.rows(), z.cols());
      const Eigen::MatrixXd r =
          z - y_dense - (s.a - identity).transpose() * y_dense - y_dense * (s.b - identity);
      for (int i = 0; i < s.model.size(); ++i)
        for (int j = 0; j < s.model.size(); ++j) {
          const auto block =
              r.block(layout.offset(i), layout.offset(j), layout.dim(i), layout.dim(j));
          const Eigen::MatrixXd zij = backward_lyapunov_element(e_a, s.other, y, i, j);
          if (forest.related(i, j)) {
            EXPECT_LT(block.norm(), 1e-10 * std::max(1.0, z.norm()));
          } else {
            // R(i, j) = A*(k, i) Y(k) B(k, j), k the closest common ancestor; 0 across trees.
            EXPECT_LT(relative_error(zij, block), 1e-10);
            if (forest.closest_common_ancestor(i, j) == Forest::kNone) {
              EXPECT_TRUE(zij.isZero(0.0));
            }
          }
        }
    }
  }
}

// Part II Lemma 6: for a serial chain R = 0 and E_A* Y E_B is block-diagonal, so
// X = Y - E_A* Y E_B and Z = Y + A~* Y + Y B~ exactly (Eq. 27-30).
TEST(Lyapunov, BackwardSerialChain) {
  std::mt19937 rng(42);
  for (const int n : {1, 2, 5, 12, 40}) {
    std::vector<int> parent(n);
    for (int k = 0; k < n; ++k) parent[k] = k + 1 < n ? k + 1 : Forest::kNone;
    const auto structure = testing_support::random_structure(parent, rng, 6);
    const BwaMatrix e_a = testing_support::random_kernel(structure, rng);
    const BwaMatrix e_b = testing_support::random_kernel(structure, rng);
    const BlockDiagonal x = testing_support::random_block_diagonal(structure->node, rng);
    const Eigen::MatrixXd ea = dense_kernel(model_with_kernel(e_a));
    const Eigen::MatrixXd eb = dense_kernel(model_with_kernel(e_b));
    const Eigen::MatrixXd a = dense_resolvent(model_with_kernel(e_a));
    const Eigen::MatrixXd b = dense_resolvent(model_with_kernel(e_b));
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(a.rows(), a.cols());

    LyapunovWorkspace workspace(*structure);
    const Eigen::MatrixXd y = backward_lyapunov_diagonal(e_a, x, e_b, workspace).to_dense();
    EXPECT_LT(relative_error(x.to_dense(), y - ea.transpose() * y * eb), 1e-10);
    const Eigen::MatrixXd z = a.transpose() * x.to_dense() * b;
    EXPECT_LT(relative_error(y + (a - identity).transpose() * y + y * (b - identity), z), 1e-10);
    EXPECT_LT(relative_error(backward_lyapunov_dense(e_a, x, e_b), z), 1e-10);
  }
}

// Part II Lemma 3 (Eq. 11-15).
TEST(Lyapunov, ForwardDiagonalElementsAndDecomposition) {
  std::mt19937 rng(43);
  for (int seed = 0; seed < 2; ++seed) {
    for (const LyapunovCase& c : kLyapunovCases) {
      const LyapunovSetup s = make_setup(c, rng);
      const BwaMatrix& e_a = s.model.kernel();
      const BlockLayout& layout = s.model.structure().node;
      const Forest& forest = s.model.forest();
      const Eigen::MatrixXd z = s.a * s.x_dense * s.b.transpose();

      const BlockDiagonal y = forward_lyapunov_diagonal(e_a, s.x, s.other);
      const Eigen::MatrixXd y_dense = y.to_dense();
      EXPECT_LT(relative_error(y_dense, diagonal_of(z, layout)), 1e-10) << c.nodes;
      // Eq. 12: X = Y - E_A Y E_B* (block-diagonal as it stands).
      EXPECT_LT(relative_error(s.x_dense, y_dense - s.e_a * y_dense * s.e_b.transpose()), 1e-10);
      // Eq. 11: Z = Y + A~ Y + Y B~*.
      const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(z.rows(), z.cols());
      EXPECT_LT(
          relative_error(
              y_dense + (s.a - identity) * y_dense + y_dense * (s.b - identity).transpose(), z),
          1e-10);
      EXPECT_LT(relative_error(forward_lyapunov_dense(e_a, s.x, s.other), z), 1e-10);
      // Eq. 15: exact zeros for unrelated pairs.
      for (int i = 0; i < s.model.size(); ++i)
        for (int j = 0; j < s.model.size(); ++j)
          if (!forest.related(i, j)) {
            EXPECT_TRUE(forward_lyapunov_element(e_a, s.other, y, i, j).isZero(0.0));
          }
    }
  }
}

// Part II Lemma 4 (Eq. 17-19): with A = B = E_A and X = M, H (A M A*) H* is the mass matrix.
TEST(Lyapunov, ForwardWithInertiasGivesTheMassMatrix) {
  std::mt19937 rng(44);
  for (const LyapunovCase& c : kLyapunovCases) {
    testing_support::RandomSkoOptions options;
    options.nodes = c.nodes;
    options.trees = c.trees;
    options.max_dim = c.max_dim;
    const SkoModel model = testing_support::random_sko_model(options, rng);
    const Eigen::MatrixXd h = testing_support::dense_hinge_map(model);
    const BlockDiagonal m = node_inertias(model);
    EXPECT_LT(relative_error(
                  h * forward_lyapunov_dense(model.kernel(), m, model.kernel()) * h.transpose(),
                  testing_support::dense_mass_matrix(model)),
              1e-10);
  }
}

TEST(Lyapunov, RejectsOperatorsOverDifferentStructures) {
  std::mt19937 rng(45);
  const auto one = testing_support::random_structure({1, 2, Forest::kNone}, rng);
  const auto two = testing_support::random_structure({Forest::kNone, 0, 0}, rng);
  const BwaMatrix a(one), b(two);
  const BlockDiagonal x(one->node);
  LyapunovWorkspace workspace(*one);
  EXPECT_THROW(backward_lyapunov_diagonal(a, x, b, workspace), std::invalid_argument);
  EXPECT_THROW(forward_lyapunov_diagonal(a, x, b, workspace), std::invalid_argument);
}

}  // namespace
}  // namespace skograph

// Y1 = Q(:, dependent), the constraint columns of the dependent coordinates (constraint-embedding
// Lemma 5), factorized block by block for X_S = -Y1^+ Y2, the conditioning check of the selection
// and the loop forces' least-norm multipliers (solve_transposed). The rows of Q and the dependent
// columns split into the connected components of Y1's nonzero pattern, so Y1 is block diagonal up
// to permutations; each block is factorized by its own Householder QR. A parallel robot whose legs
// close only through a shared platform, with the platform's coordinates independent, has one small
// block per leg (the Stewart platform: five 3 x 3 blocks instead of one 15 x 15). Storage is
// reused: no allocation once the blocks' sizes have been seen.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "skograph/graph/disjoint_sets.hpp"

namespace skograph {

class DependentFactorization {
 public:
  // Factorizes Y1 = Q(:, dependent). A block with fewer rows than columns (Y1 cannot have full
  // column rank) makes the whole Y1 one block, as a dense factorization would see it.
  void compute(const Eigen::Ref<const Eigen::MatrixXd>& Q, const std::vector<int>& dependent);

  // x = Y1^+ b (least squares, exact when b lies in range(Y1)) for b = Q(:, columns):
  // x is |dependent| x |columns|.
  void solve_columns(const Eigen::Ref<const Eigen::MatrixXd>& Q, const std::vector<int>& columns,
                     Eigen::Ref<Eigen::MatrixXd> x);
  // x = Y1^+ b for one right-hand side of Q's rows.
  void solve(const Eigen::Ref<const Eigen::VectorXd>& b, Eigen::Ref<Eigen::VectorXd> x);
  // y = (Y1*)^+ c, the least-norm solution of Y1* y = c (c indexed like `dependent`, y like Q's
  // rows; rows outside every block get 0): y = Q_f [R^-* c; 0] block by block. Needs Y1 of full
  // column rank: returns false, y untouched, when a block has fewer rows than columns or a zero
  // pivot.
  bool solve_transposed(const Eigen::Ref<const Eigen::VectorXd>& c, Eigen::Ref<Eigen::VectorXd> y);

  int rows() const { return rows_; }
  int columns() const { return columns_; }
  int block_count() const { return block_count_; }
  // |Y1|_F^2 and |R^-1|_F^2 = |Y1^+|_F^2 (sum over the blocks); the latter is infinite when a
  // pivot of R is zero, and computed once per factorization (a selection is often checked more
  // than once at the same Y1).
  double frobenius_squared() const;
  double inverse_frobenius_squared();
  // Whether sigma_min / sigma_max of Y1 is below `threshold` (kBelow), clearly above it (kAbove:
  // at least 1.5 times it) or neither decided (kUndecided: the caller takes the SVD), by power
  // iterations on each block's R: Y1's singular values are its blocks' together, so lower bounds
  // on each block's sigma_max and 1/sigma_min bound the whole. Each block's iteration starts from
  // the vectors it ended with at the previous factorization of the same size, with a share of a
  // fixed vector mixed in (an update along a motion settles in a few steps); "clearly above"
  // needs two consecutive steps that change both bounds by under 1e-4. Blocks of more than 64
  // columns are left undecided.
  enum class Conditioning { kBelow, kAbove, kUndecided };
  Conditioning conditioning_against(double threshold);

 private:
  struct Block {
    std::vector<int> rows, columns;  // rows of Q; positions in `dependent`
    Eigen::MatrixXd matrix, right_hand_side, unit;
    // Householder QR of `matrix` in Eigen's layout (R on and above the diagonal, each reflection's
    // essential part below it, H_k = I - coefficients(k) v v* with v = [1; essential]), computed
    // by plain loops: Eigen's generic path took about twice the instructions on blocks this
    // small (block expressions per column).
    Eigen::MatrixXd factors;
    Eigen::VectorXd coefficients;
    Eigen::VectorXd vector_right_hand_side;
    Eigen::VectorXd power_largest, power_inverse;  // conditioning_against's warm starts
  };
  // Applies the block's Q_f* to its right-hand side and solves R x = (Q_f* b)(top) in place.
  static void solve_block(Block& block);
  // Q_f* (forward: H_(count-1) ... H_0) or Q_f (H_0 ... H_(count-1)) of the block's first `count`
  // reflections applied to the columns of `target` (the block's rows).
  static void apply_reflections(const Block& block, Eigen::Index count, bool forward,
                                Eigen::Ref<Eigen::MatrixXd> target);

  std::vector<Block> blocks_;  // the first block_count_ are in use
  int block_count_ = 0, rows_ = 0, columns_ = 0;
  double inverse_frobenius_squared_ = -1.0;  // < 0: not computed since the last compute()
  DisjointSets components_;
  std::vector<int> block_of_root_;
};

}  // namespace skograph

// Y1 = Q(:, dependent), the constraint columns of the dependent coordinates (constraint-embedding
// Lemma 5), factorized block by block for X_S = -Y1^+ Y2, the conditioning check of the selection
// and the loop forces' least-norm multipliers (solve_transposed). The rows of Q and the dependent
// columns split into the connected components of Y1's nonzero pattern, so Y1 is block diagonal up
// to permutations; each block is factorized by its own Householder QR. A parallel robot whose legs
// close only through a shared platform, with the platform's coordinates independent, has one small
// block per leg (the Stewart platform: five 3 x 3 blocks instead of one 15 x 15).
// Within a block the QR is sparse: columns are eliminated fewest rows first (the rows still
// unpivoted where the column is nonzero, fill counted), and each reflection acts only on those
// rows and on the columns nonzero there. With the actuators independent the platform's
// coordinates are dependent and couple every leg into one block; then each leg's own coordinates
// are eliminated within the leg's rows, and the platform's last on what each leg leaves over (the
// block-angular form: wl16_like's 30 x 30 Y1 as five 6 x 5 legs and a 5 x 5 platform). The
// elimination order is worked out from the pattern and kept while the pattern stays the same.
// Storage is reused: no allocation once the blocks' sizes have been seen (each block keeps its
// buffers; patterns whose blocks come in another order of sizes resize them again).
#pragma once

#include <Eigen/Dense>
#include <limits>
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
  // The same, and y = Y1^+ b as solve() gives it, in one pass over the reflections (the same
  // arithmetic per right-hand side as the two calls).
  void solve_columns(const Eigen::Ref<const Eigen::MatrixXd>& Q, const std::vector<int>& columns,
                     Eigen::Ref<Eigen::MatrixXd> x, const Eigen::Ref<const Eigen::VectorXd>& b,
                     Eigen::Ref<Eigen::VectorXd> y);
  // After solve_columns(Q, columns, x): an upper bound on max_j |b_j - Y1 x_j|_inf over its
  // right-hand sides b_j = Q(:, columns[j]) (the least-squares residuals, 0 up to rounding when
  // b lies in range(Y1)): the 2-norm of the residual that the reflections leave at the rows
  // without a pivot and of b outside every block, plus what the entries counted as zero
  // contribute. Exact arithmetic's bound; the rounding of the solve is the caller's margin.
  // Infinite when no solve_columns of this Q's size and column count followed the last compute.
  double residual_bound(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                        const std::vector<int>& columns) const;
  // x = Y1^+ b for one right-hand side of Q's rows.
  void solve(const Eigen::Ref<const Eigen::VectorXd>& b, Eigen::Ref<Eigen::VectorXd> x);
  // y = (Y1*)^+ c, the least-norm solution of Y1* y = c (c indexed like `dependent`, y like Q's
  // rows; rows outside every block get 0): y = Q_f [R^-* c; 0] block by block. Needs Y1 of full
  // column rank: returns false, y untouched, when a block has fewer rows than columns or a zero
  // pivot.
  bool solve_transposed(const Eigen::Ref<const Eigen::VectorXd>& c, Eigen::Ref<Eigen::VectorXd> y);
  // The same for the columns of C (|dependent| x k) into Y (Q's rows x k), one pass over each
  // reflection for all of them (solve_transposed is its one-column case).
  bool solve_transposed_columns(const Eigen::Ref<const Eigen::MatrixXd>& C,
                                Eigen::Ref<Eigen::MatrixXd> Y);

  int rows() const { return rows_; }
  int columns() const { return columns_; }
  int block_count() const { return block_count_; }
  // |Y1|_F^2 and |R^-1|_F^2 = |Y1^+|_F^2 (sum over the blocks); the latter is infinite when a
  // pivot of R is zero, and computed once per factorization (a selection is often checked more
  // than once at the same Y1).
  double frobenius_squared() const;
  double inverse_frobenius_squared();
  // Whether sigma_min / sigma_max of Y1 is below `threshold` (kBelow), above it (kAbove: proven
  // by a Cholesky certificate at the converged estimates) or neither decided (kUndecided: the
  // caller takes the SVD), by power iterations on each block's R: Y1's singular values are its
  // blocks' together, so lower bounds on each block's sigma_max and 1/sigma_min bound the whole.
  // Each block's iteration starts from the vectors it ended with at the previous factorization of
  // the same size, with a share of a fixed vector mixed in (an update along a motion settles in a
  // few steps); "clearly above" needs two consecutive steps that change both bounds by under 1e-4.
  // Blocks of more than 64 columns are left undecided.
  enum class Conditioning { kBelow, kAbove, kUndecided };
  Conditioning conditioning_against(double threshold);

  // Proven bounds on Y1's extreme singular values at this factorization (from the Frobenius
  // bracket, the power iterations and the Cholesky certificate of conditioning_against), kept
  // with Y1's values; a bound not known stays at its default. Bounds kept from an earlier
  // certificate of the same blocks are merged in (widened by Y1's change since, each side the
  // tighter of the two), so that checks against two thresholds keep both answers.
  struct SingularValueBounds {
    double min_at_least = 0.0, max_at_most = std::numeric_limits<double>::infinity();
    double min_at_most = std::numeric_limits<double>::infinity(), max_at_least = 0.0;
  };
  void certify(const SingularValueBounds& bounds);
  // Whether the kept bounds prove sigma_min / sigma_max >= threshold (certified_at_least) or
  // < threshold (certified_below) for the current Y1: singular values move by at most
  // |E|_2 <= |E|_F when Y1 changes by E (Weyl), so with d = |Y1 - Y1 then|_F,
  // (min_at_least - d) / (max_at_most + d) >= threshold suffices, and so does
  // (min_at_most + d) / (max_at_least - d) < threshold for below. O(rows x columns): along a
  // motion the selection check is mostly this. The bounds are dropped when the blocks change
  // (another dependent set or pattern).
  bool certified_at_least(double threshold) const;
  bool certified_below(double threshold) const;

 private:
  // R of one block, upper triangular in elimination order: its diagonal and, row by row, the
  // nonzeros right of it (the later steps a reflection reached).
  struct SparseUpper {
    Eigen::VectorXd diagonal;
    std::vector<int> offsets, steps;  // row k: steps[offsets[k] .. offsets[k+1])
    std::vector<double> values;       // parallel to steps
    int size() const { return static_cast<int>(diagonal.size()); }
    void multiply(const double* x, double* y) const;             // y = R x
    void multiply_transposed(const double* x, double* y) const;  // y = R* x
    void solve(double* x) const;             // x = R^-1 x (a zero pivot over 0 leaves 0)
    void solve_transposed(double* x) const;  // x = R^-* x
  };
  struct Block {
    std::vector<int> rows, columns;  // rows of Q; positions in `dependent`
    Eigen::MatrixXd matrix, right_hand_side;
    Eigen::MatrixXd certified;  // `matrix` when the certificate was made
    // The elimination, worked out from `pattern` (matrix(i, j) != 0, column-major) and redone when
    // it changes: step k eliminates column order[k] by one Householder reflection on the block
    // rows reflection_rows[offsets[k] .. offsets[k+1]) (the pivot, R's row k, first), applied to
    // the later columns listed in touched[touched_offsets[k] .. touched_offsets[k+1]) (their
    // steps, or -1 - position for a wide block's columns beyond its rows). A block with fewer
    // rows than columns is taken as dense in column order (Eigen's basic solution).
    std::vector<char> pattern;
    std::vector<int> rows_off_pivot;  // block rows no step pivots on (the residual's)
    std::vector<int> order, offsets, reflection_rows, touched_offsets, touched;
    int steps = 0;  // min(rows, columns)
    // Numbers: `work` is the matrix after the reflections; each reflection is
    // H_k = I - coefficients(k) v v*, v = 1 at the pivot and `essential` at the other rows.
    Eigen::MatrixXd work, gram;  // gram: positive_definite_shifted's scratch
    SparseUpper upper;
    Eigen::VectorXd coefficients;
    std::vector<double> essential;  // parallel to reflection_rows
    Eigen::VectorXd vector_right_hand_side;
    // solve_transposed_columns' scratch, grown only (the vector call works in
    // vector_right_hand_side, the size solve keeps it at, so alternating calls never resize).
    Eigen::MatrixXd transposed_solution;
    std::vector<double> solution;  // scratch of every size the solves need (capacity kept)
    // solve_columns' x in step order (steps x solution_stride_, row-major: k columns, then the
    // extra vector's), with right_hand_side for residual_bound.
    std::vector<double> column_solution;
    Eigen::VectorXd power_largest, power_inverse;  // conditioning_against's warm starts
  };
  struct AnalysisScratch {
    std::vector<char> fill, pivoted, done;
    std::vector<int> step_of;
  };
  // The elimination order and fill of `block.pattern` (fewest unpivoted rows first).
  static void analyze_block(Block& block, AnalysisScratch& scratch);
  static void factorize_block(Block& block);
  // Whether shift I + sign R* R has its eigenvalues above `tolerance` (Cholesky), for
  // conditioning_against.
  static bool positive_definite_shifted(Block& block, double shift, double sign, double tolerance);
  // Q_f* (forward: H_0 first) or Q_f (H_(steps-1) first) applied to the columns of `target`
  // (the block's rows).
  static void apply_reflections(const Block& block, bool forward,
                                Eigen::Ref<Eigen::MatrixXd> target);
  // Splits Q's rows and the dependent columns into blocks (the connected components of Y1's
  // pattern), unless the pattern is the previous call's; returns whether it found them again.
  // Reads negligible_ (set_negligible).
  bool find_blocks(const Eigen::Ref<const Eigen::MatrixXd>& Q, const std::vector<int>& dependent);
  // negligible_ from |Y1|_max: the entries at most it count as zero.
  void set_negligible(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                      const std::vector<int>& dependent);
  // The blocks' matrices from Y1 in the one pass that also checks the pattern, when the blocks
  // of the last analysis still hold (same dependent columns, not wide): false, with the
  // matrices part-written, when an entry off every block or one of a block's pattern changed.
  bool copy_unchanged_blocks(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                             const std::vector<int>& dependent);

  // Whether every block can take solve_transposed (full column rank, no zero pivot).
  bool transposed_solvable() const;
  // solve_transposed_columns in the blocks' `transposed_solution`, or (one_column) in
  // `vector_right_hand_side`.
  bool solve_transposed_into(const Eigen::Ref<const Eigen::MatrixXd>& C,
                             Eigen::Ref<Eigen::MatrixXd> Y, bool one_column);

  std::vector<Block> blocks_;  // the first block_count_ are in use
  int block_count_ = 0, rows_ = 0, columns_ = 0;
  bool wide_ = false;
  double inverse_frobenius_squared_ = -1.0;     // < 0: not computed since the last compute()
  static constexpr double kNegligible = 1e-14;  // relative to |Y1|_max: counts as zero
  double negligible_ = 0.0;
  bool certified_ = false;
  SingularValueBounds bounds_;
  double certified_slack_ = 0.0;
  double certified_distance() const;  // |Y1 - Y1 at certify|_F, plus the rounding slack
  DisjointSets components_;
  std::vector<int> block_of_root_, dependent_;
  std::vector<char> y1_pattern_;   // Y1 != 0, column-major, as the blocks were found for
  std::vector<int> rows_outside_;  // rows of Q no block holds
  // Y1's entries outside every block, column c's rows at off_block_offsets_[c] ..
  // off_block_offsets_[c + 1] - 1 of off_block_rows_: zero in the pattern the blocks were found
  // for, as the blocks are its connected components; none when wide_. row_block_: find_blocks'
  // scratch, each row's block or -1.
  std::vector<int> off_block_offsets_, off_block_rows_, row_block_;
  void solve_together(const Eigen::Ref<const Eigen::MatrixXd>& Q, const std::vector<int>& columns,
                      Eigen::Ref<Eigen::MatrixXd> x,
                      const Eigen::Ref<const Eigen::VectorXd>* vector,
                      Eigen::Ref<Eigen::VectorXd>* vector_solution);
  // The last solve_columns' right-hand side count (Q's columns; the row stride of
  // column_solution counts the extra vector too); residual_known_ until the next compute.
  int solved_columns_ = 0, solution_stride_ = 0;
  bool residual_known_ = false;
  AnalysisScratch scratch_;
};

}  // namespace skograph

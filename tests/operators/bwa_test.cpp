// BWA matrices and 1-resolvents (part I sections 4-5) against dense references built from the
// definitions (tests/support/random_sko.hpp).
#include "skograph/operators/bwa.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::block_pattern;
using testing_support::dense_kernel;
using testing_support::dense_resolvent;
using testing_support::model_with_kernel;
using testing_support::pattern_rows;
using testing_support::relative_error;

struct BwaCase {
  int nodes;
  int trees;
  int max_dim;
};

// Trees and forests from 1 to 300 nodes; the big ones with smaller node dimensions so the dense
// references (LU of N x N) stay cheap.
std::vector<BwaCase> cases() {
  return {{1, 1, 9},  {2, 1, 9},  {5, 2, 9},   {12, 1, 9},  {20, 3, 9},  {40, 1, 9},
          {40, 5, 9}, {80, 1, 6}, {120, 4, 5}, {200, 1, 3}, {300, 1, 2}, {300, 7, 2}};
}

SkoModel make_model(const BwaCase& c, std::mt19937& rng) {
  testing_support::RandomSkoOptions options;
  options.nodes = c.nodes;
  options.trees = c.trees;
  options.max_dim = c.max_dim;
  return testing_support::random_sko_model(options, rng);
}

int max_depth(const Forest& forest) {
  int depth = 0;
  for (int k = 0; k < forest.size(); ++k) depth = std::max(depth, forest.depth(k));
  return depth;
}

TEST(Bwa, SparseKernelIsTheDenseDefinition) {
  std::mt19937 rng(11);
  for (const BwaCase& c : cases()) {
    const SkoModel model = make_model(c, rng);
    const Eigen::SparseMatrix<double> e = assemble_kernel(model.kernel());
    const Eigen::MatrixXd reference = dense_kernel(model);
    EXPECT_EQ((Eigen::MatrixXd(e) - reference).cwiseAbs().maxCoeff(), 0.0) << c.nodes;
    Eigen::Index stored = 0;
    for (int k = 0; k < model.size(); ++k) stored += model.weight(k).size();
    EXPECT_EQ(e.nonZeros(), stored);
  }
}

// Part I Lemmas 1-2: E^k holds exactly the blocks of paths of length k, each the product of the
// weights along the path (which is the resolvent block of Lemma 5), and E^(depth+1) = 0.
TEST(Bwa, PowersHoldThePathsOfTheirLengthAndVanishPastTheDepth) {
  std::mt19937 rng(12);
  for (const BwaCase& c : cases()) {
    if (c.nodes > 120) continue;  // dense powers
    const SkoModel model = make_model(c, rng);
    const Forest& forest = model.forest();
    const BlockLayout& layout = model.structure().node;
    const Eigen::MatrixXd e = dense_kernel(model), a = dense_resolvent(model);
    const int depth = max_depth(forest);
    Eigen::MatrixXd power = Eigen::MatrixXd::Identity(e.rows(), e.cols());
    for (int length = 1; length <= depth + 1; ++length) {
      power = power * e;
      for (int i = 0; i < model.size(); ++i)
        for (int j = 0; j < model.size(); ++j) {
          const auto block =
              power.block(layout.offset(i), layout.offset(j), layout.dim(i), layout.dim(j));
          if (forest.is_ancestor(i, j) && forest.depth(j) - forest.depth(i) == length) {
            const Eigen::MatrixXd expected =
                a.block(layout.offset(i), layout.offset(j), layout.dim(i), layout.dim(j));
            EXPECT_LT(relative_error(block, expected), 1e-10);
            EXPECT_GT(block.norm(), 0.0);
          } else {
            EXPECT_EQ(block.cwiseAbs().maxCoeff(), 0.0);
          }
        }
    }
    EXPECT_EQ(power.cwiseAbs().maxCoeff(), 0.0) << "E^(depth+1) must vanish";

    // The same with the sparse assembly, up to n (Lemma 2: E^n = 0).
    const Eigen::SparseMatrix<double> sparse = assemble_kernel(model.kernel());
    Eigen::SparseMatrix<double> sparse_power = sparse;
    for (int length = 2; length <= depth + 1; ++length)
      sparse_power = (sparse_power * sparse).pruned();
    EXPECT_EQ(sparse_power.nonZeros(), 0) << "E^(depth+1) must vanish";
    for (int length = depth + 2; length <= model.size(); ++length)
      sparse_power = (sparse_power * sparse).pruned();
    EXPECT_EQ(sparse_power.nonZeros(), 0) << "E^n must vanish";
  }
}

TEST(Bwa, SparseResolventMatchesTheDenseInverseWithExactZeros) {
  std::mt19937 rng(13);
  for (const BwaCase& c : cases()) {
    const SkoModel model = make_model(c, rng);
    const Forest& forest = model.forest();
    const BlockLayout& layout = model.structure().node;
    const Eigen::SparseMatrix<double> a = assemble_resolvent(model.kernel());
    const Eigen::MatrixXd reference = dense_resolvent(model);
    EXPECT_LT(relative_error(Eigen::MatrixXd(a), reference), 1e-10) << c.nodes;

    // Stored entries only in blocks (i, j) with i an ancestor-or-self of j (Eq. 18).
    std::vector<int> node_of(layout.total());
    for (int k = 0; k < model.size(); ++k)
      for (int r = 0; r < layout.dim(k); ++r) node_of[layout.offset(k) + r] = k;
    Eigen::Index expected_stored = 0;
    for (int j = 0; j < model.size(); ++j) {
      expected_stored += layout.dim(j);  // the identity A(j, j) stores its diagonal only
      for (int i = forest.parent(j); i != Forest::kNone; i = forest.parent(i))
        expected_stored += static_cast<Eigen::Index>(layout.dim(i)) * layout.dim(j);
    }
    EXPECT_EQ(a.nonZeros(), expected_stored);
    for (int col = 0; col < a.outerSize(); ++col)
      for (Eigen::SparseMatrix<double>::InnerIterator it(a, col); it; ++it)
        ASSERT_TRUE(forest.is_ancestor_or_self(node_of[it.row()], node_of[it.col()]));

    // Block accessor: the dense block for related pairs, exactly zero otherwise.
    std::uniform_int_distribution<int> pick(0, model.size() - 1);
    for (int trial = 0; trial < 200; ++trial) {
      const int i = pick(rng), j = pick(rng);
      const Eigen::MatrixXd block = resolvent_block(model.kernel(), i, j);
      ASSERT_EQ(block.rows(), layout.dim(i));
      ASSERT_EQ(block.cols(), layout.dim(j));
      if (forest.is_ancestor_or_self(i, j)) {
        EXPECT_LT(relative_error(block, reference.block(layout.offset(i), layout.offset(j),
                                                        layout.dim(i), layout.dim(j))),
                  1e-10);
      } else {
        EXPECT_TRUE(block.isZero(0.0));
      }
    }
  }
}

// Part I Lemma 6, Eq. 19: A(i, j) = A(i, k) A(k, j) for every k on the path from i to j.
TEST(Bwa, SemiGroupProperty) {
  std::mt19937 rng(14);
  for (const BwaCase& c : cases()) {
    const SkoModel model = make_model(c, rng);
    const Forest& forest = model.forest();
    const BlockLayout& layout = model.structure().node;
    const Eigen::MatrixXd a = dense_resolvent(model);
    auto dense_block = [&](int i, int j) {
      return Eigen::MatrixXd(
          a.block(layout.offset(i), layout.offset(j), layout.dim(i), layout.dim(j)));
    };
    for (int j = 0; j < model.size(); j += 1 + model.size() / 25) {
      for (int i = j; i != Forest::kNone; i = forest.parent(i))
        for (int k = j; k != forest.parent(i); k = forest.parent(k)) {
          const Eigen::MatrixXd product =
              resolvent_block(model.kernel(), i, k) * resolvent_block(model.kernel(), k, j);
          EXPECT_LT(relative_error(product, dense_block(i, j)), 1e-10);
        }
    }
  }
}

// Part I Lemma 7, Eq. 21: A~ = A - I = A E = E A.
TEST(Bwa, ResolventTildeIdentities) {
  std::mt19937 rng(15);
  for (const BwaCase& c : cases()) {
    const SkoModel model = make_model(c, rng);
    const Eigen::SparseMatrix<double> e = assemble_kernel(model.kernel());
    const Eigen::SparseMatrix<double> a = assemble_resolvent(model.kernel());
    Eigen::SparseMatrix<double> identity(a.rows(), a.cols());
    identity.setIdentity();
    const Eigen::MatrixXd tilde = Eigen::MatrixXd(a - identity);
    EXPECT_LT(relative_error(Eigen::MatrixXd(a * e), tilde), 1e-10);
    EXPECT_LT(relative_error(Eigen::MatrixXd(e * a), tilde), 1e-10);
    // And against the dense inverse.
    const Eigen::MatrixXd reference = dense_resolvent(model);
    EXPECT_LT(relative_error(tilde, reference - Eigen::MatrixXd::Identity(a.rows(), a.cols())),
              1e-10);
  }
}

// Part I Corollary 4.1, Eq. 22-23: r is a root iff E e_r = 0 iff A e_r = e_r; t is a tip iff
// E* e_t = 0 iff A* e_t = e_t.
TEST(Bwa, RootAndTipIdentities) {
  std::mt19937 rng(16);
  for (const BwaCase& c : cases()) {
    if (c.nodes > 120) continue;
    const SkoModel model = make_model(c, rng);
    const Forest& forest = model.forest();
    const BlockLayout& layout = model.structure().node;
    const Eigen::MatrixXd e = dense_kernel(model), a = dense_resolvent(model);
    for (int k = 0; k < model.size(); ++k) {
      Eigen::MatrixXd unit = Eigen::MatrixXd::Zero(layout.total(), layout.dim(k));
      unit.middleRows(layout.offset(k), layout.dim(k)).setIdentity();
      const bool root_by_e = (e * unit).isZero(0.0);
      const bool root_by_a = relative_error(a * unit, unit) < 1e-12;
      EXPECT_EQ(root_by_e, forest.is_base(k));
      EXPECT_EQ(root_by_a, forest.is_base(k));
      const bool tip_by_e = (e.transpose() * unit).isZero(0.0);
      const bool tip_by_a = relative_error(a.transpose() * unit, unit) < 1e-12;
      EXPECT_EQ(tip_by_e, forest.is_tip(k));
      EXPECT_EQ(tip_by_a, forest.is_tip(k));
    }
  }
}

std::vector<int> random_permutation(int n, std::mt19937& rng) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

// Part I section 5.1, Eq. 26: E' = T E T*, A' = T A T*; the renumbered model has the permuted
// mass matrix; the canonical renumbering makes E strictly and A block lower-triangular.
TEST(Bwa, PermutationSimilarity) {
  std::mt19937 rng(17);
  for (const BwaCase& c : cases()) {
    const SkoModel model = make_model(c, rng);
    const std::vector<int> new_index = random_permutation(model.size(), rng);
    const BwaMatrix renumbered = renumber(model.kernel(), new_index);
    for (int k = 0; k < model.size(); ++k) {
      const int p = model.forest().parent(k);
      EXPECT_EQ(renumbered.forest().parent(new_index[k]),
                p == Forest::kNone ? Forest::kNone : new_index[p]);
    }
    const Eigen::SparseMatrix<double> t =
        block_permutation_matrix(model.structure().node, new_index);
    const Eigen::MatrixXd permuted_e = Eigen::MatrixXd(t * assemble_kernel(model.kernel()) *
                                                       Eigen::SparseMatrix<double>(t.transpose()));
    EXPECT_EQ((dense_kernel(model_with_kernel(renumbered)) - permuted_e).cwiseAbs().maxCoeff(),
              0.0);
    const Eigen::MatrixXd tt = Eigen::MatrixXd(t);
    EXPECT_TRUE((tt * tt.transpose()).isIdentity(0.0));
    EXPECT_LT(relative_error(dense_resolvent(model_with_kernel(renumbered)),
                             tt * dense_resolvent(model) * tt.transpose()),
              1e-10);

    if (c.nodes <= 120) {
      const SkoModel renumbered_model = renumber(model, new_index);
      const Eigen::MatrixXd th =
          Eigen::MatrixXd(block_permutation_matrix(model.structure().hinge, new_index));
      EXPECT_LT(relative_error(testing_support::dense_mass_matrix(renumbered_model),
                               th * testing_support::dense_mass_matrix(model) * th.transpose()),
                1e-10);
    }

    const std::vector<int> canonical = strictly_canonical_numbering(model.forest());
    const BwaMatrix lower = renumber(model.kernel(), canonical);
    for (int k = 0; k < lower.size(); ++k)
      if (!lower.forest().is_base(k)) {
        EXPECT_GT(lower.forest().parent(k), k);
      }
    const Eigen::SparseMatrix<double> e = assemble_kernel(lower), a = assemble_resolvent(lower);
    std::vector<int> node_of(lower.layout().total());
    for (int k = 0; k < lower.size(); ++k)
      for (int r = 0; r < lower.layout().dim(k); ++r) node_of[lower.layout().offset(k) + r] = k;
    for (int col = 0; col < e.outerSize(); ++col) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(e, col); it; ++it)
        EXPECT_GT(node_of[it.row()], node_of[it.col()]);  // strictly block lower-triangular
      for (Eigen::SparseMatrix<double>::InnerIterator it(a, col); it; ++it)
        EXPECT_GE(node_of[it.row()], node_of[it.col()]);  // block lower-triangular
    }
  }
  const SkoModel small = make_model({4, 1, 3}, rng);
  const std::vector<int> not_a_permutation = {0, 1, 1, 2};
  EXPECT_THROW(renumber(small.kernel(), not_a_permutation), std::invalid_argument);
}

// Part I section 5.2, Lemma 9 (Eq. 28-30): with B(p, k) = Delta(p) A(p, k) Delta(k)^-1,
// E_B = Delta E_A Delta^-1 and B = Delta A Delta^-1.
TEST(Bwa, SimilarityShift) {
  std::mt19937 rng(18);
  for (const BwaCase& c : cases()) {
    if (c.nodes > 200) continue;
    const SkoModel model = make_model(c, rng);
    const BlockDiagonal delta =
        testing_support::random_block_diagonal(model.structure().node, rng, 3.0);
    const BwaMatrix shifted = similarity_shift(model.kernel(), delta);
    const Eigen::MatrixXd d = delta.to_dense();
    const Eigen::MatrixXd d_inverse = d.inverse();
    const SkoModel shifted_model = model_with_kernel(shifted);
    EXPECT_LT(relative_error(dense_kernel(shifted_model), d * dense_kernel(model) * d_inverse),
              1e-10);
    EXPECT_LT(
        relative_error(dense_resolvent(shifted_model), d * dense_resolvent(model) * d_inverse),
        1e-10);
    EXPECT_LT(relative_error(Eigen::MatrixXd(assemble_resolvent(shifted)),
                             d * dense_resolvent(model) * d_inverse),
              1e-10);
  }
  const SkoModel small = make_model({4, 1, 3}, rng);
  BlockDiagonal singular = testing_support::random_block_diagonal(small.structure().node, rng, 3.0);
  singular.block(2).setZero();
  EXPECT_THROW(similarity_shift(small.kernel(), singular), std::invalid_argument);
}

// A structure over `parent` with random dims and a kernel of random (non-zero) weights.
BwaMatrix random_bwa(const std::vector<int>& parent, std::mt19937& rng) {
  return testing_support::random_kernel(testing_support::random_structure(parent, rng), rng);
}

std::vector<std::string> pattern_of_power(const BwaMatrix& kernel, int power_exponent) {
  const Eigen::MatrixXd e = dense_kernel(model_with_kernel(kernel));
  Eigen::MatrixXd power = Eigen::MatrixXd::Identity(e.rows(), e.cols());
  for (int i = 0; i < power_exponent; ++i) power = power * e;
  return block_pattern(power, kernel.layout(), kernel.layout());
}

// Part I Remark 4.1: the canonical serial chain of 4 nodes (parent(k) = k + 1).
TEST(Bwa, RemarkSerialChainOfFour) {
  std::mt19937 rng(19);
  for (int trial = 0; trial < 5; ++trial) {
    const BwaMatrix e = random_bwa({1, 2, 3, Forest::kNone}, rng);
    EXPECT_EQ(pattern_of_power(e, 1), pattern_rows("....X....X....X.", 4));
    EXPECT_EQ(pattern_of_power(e, 2), pattern_rows("........X....X..", 4));
    EXPECT_EQ(pattern_of_power(e, 3), pattern_rows("............X...", 4));
    EXPECT_EQ(pattern_of_power(e, 4), pattern_rows("................", 4));
    const Eigen::MatrixXd a = Eigen::MatrixXd(assemble_resolvent(e));
    EXPECT_EQ(block_pattern(a, e.layout(), e.layout(), 0.0, true),
              pattern_rows("I...XI..XXI.XXXI", 4));
  }
}

// Part I Remark 4.2: the canonical tree of Fig. 2c. Reconstructed from the printed E and A
// patterns (1-based): parent(1) = 3, parent(2) = 4, parent(3) = parent(4) = parent(5) = 6,
// parent(6) = 7; its serial segments {1, 3} and {2, 4} are not consecutive, as the text says.
TEST(Bwa, RemarkCanonicalTreeOfFigure2c) {
  std::mt19937 rng(20);
  for (int trial = 0; trial < 5; ++trial) {
    const BwaMatrix e = random_bwa({2, 3, 5, 5, 5, 6, Forest::kNone}, rng);
    EXPECT_EQ(pattern_of_power(e, 1),
              pattern_rows("..............X.......X..............XXX.......X.", 7));
    const Eigen::MatrixXd a = Eigen::MatrixXd(assemble_resolvent(e));
    EXPECT_EQ(block_pattern(a, e.layout(), e.layout(), 0.0, true),
              pattern_rows("I.......I.....X.I.....X.I.......I..XXXXXI.XXXXXXI", 7));
    // Not strictly canonical: the segments {1, 3} and {2, 4} are not consecutive ranges.
    EXPECT_EQ(e.forest().segment_of(0), e.forest().segment_of(2));
    EXPECT_EQ(e.forest().segment_of(1), e.forest().segment_of(3));
  }
}

}  // namespace
}  // namespace skograph

// Constraint embedding (constraint-embedding Lemmas 5-6, §4.3 and §7; conventions.md "Constraint
// embedding") on random SKO models: random velocity constraints Q_S thetadot_S = 0 inside random
// aggregation sub-graphs, with redundant rows (rank r < rows, Q = (rows x r)(r x n_S)), and a
// random velocity-product term Qdot thetadot in range(Q). The embedded SKO model (H_Ra, A_a, M) is
// checked against dense references in the tree coordinates:
//   M_R = X* M X;   inverse dynamics T_R = X* (M thetaddot + C) for thetaddot = X qdd_R + Xdot
//   qd_R; forward dynamics solves X* (M qdd + C - T) = 0 with Q qdd + Qdot qd = 0, and agrees with
//   the Lagrange-multiplier DAE [M Q*; Q 0] [qdd; lambda] = [T - C; -Qdot qd].
#include "skograph/aggregation/constraint_embedding.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <stdexcept>

#include "skograph/aggregation/aggregated_model.hpp"
#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/innovations.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "support/aggregation_support.hpp"
#include "support/allocation_counter.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::random_matrix;
using testing_support::random_vector;
using testing_support::relative_error;

TEST(SelectCoordinates, GearCouplingHasTheClosedFormEmbedding) {
  // thetadot_motor - 50 thetadot_link = 0: the column of largest norm (the link) is dependent.
  const Eigen::MatrixXd q = (Eigen::MatrixXd(1, 2) << 1.0, -50.0).finished();
  const CoordinateSelection selection = select_coordinates(q);
  EXPECT_EQ(selection.dependent, std::vector<int>{1});
  EXPECT_EQ(selection.independent, std::vector<int>{0});
  EXPECT_EQ(selection.rank, 1);
  EXPECT_DOUBLE_EQ(selection.conditioning, 1.0);
  Eigen::MatrixXd x;
  Eigen::VectorXd xdot;
  embedding_matrices(q, Eigen::VectorXd::Constant(1, 2.0), selection, x, xdot);
  ASSERT_EQ(x.rows(), 2);
  ASSERT_EQ(x.cols(), 1);
  EXPECT_DOUBLE_EQ(x(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(x(1, 0), 1.0 / 50.0);
  // -50 uddot = -(Qdot thetadot) = -2.
  EXPECT_DOUBLE_EQ(xdot(0), 0.0);
  EXPECT_DOUBLE_EQ(xdot(1), 2.0 / 50.0);
}

TEST(SelectCoordinates, NearSingularSelectionHasTheClosedFormConditioning) {
  // Q = [[1, 0, 5], [0, t, 0]]: pivots take column 3 (norm 5), then column 2 (residual t).
  const double t = 1e-3;
  const Eigen::MatrixXd q = (Eigen::MatrixXd(2, 3) << 1.0, 0.0, 5.0, 0.0, t, 0.0).finished();
  const CoordinateSelection selection = select_coordinates(q);
  EXPECT_EQ(selection.dependent, (std::vector<int>{1, 2}));
  EXPECT_EQ(selection.independent, std::vector<int>{0});
  EXPECT_NEAR(selection.conditioning, t / 5.0, 1e-15);
  Eigen::MatrixXd x;
  Eigen::VectorXd xdot;
  embedding_matrices(q, Eigen::VectorXd::Zero(2), selection, x, xdot);
  EXPECT_LT((x - (Eigen::MatrixXd(3, 1) << 1.0, 0.0, -0.2).finished()).norm(), 1e-15);
  // Monitoring a fixed selection: Y1 = diag(1, t) for dependent {1, 2} of [[1, 0, 5], [0, t, 0]]
  // taken as {0, 1}.
  CoordinateSelection fixed;
  fixed.dependent = {0, 1};
  fixed.independent = {2};
  EXPECT_NEAR(selection_conditioning(q, fixed), t, 1e-15);
  // At t = 0 the rank drops and column 2 becomes independent.
  const Eigen::MatrixXd singular =
      (Eigen::MatrixXd(2, 3) << 1.0, 0.0, 5.0, 0.0, 0.0, 0.0).finished();
  const CoordinateSelection reselected = select_coordinates(singular);
  EXPECT_EQ(reselected.rank, 1);
  EXPECT_EQ(reselected.dependent, std::vector<int>{2});
  EXPECT_EQ(reselected.independent, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(selection_conditioning(singular, fixed), 0.0);
}

// The bracketed check decides as the SVD does, on random selections of random Q with redundant
// rows, conditioning spread over decades, and thresholds at, around and far from it.
TEST(SelectCoordinates, ConditioningCheckDecidesAsTheSingularValuesDo) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::uniform_int_distribution<int> size(1, 8);
  int checks = 0, near_threshold = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = size(rng), columns = rank + size(rng) - 1, rows = rank + trial % 3;
    // Y1 with singular values spread from 1 to 10^-k, then the other columns.
    const Eigen::MatrixXd u = Eigen::MatrixXd::NullaryExpr(rows, rank, [&] { return uniform(rng); })
                                  .householderQr()
                                  .householderQ() *
                              Eigen::MatrixXd::Identity(rows, rank);
    const Eigen::MatrixXd v = Eigen::MatrixXd::NullaryExpr(rank, rank, [&] { return uniform(rng); })
                                  .householderQr()
                                  .householderQ();
    Eigen::VectorXd sigma = Eigen::VectorXd::LinSpaced(rank, 0.0, -(trial % 9));
    sigma = sigma.unaryExpr([](double e) { return std::pow(10.0, e); });
    Eigen::MatrixXd q = Eigen::MatrixXd::NullaryExpr(rows, columns, [&] { return uniform(rng); });
    q.leftCols(rank) = u * sigma.asDiagonal() * v.transpose();
    CoordinateSelection selection;
    for (int c = 0; c < columns; ++c)
      (c < rank ? selection.dependent : selection.independent).push_back(c);
    const double exact = selection_conditioning(q, selection);
    for (const double threshold : {exact * 0.5, exact * 0.999, exact * 1.001, exact * 2.0,
                                   exact / (2.0 * rank), exact * 2.0 * rank, 1e-3, 0.1}) {
      EXPECT_EQ(selection_conditioning_at_least(q, selection, threshold), exact >= threshold)
          << "trial " << trial << " threshold " << threshold << " conditioning " << exact;
      ++checks;
      near_threshold += std::abs(threshold / exact - 1.0) < 0.01;
    }
  }
  EXPECT_EQ(checks, 2400);
  EXPECT_GE(near_threshold, 600);  // 0.999, 1.001, and 1e-3 or 0.1 where c is about that
  // More dependent columns than rows, a zero column, no dependent columns.
  const Eigen::MatrixXd wide = Eigen::MatrixXd::Ones(1, 3);
  CoordinateSelection two{{0, 1}, {2}, 2, 0.0};
  EXPECT_FALSE(selection_conditioning_at_least(wide, two, 1e-12));
  const Eigen::MatrixXd zero_column = (Eigen::MatrixXd(2, 3) << 1, 0, 1, 0, 0, 1).finished();
  EXPECT_FALSE(selection_conditioning_at_least(zero_column, two, 1e-12));
  EXPECT_TRUE(selection_conditioning_at_least(zero_column, two, 0.0));
  CoordinateSelection none{{}, {0, 1, 2}, 0, 1.0};
  EXPECT_TRUE(selection_conditioning_at_least(zero_column, none, 1.0));
}

TEST(SelectCoordinates, NoConstraintLeavesEveryCoordinateIndependent) {
  for (const Eigen::MatrixXd& q :
       {Eigen::MatrixXd(0, 3), Eigen::MatrixXd(Eigen::MatrixXd::Zero(2, 3))}) {
    const CoordinateSelection selection = select_coordinates(q);
    EXPECT_EQ(selection.rank, 0);
    EXPECT_TRUE(selection.dependent.empty());
    EXPECT_EQ(selection.independent, (std::vector<int>{0, 1, 2}));
    EXPECT_DOUBLE_EQ(selection.conditioning, 1.0);
    Eigen::MatrixXd x;
    Eigen::VectorXd xdot;
    embedding_matrices(q, Eigen::VectorXd::Zero(q.rows()), selection, x, xdot);
    EXPECT_EQ(x, Eigen::MatrixXd::Identity(3, 3));
    EXPECT_EQ(xdot, Eigen::VectorXd::Zero(3));
  }
}

TEST(SelectCoordinates, RejectsASelectionThatDoesNotSplitTheColumns) {
  const Eigen::MatrixXd q = Eigen::MatrixXd::Identity(2, 3);
  CoordinateSelection selection;
  selection.dependent = {0, 1};
  selection.independent = {1};
  EXPECT_THROW(selection_conditioning(q, selection), std::invalid_argument);
  Eigen::MatrixXd x;
  Eigen::VectorXd xdot;
  EXPECT_THROW(embedding_matrices(q, Eigen::VectorXd::Zero(2), selection, x, xdot),
               std::invalid_argument);
  selection.independent = {2};
  EXPECT_THROW(embedding_matrices(q, Eigen::VectorXd::Zero(3), selection, x, xdot),
               std::invalid_argument);
}

TEST(SelectCoordinates, RandomRedundantConstraintsGiveAnExactNullSpaceBasis) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 12;
    const int rank = static_cast<int>(rng() % (n + 1));
    const int rows = rank + static_cast<int>(rng() % 4);
    const Eigen::MatrixXd q = random_matrix(rows, rank, rng) * random_matrix(rank, n, rng);
    const Eigen::VectorXd w = random_vector(n, rng);
    const CoordinateSelection selection = select_coordinates(q);
    ASSERT_EQ(selection.rank, rank) << "trial " << trial;
    EXPECT_GT(selection.conditioning, 0.0);
    EXPECT_LE(selection.conditioning, 1.0);
    EXPECT_TRUE(std::is_sorted(selection.dependent.begin(), selection.dependent.end()));
    EXPECT_TRUE(std::is_sorted(selection.independent.begin(), selection.independent.end()));
    Eigen::MatrixXd x;
    Eigen::VectorXd xdot;
    embedding_matrices(q, q * w, selection, x, xdot);
    ASSERT_EQ(x.rows(), n);
    ASSERT_EQ(x.cols(), n - rank);
    EXPECT_LT((q * x).norm(), 1e-10 * std::max(1.0, q.norm() * x.norm())) << "trial " << trial;
    for (int j = 0; j < n - rank; ++j) {
      EXPECT_EQ(x.row(selection.independent[j]),
                Eigen::RowVectorXd::Unit(n - rank, j));  // identity rows at R
      EXPECT_EQ(xdot(selection.independent[j]), 0.0);
    }
    // Q (X qdd_R + Xdot qd_R) + Qdot qd = 0 for any qdd_R.
    const Eigen::VectorXd qdd_r = random_vector(n - rank, rng);
    EXPECT_LT((q * (x * qdd_r + xdot) + q * w).norm(), 1e-9 * std::max(1.0, q.norm() * w.norm()))
        << "trial " << trial;
  }
}

// One random closed-chain case: a tree model, sub-graphs, their constraints and embeddings.
struct EmbeddedCase {
  SkoModel tree;
  std::vector<std::vector<int>> subgraphs;
  std::vector<Eigen::MatrixXd> constraint;        // Q_S (rows x n_S), S's stacked hinge order
  std::vector<Eigen::VectorXd> velocity_product;  // Qdot thetadot_S = Q_S w
  std::vector<Eigen::MatrixXd> embedding;         // X_S
  std::vector<Eigen::VectorXd> embedding_rate;    // Xdot_S thetadot_R
  std::vector<int> independent;                   // n_R(S)
};

EmbeddedCase random_embedded_case(int seed, std::mt19937& rng) {
  testing_support::RandomSkoOptions options;
  options.nodes = 2 + (seed * 11) % 25;
  options.trees = 1 + seed % 3;
  EmbeddedCase c{testing_support::random_bounded_sko_model(options, rng), {}, {}, {}, {}, {}, {}};
  c.subgraphs = testing_support::random_aggregation_subgraphs(c.tree.forest(), 1 + seed % 4, rng);
  for (const std::vector<int>& s : c.subgraphs) {
    int n = 0;
    for (const int k : s) n += c.tree.hinge_dim(k);
    // Mostly 0 < r < n_S; sometimes r = n_S (an immobile aggregate, n_R = 0) or r = 0.
    const int rank = n == 0 ? 0 : (seed % 7 == 0 ? n : static_cast<int>(rng() % n));
    const int rows = rank + static_cast<int>(rng() % 3);
    const Eigen::MatrixXd q = random_matrix(rows, rank, rng) * random_matrix(rank, n, rng);
    const Eigen::VectorXd product = q * random_vector(n, rng);
    const CoordinateSelection selection = select_coordinates(q);
    EXPECT_EQ(selection.rank, rank);
    Eigen::MatrixXd x;
    Eigen::VectorXd xdot;
    embedding_matrices(q, product, selection, x, xdot);
    c.constraint.push_back(q);
    c.velocity_product.push_back(product);
    c.embedding.push_back(x);
    c.embedding_rate.push_back(xdot);
    c.independent.push_back(n - selection.rank);
  }
  return c;
}

// Scatters a per-sub-graph block (rows in S's stacked hinge order) into tree hinge rows.
void scatter_rows(const AggregatedStructure& structure, int s, const Eigen::MatrixXd& block,
                  int column, Eigen::MatrixXd& target) {
  const int a = structure.aggregated_node_of_subgraph(s);
  for (const int k : structure.members(a))
    target.block(structure.tree().hinge.offset(k), column, structure.tree().hinge.dim(k),
                 block.cols()) =
        block.middleRows(structure.hinge_offset_in_aggregate(k), structure.tree().hinge.dim(k));
}

TEST(ConstraintEmbedding, EmbeddedModelMatchesTheProjectedAndLagrangeMultiplierDynamics) {
  std::mt19937 rng(77);
  int immobile = 0, redundant = 0, reduced = 0;
  for (int seed = 0; seed < 70; ++seed) {
    const EmbeddedCase c = random_embedded_case(seed, rng);
    const AggregatedStructure structure(c.tree.structure_ptr(), c.subgraphs, c.independent);
    SkoModel embedded(structure.aggregated());
    AggregationWorkspace workspace(structure);
    aggregate_model(c.tree, structure, workspace, embedded);
    embed_hinge_maps(structure, workspace, c.embedding, embedded);

    const SkoStructure& ts = c.tree.structure();
    const SkoStructure& es = *structure.aggregated();
    const int dofs = ts.hinge.total(), minimal = es.hinge.total();
    // X (tree dofs x minimal dofs), Xdot qd_R (tree dofs), Q and Qdot qd stacked over sub-graphs.
    Eigen::MatrixXd x = Eigen::MatrixXd::Zero(dofs, minimal), xdot = Eigen::MatrixXd::Zero(dofs, 1);
    int constraint_rows = 0;
    for (const Eigen::MatrixXd& q : c.constraint) constraint_rows += static_cast<int>(q.rows());
    Eigen::MatrixXd q_all = Eigen::MatrixXd::Zero(constraint_rows, dofs);
    Eigen::VectorXd product_all(constraint_rows);
    int row = 0;
    for (int a = 0; a < structure.size(); ++a) {
      const int s = structure.subgraph_of(a);
      if (s < 0) {
        const int k = structure.members(a).front();
        x.block(ts.hinge.offset(k), es.hinge.offset(a), ts.hinge.dim(k), ts.hinge.dim(k))
            .setIdentity();
        continue;
      }
      scatter_rows(structure, s, c.embedding[s], es.hinge.offset(a), x);
      scatter_rows(structure, s, c.embedding_rate[s], 0, xdot);
      Eigen::MatrixXd q_rows = Eigen::MatrixXd::Zero(dofs, c.constraint[s].rows());
      scatter_rows(structure, s, c.constraint[s].transpose(), 0, q_rows);
      q_all.middleRows(row, c.constraint[s].rows()) = q_rows.transpose();
      product_all.segment(row, c.constraint[s].rows()) = c.velocity_product[s];
      row += static_cast<int>(c.constraint[s].rows());
      immobile += es.hinge.dim(a) == 0 && structure.full_hinge_dim(a) > 0;
      redundant += c.constraint[s].rows() > structure.full_hinge_dim(a) - es.hinge.dim(a);
      reduced += structure.reduced(a);
    }
    ASSERT_LT((q_all * x).norm(), 1e-9 * std::max(1.0, q_all.norm() * x.norm()));

    const int nodes = ts.node.total();
    const Eigen::VectorXd qd_r = random_vector(minimal, rng);
    const Eigen::VectorXd qdd_r = random_vector(minimal, rng);
    const Eigen::VectorXd force = random_vector(dofs, rng);
    const Eigen::VectorXd a = random_vector(nodes, rng);
    const Eigen::VectorXd b = random_vector(nodes, rng);
    const Eigen::VectorXd qd = x * qd_r;
    const Eigen::VectorXd rate = xdot.col(0);

    // The library's maps between minimal and tree coordinates are the dense X built here.
    EXPECT_EQ(assemble_embedding_matrix(structure, c.embedding), x) << "seed " << seed;
    Eigen::VectorXd expanded(dofs), projected(minimal), scattered(dofs);
    expand_reduced_hinge_vector(structure, c.embedding, qd_r, expanded);
    project_hinge_vector(structure, c.embedding, force, projected);
    scatter_subgraph_hinge_vectors(structure, c.embedding_rate, scattered);
    EXPECT_LT(relative_error(expanded, qd), 1e-14) << "seed " << seed;
    EXPECT_LT(relative_error(projected, x.transpose() * force), 1e-14) << "seed " << seed;
    EXPECT_EQ(scattered, rate) << "seed " << seed;

    // Embedded inputs: a_Ra = A_S* (a_S + H_S* Xdot_S qd_R), b permuted, T_R = X* T.
    Eigen::VectorXd a_r(nodes), b_r(nodes);
    aggregate_coriolis(c.tree, structure, workspace, a, rate, a_r);
    aggregate_node_vector(structure, b, b_r);
    const Eigen::VectorXd force_r = x.transpose() * force;

    // Dense tree references from the definitions.
    const Eigen::MatrixXd h = testing_support::dense_hinge_map(c.tree);
    const Eigen::MatrixXd resolvent = testing_support::dense_resolvent(c.tree);
    const Eigen::MatrixXd inertia = testing_support::dense_node_inertia(c.tree);
    const Eigen::MatrixXd mass = testing_support::dense_mass_matrix(c.tree);
    const Eigen::VectorXd bias = h * resolvent * (inertia * resolvent.transpose() * a + b);

    // M_R = X* M X.
    CompositeInertiaWorkspace composite(es);
    Eigen::MatrixXd mass_r;
    mass_matrix(embedded, composite, mass_r);
    EXPECT_LT(relative_error(mass_r, x.transpose() * mass * x), 1e-10) << "seed " << seed;

    // Minimal-coordinate inverse dynamics = X* (M qdd + C), qdd = X qdd_R + Xdot qd_R.
    InverseDynamicsWorkspace id(es);
    const Eigen::VectorXd t_r = inverse_dynamics(embedded, qd_r, qdd_r, a_r, b_r, id);
    EXPECT_LT(relative_error(t_r, x.transpose() * (mass * (x * qdd_r + rate) + bias)), 1e-10)
        << "seed " << seed;

    // AB forward dynamics of the embedded model.
    ForwardDynamicsWorkspace fd(structure.aggregated());
    const Eigen::VectorXd qdd_fd = forward_dynamics(embedded, qd_r, force_r, a_r, b_r, fd);
    const Eigen::VectorXd qdd = x * qdd_fd + rate;
    const double scale = std::max(1.0, mass.norm() * qdd.norm() + bias.norm() + force.norm());
    EXPECT_LT((x.transpose() * (mass * qdd + bias - force)).norm(), 1e-9 * scale)
        << "seed " << seed;
    EXPECT_LT((q_all * qdd + product_all).norm(),
              1e-9 * std::max(1.0, q_all.norm() * qdd.norm() + product_all.norm()))
        << "seed " << seed;
    // Lagrange-multiplier DAE reference; redundant rows make it singular, but qdd is unique:
    // solved by a complete orthogonal decomposition (minimum-norm least squares).
    Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(dofs + constraint_rows, dofs + constraint_rows);
    kkt.topLeftCorner(dofs, dofs) = mass;
    kkt.topRightCorner(dofs, constraint_rows) = q_all.transpose();
    kkt.bottomLeftCorner(constraint_rows, dofs) = q_all;
    Eigen::VectorXd rhs(dofs + constraint_rows);
    rhs << force - bias, -product_all;
    const Eigen::VectorXd dae = kkt.completeOrthogonalDecomposition().solve(rhs);
    EXPECT_LT(relative_error(qdd, dae.head(dofs)), 1e-9) << "seed " << seed;

    // Innovations factors of the embedded model factor M_R.
    ArticulatedBodyWorkspace articulated(structure.aggregated());
    InnovationsFactors factors;
    innovations_factors(embedded, articulated, factors);
    EXPECT_LT(relative_error(factors.newton_euler_factor * factors.innovations_inertia *
                                 factors.newton_euler_factor.transpose(),
                             x.transpose() * mass * x),
              1e-9)
        << "seed " << seed;
  }
  EXPECT_GT(immobile, 3);
  EXPECT_GT(redundant, 10);
  EXPECT_GT(reduced, 30);
}

TEST(ConstraintEmbedding, EmbeddingStepsDoNotAllocateOnceTheWorkspaceExists) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  std::mt19937 rng(12);
  const EmbeddedCase c = random_embedded_case(40, rng);
  const AggregatedStructure structure(c.tree.structure_ptr(), c.subgraphs, c.independent);
  int reduced = 0;
  for (int a = 0; a < structure.size(); ++a) reduced += structure.reduced(a);
  ASSERT_GT(reduced, 0);
  SkoModel embedded(structure.aggregated());
  AggregationWorkspace workspace(structure);
  const int dofs = c.tree.structure().hinge.total();
  const int minimal = structure.aggregated()->hinge.total();
  const Eigen::VectorXd qd_r = random_vector(minimal, rng);
  const Eigen::VectorXd force = random_vector(dofs, rng);
  Eigen::VectorXd expanded(dofs), projected(minimal), scattered(dofs);
  const long count = testing_support::allocations_in([&] {
    aggregate_model(c.tree, structure, workspace, embedded);
    embed_hinge_maps(structure, workspace, c.embedding, embedded);
    expand_reduced_hinge_vector(structure, c.embedding, qd_r, expanded);
    project_hinge_vector(structure, c.embedding, force, projected);
    scatter_subgraph_hinge_vectors(structure, c.embedding_rate, scattered);
  });
  EXPECT_EQ(count, 0);
}

TEST(ConstraintEmbedding, EmbedHingeMapsRejectsWrongShapes) {
  auto tree = std::make_shared<const SkoStructure>(
      Forest({Forest::kNone, 0, 1}), std::vector<int>{2, 2, 2}, std::vector<int>{1, 1, 1});
  const AggregatedStructure structure(tree, {{1, 2}}, {1});
  SkoModel aggregated(structure.aggregated());
  const AggregationWorkspace workspace(structure);
  try {
    embed_hinge_maps(structure, workspace, {Eigen::MatrixXd::Zero(2, 2)}, aggregated);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "embed_hinge_maps: X of sub-graph 1 is 2 x 2, expected 2 x 1");
  }
  EXPECT_THROW(embed_hinge_maps(structure, workspace, {}, aggregated), std::invalid_argument);
}

}  // namespace
}  // namespace skograph

// Aggregation of sub-graphs into single nodes (constraint-embedding Lemmas 2-4, §3) on random SKO
// models with several random sub-graphs at once, checked against dense operators built from the
// definitions: with P_n, P_h the block permutations tree -> aggregated order (node and hinge
// layouts) and D = diag(A_S) the block-diagonal of the sub-graph resolvents in aggregated order,
//   H A = P_h* H_a A_a P_n,   P_n A P_n* = D A_a,   E_a = I - P_n (I - E) P_n* D,
// and every operators/ algorithm on the aggregated model reproduces the tree's results.
#include "skograph/aggregation/aggregated_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/innovations.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "support/aggregation_support.hpp"
#include "support/allocation_counter.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::relative_error;

struct RandomCase {
  SkoModel tree;
  std::vector<std::vector<int>> subgraphs;
};

RandomCase random_case(int seed) {
  std::mt19937 rng(1000 + seed);
  testing_support::RandomSkoOptions options;
  options.nodes = 2 + (seed * 7) % 30;
  options.trees = 1 + seed % 3;
  SkoModel tree = testing_support::random_bounded_sko_model(options, rng);
  auto subgraphs = testing_support::random_aggregation_subgraphs(tree.forest(), 1 + seed % 5, rng);
  return {std::move(tree), std::move(subgraphs)};
}

// D = diag over aggregated nodes of (I - E_S)^-1, E_S the diagonal block of P_n E P_n* (zero for
// a plain node, giving I): the sub-graph resolvents from a dense inverse.
Eigen::MatrixXd dense_subgraph_resolvents(const AggregatedStructure& structure,
                                          const Eigen::MatrixXd& permuted_kernel) {
  const BlockLayout& node = structure.aggregated()->node;
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(node.total(), node.total());
  for (int a = 0; a < structure.size(); ++a) {
    const int o = node.offset(a), m = node.dim(a);
    d.block(o, o, m, m) =
        (Eigen::MatrixXd::Identity(m, m) - permuted_kernel.block(o, o, m, m)).inverse();
  }
  return d;
}

constexpr int kSeeds = 80;

TEST(AggregatedModel, OperatorsMatchTheDenseAggregationIdentities) {
  int inertial_parent = 0, several_bases = 0, several_children = 0, nested = 0, single = 0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    const RandomCase c = random_case(seed);
    const AggregatedStructure structure(c.tree.structure_ptr(), c.subgraphs);
    SkoModel aggregated(structure.aggregated());
    AggregationWorkspace workspace(structure);
    aggregate_model(c.tree, structure, workspace, aggregated);

    const Eigen::MatrixXd pn = testing_support::dense_node_permutation(structure);
    const Eigen::MatrixXd ph = testing_support::dense_hinge_permutation(structure);
    const Eigen::MatrixXd e = testing_support::dense_kernel(c.tree);
    const Eigen::MatrixXd a = testing_support::dense_resolvent(c.tree);
    const Eigen::MatrixXd h = testing_support::dense_hinge_map(c.tree);
    const Eigen::MatrixXd d = dense_subgraph_resolvents(structure, pn * e * pn.transpose());
    const Eigen::MatrixXd e_a = testing_support::dense_kernel(aggregated);
    const Eigen::MatrixXd a_a = testing_support::dense_resolvent(aggregated);
    const Eigen::MatrixXd h_a = testing_support::dense_hinge_map(aggregated);
    const int n = static_cast<int>(e.rows());

    // Lemma 4: H A = H_a A_a (tree order on both sides).
    EXPECT_LT(relative_error(ph.transpose() * h_a * a_a * pn, h * a), 1e-10) << "seed " << seed;
    // Lemma 3: A_a = D^-1 P_n A P_n*; Lemma 2: E_a = I - P_n (I - E) P_n* D.
    EXPECT_LT(relative_error(d * a_a, pn * a * pn.transpose()), 1e-10) << "seed " << seed;
    const Eigen::MatrixXd e_reference =
        Eigen::MatrixXd::Identity(n, n) -
        pn * (Eigen::MatrixXd::Identity(n, n) - e) * pn.transpose() * d;
    EXPECT_LT(relative_error(e_a, e_reference), 1e-10) << "seed " << seed;
    // E_a is an SKO operator of the aggregated tree: the reference vanishes off (parent(a), a).
    const Forest& af = structure.aggregated()->forest;
    const BlockLayout& node = structure.aggregated()->node;
    for (int i = 0; i < structure.size(); ++i)
      for (int j = 0; j < structure.size(); ++j)
        if (af.parent(j) != i) {
          EXPECT_LT(e_reference.block(node.offset(i), node.offset(j), node.dim(i), node.dim(j))
                        .cwiseAbs()
                        .maxCoeff(),
                    1e-10)
              << "seed " << seed << " block " << i << ", " << j;
        }
    // The workspace holds the same A_S and H_S A_S.
    for (int s = 0; s < structure.subgraph_count(); ++s) {
      const int ag = structure.aggregated_node_of_subgraph(s);
      const int o = node.offset(ag), m = node.dim(ag);
      EXPECT_LT(relative_error(workspace.resolvent[s], d.block(o, o, m, m)), 1e-10);
      EXPECT_EQ(Eigen::MatrixXd(aggregated.hinge_map(ag)), workspace.projected_hinge[s]);
    }
    // M_a = P_n M P_n*.
    EXPECT_LT(relative_error(testing_support::dense_node_inertia(aggregated),
                             pn * testing_support::dense_node_inertia(c.tree) * pn.transpose()),
              1e-15);

    for (int s = 0; s < structure.subgraph_count(); ++s) {
      const TreePartition& part = structure.partition(s);
      inertial_parent += part.parent == Forest::kNone;
      several_bases += part.bases.size() > 1;
      several_children += part.children.size() > 1;
      single += part.subgraph.size() == 1;
      nested += part.parent != Forest::kNone &&
                structure.subgraph_of(structure.node_of(part.parent)) >= 0;
    }
  }
  // The random cases cover the situations the aggregation must handle.
  EXPECT_GT(inertial_parent, 5);
  EXPECT_GT(several_bases, 10);
  EXPECT_GT(several_children, 10);
  EXPECT_GT(nested, 5);
  EXPECT_GT(single, 5);
}

TEST(AggregatedModel, StructureFollowsTheAggregatedTreeNumbering) {
  for (int seed = 0; seed < kSeeds; ++seed) {
    const RandomCase c = random_case(seed);
    const AggregatedStructure structure(c.tree.structure_ptr(), c.subgraphs);
    const Forest& forest = c.tree.forest();
    const Forest& af = structure.aggregated()->forest;
    EXPECT_EQ(structure.subgraph_count(), static_cast<int>(c.subgraphs.size()));
    int previous_first = -1, covered = 0;
    for (int a = 0; a < structure.size(); ++a) {
      const std::vector<int>& members = structure.members(a);
      covered += static_cast<int>(members.size());
      const int first = *std::min_element(members.begin(), members.end());
      EXPECT_GT(first, previous_first);  // numbered by first member in tree-node order
      previous_first = first;
      int m = 0, r = 0;
      for (const int k : members) {
        EXPECT_EQ(structure.node_of(k), a);
        EXPECT_EQ(structure.node_offset_in_aggregate(k), m);
        EXPECT_EQ(structure.hinge_offset_in_aggregate(k), r);
        m += c.tree.node_dim(k);
        r += c.tree.hinge_dim(k);
      }
      EXPECT_EQ(structure.aggregated()->node.dim(a), m);
      EXPECT_EQ(structure.aggregated()->hinge.dim(a), r);
      EXPECT_EQ(structure.full_hinge_dim(a), r);
      EXPECT_FALSE(structure.reduced(a));
      // The aggregated parent holds the tree parent of the base-most member.
      const int p = forest.parent(members.front());
      EXPECT_EQ(af.parent(a), p == Forest::kNone ? Forest::kNone : structure.node_of(p));
      const int s = structure.subgraph_of(a);
      if (s >= 0) {
        EXPECT_EQ(structure.aggregated_node_of_subgraph(s), a);
        EXPECT_EQ(std::set<int>(members.begin(), members.end()),
                  std::set<int>(c.subgraphs[s].begin(), c.subgraphs[s].end()));
      } else {
        EXPECT_EQ(members.size(), 1u);
      }
    }
    EXPECT_EQ(covered, forest.size());
  }
}

TEST(AggregatedModel, VectorPermutationsAreTheBlockPermutations) {
  std::mt19937 rng(3);
  for (int seed = 0; seed < 20; ++seed) {
    const RandomCase c = random_case(seed);
    const AggregatedStructure structure(c.tree.structure_ptr(), c.subgraphs);
    const Eigen::MatrixXd pn = testing_support::dense_node_permutation(structure);
    const Eigen::MatrixXd ph = testing_support::dense_hinge_permutation(structure);
    const Eigen::VectorXd x = testing_support::random_vector(static_cast<int>(pn.cols()), rng);
    const Eigen::VectorXd y = testing_support::random_vector(static_cast<int>(ph.cols()), rng);
    Eigen::VectorXd xa(pn.rows()), ya(ph.rows()), xb(pn.cols()), yb(ph.cols());
    aggregate_node_vector(structure, x, xa);
    aggregate_hinge_vector(structure, y, ya);
    EXPECT_EQ(xa, pn * x);
    EXPECT_EQ(ya, ph * y);
    disaggregate_node_vector(structure, xa, xb);
    disaggregate_hinge_vector(structure, ya, yb);
    EXPECT_EQ(xb, x);
    EXPECT_EQ(yb, y);
  }
}

TEST(AggregatedModel, DynamicsEqualTheTreeDynamics) {
  std::mt19937 rng(17);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const RandomCase c = random_case(seed);
    const AggregatedStructure structure(c.tree.structure_ptr(), c.subgraphs);
    SkoModel aggregated(structure.aggregated());
    AggregationWorkspace workspace(structure);
    aggregate_model(c.tree, structure, workspace, aggregated);
    const SkoStructure& ts = c.tree.structure();
    const int dofs = ts.hinge.total(), nodes = ts.node.total();
    const Eigen::VectorXd thetadot = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd thetaddot = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd force = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd a = testing_support::random_vector(nodes, rng);
    const Eigen::VectorXd b = testing_support::random_vector(nodes, rng);

    Eigen::VectorXd thetadot_a(dofs), thetaddot_a(dofs), force_a(dofs), a_a(nodes), b_a(nodes);
    aggregate_hinge_vector(structure, thetadot, thetadot_a);
    aggregate_hinge_vector(structure, thetaddot, thetaddot_a);
    aggregate_hinge_vector(structure, force, force_a);
    aggregate_coriolis(c.tree, structure, workspace, a, Eigen::VectorXd::Zero(dofs), a_a);
    aggregate_node_vector(structure, b, b_a);

    // a_a = D* P_n a (Eq. 20): dense reference.
    const Eigen::MatrixXd pn = testing_support::dense_node_permutation(structure);
    const Eigen::MatrixXd ph = testing_support::dense_hinge_permutation(structure);
    const Eigen::MatrixXd d = dense_subgraph_resolvents(
        structure, pn * testing_support::dense_kernel(c.tree) * pn.transpose());
    EXPECT_LT(relative_error(a_a, d.transpose() * pn * a), 1e-10) << "seed " << seed;

    // Inverse dynamics.
    InverseDynamicsWorkspace tree_id(ts), aggregated_id(*structure.aggregated());
    const Eigen::VectorXd t = inverse_dynamics(c.tree, thetadot, thetaddot, a, b, tree_id);
    const Eigen::VectorXd t_a =
        inverse_dynamics(aggregated, thetadot_a, thetaddot_a, a_a, b_a, aggregated_id);
    EXPECT_LT(relative_error(t_a, ph * t), 1e-10) << "seed " << seed;
    // ... and the inter-body forces satisfy D f_a = P_n f (f = A (M alpha + b), A_a = D^-1 P_n A
    // P_n*).
    EXPECT_LT(relative_error(d * aggregated_id.force, pn * tree_id.force), 1e-10)
        << "seed " << seed;
    EXPECT_LT(relative_error(aggregated_id.acceleration, pn * tree_id.acceleration), 1e-10)
        << "seed " << seed;

    // A base acceleration (gravity) of the tree enters the aggregated model through a_a.
    const Eigen::VectorXd base_acceleration =
        testing_support::random_vector(tree_id.base_acceleration_size, rng);
    Eigen::VectorXd a_with_base = a;
    for (const int k : c.tree.forest().bases())
      a_with_base.segment(ts.node.offset(k), ts.node.dim(k)) +=
          base_acceleration.segment(tree_id.base_offset[k], ts.node.dim(k));
    const Eigen::VectorXd t_base =
        inverse_dynamics(c.tree, thetadot, thetaddot, a, b, base_acceleration, tree_id);
    Eigen::VectorXd a_base_a(nodes);
    aggregate_coriolis(c.tree, structure, workspace, a_with_base, Eigen::VectorXd::Zero(dofs),
                       a_base_a);
    EXPECT_LT(relative_error(inverse_dynamics(aggregated, thetadot_a, thetaddot_a, a_base_a, b_a,
                                              aggregated_id),
                             ph * t_base),
              1e-10)
        << "seed " << seed;

    // Mass matrix.
    CompositeInertiaWorkspace composite(*structure.aggregated());
    Eigen::MatrixXd mass_a;
    mass_matrix(aggregated, composite, mass_a);
    const Eigen::MatrixXd mass = testing_support::dense_mass_matrix(c.tree);
    EXPECT_LT(relative_error(mass_a, ph * mass * ph.transpose()), 1e-10) << "seed " << seed;

    // AB forward dynamics.
    ForwardDynamicsWorkspace tree_fd(c.tree.structure_ptr()), aggregated_fd(structure.aggregated());
    const Eigen::VectorXd qdd = forward_dynamics(c.tree, thetadot, force, a, b, tree_fd);
    const Eigen::VectorXd qdd_a =
        forward_dynamics(aggregated, thetadot_a, force_a, a_a, b_a, aggregated_fd);
    EXPECT_LT(relative_error(qdd_a, ph * qdd), 1e-9) << "seed " << seed;

    // Innovations factors of the aggregated model factor the permuted mass matrix, and the
    // determinants agree (Lemma 11, Corollary 6.1 of part II).
    ArticulatedBodyWorkspace articulated(structure.aggregated());
    InnovationsFactors factors;
    innovations_factors(aggregated, articulated, factors);
    EXPECT_LT(relative_error(factors.newton_euler_factor * factors.innovations_inertia *
                                 factors.newton_euler_factor.transpose(),
                             ph * mass * ph.transpose()),
              1e-9)
        << "seed " << seed;
    EXPECT_LT(relative_error(factors.inverse_factor * factors.newton_euler_factor,
                             Eigen::MatrixXd::Identity(dofs, dofs)),
              1e-9)
        << "seed " << seed;
    if (dofs > 0) {
      ArticulatedBodyWorkspace tree_articulated(c.tree.structure_ptr());
      EXPECT_NEAR(mass_matrix_log_determinant(aggregated, articulated),
                  mass_matrix_log_determinant(c.tree, tree_articulated), 1e-8)
          << "seed " << seed;
    }
  }
}

TEST(AggregatedModel, AggregationDoesNotAllocateOnceTheWorkspaceExists) {
  if (!testing_support::counting_available())
    GTEST_SKIP() << "malloc is not counted under sanitizers";
  std::mt19937 rng(4);
  testing_support::RandomSkoOptions options;
  options.nodes = 120;
  options.trees = 3;
  const SkoModel tree = testing_support::random_bounded_sko_model(options, rng);
  const auto subgraphs = testing_support::random_aggregation_subgraphs(tree.forest(), 12, rng);
  const AggregatedStructure structure(tree.structure_ptr(), subgraphs);
  SkoModel aggregated(structure.aggregated());
  AggregationWorkspace workspace(structure);
  const int dofs = tree.structure().hinge.total(), nodes = tree.structure().node.total();
  const Eigen::VectorXd a = testing_support::random_vector(nodes, rng);
  const Eigen::VectorXd extra = testing_support::random_vector(dofs, rng);
  Eigen::VectorXd a_a(nodes), hinge_a(dofs), a_tree(nodes), hinge_tree(dofs);
  EXPECT_EQ(testing_support::allocations_in(
                [&] { aggregate_model(tree, structure, workspace, aggregated); }),
            0)
      << "aggregate_model";
  EXPECT_EQ(testing_support::allocations_in(
                [&] { aggregate_coriolis(tree, structure, workspace, a, extra, a_a); }),
            0)
      << "aggregate_coriolis";
  EXPECT_EQ(testing_support::allocations_in([&] {
              aggregate_node_vector(structure, a, a_a);
              disaggregate_node_vector(structure, a_a, a_tree);
              aggregate_hinge_vector(structure, extra, hinge_a);
              disaggregate_hinge_vector(structure, hinge_a, hinge_tree);
            }),
            0)
      << "vector permutations";
}

TEST(AggregatedModel, OneAggregateOfTheWholeForestIsASingleNodeModel) {
  std::mt19937 rng(9);
  testing_support::RandomSkoOptions options;
  options.nodes = 9;
  options.trees = 3;
  const SkoModel tree = testing_support::random_bounded_sko_model(options, rng);
  std::vector<int> everything(9);
  for (int k = 0; k < 9; ++k) everything[k] = k;
  const AggregatedStructure structure(tree.structure_ptr(), {everything});
  ASSERT_EQ(structure.size(), 1);
  EXPECT_TRUE(structure.aggregated()->forest.is_base(0));
  EXPECT_EQ(structure.partition(0).parent, Forest::kNone);
  SkoModel aggregated(structure.aggregated());
  AggregationWorkspace workspace(structure);
  aggregate_model(tree, structure, workspace, aggregated);
  // One node: M_a = H_a M_a H_a* = H_S A_S M A_S* H_S*, the permuted tree mass matrix.
  const Eigen::MatrixXd ph = testing_support::dense_hinge_permutation(structure);
  const Eigen::MatrixXd h_a = aggregated.hinge_map(0);
  EXPECT_LT(relative_error(h_a * aggregated.inertia(0) * h_a.transpose(),
                           ph * testing_support::dense_mass_matrix(tree) * ph.transpose()),
            1e-10);
  EXPECT_LT(relative_error(workspace.resolvent[0],
                           testing_support::dense_node_permutation(structure) *
                               testing_support::dense_resolvent(tree) *
                               testing_support::dense_node_permutation(structure).transpose()),
            1e-10);
}

TEST(AggregatedModel, RejectsModelsOfAnotherStructure) {
  std::mt19937 rng(2);
  testing_support::RandomSkoOptions options;
  options.nodes = 5;
  const SkoModel tree = testing_support::random_sko_model(options, rng);
  const SkoModel other = testing_support::random_sko_model(options, rng);
  const int base = tree.forest().bases()[0];
  ASSERT_GT(tree.forest().child_count(base), 0);
  const AggregatedStructure structure(tree.structure_ptr(),
                                      {{base, tree.forest().children(base)[0]}});
  SkoModel aggregated(structure.aggregated());
  AggregationWorkspace workspace(structure);
  EXPECT_THROW(aggregate_model(other, structure, workspace, aggregated), std::invalid_argument);
  SkoModel wrong(tree.structure_ptr());
  EXPECT_THROW(aggregate_model(tree, structure, workspace, wrong), std::invalid_argument);
  Eigen::VectorXd too_short(1), out(structure.aggregated()->node.total());
  EXPECT_THROW(aggregate_node_vector(structure, too_short, out), std::invalid_argument);
}

TEST(AggregatedModel, RejectsInvalidSubgraphsWithOneBasedReasons) {
  // 1 -> 2 -> 3, 1 -> 4 (1-based).
  auto structure = std::make_shared<const SkoStructure>(
      Forest({Forest::kNone, 0, 1, 0}), std::vector<int>{2, 2, 2, 2}, std::vector<int>{1, 1, 1, 1});
  auto message = [&](const std::vector<std::vector<int>>& subgraphs,
                     const std::vector<int>& hinge_dims = {}) -> std::string {
    try {
      AggregatedStructure aggregated(structure, subgraphs, hinge_dims);
    } catch (const std::invalid_argument& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_EQ(message({{1}, {0, 2}}),
            "sub-graph 2: node 2 lies on the path from node 1 to node 3 but is not in the "
            "sub-graph");
  EXPECT_EQ(message({{1, 2}, {2}}), "sub-graphs 1 and 2 share node 3");
  EXPECT_EQ(message({{1, 2}}, {3}), "sub-graph 1: hinge dimension 3 is outside 0..2");
  EXPECT_EQ(message({{1, 2}}, {1, 1}), "aggregation: 2 hinge dimensions for 1 sub-graphs");
  EXPECT_EQ(message({{1, 2}, {3}}), "");
}

}  // namespace
}  // namespace skograph

// Newton-Euler inverse dynamics (part II Algorithm 3.1) against the dense operator expressions of
// the equations of motion (part II Eq. 1-3).
#include "skograph/operators/inverse_dynamics.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "support/random_sko.hpp"

namespace skograph {
namespace {

using testing_support::relative_error;

struct Dense {
  Eigen::MatrixXd h, a, m;
};

Dense dense_operators(const SkoModel& model) {
  return {testing_support::dense_hinge_map(model), testing_support::dense_resolvent(model),
          testing_support::dense_node_inertia(model)};
}

struct InverseDynamicsCase {
  int nodes;
  int trees;
  int max_dim;
};

const InverseDynamicsCase kInverseDynamicsCases[] = {
    {1, 1, 9},  {2, 1, 9},  {8, 2, 9},   {20, 1, 9},  {35, 5, 9},
    {60, 1, 6}, {90, 3, 6}, {150, 1, 4}, {220, 8, 3}, {300, 1, 2}};

TEST(InverseDynamics, MatchesTheDenseEquationsOfMotion) {
  std::mt19937 rng(31);
  for (int seed = 0; seed < 3; ++seed) {
    for (const InverseDynamicsCase& c : kInverseDynamicsCases) {
      testing_support::RandomSkoOptions options;
      options.nodes = c.nodes;
      options.trees = c.trees;
      options.max_dim = c.max_dim;
      const SkoModel model = testing_support::random_sko_model(options, rng);
      const SkoStructure& s = model.structure();
      const Dense d = dense_operators(model);
      const Eigen::VectorXd thetadot = Eigen::VectorXd::Random(s.hinge.total());
      const Eigen::VectorXd thetaddot = Eigen::VectorXd::Random(s.hinge.total());
      const Eigen::VectorXd a = Eigen::VectorXd::Random(s.node.total());
      const Eigen::VectorXd b = Eigen::VectorXd::Random(s.node.total());

      InverseDynamicsWorkspace workspace(s);
      const Eigen::VectorXd t = inverse_dynamics(model, thetadot, thetaddot, a, b, workspace);

      // Part II Eq. 2-3: T = M thetaddot + C with M = H A M A* H*, C = H A (M A* a + b).
      const Eigen::MatrixXd mass = testing_support::dense_mass_matrix(model);
      const Eigen::VectorXd bias = d.h * d.a * (d.m * d.a.transpose() * a + b);
      EXPECT_LT(relative_error(t, mass * thetaddot + bias), 1e-10) << c.nodes;
      // Part II Eq. 1, term by term.
      const Eigen::VectorXd velocity = d.a.transpose() * d.h.transpose() * thetadot;
      const Eigen::VectorXd alpha = d.a.transpose() * (d.h.transpose() * thetaddot + a);
      const Eigen::VectorXd force = d.a * (d.m * alpha + b);
      EXPECT_LT(relative_error(workspace.velocity, velocity), 1e-10);
      EXPECT_LT(relative_error(workspace.acceleration, alpha), 1e-10);
      EXPECT_LT(relative_error(workspace.force, force), 1e-10);

      // C by itself, and as inverse dynamics at zero thetaddot.
      InverseDynamicsWorkspace bias_workspace(s);
      EXPECT_LT(relative_error(generalized_bias(model, a, b, bias_workspace), bias), 1e-10);
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(s.hinge.total());
      EXPECT_LT(relative_error(inverse_dynamics(model, thetadot, zero, a, b, workspace), bias),
                1e-10);
    }
  }
}

// An acceleration of the inertial root given per base node equals the same acceleration added to
// a(base), and equals the equivalent body forces b' = b + M A* a_base (the SKO form of "gravity as
// a base acceleration or as body forces gives identical results").
TEST(InverseDynamics, BaseAccelerationEqualsCoriolisTermAndBodyForces) {
  std::mt19937 rng(32);
  for (const InverseDynamicsCase& c : kInverseDynamicsCases) {
    testing_support::RandomSkoOptions options;
    options.nodes = c.nodes;
    options.trees = c.trees;
    options.max_dim = c.max_dim;
    const SkoModel model = testing_support::random_sko_model(options, rng);
    const SkoStructure& s = model.structure();
    const Dense d = dense_operators(model);
    InverseDynamicsWorkspace workspace(s);
    const Eigen::VectorXd thetadot = Eigen::VectorXd::Random(s.hinge.total());
    const Eigen::VectorXd thetaddot = Eigen::VectorXd::Random(s.hinge.total());
    const Eigen::VectorXd a = Eigen::VectorXd::Random(s.node.total());
    const Eigen::VectorXd b = Eigen::VectorXd::Random(s.node.total());
    const Eigen::VectorXd base = Eigen::VectorXd::Random(workspace.base_acceleration_size);

    // The base accelerations placed in the node layout.
    Eigen::VectorXd base_in_nodes = Eigen::VectorXd::Zero(s.node.total());
    int offset = 0;
    for (const int k : s.forest.bases()) {
      base_in_nodes.segment(s.node.offset(k), s.node.dim(k)) = base.segment(offset, s.node.dim(k));
      offset += s.node.dim(k);
    }
    const Eigen::VectorXd with_base =
        inverse_dynamics(model, thetadot, thetaddot, a, b, base, workspace);
    const Eigen::VectorXd through_a =
        inverse_dynamics(model, thetadot, thetaddot, a + base_in_nodes, b, workspace);
    const Eigen::VectorXd body_forces = b + d.m * d.a.transpose() * base_in_nodes;
    const Eigen::VectorXd through_b =
        inverse_dynamics(model, thetadot, thetaddot, a, body_forces, workspace);
    const Eigen::VectorXd reference = testing_support::dense_mass_matrix(model) * thetaddot +
                                      d.h * d.a * (d.m * d.a.transpose() * (a + base_in_nodes) + b);
    EXPECT_LT(relative_error(with_base, reference), 1e-10);
    EXPECT_LT(relative_error(through_a, reference), 1e-10);
    EXPECT_LT(relative_error(through_b, reference), 1e-10);
  }
}

TEST(InverseDynamics, RejectsMismatchedSizes) {
  std::mt19937 rng(33);
  testing_support::RandomSkoOptions options;
  options.nodes = 5;
  const SkoModel model = testing_support::random_sko_model(options, rng);
  const SkoStructure& s = model.structure();
  InverseDynamicsWorkspace workspace(s);
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(s.hinge.total());
  const Eigen::VectorXd n = Eigen::VectorXd::Zero(s.node.total());
  const Eigen::VectorXd wrong = Eigen::VectorXd::Zero(s.node.total() + 1);
  EXPECT_THROW(inverse_dynamics(model, q, q, wrong, n, workspace), std::invalid_argument);
  EXPECT_THROW(inverse_dynamics(model, q, q, n, n, wrong, workspace), std::invalid_argument);
  options.nodes = 7;
  const SkoModel other = testing_support::random_sko_model(options, rng);
  InverseDynamicsWorkspace other_workspace(other.structure());
  EXPECT_THROW(generalized_bias(model, n, n, other_workspace), std::invalid_argument);
}

}  // namespace
}  // namespace skograph

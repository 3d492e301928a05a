#include "skograph/operators/forward_dynamics.hpp"

#include <gtest/gtest.h>

#include "skograph/operators/inverse_dynamics.hpp"
#include "support/operator_support.hpp"

namespace skograph {
namespace {

using testing_support::relative_error;

TEST(ForwardDynamics, EqualsDenseInverseMassMatrixTimesTMinusC) {
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(3000 + seed);
    const SkoModel model = testing_support::random_bounded_sko_model(
        testing_support::options_for_seed(seed, 120), rng);
    const SkoStructure& structure = model.structure();
    const int dofs = structure.hinge.total(), nodes = structure.node.total();
    const Eigen::VectorXd thetadot = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd force = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd a = testing_support::random_vector(nodes, rng);
    const Eigen::VectorXd b = testing_support::random_vector(nodes, rng);
    ForwardDynamicsWorkspace workspace(model.structure_ptr());
    const Eigen::VectorXd thetaddot = forward_dynamics(model, thetadot, force, a, b, workspace);

    // Reference from part II Eq. 2-3: thetaddot = M^-1 (T - C), C = H A (M A* a + b).
    const Eigen::MatrixXd h = testing_support::dense_hinge_map(model);
    const Eigen::MatrixXd resolvent = testing_support::dense_resolvent(model);
    const Eigen::MatrixXd inertia = testing_support::dense_node_inertia(model);
    const Eigen::MatrixXd mass = testing_support::dense_mass_matrix(model);
    const Eigen::VectorXd bias = h * resolvent * (inertia * resolvent.transpose() * a + b);
    const Eigen::VectorXd reference = mass.llt().solve(force - bias);
    EXPECT_LT(relative_error(thetaddot, reference), 1e-10) << "seed " << seed;
    // Residual form, insensitive to the conditioning of M: M thetaddot + C = T.
    const double scale = mass.norm() * thetaddot.norm() + bias.norm() + force.norm();
    EXPECT_LT((mass * thetaddot + bias - force).norm() / scale, 1e-12) << "seed " << seed;
    // By-products: alpha = A* (H* thetaddot + a) and V = A* H* thetadot (Eq. 1).
    EXPECT_LT(relative_error(workspace.node_acceleration,
                             resolvent.transpose() * (h.transpose() * thetaddot + a)),
              1e-10);
    EXPECT_LT(
        relative_error(workspace.node_velocity, resolvent.transpose() * h.transpose() * thetadot),
        1e-10);
  }
}

TEST(ForwardDynamics, BaseAccelerationInAEqualsTheEquivalentBodyForcesInB) {
  // Gravity enters as a world acceleration placed in a(base) (propagated by A* to every node);
  // the same effect as body forces b = M A* a_base (conventions.md "Gravity"): equal thetaddot, and
  // node accelerations that differ by exactly A* a_base (absolute versus relative to the world).
  for (int seed = 0; seed < 10; ++seed) {
    std::mt19937 rng(4200 + seed);
    testing_support::RandomSkoOptions options;
    options.nodes = 10 + 7 * seed;
    options.trees = 1 + seed % 3;
    const SkoModel model = testing_support::random_bounded_sko_model(options, rng);
    const SkoStructure& structure = model.structure();
    const int dofs = structure.hinge.total(), nodes = structure.node.total();
    const Eigen::VectorXd thetadot = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd force = testing_support::random_vector(dofs, rng);
    Eigen::VectorXd a_base = Eigen::VectorXd::Zero(nodes);
    for (const int base : model.forest().bases())
      a_base.segment(structure.node.offset(base), structure.node.dim(base)) =
          testing_support::random_vector(structure.node.dim(base), rng);
    const Eigen::MatrixXd resolvent = testing_support::dense_resolvent(model);
    const Eigen::VectorXd propagated = resolvent.transpose() * a_base;
    const Eigen::VectorXd body_forces = testing_support::dense_node_inertia(model) * propagated;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nodes);
    ForwardDynamicsWorkspace workspace(model.structure_ptr());
    const Eigen::VectorXd via_a = forward_dynamics(model, thetadot, force, a_base, zero, workspace);
    const Eigen::VectorXd alpha_via_a = workspace.node_acceleration;
    const Eigen::VectorXd via_b =
        forward_dynamics(model, thetadot, force, zero, body_forces, workspace);
    EXPECT_LT(relative_error(via_a, via_b), 1e-10) << "seed " << seed;
    EXPECT_LT(relative_error(alpha_via_a, workspace.node_acceleration + propagated), 1e-10);
  }
}

TEST(ForwardDynamics, InverseDynamicsOfTheResultGivesBackTOnLargeTreesAndForests) {
  // Round trip through Newton-Euler (part II Algorithm 3.1, an independent O(N) implementation):
  // T = H A (M A* (H* thetaddot + a) + b) must reproduce the applied T, for sizes beyond the dense
  // references (300 .. 2000 nodes).
  for (int seed = 0; seed < 8; ++seed) {
    std::mt19937 rng(4700 + seed);
    testing_support::RandomSkoOptions options;
    options.nodes = 300 + 250 * seed;
    options.trees = 1 + seed % 4;
    const SkoModel model = testing_support::random_bounded_sko_model(options, rng);
    const int dofs = model.structure().hinge.total(), nodes = model.structure().node.total();
    const Eigen::VectorXd thetadot = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd force = testing_support::random_vector(dofs, rng);
    const Eigen::VectorXd a = testing_support::random_vector(nodes, rng);
    const Eigen::VectorXd b = testing_support::random_vector(nodes, rng);
    ForwardDynamicsWorkspace workspace(model.structure_ptr());
    const Eigen::VectorXd thetaddot = forward_dynamics(model, thetadot, force, a, b, workspace);
    InverseDynamicsWorkspace inverse(model.structure());
    const Eigen::VectorXd& round_trip = inverse_dynamics(model, thetadot, thetaddot, a, b, inverse);
    EXPECT_LT(relative_error(round_trip, force), 1e-10) << "seed " << seed;
    EXPECT_LT(relative_error(inverse.acceleration, workspace.node_acceleration), 1e-10);
    EXPECT_LT(relative_error(inverse.velocity, workspace.node_velocity), 1e-10);
  }
}

TEST(ForwardDynamics, RejectsMismatchedSizes) {
  std::mt19937 rng(5);
  testing_support::RandomSkoOptions options;
  options.nodes = 5;
  const SkoModel model = testing_support::random_sko_model(options, rng);
  ForwardDynamicsWorkspace workspace(model.structure_ptr());
  const int dofs = model.structure().hinge.total(), nodes = model.structure().node.total();
  const Eigen::VectorXd ok_dofs = Eigen::VectorXd::Zero(dofs),
                        ok_nodes = Eigen::VectorXd::Zero(nodes);
  const Eigen::VectorXd wrong = Eigen::VectorXd::Zero(nodes + dofs + 1);
  EXPECT_THROW(forward_dynamics(model, ok_dofs, wrong, ok_nodes, ok_nodes, workspace),
               std::invalid_argument);
  EXPECT_THROW(forward_dynamics(model, ok_dofs, ok_dofs, wrong, ok_nodes, workspace),
               std::invalid_argument);
}

}  // namespace
}  // namespace skograph

// O(N) articulated-body forward dynamics of an SKO model (part II section 6.1).
//
//   ForwardDynamicsWorkspace ws(model.structure_ptr());          // sized once
//   const Eigen::VectorXd& thetaddot = forward_dynamics(model, thetadot, T, a, b, ws);
//
// The equations of motion are those of part II Eq. 1-3:
//   V = A* H* thetadot,  alpha = A* (H* thetaddot + a),  f = A (M alpha + b),  T = H f,
// i.e. T = M thetaddot + C with M = H A M A* H* and C = H A (M A* a + b); forward_dynamics returns
// thetaddot = M^-1 (T - C) without forming M (Lemma 12, Eq. 54; Algorithm 6.1).
//
// Stacked vectors: thetadot, T and the result in the hinge layout (structure().hinge), a and b in
// the node layout (structure().node), both in node id order.
//   a  node Coriolis/velocity-product accelerations. Gravity and any prescribed base motion enter
//      here: for a base node k, add E*(world, k) times the world's acceleration (for rigid bodies,
//      a base acceleration of -g, i.e. phi*(world, k) [0; -g], conventions.md). Because a is
//      propagated by A*, putting the world acceleration into a(k) of every base node is the same
//      as accelerating the whole forest.
//   b  node gyroscopic / external forces (a force f_ext applied at node k enters as b(k) = -f_ext).
#pragma once

#include <Eigen/Core>
#include <memory>

#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/sko_model.hpp"

namespace skograph {

// Storage for Algorithm 6.1, sized once from the structure; forward_dynamics does not allocate.
struct ForwardDynamicsWorkspace {
  explicit ForwardDynamicsWorkspace(std::shared_ptr<const SkoStructure> structure);
  ArticulatedBodyWorkspace articulated;      // P, D, G, tau-bar, P+, E_psi (Lemma 7-8)
  Eigen::VectorXd residual_force;            // z = psi (K T + P a + b), node layout (Eq. 58a)
  Eigen::VectorXd residual_force_plus;       // z+ = z + G epsilon, node layout (Eq. 58b)
  Eigen::VectorXd innovation;                // epsilon = T - H z, hinge layout (Eq. 58c)
  Eigen::VectorXd scaled_innovation;         // nu = D^-1 epsilon, hinge layout (Eq. 58d)
  Eigen::VectorXd node_acceleration;         // alpha = A* (H* thetaddot + a), node layout (Eq. 58g)
  Eigen::VectorXd node_velocity;             // V = A* H* thetadot, node layout (Eq. 1)
  Eigen::VectorXd generalized_acceleration;  // thetaddot, hinge layout (Eq. 58f)
};

// Algorithm 6.1 of part II (Lemma 12, Eq. 54 and 58): the articulated-body inertias (Eq. 33)
// followed by the tips-to-base gather for z, epsilon, nu, z+ and the base-to-tips scatter for
// alpha+ = A*(parent(k), k) alpha(parent(k)), thetaddot(k) = nu(k) - G*(k) alpha+(k),
// alpha(k) = alpha+(k) + H*(k) thetaddot(k) + a(k). The node velocities V = A* H* thetadot are
// computed in the same scatter (workspace.node_velocity). Returns
// workspace.generalized_acceleration. O(N); no allocation. Throws std::invalid_argument on
// mismatched vector sizes.
const Eigen::VectorXd& forward_dynamics(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force, ForwardDynamicsWorkspace& workspace);

// The two sweeps of Algorithm 6.1 only, reusing the articulated-body quantities already in
// workspace.articulated (computed by articulated_body_inertias for this model): for several
// right-hand sides at one configuration. Same conventions and result as forward_dynamics.
const Eigen::VectorXd& forward_dynamics_sweeps(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force, ForwardDynamicsWorkspace& workspace);

// thetaddot = M^-1 T for a generalized force T with a = b = 0, by the factored inverse
// M^-1 = [I - H psi K]* D^-1 [I - H psi K] (part II Lemma 11, Eq. 51) evaluated with the sweeps of
// Algorithm 6.1; reuses workspace.articulated (call articulated_body_inertias first). O(N); no
// allocation. Returns workspace.generalized_acceleration.
const Eigen::VectorXd& apply_mass_matrix_inverse(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    ForwardDynamicsWorkspace& workspace);

}  // namespace skograph

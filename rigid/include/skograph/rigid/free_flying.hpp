// Base-invariant dynamics of free-flying systems (free-flying-base-invariance.txt), on trees.
//
// Every base link of the system hangs from the world by a floating joint. Besides the regular
// articulated-body inertias P(k) (tips-to-base, part II Lemma 7) each link gets the dual
// articulated-body inertia S(k): the inertia, at O_k and articulated through k's own hinge, of
// everything on the parent side of k ("link 1 as base", the paper's Algorithm 3.1, generalized
// from serial chains to trees by a base-to-tips sweep of its own, which on a tree takes the
// regular results of a branch's siblings: the paper's Fig. 5). Then
//   Lambda(k) = P(k) + S(k)   is the operational-space inertia of link k (Lemma 4.1, Eq. 37a),
//   alpha(k)  = -[P(k) + S(k)]^-1 [z(k) + z_s(k) - P(k) a(k)]   (Lemma 3.2, Eq. 25),
//   alpha+(k) = -[P+(k) + S+(k)]^-1 [z+(k) + z_s+(k)]           (Eq. 25's second half),
// and the base-invariant forward dynamics (Algorithm 3.3) gets every link's accelerations from its
// own P, S, z, z_s independently, then qdd(k) = nu(k) - G*(k) alpha+(k) (Eq. 26). Gravity enters as
// body forces m g at the centers of mass, so alpha here are inertial accelerations (the regular
// algorithm's alpha with a base acceleration -g differ by the transported -g; qdd is the same).
//
// Sign conventions (ours, conventions.md): f(k) is the force across hinge k on the child side,
// f(k) = P(k) (alpha(k) - a(k)) + z(k) (Lemma 3.1, Eq. 20) and -f(k) = S(k) alpha(k) + z_s(k)
// (Eq. 24). The paper's H -> -H reversal of the dual model is absorbed in these formulas.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <atomic>
#include <span>
#include <vector>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

struct FreeFlyingData {
  // Throws std::invalid_argument unless every base joint of the model is floating.
  explicit FreeFlyingData(const RigidBodyModel& model);

  std::vector<Matrix6d> articulated_inertia;          // P(k)
  std::vector<Matrix6d> articulated_inertia_plus;     // P+(k) = P - P H* D^-1 H P
  std::vector<Vector6d> residual_force;               // z(k)
  std::vector<Vector6d> residual_force_plus;          // z+(k) = z + P H* nu
  std::vector<HingeMatrix> projected_inertia;         // P(k) H*(k)
  std::vector<HingeSquare> innovations_inverse;       // D^-1(k)
  std::vector<JointVector> scaled_innovation;         // nu(k) = D^-1 (T - H z)
  std::vector<Matrix6d> transported_inertia_plus;     // phi(p, k) P+(k) phi*(p, k), at O_p
  std::vector<Vector6d> transported_force_plus;       // phi(p, k) z+(k)
  std::vector<Matrix6d> dual_inertia;                 // S(k)
  std::vector<Matrix6d> dual_inertia_plus;            // S+(k): the parent side rigid at O_k
  std::vector<Vector6d> dual_residual_force;          // z_s(k)
  std::vector<Vector6d> dual_residual_force_plus;     // z_s+(k)
  std::vector<HingeMatrix> dual_gain;                 // S+ H* D_s^-1 (Algorithm 3.1's -G_s)
  std::vector<HingeSquare> dual_innovations_inverse;  // D_s^-1(k)
  std::vector<Matrix6d> operational_space_inertia;    // Lambda(k) = P(k) + S(k), per node
  std::vector<Matrix6d> dual_compliance;              // Upsilon(k) by Eq. 36
  Eigen::VectorXd gyroscopic_with_gravity;            // b(k) - [c x m g; m g], node layout
  Eigen::VectorXd acceleration;                       // alpha(k), inertial, node layout
  Eigen::VectorXd acceleration_plus;                  // alpha+(k) (Eq. 25): the parent's at O_k
  Eigen::VectorXd generalized_acceleration;           // qdd, dof order
  // The regular sweep's progress for a dual sweep on another thread: ready[k] == generation once
  // node k's P+, z+ are published.
  std::vector<std::atomic<unsigned>> ready;
  unsigned generation = 0;
};

// Lambda(k) = P(k) + S(k) for every link at q (Lemma 4.1, Eq. 37a; Algorithm 4.1 on a tree): the
// regular P by the tips-to-base gather, the dual S by the base-to-tips scatter. Indexed by node
// (model.node_of_link(link)). O(N); no allocation.
const std::vector<Matrix6d>& decoupled_operational_space_inertias(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    const Eigen::Ref<const Eigen::VectorXd>& q);

// The base-invariant forward dynamics (Algorithm 3.3): the regular P, z sweep (tips to base) and
// the dual S, z_s sweep (base to tips) as two recursions, then link by link and independently
// alpha(k) and alpha+(k) by Lemma 3.2 (Eq. 25) and qdd(k) = nu(k) - G*(k) alpha+(k) (Eq. 26).
// Same qdd as forward_dynamics. threads = 2 runs the dual sweep on a second thread (started per
// call: worth it from some hundreds of links; on a serial chain the sweeps never wait for each
// other, on a tree a branch's dual waits for its siblings' regular results). Returns
// free_flying.generalized_acceleration. O(N); no allocation (threads = 1).
const Eigen::VectorXd& base_invariant_forward_dynamics(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity, int threads = 1);

// Algorithm 3.4, the decoupled forward dynamics in non-minimal coordinates: the state is each
// link's own, its world pose and its spatial velocity [omega; v] in its frame (node order, as
// update_kinematics leaves data.link_pose and data.velocity), without joint coordinates; tau in
// dof order acts across the hinges. Step 1 takes each link's Coriolis and gyroscopic terms from
// its own and its parent's state alone, steps 2-3 are Algorithm 3.3's (threads likewise).
// Returns free_flying.acceleration: alpha(k), inertial, in link frames, node layout (step 4,
// integrating alpha and V per link, is the caller's); free_flying.generalized_acceleration holds
// the hinge accelerations (Eq. 26). The states must be consistent with the joints (each relative
// pose and velocity a motion the joint allows). std::invalid_argument for wrong sizes or a planar
// joint (its hinge map needs its coordinates). O(N); no allocation (threads = 1).
const Eigen::VectorXd& decoupled_link_accelerations(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    std::span<const Eigen::Isometry3d> poses, const Eigen::Ref<const Eigen::VectorXd>& velocities,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity, int threads = 1);

// Upsilon(k) = Lambda(k)^-1 for every link by the dual recursion (Eq. 36, tips to base over the
// dual sweep's quantities), the counterpart of part II's base-to-tips Omega(k, k) recursion
// (Eq. 34; operators/operational_space.hpp): both give the same Upsilon, which does not depend
// on the base body. Indexed by node. O(N); no allocation.
const std::vector<Matrix6d>& dual_operational_space_compliances(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    const Eigen::Ref<const Eigen::VectorXd>& q);

}  // namespace skograph

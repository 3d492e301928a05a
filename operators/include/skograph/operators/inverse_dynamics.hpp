// Newton-Euler inverse dynamics of an SKO model (part II section 3.1, Algorithm 3.1) and the
// generalized bias forces C of part II Eq. 3.
//
// Inputs are stacked vectors: thetadot and thetaddot in the hinge layout (r_k entries per node),
// the node Coriolis accelerations a and gyroscopic forces b in the node layout (m_k entries per
// node), as in the equations of motion (part II Eq. 1):
//   V = A* H* thetadot,  alpha = A* (H* thetaddot + a),  f = A (M alpha + b),  T = H f.
// The producer of the model (rigid-body kinematics, aggregation, ...) computes a and b from the
// velocities; nothing here assumes rigid bodies or 6-dimensional nodes.
//
// Gravity / base motion: the SKO forest has no inertial root, so an acceleration of the inertial
// frame (e.g. -g for gravity) reaches the model as an acceleration of each base node, expressed in
// that base node's coordinates (the producer applies the root-to-base weight). Pass it as
// `base_acceleration`, stacked over forest().bases() in that order (m_base entries per base node);
// it is equivalent to adding it to a(base), since alpha = A* (H* thetaddot + a) propagates it to
// every descendant.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "skograph/operators/sko_model.hpp"

namespace skograph {

// Where each base node's block sits in a stacked base acceleration (over forest().bases(), in
// that order; -1 for the other nodes), and in `size` the stack's length.
std::vector<int> base_acceleration_offsets(const SkoStructure& structure, int& size);

// Sized once from the structure; the recursions write only into these buffers.
struct InverseDynamicsWorkspace {
  explicit InverseDynamicsWorkspace(const SkoStructure& structure);

  Eigen::VectorXd velocity;           // V, node layout
  Eigen::VectorXd acceleration;       // alpha, node layout
  Eigen::VectorXd force;              // f (inter-node forces), node layout
  Eigen::VectorXd generalized_force;  // T (or C), hinge layout
  // (Declared in this order: base_offset's initializer sets base_acceleration_size.)
  int base_acceleration_size = 0;  // sum of m_k over the base nodes
  std::vector<int> base_offset;    // offset of base node k in base_acceleration; -1 otherwise
};

// T = H A (M A* (H* thetaddot + a) + b) by Algorithm 3.1 of part II (Eq. 10): a base-to-tips
// scatter for V and alpha, then a tips-to-base gather for f and T. O(N); no allocation. Returns
// workspace.generalized_force; workspace.velocity, .acceleration and .force hold V, alpha and f.
// Throws std::invalid_argument on mismatched sizes.
const Eigen::VectorXd& inverse_dynamics(const SkoModel& model,
                                        const Eigen::Ref<const Eigen::VectorXd>& thetadot,
                                        const Eigen::Ref<const Eigen::VectorXd>& thetaddot,
                                        const Eigen::Ref<const Eigen::VectorXd>& a,
                                        const Eigen::Ref<const Eigen::VectorXd>& b,
                                        InverseDynamicsWorkspace& workspace);

// The same with an acceleration of the (virtual) inertial root given per base node (see above):
// alpha(base) gets base_acceleration(base) added before it is scattered to the descendants.
const Eigen::VectorXd& inverse_dynamics(const SkoModel& model,
                                        const Eigen::Ref<const Eigen::VectorXd>& thetadot,
                                        const Eigen::Ref<const Eigen::VectorXd>& thetaddot,
                                        const Eigen::Ref<const Eigen::VectorXd>& a,
                                        const Eigen::Ref<const Eigen::VectorXd>& b,
                                        const Eigen::Ref<const Eigen::VectorXd>& base_acceleration,
                                        InverseDynamicsWorkspace& workspace);

// The Coriolis/gyroscopic generalized forces C = H A (M A* a + b) (part II Eq. 3): Algorithm 3.1
// with thetaddot = 0 and without the velocity pass. Returns workspace.generalized_force;
// workspace.acceleration = A* a and workspace.force = A (M A* a + b); workspace.velocity is left
// unchanged.
const Eigen::VectorXd& generalized_bias(const SkoModel& model,
                                        const Eigen::Ref<const Eigen::VectorXd>& a,
                                        const Eigen::Ref<const Eigen::VectorXd>& b,
                                        InverseDynamicsWorkspace& workspace);

}  // namespace skograph

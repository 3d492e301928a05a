// What goes through the loops and couplings of a closed chain: their reaction forces,
// and how each aggregate's constraints stand at a state (rank, dependent joints, conditioning).
//
//   const Eigen::VectorXd& qdd = forward_dynamics(model, data, q, qd, tau, gravity);
//   ConstraintForces forces;
//   constraint_forces(model, data, q, qd, qdd, tau, gravity, forces);
//   forces.loop[l]      // [moment; force] on loop l's child link, in F_p, about the joint
//
// Constraint embedding never forms Lagrange multipliers, but they follow from the tree's
// equations of motion with the loops as forces (constraint-embedding Eq. 1 with the constraint
// rows of Eq. 58): M qdd + C = tau + Q* lambda, so at a motion that satisfies the loops
// Q_S* lambda_S = (M qdd + C - tau)_S per aggregate S, the right side by Newton-Euler on the tree
// (part II Algorithm 3.1), lambda_S the least-norm solution of the dependent coordinates'
// equations Y1* lambda_S = (...)_dependent through the update's QR of Y1 (Y1 has Q_S's rank, so
// they imply the others on a closed motion). Where the rows of Q_S are dependent (a planar loop
// closed by a 3-D joint: its out-of-plane rows vanish) the reaction is statically indeterminate
// in those directions and lambda_S is the least-norm one. No allocation after the first call.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "skograph/rigid/closed_chain_model.hpp"

namespace skograph {

struct ConstraintForces {
  // Per loop (mechanism().loops): the spatial force [moment; force] the loop joint exerts on its
  // child link (the F_c side) from its parent, about the joint's point (O_c, which is O_p on a
  // closed loop), in F_p coordinates; zero along the directions the joint allows (the child's
  // own share is minus this on the parent). Conjugate to the loop's rows of Q: the relative twist
  // of F_c with respect to F_p (rigid/closed_chain_model.hpp, "Constraints").
  std::vector<Eigen::Matrix<double, 6, 1>> loop;
  // Per coupling (mechanism().couplings): per dof, the generalized force (torque, or force for a
  // prismatic joint) the gear exerts on joint_a; every other joint of the coupling receives -ratio
  // times it (its own ratio for a differential).
  std::vector<Eigen::VectorXd> coupling;
  // Per aggregate: lambda_S in the order of its constraint rows (data.constraint_matrix[s]).
  std::vector<Eigen::VectorXd> multipliers;
  // max over the aggregates' dofs of |Q* lambda - (M qdd + C - tau)|: near zero when qdd is a
  // motion of the closed chain for tau (it is not when qdd breaks the loops).
  double residual = 0.0;
};

// The loop and coupling reaction forces at a closed (q, qd) moving with qdd (full, tree dof
// order) under tau (acting on all joints, as forward_dynamics takes it), gravity the base
// acceleration -g. Updates the constraints and X at (q, qd) (not the embedded model) and the
// tree's Newton-Euler workspace of data.tree.
void constraint_forces(const ClosedChainModel& model, ClosedChainData& data,
                       const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& qd,
                       const Eigen::Ref<const Eigen::VectorXd>& qdd,
                       const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity,
                       ConstraintForces& forces);

// Why an aggregate's joints are dependent, at the last update: its constraint rows, their rank
// (= the number of dependent coordinates), the dependent and independent tree dofs (increasing)
// and the condition number sigma_max / sigma_min of Y1 = Q_S(:, dependent), the constraints
// restricted to the dependent coordinates (1 with no dependent coordinate; the selection is
// re-made, or a chosen one reported singular, beyond 1 /
// ClosedChainOptions::reselect_conditioning).
struct AggregateConstraintStatus {
  int rows = 0;
  int rank = 0;
  std::vector<int> dependent, independent;
  double condition_number = 1.0;
  double smallest_singular_value = 0.0;  // of the dependent columns (0 when there are none)
};
AggregateConstraintStatus aggregate_constraint_status(const ClosedChainModel& model,
                                                      const ClosedChainData& data, int s);

}  // namespace skograph

// Forward dynamics of a closed chain by Lagrange multipliers (issue 26), the second closed-chain
// solver beside constraint embedding (rigid/closed_chain_model.hpp): the tree's equations of
// motion with the loops as forces and the constraints at the acceleration level,
//   M qdd + C = tau + G* lambda,     G qdd + Gdot qd = 0     (constraint-embedding Eq. 1),
// G the independent constraint rows of rigid/constraint_jacobian.hpp. Solved by the Schur
// complement on the tree's fill-free factor of M (operators/tree_factorization.hpp):
//   qdd_0 = M^-1 (tau - C),  Y = M^-1 G* (one O(n) solve per row),  S = G Y,
//   S lambda = -(G qdd_0 + Gdot qd),  qdd = qdd_0 + Y lambda.
// lambda are the multipliers of G's rows: the same generalized constraint force G* lambda as the
// loop forces of rigid/closed_chain_forces.hpp (their least-norm multipliers over every stacked
// row, equal where G keeps every row of a loop).
//
//   MultiplierWorkspace work(model);
//   const Eigen::VectorXd& qdd = forward_dynamics_by_multipliers(model, data, work, q, qd, tau, g);
//   work.multipliers;  work.constraints.rows[i].label
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "skograph/operators/tree_factorization.hpp"
#include "skograph/rigid/constraint_jacobian.hpp"

namespace skograph {

struct MultiplierWorkspace {
  explicit MultiplierWorkspace(const ClosedChainModel& model);
  ConstraintJacobian constraints;  // G and Gdot qd of the last call
  TreeMassFactorization mass_factor;
  Eigen::MatrixXd response;  // Y = M^-1 G*
  Eigen::MatrixXd schur;     // S = G M^-1 G*
  Eigen::LLT<Eigen::MatrixXd> schur_factor;
  Eigen::VectorXd free_acceleration, acceleration, multipliers;
};

// qdd (full, tree dof order) of the closed chain at a consistent (q, qd) under tau acting on every
// tree joint, gravity as the base acceleration -g; the multipliers in work.multipliers (one per
// row of work.constraints). SingularMassMatrixError when a moving joint moves no mass (M singular:
// embedding handles it), SingularConfigurationError where the constraints lose rank.
const Eigen::VectorXd& forward_dynamics_by_multipliers(
    const ClosedChainModel& model, ClosedChainData& data, MultiplierWorkspace& work,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity);

}  // namespace skograph

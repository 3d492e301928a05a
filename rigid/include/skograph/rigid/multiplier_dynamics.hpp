// Forward dynamics of a closed chain by Lagrange multipliers, the second closed-chain
// solver beside constraint embedding (rigid/closed_chain_model.hpp): the tree's equations of
// motion with the loops as forces and the constraints at the acceleration level,
//   M qdd + C = tau + G* lambda,     G qdd + Gdot qd = 0     (constraint-embedding Eq. 1),
// G the independent constraint rows of rigid/constraint_jacobian.hpp. Solved as the augmented
// (KKT) system
//   [M G*] [qdd ]   [tau - C  ]
//   [G 0 ] [-lam] = [-Gdot qd ]
// by a sparse LDL* (Eigen's SimplicialLDLT, no pivoting) in the fill-controlled order of
// sparse/kkt_system.hpp: M's canonical order (children before parents, part I section 2) with
// each multiplier row right after the last-eliminated dof of its row of G. The M block then fills
// nothing (part II section 7.4) and every pivot of a multiplier row is nonzero where G has full row
// rank; the pivots are checked (a dof's positive, a multiplier row's negative, neither tiny
// against the largest). The pattern is analysed once and again only when G's structural pattern
// changes (another choice of rows).
// lambda are the multipliers of G's rows: the same generalized constraint force G* lambda as the
// loop forces of rigid/closed_chain_forces.hpp (their least-norm multipliers over every stacked
// row, equal where G keeps every row of a loop).
//
//   MultiplierWorkspace work(model);
//   const Eigen::VectorXd& qdd = forward_dynamics_by_multipliers(model, data, work, q, qd, tau, g);
//   work.multipliers;  work.constraints.rows[i].label
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <vector>

#include "skograph/operators/elimination_order.hpp"
#include "skograph/rigid/constraint_jacobian.hpp"

namespace skograph {

struct MultiplierWorkspace {
  explicit MultiplierWorkspace(const ClosedChainModel& model);
  ConstraintJacobian constraints;  // G and Gdot qd of the last call
  // The tree's dof parents and canonical order (operators/elimination_order.hpp).
  std::vector<int> dof_parent, mass_order;
  // The KKT matrix's lower triangle in the elimination order: the row of each unknown (dofs
  // 0..n-1, multiplier rows n..), where each M entry and each G entry goes in its values, and the
  // pattern of G it was analysed for.
  std::vector<int> row_of_unknown;
  std::vector<int> mass_slot;         // per (dof, ancestor-or-self) entry
  std::vector<int> constraint_slot;   // per stored entry of G (column-major)
  std::vector<int> analysed_pattern;  // G's column starts and row indices
  Eigen::SparseMatrix<double> kkt;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Lower, Eigen::NaturalOrdering<int>>
      factor;
  Eigen::VectorXd right_side, solution, acceleration, multipliers;
};

// qdd (full, tree dof order) of the closed chain at a consistent (q, qd) under tau acting on every
// tree joint, gravity as the base acceleration -g; the multipliers in work.multipliers (one per
// row of work.constraints). SingularMassMatrixError when a moving joint moves no mass (a dof's
// pivot not positive: embedding handles it), SingularConfigurationError where the rows of G are
// dependent (a multiplier row's pivot not negative).
const Eigen::VectorXd& forward_dynamics_by_multipliers(
    const ClosedChainModel& model, ClosedChainData& data, MultiplierWorkspace& work,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity);

}  // namespace skograph

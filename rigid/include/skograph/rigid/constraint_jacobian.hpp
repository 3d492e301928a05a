// The constraints of a closed chain as other solvers take them: the velocity
// constraints G(q) qd = 0 on every tree dof, their velocity product Gdot qd (G qdd + Gdot qd = 0),
// and the position residual e(q) whose derivative along the motion is G qd.
//
//   ConstraintJacobian constraints;
//   constraint_jacobian(model, data, q, qd, constraints);
//   constraints.jacobian        // G: independent rows x tree dofs (sparse)
//   constraints.rows[i].label   // "loop 'close1' angular n1"
//
// The rows are those of the embedding (rigid/closed_chain_model.hpp, "Constraints"): per loop the
// relative twist of F_c with respect to F_p in F_p coordinates in the directions its joint type
// does not allow, per coupling thetadot_a - sum ratio thetadot_b, stacked aggregate by aggregate.
// Loops may have redundant rows (a planar four-bar closed by a 3-D revolute: 5 rows of rank 2).
// G keeps the rows the embedding's rank-revealing factorization stands on: its dependent
// columns Y1 = Q_S(:, u) (aggregation/constraint_embedding.hpp) have full column rank r, and a
// column-pivoted QR of Y1* picks r rows of Y1 that are independent; those rows of Q_S span its
// row space (rank Q_S = r), so G qd = 0 exactly when every row holds.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "skograph/rigid/closed_chain_model.hpp"

namespace skograph {

struct ConstraintRow {
  int aggregate = 0;     // 0-based
  int loop = -1;         // mechanism().loops index, or -1
  int coupling = -1;     // mechanism().couplings index, or -1
  int stacked = 0;       // position among all rows (constraint_position_error's order)
  bool angular = false;  // a loop row on the relative angular velocity
  Eigen::Vector3d direction = Eigen::Vector3d::Zero();  // in F_p (zero for a coupling)
  // "loop 'close1' angular n1" (n1, n2: normals of a revolute's or prismatic's axis; x, y, z:
  // F_p's axes), "coupling 'gear'" (":2" appended per dof of a multi-dof joint).
  std::string label;
};

struct ConstraintJacobian {
  Eigen::SparseMatrix<double> jacobian;  // G, rows x dof_count() (tree dof order)
  Eigen::VectorXd bias;                  // Gdot qd at those rows
  std::vector<ConstraintRow> rows;       // per row of G
  int stacked_rows = 0;                  // all rows before the redundant ones were dropped
  // Every stacked row, described once (the labels are not rebuilt per call).
  std::vector<ConstraintRow> stacked;
};

// G and Gdot qd at (q, qd) (q need not be closed: the rows are defined everywhere). With
// `independent_rows_only` false every stacked row is kept (rank-deficient G).
// SingularConfigurationError where an aggregate loses rank (as update_closed_chain).
void constraint_jacobian(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd, ConstraintJacobian& result,
                         bool independent_rows_only = true);

// e(q), every stacked row: the position errors of closed_chain_model.hpp ("Position level"), zero
// on a closed configuration; at a closed q its derivative along a motion with velocity qd is the
// stacked G qd.
Eigen::VectorXd constraint_position_error(const ClosedChainModel& model, ClosedChainData& data,
                                          const Eigen::Ref<const Eigen::VectorXd>& q);

}  // namespace skograph

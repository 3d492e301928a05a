// Constraint embedding of one aggregate (constraint-embedding §4, §7; conventions.md "Constraint
// embedding"): from velocity-level constraints Q thetadot_S = 0 inside a sub-graph S, choose the
// dependent coordinates u and the independent ones R with a rank-revealing factorization, and form
//   thetadot_S = X_S thetadot_R,          X_S = [-Y1^+ Y2; I]   (rows back in S's order)
//   thetaddot_S = X_S thetaddot_R + Xdot_S thetadot_R,
//   Xdot_S thetadot_R = [-Y1^+ (Qdot thetadot_S); 0],
// with Q = [Y1 Y2] split by columns (u, R). Q may have redundant rows (a planar four-bar closed by
// a 3-D revolute gives 5 rows of rank 2): Y1 has full column rank and Y1^+ is its least-squares
// inverse, exact because the rows are consistent.
//
// Nothing here knows rigid bodies: the producer (rigid/closed_chain_model.hpp) supplies Q and the
// velocity-product term Qdot thetadot from its kinematics.
#pragma once

#include <Eigen/Core>
#include <Eigen/QR>
#include <vector>

#include "skograph/aggregation/dependent_factorization.hpp"

namespace skograph {

struct CoordinateSelection {
  std::vector<int>
      dependent;  // u: columns of Q (positions in S's stacked hinge vector), increasing
  std::vector<int> independent;  // R: the other columns, increasing
  int rank = 0;                  // numerical rank of Q (= dependent.size())
  // sigma_min / sigma_max of Y1 = Q(:, dependent) (1 best, 0 singular); 1 when rank is 0; NaN
  // when select_coordinates was asked not to compute it.
  double conditioning = 1.0;
};

// The rank-revealing choice: column-pivoted QR of Q. Columns are taken as dependent in pivot
// order while |R(i, i)| > rank_tolerance * max(1, |R(0, 0)|). Among equally good choices the
// pivoting prefers the columns of largest norm. `with_conditioning` false skips the SVD of
// `conditioning` (the closed-chain updates, which decide on selection_conditioning_at_least).
CoordinateSelection select_coordinates(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                       double rank_tolerance = 1e-9, bool with_conditioning = true);

// sigma_min / sigma_max of Q(:, dependent) for an existing selection (monitoring along a motion;
// re-select when it degrades).
double selection_conditioning(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                              const CoordinateSelection& selection);

// selection_conditioning(Q, selection) >= threshold, decided without the SVD when the Frobenius
// bounds c/r <= 1 / (|Y1|_F |R^-1|_F) <= c (Y1 = Q_f R, r = rank) or power iterations on the
// blocks' R (DependentFactorization::conditioning_against) settle it: the per-update check of a
// kept selection along a motion.
bool selection_conditioning_at_least(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                     const CoordinateSelection& selection, double threshold);

// Y1 = Q(:, dependent) factorized once per update (aggregation/dependent_factorization.hpp,
// block by block): it serves the conditioning check and X_S both (storage reused).
void factorize_dependent(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                         const CoordinateSelection& selection, DependentFactorization& y1);
// The check above on a factorization of this selection's Y1.
bool selection_conditioning_at_least(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                     const CoordinateSelection& selection, double threshold,
                                     DependentFactorization& y1);

// X_S (n_S x n_R) and Xdot_S thetadot_R (n_S) for a selection (equations above).
void embedding_matrices(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                        const Eigen::Ref<const Eigen::VectorXd>& Qdot_thetadot,
                        const CoordinateSelection& selection, Eigen::MatrixXd& X,
                        Eigen::VectorXd& Xdot_thetadot);
// The same from a factorization of this selection's Y1 (factorize_dependent).
void embedding_matrices(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                        const Eigen::Ref<const Eigen::VectorXd>& Qdot_thetadot,
                        const CoordinateSelection& selection, DependentFactorization& y1,
                        Eigen::MatrixXd& X, Eigen::VectorXd& Xdot_thetadot);

}  // namespace skograph

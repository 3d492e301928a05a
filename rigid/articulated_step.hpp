// One node of the articulated-body forward dynamics (part II Algorithm 6.1), shared by the tree
// recursion (rigid_body_dynamics.cpp, world axes about each tree's base) and the closed-chain one
// (closed_chain/dynamics.cpp, world frame): the gather of the Riccati quantities at a node with
// r >= 1 hinge coordinates, its singularity test, and the scatter of its accelerations. Not
// installed: the recursions' own kernel.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <string>

#include "skograph/rigid/spatial.hpp"

namespace skograph::articulated {

// D = H P H* is singular when a pivot falls below this fraction of the articulated inertia's scale
// (max |diag P|): one policy for every recursion.
inline constexpr double kSingularPivot = 1e-13;

// The SingularMassMatrixError message for a joint whose D is singular.
inline std::string singular_joint_message(const std::string& joint) {
  return "joint '" + joint +
         "' moves no inertia its other joints do not move at this configuration (H P H* is "
         "singular), so the mass matrix is singular";
}

// P -= w u* column by column: six 6-vector updates inlined where Eigen's outer-product assignment
// of a scaled vector was a loop called out of line; the same products in the same order (2.6-3%
// fewer instructions in a tree's forward dynamics when it was written).
[[gnu::always_inline]] inline void subtract_outer(Matrix6d& P, const Vector6d& w,
                                                  const Vector6d& u) {
  for (int j = 0; j < 6; ++j) P.col(j) -= w * u(j);
}

// D = L L* by a fixed-size Cholesky factorization, true when D passes the singularity test of
// gather_hinge: positive pivots whose squares exceed `scale` (a NaN pivot fails as far as Eigen's
// minCoeff reports it, as the tests it replaces did). The one test of fixed_size_inverse and
// factor_base.
template <int R>
[[gnu::always_inline]] inline bool cholesky_passes(
    const Eigen::Matrix<double, R, R>& d, double scale,
    Eigen::LLT<Eigen::Matrix<double, R, R>>& cholesky) {
  cholesky.compute(d);
  const auto diagonal = cholesky.matrixLLT().diagonal();
  return cholesky.info() == Eigen::Success && diagonal.minCoeff() > 0.0 &&
         diagonal.cwiseAbs2().minCoeff() > scale;
}

// D^-1 for an R x R D by a fixed-size Cholesky factorization, when D passes the singularity test
// of gather_hinge (cholesky_passes); false otherwise.
template <int R>
bool fixed_size_inverse(const HingeSquare& d, double scale, HingeSquare& inverse) {
  using Square = Eigen::Matrix<double, R, R>;
  const Square square = d;
  Eigen::LLT<Square> cholesky;
  if (!cholesky_passes<R>(square, scale, cholesky)) return false;
  // D^-1 = L^-* L^-1 with L^-1 by forward substitution (fixed sizes: Eigen's triangular solves
  // would take their generic blocked path).
  const Square& factor = cholesky.matrixLLT();  // L in the lower triangle
  Square lower_inverse = Square::Zero();
  for (int j = 0; j < R; ++j) {
    lower_inverse(j, j) = 1.0 / factor(j, j);
    for (int i = j + 1; i < R; ++i) {
      double sum = 0.0;
      for (int k = j; k < i; ++k) sum -= factor(i, k) * lower_inverse(k, j);
      lower_inverse(i, j) = sum / factor(i, i);
    }
  }
  inverse.noalias() = lower_inverse.transpose() * lower_inverse;
  return true;
}

// The base step of a floating base (H* = 1, nothing carried on to a parent): D = P is only
// factorized, D = L L* by a fixed-size Cholesky factorization under gather_hinge's singularity
// test, L into `factor` (lower triangle), epsilon = T - z into `innovation`; the scatter then
// solves D qdd = epsilon - P alpha once (solve_base) instead of forming D^-1 and its products.
// False, nothing written, where the test fails (gather_hinge's general path takes the node).
inline bool factor_base(const Matrix6d& P, const Vector6d& z, const double* tau,
                        HingeSquare& factor, JointVector& innovation) {
  const double scale = kSingularPivot * P.diagonal().cwiseAbs().maxCoeff();
  Eigen::LLT<Matrix6d> cholesky;
  if (!cholesky_passes<6>(P, scale, cholesky)) return false;
  factor = cholesky.matrixLLT();
  innovation = Eigen::Map<const Vector6d>(tau) - z;
  return true;
}

// qdd = D^-1 (epsilon - P alpha) with D = L L* from factor_base: forward and back substitution.
inline void solve_base(const Matrix6d& P, const HingeSquare& factor, const JointVector& innovation,
                       const Vector6d& alpha, double* qdd) {
  Vector6d x = innovation;
  x.noalias() -= P * alpha;
  for (int i = 0; i < 6; ++i) {
    double value = x(i);
    for (int k = 0; k < i; ++k) value -= factor(i, k) * x(k);
    x(i) = value / factor(i, i);
  }
  for (int i = 5; i >= 0; --i) {
    double value = x(i);
    for (int k = i + 1; k < 6; ++k) value -= factor(k, i) * x(k);
    x(i) = value / factor(i, i);
  }
  for (int i = 0; i < 6; ++i) qdd[i] = x(i);
}

// The gather at node k (part II Eq. 33 with the innovation of Algorithm 6.1): with H* the r
// columns `hinge` (6 x r, in P's coordinates), T(k) at `tau`, it keeps for the scatter
//   projected = P H*,  inverse = D^-1 with D = H P H*,  innovation = nu = D^-1 (T - H z),
// then, when `to_parent` (a base node needs neither), P+ = P - projected D^-1 projected* into P
// and z+ = z + P+ a + projected innovation into z (a: the node's Coriolis acceleration). D is
// factored by Cholesky; an indefinite D (an inconsistent inertia, accepted with a warning) by LU.
// Returns false, leaving P and z, when D is singular (kSingularPivot).
template <class Hinge>
bool gather_hinge(Matrix6d& P, Vector6d& z, const Hinge& hinge, int r, const double* tau,
                  const Vector6d& coriolis, bool to_parent, HingeMatrix& projected,
                  HingeSquare& inverse, JointVector& innovation) {
  const double scale = kSingularPivot * P.diagonal().cwiseAbs().maxCoeff();
  if (r == 1) {
    const auto h = hinge.col(0);
    projected.resize(6, 1);
    projected.col(0).noalias() = P * h;
    const double d = h.dot(projected.col(0));
    if (!(std::abs(d) > scale)) return false;
    const double d_inverse = 1.0 / d;
    inverse.resize(1, 1);
    inverse(0, 0) = d_inverse;
    innovation.resize(1);
    innovation(0) = d_inverse * (tau[0] - h.dot(z));
    if (!to_parent) return true;
    const Vector6d u = projected.col(0);
    subtract_outer(P, d_inverse * u, u);
    z.noalias() += P * coriolis;
    z.noalias() += u * innovation(0);
    return true;
  }
  projected.noalias() = P.lazyProduct(hinge);
  HingeSquare d;
  d.noalias() = hinge.transpose().lazyProduct(projected);
  // Free (6) and spherical (3) joints: fixed-size Cholesky and inverse, unrolled; other sizes and
  // a D the test refuses: the dynamic-size Cholesky, then LU for an indefinite D.
  const bool fixed_size = (r == 6 && fixed_size_inverse<6>(d, scale, inverse)) ||
                          (r == 3 && fixed_size_inverse<3>(d, scale, inverse));
  if (!fixed_size) {
    const Eigen::LLT<HingeSquare> cholesky(d);
    if (cholesky.info() == Eigen::Success && cholesky.matrixLLT().diagonal().minCoeff() > 0.0 &&
        cholesky.matrixLLT().diagonal().cwiseAbs2().minCoeff() > scale) {
      inverse.resize(r, r);
      for (int i = 0; i < r; ++i) inverse.col(i) = cholesky.solve(JointVector::Unit(r, i));
    } else {
      Eigen::FullPivLU<HingeSquare> lu(d);
      if (!(lu.maxPivot() > 0.0)) return false;
      lu.setThreshold(scale / lu.maxPivot());
      if (!lu.isInvertible()) return false;
      inverse = lu.inverse();
    }
  }
  JointVector residual = Eigen::Map<const JointVector>(tau, r);  // fixed capacity: no allocation
  residual.noalias() -= hinge.transpose() * z;
  innovation.noalias() = inverse * residual;
  if (!to_parent) return true;
  const HingeMatrix gain = projected.lazyProduct(inverse);
  P.noalias() -= gain.lazyProduct(projected.transpose());
  z.noalias() += P * coriolis;
  z.noalias() += projected * innovation;
  return true;
}

// The scatter at node k: qdd(k) = nu - D^-1 (P H*)* alpha into `qdd` (r entries) and
// alpha += H* qdd(k), alpha the node's acceleration before its hinge moves.
template <class Hinge>
void scatter_hinge(const HingeMatrix& projected, const HingeSquare& inverse,
                   const JointVector& innovation, const Hinge& hinge, int r, double* qdd,
                   Vector6d& alpha) {
  if (r == 1) {
    const double value = innovation(0) - inverse(0, 0) * projected.col(0).dot(alpha);
    qdd[0] = value;
    alpha.noalias() += hinge.col(0) * value;
    return;
  }
  Eigen::Map<JointVector> out(qdd, r);
  out = innovation;
  out.noalias() -= inverse * (projected.transpose() * alpha);
  alpha.noalias() += hinge * out;
}

}  // namespace skograph::articulated

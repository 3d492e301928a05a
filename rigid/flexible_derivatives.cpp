// Derivatives of a flexible tree's dynamics by Richardson-extrapolated central differences
// (rigid/flexible_derivatives.hpp). The modal nodes' weights depend on q through the left
// Jacobian of the modal rotation; differentiating them analytically is left for later, and the
// differences of inverse dynamics, O(n) each, keep the whole at O(n^2).
#include "flexible_derivatives.hpp"

#include <Eigen/Cholesky>

#include "skograph/operators/articulated_body.hpp"
#include "skograph/rigid/tangent.hpp"

namespace skograph::rigid_detail {
namespace {

// The step of the coarser difference: the finer takes half of it. Central differences err by
// h^2 f''' / 6, the extrapolation by O(h^4); rounding by about eps |f| / h.
constexpr double kStep = 1e-4;

// Column j of d(inverse dynamics)/dx, x = q along the tangent (`along_q`) or qd:
//   D(h) = (f(x + h e_j) - f(x - h e_j)) / 2h,   derivative = (4 D(h/2) - D(h)) / 3.
void difference_column(const RigidBodyModel& model, RigidBodyData& data,
                       const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& qd,
                       const Eigen::Ref<const Eigen::VectorXd>& qdd, const Eigen::Vector3d& gravity,
                       int j, bool along_q, Eigen::Ref<Eigen::VectorXd> column) {
  const int n = model.dof_count();
  Eigen::VectorXd direction = Eigen::VectorXd::Zero(n), moved_q(n), moved_qd = qd;
  direction[j] = 1.0;
  const auto tau_at = [&](double step) -> Eigen::VectorXd {
    if (along_q) {
      integrate(model, q, direction, step, moved_q);
      return inverse_dynamics(model, data, moved_q, qd, qdd, gravity);
    }
    moved_qd = qd;
    moved_qd[j] += step;
    return inverse_dynamics(model, data, q, moved_qd, qdd, gravity);
  };
  const auto central = [&](double step) -> Eigen::VectorXd {
    const Eigen::VectorXd forward = tau_at(step);
    return (forward - tau_at(-step)) / (2.0 * step);
  };
  const Eigen::VectorXd coarse = central(kStep);
  column = (4.0 * central(0.5 * kStep) - coarse) / 3.0;
}

}  // namespace

void flexible_inverse_dynamics_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q,
                                           const Eigen::Ref<const Eigen::VectorXd>& qd,
                                           const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                           const Eigen::Vector3d& gravity,
                                           InverseDynamicsDerivatives& result) {
  const int n = model.dof_count();
  result.dtau_dq.resize(n, n);
  result.dtau_dqd.resize(n, n);
  for (int j = 0; j < n; ++j) {
    difference_column(model, data, q, qd, qdd, gravity, j, true, result.dtau_dq.col(j));
    difference_column(model, data, q, qd, qdd, gravity, j, false, result.dtau_dqd.col(j));
  }
  result.mass = mass_matrix(model, data, q);
  result.tau = inverse_dynamics(model, data, q, qd, qdd, gravity);  // data left at the state
}

void flexible_forward_dynamics_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q,
                                           const Eigen::Ref<const Eigen::VectorXd>& qd,
                                           const Eigen::Ref<const Eigen::VectorXd>& tau,
                                           const Eigen::Vector3d& gravity,
                                           ForwardDynamicsDerivatives& result) {
  const int n = model.dof_count();
  result.qdd = forward_dynamics(model, data, q, qd, tau, gravity);
  InverseDynamicsDerivatives& inverse = result.inverse;
  flexible_inverse_dynamics_derivatives(model, data, q, qd, result.qdd, gravity, inverse);
  result.factor.compute(inverse.mass);
  if (result.factor.info() != Eigen::Success)
    throw SingularMassMatrixError(-1, "the mass matrix is not positive definite at this state");
  result.massive = Eigen::VectorXi::LinSpaced(n, 0, n - 1);
  result.dqdd_dtau = result.factor.solve(Eigen::MatrixXd::Identity(n, n));
  result.dqdd_dq = -(result.dqdd_dtau * inverse.dtau_dq);
  result.dqdd_dqd = -(result.dqdd_dtau * inverse.dtau_dqd);
}

}  // namespace skograph::rigid_detail

// Closed-chain forward dynamics by Lagrange multipliers (rigid/multiplier_dynamics.hpp).
#include "skograph/rigid/multiplier_dynamics.hpp"

#include <string>

#include "closed_chain_internal.hpp"

namespace skograph {

MultiplierWorkspace::MultiplierWorkspace(const ClosedChainModel& model)
    : mass_factor(*model.tree().structure()) {}

// Constraint-embedding Eq. 1 with the acceleration-level constraints, by the Schur complement of
// the augmented system on M's tree factorization (part II section 7.4: no fill).
const Eigen::VectorXd& forward_dynamics_by_multipliers(
    const ClosedChainModel& model, ClosedChainData& data, MultiplierWorkspace& work,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity) {
  closed_chain_detail::check_vector(tau, model.dof_count(), "tau");
  constraint_jacobian(model, data, q, qd, work.constraints);
  const RigidBodyModel& tree = model.tree();
  // C first: mass_matrix then reads the positions it leaves.
  work.free_acceleration = tau - bias_forces(tree, data.tree, q, qd, gravity);
  try {
    work.mass_factor.factorize(mass_matrix(tree, data.tree, q));
  } catch (const SingularMassMatrixError& error) {
    const int joint = error.node();
    throw SingularMassMatrixError(
        joint, "the multiplier method needs a positive definite tree mass matrix, but joint '" +
                   (joint >= 0 ? tree.mechanism().joints[static_cast<std::size_t>(joint)].name
                               : std::string("?")) +
                   "' moves no mass (constraint embedding does not need it)");
  }
  work.mass_factor.solve(work.free_acceleration);

  const Eigen::SparseMatrix<double>& jacobian = work.constraints.jacobian;
  const Eigen::Index rows = jacobian.rows();
  work.response = Eigen::MatrixXd(jacobian.transpose());
  for (Eigen::Index i = 0; i < rows; ++i) work.mass_factor.solve(work.response.col(i));
  work.schur.noalias() = jacobian * work.response;
  work.schur_factor.compute(work.schur);
  if (work.schur_factor.info() != Eigen::Success)
    throw SingularConfigurationError(
        "the constraint rows are dependent at this configuration (G M^-1 G* is singular)");
  work.multipliers = -(jacobian * work.free_acceleration + work.constraints.bias);
  work.schur_factor.solveInPlace(work.multipliers);
  work.acceleration = work.free_acceleration;
  work.acceleration.noalias() += work.response * work.multipliers;
  return work.acceleration;
}

}  // namespace skograph

// Derivatives of a tree's dynamics (docs/derivatives.md): inverse dynamics' dtau/dq, dtau/dqd and
// dtau/dqdd = M in one forward and one backward walk, and forward dynamics' dqdd/dq, dqdd/dqd
// and dqdd/dtau = M^-1 from them (ID(q, qd, FD(q, qd, tau)) = tau). Derivatives with respect to q
// are along the configuration's tangent (rigid/tangent.hpp): column j is d/de f(q (+) e e_j),
// the rate qd_j would move q with; for revolute, prismatic and planar joints that is d/dq_j.
// Matrices are dofs x dofs, rows and columns in the model's dof order. The results live in
// caller-held structs that are sized by the first call: no allocation after it.
//
//   InverseDynamicsDerivatives id;
//   inverse_dynamics_derivatives(model, data, q, qd, qdd, gravity, id);    // id.dtau_dq, ...
//   ForwardDynamicsDerivatives fd;
//   forward_dynamics_derivatives(model, data, q, qd, tau, gravity, fd);    // fd.dqdd_dq, ...
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

struct InverseDynamicsDerivatives {
  Eigen::VectorXd tau;                // inverse dynamics at (q, qd, qdd)
  Eigen::MatrixXd dtau_dq, dtau_dqd;  // along the tangent, and with respect to qd
  Eigen::MatrixXd mass;               // dtau/dqdd = M
};

struct ForwardDynamicsDerivatives {
  Eigen::VectorXd qdd;                 // forward dynamics at (q, qd, tau)
  Eigen::MatrixXd dqdd_dq, dqdd_dqd;   // along the tangent, and with respect to qd
  Eigen::MatrixXd dqdd_dtau;           // M^-1 (zero rows and columns on massless subtrees' dofs)
  InverseDynamicsDerivatives inverse;  // the inverse dynamics' derivatives at (q, qd, qdd)
  Eigen::LLT<Eigen::MatrixXd> factor;  // of M on the dofs that move mass
  Eigen::VectorXi massive;             // those dofs
  Eigen::MatrixXd reduced, solved;     // M on them; the right sides and solutions on them
};

// Gravity enters as the world's acceleration -g (conventions.md). std::invalid_argument for
// wrong sizes.
void inverse_dynamics_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                  const Eigen::Vector3d& gravity,
                                  InverseDynamicsDerivatives& result);

// At qdd = forward_dynamics(q, qd, tau): dqdd/dq = -M^-1 dtau/dq, dqdd/dqd = -M^-1 dtau/dqd,
// dqdd/dtau = M^-1. A massless subtree's dofs keep qdd = 0 (as forward_dynamics prescribes): their
// rows are zero. SingularMassMatrixError where forward dynamics raises it.
void forward_dynamics_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity,
                                  ForwardDynamicsDerivatives& result);

}  // namespace skograph

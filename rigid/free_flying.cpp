#include "skograph/rigid/free_flying.hpp"

#include <Eigen/Cholesky>
#include <stdexcept>

namespace skograph {
namespace {

// phi(p, k)^-1 = [[R*, -R* l~], [0, R*]]: moves a force at O_p to O_k.
Matrix6d inverse_rigid_body_transform(const Matrix6d& phi) {
  const Eigen::Matrix3d rotation_transpose = phi.topLeftCorner<3, 3>().transpose();
  Matrix6d inverse;
  inverse.topLeftCorner<3, 3>() = rotation_transpose;
  // phi's top-right block is l~ R, so -R* l~ = -R* (l~ R) R*.
  inverse.topRightCorner<3, 3>() =
      -rotation_transpose * phi.topRightCorner<3, 3>() * rotation_transpose;
  inverse.bottomLeftCorner<3, 3>().setZero();
  inverse.bottomRightCorner<3, 3>() = rotation_transpose;
  return inverse;
}

// The regular articulated-body gather (part II Lemma 7, Eq. 33 and Eq. 58a-d) keeping both P and
// P+ (and z, z+ when with_forces): the dual scatter needs P+(k) and z+(k) of every child.
void regular_gather(const RigidBodyModel& model, const RigidBodyData& data,
                    const Eigen::Ref<const Eigen::VectorXd>& tau, bool with_forces,
                    FreeFlyingData& ff) {
  const Forest& forest = model.forest();
  for (const int k : forest.post_order()) {
    Matrix6d& inertia = ff.articulated_inertia[k];
    Vector6d& force = ff.residual_force[k];
    inertia = model.link_inertia(k);
    for (const int j : forest.children(k))
      inertia.noalias() += data.phi[j] * ff.articulated_inertia_plus[j] * data.phi[j].transpose();
    if (with_forces) {
      force = ff.gyroscopic_with_gravity.segment<6>(6 * k);
      for (const int j : forest.children(k))
        force.noalias() += data.phi[j] * ff.residual_force_plus[j];
      force.noalias() += inertia * data.coriolis.segment<6>(6 * k);
    }
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    Matrix6d& inertia_plus = ff.articulated_inertia_plus[k];
    inertia_plus = inertia;
    ff.residual_force_plus[k] = force;
    if (dofs == 0) continue;
    HingeMatrix& projected = ff.projected_inertia[k];
    HingeSquare& inverse = ff.innovations_inverse[k];
    projected.noalias() = inertia.lazyProduct(data.hinge[k]);
    const HingeSquare d = data.hinge[k].transpose().lazyProduct(projected);
    const Eigen::LLT<HingeSquare> cholesky(d);
    for (int i = 0; i < dofs; ++i) inverse.col(i) = cholesky.solve(JointVector::Unit(dofs, i));
    const HingeMatrix gain = projected.lazyProduct(inverse);
    inertia_plus.noalias() -= gain.lazyProduct(projected.transpose());
    if (with_forces) {
      JointVector residual = tau.segment(offset, dofs);
      residual.noalias() -= data.hinge[k].transpose() * force;
      ff.scaled_innovation[k].noalias() = inverse * residual;
      ff.residual_force_plus[k].noalias() += projected * ff.scaled_innovation[k];
    }
  }
}

// The dual scatter (Algorithms 3.1-3.2 on a tree): for a child k of p, the parent side of k at
// O_p is Y = P(p) + S(p) - phi P+(k) phi* (all of p's articulated inertia but k's sub-tree), with
// bias y = z(p) - P(p) a(p) + z_s(p) - phi z+(k); moved to O_k (S+ = phi^-1 Y phi^-*, z_s+ =
// phi^-1 y) and articulated through hinge k seen from the child: S = S+ - S+ H* D_s^-1 H S+,
// z_s = z_s+ - S+ H* D_s^-1 (T + H z_s+) - S a(k), D_s = H S+ H*. A floating base has the
// world on its parent side through a free joint: S = 0, z_s = -T.
void dual_scatter(const RigidBodyModel& model, const RigidBodyData& data,
                  const Eigen::Ref<const Eigen::VectorXd>& tau, bool with_forces,
                  FreeFlyingData& ff) {
  const Forest& forest = model.forest();
  // Parents before children: post-order backwards (sequential in a canonical numbering).
  // Backwards by index (clang 14 cannot compile libstdc++ 12's views::reverse of a span).
  const std::span<const int> post_order = forest.post_order();
  for (auto position = post_order.rbegin(); position != post_order.rend(); ++position) {
    const int k = *position;
    const int p = forest.parent(k), dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    Matrix6d& dual = ff.dual_inertia[k];
    Vector6d& dual_force = ff.dual_residual_force[k];
    if (p == Forest::kNone) {
      dual.setZero();
      if (with_forces) dual_force = -tau.segment<6>(offset);
    } else {
      const Matrix6d& phi = data.phi[k];
      const Matrix6d inverse_phi = inverse_rigid_body_transform(phi);
      const Matrix6d parent_side = ff.articulated_inertia[p] + ff.dual_inertia[p] -
                                   phi * ff.articulated_inertia_plus[k] * phi.transpose();
      const Matrix6d dual_plus = inverse_phi * parent_side * inverse_phi.transpose();
      dual = dual_plus;
      Vector6d dual_force_plus = Vector6d::Zero();
      if (with_forces) {
        const Vector6d parent_bias = ff.residual_force[p] -
                                     ff.articulated_inertia[p] * data.coriolis.segment<6>(6 * p) +
                                     ff.dual_residual_force[p] - phi * ff.residual_force_plus[k];
        dual_force_plus = inverse_phi * parent_bias;
        dual_force = dual_force_plus;
      }
      if (dofs > 0) {
        const HingeMatrix projected = dual_plus.lazyProduct(data.hinge[k]);
        const HingeSquare d = data.hinge[k].transpose().lazyProduct(projected);
        const Eigen::LLT<HingeSquare> cholesky(d);
        HingeMatrix gain(6, dofs);  // S+ H* D_s^-1
        for (int i = 0; i < 6; ++i)
          gain.row(i) = cholesky.solve(projected.row(i).transpose()).transpose();
        dual.noalias() -= gain.lazyProduct(projected.transpose());
        if (with_forces) {
          JointVector hinge_force = tau.segment(offset, dofs);
          hinge_force.noalias() += data.hinge[k].transpose() * dual_force_plus;
          dual_force.noalias() -= gain * hinge_force;
        }
      }
      if (with_forces) dual_force.noalias() -= dual * data.coriolis.segment<6>(6 * k);
    }
  }
}

void check_free_flying(const RigidBodyModel& model) {
  for (const int k : model.forest().bases())
    if (model.joint_geometry(k).type != JointType::kFloating)
      throw std::invalid_argument("free-flying dynamics: joint '" +
                                  model.mechanism().joints[k].name +
                                  "' attaches a base link to the world but is not floating");
}

}  // namespace

FreeFlyingData::FreeFlyingData(const RigidBodyModel& model) {
  check_free_flying(model);
  const int nodes = model.node_count();
  articulated_inertia.assign(nodes, Matrix6d::Zero());
  articulated_inertia_plus.assign(nodes, Matrix6d::Zero());
  residual_force.assign(nodes, Vector6d::Zero());
  residual_force_plus.assign(nodes, Vector6d::Zero());
  dual_inertia.assign(nodes, Matrix6d::Zero());
  dual_residual_force.assign(nodes, Vector6d::Zero());
  operational_space_inertia.assign(nodes, Matrix6d::Zero());
  projected_inertia.resize(nodes);
  innovations_inverse.resize(nodes);
  scaled_innovation.resize(nodes);
  for (int k = 0; k < nodes; ++k) {
    const int dofs = model.joint_dofs(k);
    projected_inertia[k].setZero(6, dofs);
    innovations_inverse[k].setZero(dofs, dofs);
    scaled_innovation[k].setZero(dofs);
  }
  gyroscopic_with_gravity = Eigen::VectorXd::Zero(6 * nodes);
  acceleration = Eigen::VectorXd::Zero(6 * nodes);
  generalized_acceleration = Eigen::VectorXd::Zero(model.dof_count());
}

const std::vector<Matrix6d>& decoupled_operational_space_inertias(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    const Eigen::Ref<const Eigen::VectorXd>& q) {
  update_positions(model, q, data);
  regular_gather(model, data, data.zero_dofs, false, free_flying);
  dual_scatter(model, data, data.zero_dofs, false, free_flying);
  for (int k = 0; k < model.node_count(); ++k)
    free_flying.operational_space_inertia[k] =
        free_flying.articulated_inertia[k] + free_flying.dual_inertia[k];
  return free_flying.operational_space_inertia;
}

const Eigen::VectorXd& base_invariant_forward_dynamics(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity) {
  if (tau.size() != model.dof_count())
    throw std::invalid_argument("base_invariant_forward_dynamics: size of tau");
  update_kinematics(model, q, qd, data);
  FreeFlyingData& ff = free_flying;
  // Gravity as the forces m g at the centers of mass: b(k) - [c x m g; m g] in link axes.
  for (int k = 0; k < model.node_count(); ++k) {
    const Link& link = model.mechanism().links[model.link_of_node(k)];
    const Eigen::Vector3d weight = link.mass * (data.link_pose[k].linear().transpose() * gravity);
    ff.gyroscopic_with_gravity.segment<3>(6 * k) =
        data.gyroscopic.segment<3>(6 * k) - link.center_of_mass.cross(weight);
    ff.gyroscopic_with_gravity.segment<3>(6 * k + 3) =
        data.gyroscopic.segment<3>(6 * k + 3) - weight;
  }
  regular_gather(model, data, tau, true, ff);
  dual_scatter(model, data, tau, true, ff);
  // Lemma 3.2 (Eq. 25) link by link, then Eq. 26 for the hinge accelerations.
  for (int k = 0; k < model.node_count(); ++k) {
    const Matrix6d system_inertia = ff.articulated_inertia[k] + ff.dual_inertia[k];
    const Vector6d system_force = ff.residual_force[k] + ff.dual_residual_force[k] -
                                  ff.articulated_inertia[k] * data.coriolis.segment<6>(6 * k);
    ff.acceleration.segment<6>(6 * k) = -Eigen::LLT<Matrix6d>(system_inertia).solve(system_force);
  }
  for (int k = 0; k < model.node_count(); ++k) {
    const int p = model.forest().parent(k), dofs = model.joint_dofs(k),
              offset = model.joint_dof_offset(k);
    if (dofs == 0) continue;
    const Vector6d alpha_plus =
        p == Forest::kNone ? Vector6d::Zero()
                           : Vector6d(data.phi[k].transpose() * ff.acceleration.segment<6>(6 * p));
    JointVector projected_acceleration = ff.projected_inertia[k].transpose() * alpha_plus;
    ff.generalized_acceleration.segment(offset, dofs) =
        ff.scaled_innovation[k] - ff.innovations_inverse[k] * projected_acceleration;
  }
  return ff.generalized_acceleration;
}

}  // namespace skograph

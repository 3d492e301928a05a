#include "skograph/rigid/free_flying.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <stdexcept>
#include <thread>

#include "skograph/rigid/rigid_kernels.hpp"

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

// The regular articulated-body gather (part II Lemma 7, Eq. 33 and Eq. 58a-d; the paper's
// Algorithms 2.2-2.3) keeping both P and P+ (and z, z+ when with_forces), and each node's
// contribution to its parent, phi P+ phi* and phi z+, which the dual sweep takes from the
// siblings of a node; published (ready[k] = generation) for a dual sweep on another thread.
void regular_gather(const RigidBodyModel& model, const RigidBodyData& data,
                    const Eigen::Ref<const Eigen::VectorXd>& tau, bool with_forces,
                    FreeFlyingData& ff) {
  const Forest& forest = model.forest();
  for (const int k : forest.post_order()) {
    Matrix6d& inertia = ff.articulated_inertia[k];
    Vector6d& force = ff.residual_force[k];
    inertia = model.link_inertia(k);
    for (const int j : forest.children(k)) inertia += ff.transported_inertia_plus[j];
    if (with_forces) {
      force = ff.gyroscopic_with_gravity.segment<6>(6 * k);
      for (const int j : forest.children(k)) force += ff.transported_force_plus[j];
      force.noalias() += inertia * data.coriolis.segment<6>(6 * k);
    }
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    Matrix6d& inertia_plus = ff.articulated_inertia_plus[k];
    inertia_plus = inertia;
    ff.residual_force_plus[k] = force;
    if (dofs > 0) {
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
    if (forest.parent(k) != Forest::kNone) {
      ff.transported_inertia_plus[k].noalias() =
          data.phi[k] * inertia_plus.lazyProduct(data.phi[k].transpose());
      if (with_forces)
        ff.transported_force_plus[k].noalias() = data.phi[k] * ff.residual_force_plus[k];
    }
    ff.ready[static_cast<std::size_t>(k)].store(ff.generation, std::memory_order_release);
  }
}

// The dual sweep (Algorithms 3.1-3.2 on a tree), base to tips, its own recursion: for a child k
// of p the parent side of hinge k is the lump of p, p's own parent side S(p), z_s(p) and p's other
// children's sub-trees (phi P+ phi*, phi z+ of the regular sweep: a serial chain has none, so
// there the two sweeps are independent, as in the paper; on a tree a branch waits for its
// siblings), at O_p: Y = M(p) + S(p) + sum phi P+ phi*, y = b(p) + z_s(p) + sum phi z+. Moved to
// O_k, S+ = phi^-1 Y phi^-* and z_s+ = phi^-1 y (the parent side rigidly at hinge k), then
// articulated through hinge k as seen from the child: D_s = H S+ H*, S = S+ - S+ H* D_s^-1 H S+,
// z_s = z_s+ - S+ H* D_s^-1 (T + H z_s+) - S a(k). A floating base has the world on its parent
// side through a free joint: S = 0, z_s = -T.
void dual_sweep(const RigidBodyModel& model, const RigidBodyData& data,
                const Eigen::Ref<const Eigen::VectorXd>& tau, bool with_forces,
                FreeFlyingData& ff) {
  const Forest& forest = model.forest();
  auto wait_for = [&](int j) {
    while (ff.ready[static_cast<std::size_t>(j)].load(std::memory_order_acquire) != ff.generation)
      std::this_thread::yield();
  };
  // Parents before children: post-order backwards.
  const std::span<const int> post_order = forest.post_order();
  for (auto position = post_order.rbegin(); position != post_order.rend(); ++position) {
    const int k = *position;
    const int p = forest.parent(k), dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    Matrix6d& dual = ff.dual_inertia[k];
    Vector6d& dual_force = ff.dual_residual_force[k];
    if (p == Forest::kNone) {
      dual.setZero();
      if (with_forces) dual_force = -tau.segment<6>(offset);
      continue;
    }
    Matrix6d parent_side = model.link_inertia(p) + ff.dual_inertia[p];
    Vector6d parent_bias = Vector6d::Zero();
    if (with_forces)
      parent_bias = ff.gyroscopic_with_gravity.segment<6>(6 * p) + ff.dual_residual_force[p];
    for (const int sibling : forest.children(p)) {
      if (sibling == k) continue;
      wait_for(sibling);
      parent_side += ff.transported_inertia_plus[sibling];
      if (with_forces) parent_bias += ff.transported_force_plus[sibling];
    }
    const Matrix6d inverse_phi = inverse_rigid_body_transform(data.phi[k]);
    Matrix6d& dual_plus = ff.dual_inertia_plus[k];
    dual_plus.noalias() = inverse_phi * parent_side.lazyProduct(inverse_phi.transpose());
    dual = dual_plus;
    Vector6d& dual_force_plus = ff.dual_residual_force_plus[k];
    if (with_forces) {
      dual_force_plus.noalias() = inverse_phi * parent_bias;
      dual_force = dual_force_plus;
    }
    if (dofs > 0) {
      const HingeMatrix projected = dual_plus.lazyProduct(data.hinge[k]);
      const HingeSquare d = data.hinge[k].transpose().lazyProduct(projected);
      const Eigen::LLT<HingeSquare> cholesky(d);
      HingeSquare& inverse = ff.dual_innovations_inverse[k];
      for (int i = 0; i < dofs; ++i) inverse.col(i) = cholesky.solve(JointVector::Unit(dofs, i));
      HingeMatrix& gain = ff.dual_gain[k];  // S+ H* D_s^-1
      gain.noalias() = projected * inverse;
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

// Step 3 for the nodes [begin, end), link by link and independently: Lemma 3.2 (Eq. 25) for
// alpha(k) and alpha+(k), then
// Eq. 26 for the hinge accelerations. alpha+(k) is the parent side's acceleration at O_k: the
// subtree pulls with f = P+ alpha+ + z+ and the parent side with -f = S+ alpha+ + z_s+ (our
// z(k) carries the hinge's Coriolis term, so the paper's a_s vanishes there); the sum of the
// two inertias is Lambda of the parent link moved to O_k, positive definite on a free flyer.
void link_accelerations(const RigidBodyModel& model, const RigidBodyData& data, int begin, int end,
                        FreeFlyingData& ff) {
  for (int k = begin; k < end; ++k) {
    const Matrix6d system_inertia = ff.articulated_inertia[k] + ff.dual_inertia[k];
    const Vector6d system_force = ff.residual_force[k] + ff.dual_residual_force[k] -
                                  ff.articulated_inertia[k] * data.coriolis.segment<6>(6 * k);
    ff.acceleration.segment<6>(6 * k) = -Eigen::LLT<Matrix6d>(system_inertia).solve(system_force);
    if (model.forest().parent(k) == Forest::kNone) {
      ff.acceleration_plus.segment<6>(6 * k).setZero();  // the world, gravity being forces
    } else {
      const Matrix6d inertia_plus = ff.articulated_inertia_plus[k] + ff.dual_inertia_plus[k];
      const Vector6d force_plus = ff.residual_force_plus[k] + ff.dual_residual_force_plus[k];
      ff.acceleration_plus.segment<6>(6 * k) =
          -Eigen::LLT<Matrix6d>(inertia_plus).solve(force_plus);
    }
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    if (dofs == 0) continue;
    const JointVector projected_acceleration =
        ff.projected_inertia[k].transpose() * ff.acceleration_plus.segment<6>(6 * k);
    ff.generalized_acceleration.segment(offset, dofs) =
        ff.scaled_innovation[k] - ff.innovations_inverse[k] * projected_acceleration;
  }
}

// Step 2 (both sweeps) and, with forces, step 3. On two threads: the dual sweep on the second
// one (the paper's step 2 (a) and (b) simultaneously), then each thread half of step 3 once the
// regular sweep is done.
void sweeps_and_accelerations(const RigidBodyModel& model, const RigidBodyData& data,
                              const Eigen::Ref<const Eigen::VectorXd>& tau, bool with_forces,
                              int threads, FreeFlyingData& ff) {
  ++ff.generation;
  const int nodes = model.node_count();
  if (threads < 2) {
    regular_gather(model, data, tau, with_forces, ff);
    dual_sweep(model, data, tau, with_forces, ff);
    if (with_forces) link_accelerations(model, data, 0, nodes, ff);
    return;
  }
  std::atomic<bool> regular_done{false}, dual_done{false};
  auto wait_for = [](const std::atomic<bool>& done) {
    while (!done.load(std::memory_order_acquire)) std::this_thread::yield();
  };
  std::thread helper([&] {
    dual_sweep(model, data, tau, with_forces, ff);
    dual_done.store(true, std::memory_order_release);
    if (!with_forces) return;
    wait_for(regular_done);
    link_accelerations(model, data, nodes / 2, nodes, ff);
  });
  regular_gather(model, data, tau, with_forces, ff);
  regular_done.store(true, std::memory_order_release);
  if (with_forces) {
    wait_for(dual_done);
    link_accelerations(model, data, 0, nodes / 2, ff);
  }
  helper.join();
}

// Gravity as the forces m g at the centers of mass: b(k) - [c x m g; m g] in link axes.
void gravity_as_forces(const RigidBodyModel& model, const RigidBodyData& data,
                       const Eigen::Vector3d& gravity, FreeFlyingData& ff) {
  for (int k = 0; k < model.node_count(); ++k) {
    const Link& link = model.mechanism().links[model.link_of_node(k)];
    const Eigen::Vector3d weight =
        link.mass * (link_poses(model, data)[k].linear().transpose() * gravity);
    ff.gyroscopic_with_gravity.segment<3>(6 * k) =
        data.gyroscopic.segment<3>(6 * k) - link.center_of_mass.cross(weight);
    ff.gyroscopic_with_gravity.segment<3>(6 * k + 3) =
        data.gyroscopic.segment<3>(6 * k + 3) - weight;
  }
}

void check_free_flying(const RigidBodyModel& model) {
  if (model.has_flexible_links())  // its recursions walk rigid 6-vector nodes
    throw std::invalid_argument("free-flying dynamics: the tree has flexible links");
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
  transported_inertia_plus.assign(nodes, Matrix6d::Zero());
  transported_force_plus.assign(nodes, Vector6d::Zero());
  dual_inertia.assign(nodes, Matrix6d::Zero());
  dual_inertia_plus.assign(nodes, Matrix6d::Zero());
  dual_residual_force.assign(nodes, Vector6d::Zero());
  dual_residual_force_plus.assign(nodes, Vector6d::Zero());
  dual_compliance.assign(nodes, Matrix6d::Zero());
  ready = std::vector<std::atomic<unsigned>>(static_cast<std::size_t>(nodes));
  operational_space_inertia.assign(nodes, Matrix6d::Zero());
  projected_inertia.resize(nodes);
  innovations_inverse.resize(nodes);
  scaled_innovation.resize(nodes);
  dual_gain.resize(nodes);
  dual_innovations_inverse.resize(nodes);
  for (int k = 0; k < nodes; ++k) {
    const int dofs = model.joint_dofs(k);
    projected_inertia[k].setZero(6, dofs);
    innovations_inverse[k].setZero(dofs, dofs);
    scaled_innovation[k].setZero(dofs);
    dual_gain[k].setZero(6, dofs);
    dual_innovations_inverse[k].setZero(dofs, dofs);
  }
  gyroscopic_with_gravity = Eigen::VectorXd::Zero(6 * nodes);
  acceleration = Eigen::VectorXd::Zero(6 * nodes);
  acceleration_plus = Eigen::VectorXd::Zero(6 * nodes);
  generalized_acceleration = Eigen::VectorXd::Zero(model.dof_count());
}

const std::vector<Matrix6d>& decoupled_operational_space_inertias(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    const Eigen::Ref<const Eigen::VectorXd>& q) {
  update_positions(model, q, data);
  sweeps_and_accelerations(model, data, data.zero_dofs, false, 1, free_flying);
  for (int k = 0; k < model.node_count(); ++k)
    free_flying.operational_space_inertia[k] =
        free_flying.articulated_inertia[k] + free_flying.dual_inertia[k];
  return free_flying.operational_space_inertia;
}

const Eigen::VectorXd& base_invariant_forward_dynamics(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity, int threads) {
  if (tau.size() != model.dof_count())
    throw std::invalid_argument("base_invariant_forward_dynamics: size of tau");
  update_kinematics(model, q, qd, data);
  FreeFlyingData& ff = free_flying;
  gravity_as_forces(model, data, gravity, ff);
  sweeps_and_accelerations(model, data, tau, true, threads, ff);
  return ff.generalized_acceleration;
}

// Eq. 36 on a tree: Upsilon from the dual quantities, tips to base. A leaf t starts from
// Upsilon(t) = Lambda(t)^-1 = [P(t) + S(t)]^-1 (the dual model's base, P(t) = M(t)); then across
// hinge k towards the parent, with tau_s = I - G_s H (G_s = S+ H* D_s^-1):
//   Upsilon+(k) = tau_s* Upsilon(k) tau_s + H* D_s^-1 H,   Upsilon(p) = phi^-* Upsilon+(k) phi^-1,
// from p's first child (every child gives the same Upsilon(p): it does not depend on the base).
const std::vector<Matrix6d>& dual_operational_space_compliances(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    const Eigen::Ref<const Eigen::VectorXd>& q) {
  FreeFlyingData& ff = free_flying;
  decoupled_operational_space_inertias(model, data, ff, q);
  const Forest& forest = model.forest();
  for (const int k : forest.post_order()) {
    Matrix6d& upsilon = ff.dual_compliance[k];
    const std::span<const int> children = forest.children(k);
    if (children.empty()) {
      upsilon = ff.operational_space_inertia[k].llt().solve(Matrix6d::Identity());
      continue;
    }
    const int c = children.front();
    Matrix6d upsilon_plus = ff.dual_compliance[c];
    if (model.joint_dofs(c) > 0) {
      Matrix6d dual_projection = Matrix6d::Identity();  // tau_s = I - G_s H
      dual_projection.noalias() -= ff.dual_gain[c] * data.hinge[c].transpose();
      upsilon_plus = dual_projection.transpose() * ff.dual_compliance[c] * dual_projection;
      upsilon_plus.noalias() +=
          data.hinge[c] * ff.dual_innovations_inverse[c] * data.hinge[c].transpose();
    }
    const Matrix6d inverse_phi = inverse_rigid_body_transform(data.phi[c]);
    upsilon.noalias() = inverse_phi.transpose() * upsilon_plus * inverse_phi;
  }
  return ff.dual_compliance;
}

// Algorithm 3.4: no joint coordinates. Step 1 from each link's own state and its parent's: the
// relative transform X_p_k = pose(p)^-1 pose(k) (phi(p, k)), the hinge's relative velocity
// V(k) - phi*(p, k) V(p), a(k) = V(k) x that, b(k) = V(k) x* M(k) V(k); steps 2-3 as in
// Algorithm 3.3.
const Eigen::VectorXd& decoupled_link_accelerations(
    const RigidBodyModel& model, RigidBodyData& data, FreeFlyingData& free_flying,
    std::span<const Eigen::Isometry3d> poses, const Eigen::Ref<const Eigen::VectorXd>& velocities,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity, int threads) {
  const int nodes = model.node_count();
  if (static_cast<int>(poses.size()) != nodes || velocities.size() != 6 * nodes ||
      tau.size() != model.dof_count())
    throw std::invalid_argument(
        "decoupled_link_accelerations: one pose and six velocities per node, one tau per dof");
  for (int k = 0; k < nodes; ++k)
    if (model.joint_geometry(k).type == JointType::kPlanar)
      throw std::invalid_argument("decoupled_link_accelerations: joint '" +
                                  model.mechanism().joints[k].name +
                                  "' is planar: its hinge map needs its coordinates");
  data.phi_valid = false;
  data.sko_synchronized = false;
  for (const int k : model.parents_first()) {
    const int p = model.parents()[k];
    const Eigen::Isometry3d relative_pose =
        p < 0 ? poses[static_cast<std::size_t>(k)]
              : Eigen::Isometry3d(poses[static_cast<std::size_t>(p)].inverse() *
                                  poses[static_cast<std::size_t>(k)]);
    data.rotation[k] = relative_pose.linear();
    data.translation[k] = relative_pose.translation();
    data.link_pose[k] = poses[static_cast<std::size_t>(k)];
    const Vector6d velocity = velocities.segment<6>(6 * k);
    Vector6d relative = velocity;
    if (p >= 0)
      relative -= kernels::motion_to_child(data.rotation[k], data.translation[k],
                                           velocities.segment<6>(6 * p));
    data.velocity.segment<6>(6 * k) = velocity;
    data.coriolis.segment<6>(6 * k) = kernels::cross_motion(velocity, relative);
    data.gyroscopic.segment<6>(6 * k) = gyroscopic_force(model.link_inertia(k), velocity);
  }
  data.poses_valid = true;
  rigid_body_transforms(model, data);
  gravity_as_forces(model, data, gravity, free_flying);
  sweeps_and_accelerations(model, data, tau, true, threads, free_flying);
  return free_flying.acceleration;
}

}  // namespace skograph

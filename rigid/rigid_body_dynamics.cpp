// The rigid-body recursions of rigid/rigid_body_model.hpp: kinematics, inverse dynamics (part II
// Algorithm 3.1), the mass matrix by composite inertias (Algorithms 4.1-4.2) and forward dynamics
// by articulated-body inertias (Algorithm 6.1), specialized to rigid nodes (part II section 8,
// "optimize algorithms"; rigid/rigid_kernels.hpp): transforms as (R, l), inertias as (m, h, J),
// 1-dof hinges as one 6-vector, each recursion one walk over the model's plain arrays in the order
// it needs (parents first, or back). The generic operators paths (..._through_operators) stay as
// the reference the tests compare with.
#include <cmath>
#include <optional>
#include <span>
#include <stdexcept>

#include "articulated_step.hpp"
#include "axis_turn.hpp"
#include "configuration_walk.hpp"
#include "flexible_nodes.hpp"
#include "kinematics_detail.hpp"
#include "size_checks.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

using kernels::add_articulated_inertia_to_parent;
using kernels::add_force_to_parent;
using kernels::cross_force;
using kernels::cross_motion;
using kernels::motion_to_child;
using kernels::RigidInertia;
using rigid_detail::check_size;
using rigid_detail::compose_link_pose;
using rigid_detail::ConfigurationWalk;
using rigid_detail::force_to_parent;
using rigid_detail::to_child;
using rigid_detail::unit_hinge;

namespace {

[[noreturn]] void throw_singular_hinge(const RigidBodyModel& model, int node) {
  throw SingularMassMatrixError(
      node, articulated::singular_joint_message(model.mechanism().joints[node].name));
}

// H*(k) qd(k), with H*(k) at q already (ConfigurationWalk::hinge).
Vector6d relative_velocity(const RigidBodyModel& model, const RigidBodyData& data, int k,
                           const double* qdk) {
  const int dofs = model.joint_dofs(k);
  if (dofs == 1) return model.hinge_column(k) * qdk[0];
  Vector6d relative = Vector6d::Zero();
  for (int i = 0; i < dofs; ++i) relative.noalias() += data.hinge[k].col(i) * qdk[i];
  return relative;
}

// The world's acceleration -g seen from a base node (conventions.md).
Vector6d base_acceleration_of(const RigidBodyData& data, int k, const Eigen::Vector3d& gravity) {
  Vector6d a;
  a.head<3>().setZero();
  a.tail<3>().noalias() = -(data.rotation[k].transpose() * gravity);  // a base's R is its pose
  return a;
}

// Inverse dynamics with optional external link forces (part II Algorithm 3.1): one walk parents
// first for X, V, a(k), alpha and f = M alpha + V x* M V - f_ext, one back for T = H f and the
// gather f(p) += phi f(k).
const Eigen::VectorXd& newton_euler(const RigidBodyModel& model, RigidBodyData& data,
                                    const Eigen::Ref<const Eigen::VectorXd>& q,
                                    const Eigen::Ref<const Eigen::VectorXd>& qd,
                                    const Eigen::Ref<const Eigen::VectorXd>* qdd,
                                    const Eigen::Vector3d& gravity,
                                    const Eigen::Ref<const Eigen::VectorXd>* link_forces) {
  const std::vector<int>& parents = model.parents();
  ConfigurationWalk walk(model, data, false);
  for (const int k : model.parents_first()) {
    const int offset = model.joint_dof_offset(k), dofs = model.joint_dofs(k);
    const double* qk = q.data() + offset;
    walk.transform(k, qk);
    const int p = parents[k];
    const Vector6d relative = relative_velocity(model, data, k, qd.data() + offset);
    Vector6d velocity = relative, acceleration;
    if (p < 0) {
      acceleration = base_acceleration_of(data, k, gravity);
    } else {
      velocity += to_child(model, data, k, data.velocity.segment<6>(6 * p));
      acceleration = to_child(model, data, k, data.acceleration.segment<6>(6 * p));
    }
    Vector6d coriolis = cross_motion(velocity, relative);
    if (model.joint_geometry(k).type == JointType::kPlanar)
      coriolis += joint_velocity_product(model.joint_geometry(k), qk, qd.data() + offset);
    acceleration += coriolis;
    if (qdd != nullptr) {
      if (dofs == 1) {
        acceleration.noalias() += model.hinge_column(k) * (*qdd)[offset];
      } else {
        for (int i = 0; i < dofs; ++i)
          acceleration.noalias() += data.hinge[k].col(i) * (*qdd)[offset + i];
      }
    }
    data.velocity.segment<6>(6 * k) = velocity;
    data.coriolis.segment<6>(6 * k) = coriolis;
    data.acceleration.segment<6>(6 * k) = acceleration;
    const RigidInertia& inertia = model.rigid_inertia(k);
    Vector6d force = inertia.times(acceleration) + cross_force(velocity, inertia.times(velocity));
    if (link_forces != nullptr) force -= link_forces->segment<6>(6 * model.link_of_node(k));
    data.force.segment<6>(6 * k) = force;
  }
  const std::vector<int>& order = model.parents_first();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = parents[k];
    const int offset = model.joint_dof_offset(k), dofs = model.joint_dofs(k);
    const auto force = data.force.segment<6>(6 * k);
    if (dofs == 1) {
      data.generalized_force[offset] = model.hinge_column(k).dot(force);
    } else if (dofs > 1) {
      data.generalized_force.segment(offset, dofs).noalias() = data.hinge[k].transpose() * force;
    }
    if (p >= 0) {
      Vector6d parent_force = data.force.segment<6>(6 * p);
      force_to_parent(model, data, k, force, parent_force);
      data.force.segment<6>(6 * p) = parent_force;
    }
  }
  return data.generalized_force;
}

}  // namespace

void update_positions(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                      RigidBodyData& data) {
  if (q.size() != model.dof_count()) throw std::invalid_argument("update_positions: q size");
  if (model.has_flexible_links())
    return rigid_detail::update_flexible_nodes(model, q, nullptr, data);
  ConfigurationWalk walk(model, data);
  for (const int k : model.parents_first()) {
    const double* qk = q.data() + model.joint_dof_offset(k);
    walk.transform(k, qk);
  }
  rigid_body_transforms(model, data);
}

const std::vector<Eigen::Isometry3d>& link_poses(const RigidBodyModel& model,
                                                 const RigidBodyData& data) {
  if (data.poses_valid) return data.link_pose;
  for (const int k : model.parents_first()) compose_link_pose(model, data, k);
  data.poses_valid = true;
  return data.link_pose;
}

void rigid_body_transforms(const RigidBodyModel& model, RigidBodyData& data) {
  if (data.phi_valid) return;
  for (int k = 0; k < model.node_count(); ++k)
    if (model.parents()[k] >= 0)
      data.phi[k] = rigid_body_transform(data.rotation[k], data.translation[k]);
  data.phi_valid = true;
}

void synchronize_sko_model(const RigidBodyModel& model, RigidBodyData& data) {
  // A model with flexible links fills data.sko as it walks (update_flexible_nodes).
  if (data.sko_synchronized || model.has_flexible_links()) return;
  rigid_body_transforms(model, data);
  for (int k = 0; k < model.node_count(); ++k) {
    if (model.parents()[k] >= 0) data.sko.weight(k) = data.phi[k];
    if (model.joint_dofs(k) > 0) data.sko.hinge_map(k) = data.hinge[k].transpose();
  }
  data.sko_synchronized = true;
}

void rigid_detail::update_motion(const RigidBodyModel& model,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data) {
  if (q.size() != model.dof_count()) throw std::invalid_argument("update_kinematics: q size");
  if (qd.size() != model.dof_count()) throw std::invalid_argument("update_kinematics: qd size");
  if (model.has_flexible_links()) return update_flexible_nodes(model, q, &qd, data);
  {
    ConfigurationWalk walk(model, data);
    for (const int k : model.parents_first())
      walk.transform(k, q.data() + model.joint_dof_offset(k));
  }
  for (const int k : model.parents_first()) {
    const int offset = model.joint_dof_offset(k);
    const Vector6d relative = relative_velocity(model, data, k, qd.data() + offset);
    Vector6d velocity = relative;
    const int p = model.parents()[k];
    if (p >= 0) velocity += to_child(model, data, k, data.velocity.segment<6>(6 * p));
    Vector6d coriolis = cross_motion(velocity, relative);
    if (model.joint_geometry(k).type == JointType::kPlanar)
      coriolis +=
          joint_velocity_product(model.joint_geometry(k), q.data() + offset, qd.data() + offset);
    data.velocity.segment<6>(6 * k) = velocity;
    data.coriolis.segment<6>(6 * k) = coriolis;
    data.gyroscopic.segment<6>(6 * k) = gyroscopic_force(model.link_inertia(k), velocity);
  }
}

void update_kinematics(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data) {
  rigid_detail::update_motion(model, q, qd, data);
  rigid_body_transforms(model, data);
}

namespace {

// -g in each base node's frame, over forest().bases() (the generic operators' layout).
void fill_base_acceleration(const RigidBodyModel& model, const Eigen::Vector3d& gravity,
                            RigidBodyData& data) {
  const std::span<const int> bases = model.forest().bases();
  const BlockLayout& nodes = model.structure()->node;
  int offset = 0;  // m_base entries per base: a flexible base's modal rows stay zero
  for (const int base : bases) {
    data.base_acceleration.segment<6>(offset) = base_acceleration_of(data, base, gravity);
    offset += nodes.dim(base);
  }
}

// Inverse dynamics through the generic operators with gravity and optional external link forces
// (b(k) -= f_ext on the node's rigid rows): the path of every model with flexible links.
const Eigen::VectorXd& operators_inverse_dynamics(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
    const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Ref<const Eigen::VectorXd>& qdd,
    const Eigen::Vector3d& gravity, const Eigen::Ref<const Eigen::VectorXd>* link_forces) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(qdd, model.dof_count(), "qdd");
  update_kinematics(model, q, qd, data);
  fill_base_acceleration(model, gravity, data);
  synchronize_sko_model(model, data);
  if (model.has_flexible_links()) rigid_detail::add_modal_gravity(model, q, gravity, data);
  if (link_forces != nullptr)
    for (int k = 0; k < model.node_count(); ++k)
      data.gyroscopic.segment<6>(data.sko.structure().node.offset(k)) -=
          link_forces->segment<6>(6 * model.link_of_node(k));
  return inverse_dynamics(data.sko, qd, qdd, data.coriolis, data.gyroscopic, data.base_acceleration,
                          inverse_workspace(data));
}

}  // namespace

const Eigen::VectorXd& inverse_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                        const Eigen::Vector3d& gravity) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(qdd, model.dof_count(), "qdd");
  if (model.has_flexible_links())
    return operators_inverse_dynamics(model, data, q, qd, qdd, gravity, nullptr);
  return newton_euler(model, data, q, qd, &qdd, gravity, nullptr);
}

const Eigen::VectorXd& inverse_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                        const Eigen::Vector3d& gravity,
                                        const Eigen::Ref<const Eigen::VectorXd>& link_forces) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(qdd, model.dof_count(), "qdd");
  check_size(link_forces, 6 * model.link_count(), "link_forces");
  if (model.has_flexible_links())
    return operators_inverse_dynamics(model, data, q, qd, qdd, gravity, &link_forces);
  return newton_euler(model, data, q, qd, &qdd, gravity, &link_forces);
}

const Eigen::VectorXd& inverse_dynamics_through_operators(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
    const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Ref<const Eigen::VectorXd>& qdd,
    const Eigen::Vector3d& gravity) {
  return operators_inverse_dynamics(model, data, q, qd, qdd, gravity, nullptr);
}

const Eigen::VectorXd& bias_forces(const RigidBodyModel& model, RigidBodyData& data,
                                   const Eigen::Ref<const Eigen::VectorXd>& q,
                                   const Eigen::Ref<const Eigen::VectorXd>& qd,
                                   const Eigen::Vector3d& gravity) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  if (model.has_flexible_links())
    return operators_inverse_dynamics(model, data, q, qd, data.zero_dofs, gravity, nullptr);
  return newton_euler(model, data, q, qd, nullptr, gravity, nullptr);
}

void update_sko_dynamics_state(const RigidBodyModel& model,
                               const Eigen::Ref<const Eigen::VectorXd>& q,
                               const Eigen::Ref<const Eigen::VectorXd>& qd,
                               const Eigen::Vector3d& gravity, RigidBodyData& data) {
  update_kinematics(model, q, qd, data);
  synchronize_sko_model(model, data);
  fill_base_acceleration(model, gravity, data);
  if (model.has_flexible_links()) rigid_detail::add_modal_gravity(model, q, gravity, data);
  // a is propagated by A*, so the world's acceleration -g added to a(base) accelerates the forest.
  data.coriolis_with_gravity = data.coriolis;
  const BlockLayout& nodes = model.structure()->node;
  int offset = 0;
  for (const int base : model.forest().bases()) {
    data.coriolis_with_gravity.segment<6>(nodes.offset(base)) +=
        data.base_acceleration.segment<6>(offset);
    offset += nodes.dim(base);
  }
}

const Eigen::VectorXd& forward_dynamics_through_operators(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
    const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Ref<const Eigen::VectorXd>& tau,
    const Eigen::Vector3d& gravity) {
  check_size(tau, model.dof_count(), "tau");
  update_sko_dynamics_state(model, q, qd, gravity, data);
  return forward_dynamics(data.sko, qd, tau, data.coriolis_with_gravity, data.gyroscopic,
                          forward_workspace(data));
}

namespace {

// Parents first: the link poses and, in world axes about each tree's base link origin
// (data.tree_origin) or, OnePoint, about the first base link's origin for every tree: H*(k),
// V(k) = V(p) + H* qd and a(k) = V x H* qd (with a planar joint's velocity product); WithInertia,
// also P(k) = M(k) and z(k) = V x* M V (data.articulated_inertia, data.residual_force). The first
// pass of forward_dynamics below, and the closed chains' motion (rigid_detail::world_motion).
template <bool OnePoint, bool WithInertia>
[[gnu::always_inline]] inline void world_motion_pass(const RigidBodyModel& model,
                                                     const Eigen::Ref<const Eigen::VectorXd>& q,
                                                     const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                     RigidBodyData& data) {
  const std::vector<int>& order = model.parents_first();
  const std::vector<int>& parents = model.parents();
  ConfigurationWalk walk(model, data);
  for (const int k : order) {
    const int offset = model.joint_dof_offset(k), dofs = model.joint_dofs(k);
    const double* qk = q.data() + offset;
    const double* qdk = qd.data() + offset;
    walk.transform(k, qk);
    const Eigen::Isometry3d& pose = data.link_pose[k];
    const int p = parents[k];
    const Eigen::Vector3d& origin = data.tree_origin[k] =
        p >= 0 ? data.tree_origin[p]
               : (OnePoint && k != order.front() ? data.tree_origin[order.front()]
                                                 : Eigen::Vector3d(pose.translation()));
    const Eigen::Matrix3d R = pose.linear();
    const Eigen::Vector3d l = pose.translation() - origin;
    HingeMatrix& hinge = data.world_hinge[k];
    Vector6d relative;
    if (const int axis = model.coordinate_axis(k); axis != 0) {
      const Eigen::Vector3d w =
          axis > 0 ? Eigen::Vector3d(R.col(axis - 1)) : Eigen::Vector3d(-R.col(-axis - 1));
      hinge.col(0) << w, l.cross(w);
      relative = hinge.col(0) * qdk[0];
    } else if (dofs == 1) {
      hinge.col(0) = kernels::motion_to_outer(R, l, model.hinge_column(k));
      relative = hinge.col(0) * qdk[0];
    } else {
      relative.setZero();
      for (int d = 0; d < dofs; ++d) {
        hinge.col(d) = kernels::motion_to_outer(R, l, data.hinge[k].col(d));
        relative.noalias() += hinge.col(d) * qdk[d];
      }
    }
    const Vector6d velocity = p >= 0 ? Vector6d(data.world_velocity[p] + relative) : relative;
    Vector6d coriolis = cross_motion(velocity, relative);
    if (model.joint_geometry(k).type == JointType::kPlanar)
      coriolis +=
          kernels::motion_to_outer(R, l, joint_velocity_product(model.joint_geometry(k), qk, qdk));
    data.world_velocity[k] = velocity;
    data.world_coriolis[k] = coriolis;
    if constexpr (WithInertia) {
      const RigidInertia inertia = model.rigid_inertia(k).moved(R, l);
      data.articulated_inertia[k] = inertia.matrix();
      data.residual_force[k] = cross_force(velocity, inertia.times(velocity));
    }
  }
}

}  // namespace

void rigid_detail::world_motion(const RigidBodyModel& model,
                                const Eigen::Ref<const Eigen::VectorXd>& q,
                                const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  world_motion_pass<true, false>(model, q, qd, data);
}

// Part II Algorithm 6.1 on rigid nodes, in world axes about the origin of each tree's base link
// (as the closed-chain recursion does about one point, closed_chain/dynamics.cpp): there
// spatial vectors and inertias add without transforms, so a node's P+ and z+ join its parent's as
// they are, and its acceleration is alpha(parent) + a + H* qdd. Parents first: link poses, H*(k),
// V(k) = V(p) + H* qd, a(k) = V x H* qd, P(k) = M(k) and z(k) = V x* M V; children first, the
// gather (Eq. 33, 58a-d): D = H P H*, epsilon = T - H z, nu = D^-1 epsilon, P+ = P - P H* D^-1 H P,
// z+ = z + P+ a + P H* nu, P(p) += P+, z(p) += z+; parents first, the scatter (Eq. 58e-g):
// alpha+ = alpha(p) (the world's -g at a base) + a, qdd = nu - D^-1 (P H*)* alpha+,
// alpha = alpha+ + H* qdd. A floating base's D = P is factored in its own axes (factor_base).
// Massless subtrees keep qdd = 0.
const Eigen::VectorXd& forward_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(tau, model.dof_count(), "tau");
  if (model.has_flexible_links())
    return forward_dynamics_through_operators(model, data, q, qd, tau, gravity);
  world_motion_pass<false, true>(model, q, qd, data);
  const std::vector<int>& order = model.parents_first();
  const std::vector<int>& parents = model.parents();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = parents[k];
    Matrix6d& inertia = data.articulated_inertia[k];
    Vector6d& force = data.residual_force[k];
    const Vector6d& coriolis = data.world_coriolis[k];
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    HingeMatrix& projected = data.projected_inertia[k];
    HingeSquare& inverse = data.innovations_inverse[k];
    JointVector& nu = data.innovation[k];
    data.base_factored[k] = 0;
    if (dofs > 0 && model.carries_no_mass(k)) {
      // A massless subtree: P = 0 and z = 0, D = 0. Its motion exerts no force on the parent, and
      // the dynamics leave its acceleration free: prescribed zero (zero gain and innovation).
      projected.setZero();
      inverse.setZero();
      nu.setZero();
      continue;
    }
    if (p < 0 && dofs == 6 && unit_hinge(model, k)) {
      // D = H P H* = P in the base's own axes, whose origin is the tree's: the world axes seen
      // from them have orientation R^T.
      const Eigen::Matrix3d Rt = data.link_pose[k].linear().transpose();
      Matrix6d local = Matrix6d::Zero();
      Vector6d local_force = Vector6d::Zero();
      add_articulated_inertia_to_parent(Rt, Eigen::Vector3d::Zero(), inertia, local);
      add_force_to_parent(Rt, Eigen::Vector3d::Zero(), force, local_force);
      if (articulated::factor_base(local, local_force, tau.data() + offset, inverse, nu)) {
        data.base_factored[k] = 1;
        inertia = local;
        projected.resize(6, 0);  // no P H* is kept for it (D's factor and epsilon are)
        continue;
      }
    }
    if (dofs > 0) {
      if (!articulated::gather_hinge(inertia, force, data.world_hinge[k], dofs, tau.data() + offset,
                                     coriolis, p >= 0, projected, inverse, nu))
        throw_singular_hinge(model, k);
    } else if (p >= 0) {
      force.noalias() += inertia * coriolis;
    }
    if (p < 0) continue;
    data.articulated_inertia[p] += inertia;
    data.residual_force[p] += force;
  }
  Vector6d world_acceleration = Vector6d::Zero();
  world_acceleration.tail<3>() = -gravity;
  for (const int k : order) {
    const int p = parents[k];
    Vector6d alpha =
        (p < 0 ? world_acceleration : data.world_acceleration[p]) + data.world_coriolis[k];
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    double* qdd = data.generalized_acceleration.data() + offset;
    if (data.base_factored[k]) {
      const Vector6d local =
          motion_to_child(data.link_pose[k].linear(), Eigen::Vector3d::Zero(), alpha);
      articulated::solve_base(data.articulated_inertia[k], data.innovations_inverse[k],
                              data.innovation[k], local, qdd);
      alpha.noalias() += data.world_hinge[k] * Eigen::Map<const Vector6d>(qdd);
    } else if (dofs > 0) {
      articulated::scatter_hinge(data.projected_inertia[k], data.innovations_inverse[k],
                                 data.innovation[k], data.world_hinge[k], dofs, qdd, alpha);
    }
    data.world_acceleration[k] = alpha;
  }
  return data.generalized_acceleration;
}

}  // namespace skograph

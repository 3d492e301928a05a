#include "rigid/rigid_body_model.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>
#include <ranges>
#include <span>
#include <stdexcept>
#include <unordered_set>

namespace skograph {
namespace {

[[noreturn]] void fail(const Mechanism& mechanism, const std::string& problem) {
  std::string where = mechanism.source.empty() ? mechanism.name : mechanism.source;
  if (where.empty()) where = "mechanism";
  throw std::invalid_argument(where + ": " + problem);
}

bool finite(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  return m.allFinite();
}

// Physical consistency (positive semi-definite inertia, triangle inequality) is the readers'
// policy (warn or refuse, io/); the model needs finite numbers, a non-negative mass and a
// symmetric inertia. Massless links are frames on moving joints (carries_no_mass).
void validate_link(const Mechanism& mechanism, const Link& link) {
  const std::string name = "link '" + link.name + "'";
  if (!std::isfinite(link.mass) || !finite(link.center_of_mass) || !finite(link.inertia))
    fail(mechanism, name + " has a non-finite mass, center of mass or inertia");
  if (link.mass < 0.0) fail(mechanism, name + " has negative mass " + std::to_string(link.mass));
  const double scale = link.inertia.cwiseAbs().maxCoeff();
  if ((link.inertia - link.inertia.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale)
    fail(mechanism, name + " has a non-symmetric inertia");
}

void validate_joint(const Mechanism& mechanism, const Joint& joint) {
  const std::string name = "joint '" + joint.name + "'";
  const int links = static_cast<int>(mechanism.links.size());
  if (joint.parent < -1 || joint.parent >= links)
    fail(mechanism, name + " has a parent link index out of range");
  if (joint.child < 0 || joint.child >= links)
    fail(mechanism, name + " has a child link index out of range");
  if (joint.parent == joint.child) fail(mechanism, name + " connects a link to itself");
  if (!finite(joint.origin.matrix()) || !finite(joint.axis))
    fail(mechanism, name + " has a non-finite origin or axis");
  const Eigen::Matrix3d rotation = joint.origin.linear();
  if ((rotation.transpose() * rotation - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() > 1e-9)
    fail(mechanism, name + " has an origin whose rotation is not orthonormal");
  const bool uses_axis = joint.type == JointType::kRevolute ||
                         joint.type == JointType::kContinuous ||
                         joint.type == JointType::kPrismatic || joint.type == JointType::kPlanar;
  if (uses_axis && !(joint.axis.norm() > 1e-12)) fail(mechanism, name + " has a zero-length axis");
}

}  // namespace

RigidBodyModel::RigidBodyModel(Mechanism mechanism) : mechanism_(std::move(mechanism)) {
  const Mechanism& m = mechanism_;
  const int links = link_count(), joints = joint_count();
  if (links == 0) fail(m, "no links");
  for (const Link& link : m.links) validate_link(m, link);
  std::unordered_set<std::string> joint_names;
  node_of_link_.assign(links, -1);
  for (int j = 0; j < joints; ++j) {
    const Joint& joint = m.joints[j];
    validate_joint(m, joint);
    if (!joint_names.insert(joint.name).second)
      fail(m, "two joints are named '" + joint.name + "'");
    if (node_of_link_[joint.child] != -1)
      fail(m, "link '" + m.links[joint.child].name + "' has two parent joints");
    node_of_link_[joint.child] = j;
  }
  for (int l = 0; l < links; ++l)
    if (node_of_link_[l] == -1) fail(m, "link '" + m.links[l].name + "' has no parent joint");

  std::vector<int> parent(joints), node_dims(joints, 6), hinge_dims(joints);
  for (int j = 0; j < joints; ++j) {
    const int parent_link = m.joints[j].parent;
    parent[j] = parent_link == -1 ? Forest::kNone : node_of_link_[parent_link];
    hinge_dims[j] = joint_dof_count(m.joints[j].type);
  }
  Forest forest;
  try {
    forest = Forest(parent);
  } catch (const std::invalid_argument&) {
    fail(m, "the joints form a cycle (no path from some link to the world)");
  }
  structure_ = std::make_shared<const SkoStructure>(std::move(forest), node_dims, hinge_dims);

  for (int j = 0; j < joints; ++j) {
    const Joint& joint = m.joints[j];
    const int dofs = hinge_dims[j];
    if (dofs == 1) dof_names_.push_back(joint.name);
    for (int i = 0; dofs > 1 && i < dofs; ++i)
      dof_names_.push_back(joint.name + ":" + std::to_string(i));
    geometry_.push_back(make_joint_geometry(joint.type, joint.axis));
    const Link& link = m.links[joint.child];
    inertia_.push_back(spatial_inertia(link.mass, link.center_of_mass, link.inertia));
  }
  // Children before parents: a node carries no mass when its link and every link below it have a
  // zero spatial inertia (exactly: massless frames, as the readers give them).
  carries_no_mass_.assign(joints, 1);
  for (const int k : structure_->forest.post_order()) {
    carries_no_mass_[k] = carries_no_mass_[k] && inertia_[k].isZero(0.0);
    const int p = structure_->forest.parent(k);
    if (p != Forest::kNone && !carries_no_mass_[k]) carries_no_mass_[p] = 0;
  }
}

std::vector<int> RigidBodyModel::massless_moving_joints() const {
  std::vector<int> joints;
  for (int k = 0; k < node_count(); ++k) {
    if (joint_dofs(k) == 0 || !carries_no_mass_[k]) continue;
    // Only the top moving joint of each massless subtree: no moving massless ancestor.
    bool top = true;
    for (int p = forest().parent(k); p != Forest::kNone && carries_no_mass_[p];
         p = forest().parent(p))
      top = top && joint_dofs(p) == 0;
    if (top) joints.push_back(k);
  }
  return joints;
}

RigidBodyData::RigidBodyData(const RigidBodyModel& model)
    : sko(model.structure()),
      joint_transform(model.node_count(), Eigen::Isometry3d::Identity()),
      link_pose(model.node_count(), Eigen::Isometry3d::Identity()),
      velocity(Eigen::VectorXd::Zero(6 * model.node_count())),
      coriolis(Eigen::VectorXd::Zero(6 * model.node_count())),
      gyroscopic(Eigen::VectorXd::Zero(6 * model.node_count())),
      base_acceleration(Eigen::VectorXd::Zero(6 * model.forest().bases().size())),
      coriolis_with_gravity(Eigen::VectorXd::Zero(6 * model.node_count())),
      gyroscopic_with_forces(Eigen::VectorXd::Zero(6 * model.node_count())),
      zero_dofs(Eigen::VectorXd::Zero(model.dof_count())),
      inverse(*model.structure()),
      forward(model.structure()),
      composite(*model.structure()),
      operational(model.structure()),
      mass(Eigen::MatrixXd::Zero(model.dof_count(), model.dof_count())),
      composite_inertia(model.node_count(), Matrix6d::Zero()),
      articulated_inertia(model.node_count(), Matrix6d::Zero()),
      residual_force(model.node_count(), Vector6d::Zero()),
      acceleration(Eigen::VectorXd::Zero(6 * model.node_count())),
      generalized_acceleration(Eigen::VectorXd::Zero(model.dof_count())) {
  const int nodes = model.node_count();
  phi.assign(nodes, Matrix6d::Identity());
  hinge.resize(nodes);
  projected_inertia.resize(nodes);
  innovations_inverse.resize(nodes);
  innovation.resize(nodes);
  for (int k = 0; k < nodes; ++k) {
    const int dofs = model.joint_dofs(k);
    sko.inertia(k) = model.link_inertia(k);
    const double zeros[6] = {0, 0, 0, 0, 0, 0};
    hinge[k] = joint_hinge_transpose(model.joint_geometry(k), zeros);
    projected_inertia[k].setZero(6, dofs);
    innovations_inverse[k].setZero(dofs, dofs);
    innovation[k].setZero(dofs);
  }
}

void update_positions(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                      RigidBodyData& data) {
  if (q.size() != model.dof_count()) throw std::invalid_argument("update_positions: q size");
  const Forest& forest = model.forest();
  // Parents before children: post-order backwards (sequential in a canonical numbering).
  for (const int k : forest.post_order() | std::views::reverse) {
    const Eigen::Isometry3d& origin = model.mechanism().joints[k].origin;
    const double* qk = q.data() + model.joint_dof_offset(k);
    const JointGeometry& geometry = model.joint_geometry(k);
    const Eigen::Isometry3d motion = joint_motion(geometry, qk);
    const Eigen::Matrix3d rotation = origin.linear() * motion.linear();
    const Eigen::Vector3d translation =
        origin.translation() + origin.linear() * motion.translation();
    Eigen::Isometry3d& transform = data.joint_transform[k];
    transform.linear() = rotation;
    transform.translation() = translation;
    const int p = forest.parent(k);
    Eigen::Isometry3d& pose = data.link_pose[k];
    if (p == Forest::kNone) {
      pose = transform;
    } else {
      const Eigen::Isometry3d& parent_pose = data.link_pose[p];
      pose.linear() = parent_pose.linear() * rotation;
      pose.translation() = parent_pose.translation() + parent_pose.linear() * translation;
      data.phi[k] = rigid_body_transform(rotation, translation);
    }
    // H* depends on q only for planar joints (set once in RigidBodyData otherwise).
    if (geometry.type == JointType::kPlanar) data.hinge[k] = joint_hinge_transpose(geometry, qk);
  }
  data.sko_synchronized = false;
}

void synchronize_sko_model(const RigidBodyModel& model, RigidBodyData& data) {
  if (data.sko_synchronized) return;
  const Forest& forest = model.forest();
  for (int k = 0; k < model.node_count(); ++k) {
    if (forest.parent(k) != Forest::kNone) data.sko.weight(k) = data.phi[k];
    if (model.joint_dofs(k) > 0) data.sko.hinge_map(k) = data.hinge[k].transpose();
  }
  data.sko_synchronized = true;
}

void update_kinematics(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data) {
  if (qd.size() != model.dof_count()) throw std::invalid_argument("update_kinematics: qd size");
  update_positions(model, q, data);
  const Forest& forest = model.forest();
  // Parents before children: post-order backwards (sequential in a canonical numbering).
  for (const int k : forest.post_order() | std::views::reverse) {
    const int offset = model.joint_dof_offset(k), dofs = model.joint_dofs(k);
    Vector6d relative = Vector6d::Zero(), rate_product = Vector6d::Zero();
    for (int i = 0; i < dofs; ++i) relative.noalias() += data.hinge[k].col(i) * qd[offset + i];
    if (model.joint_geometry(k).type == JointType::kPlanar)
      rate_product =
          joint_velocity_product(model.joint_geometry(k), q.data() + offset, qd.data() + offset);
    Vector6d velocity = relative;
    const int p = forest.parent(k);
    if (p != Forest::kNone)
      velocity.noalias() += data.phi[k].transpose() * data.velocity.segment<6>(6 * p);
    data.velocity.segment<6>(6 * k) = velocity;
    data.coriolis.segment<6>(6 * k) = coriolis_acceleration(velocity, relative, rate_product);
    data.gyroscopic.segment<6>(6 * k) = gyroscopic_force(model.link_inertia(k), velocity);
  }
}

namespace {

// -g in each base node's frame (conventions.md: gravity as a base acceleration of the world).
void fill_base_acceleration(const RigidBodyModel& model, const Eigen::Vector3d& gravity,
                            RigidBodyData& data) {
  const std::span<const int> bases = model.forest().bases();
  for (std::size_t i = 0; i < bases.size(); ++i) {
    const int k = bases[i];
    data.base_acceleration.segment<3>(6 * i).setZero();
    data.base_acceleration.segment<3>(6 * i + 3) =
        -(data.link_pose[k].linear().transpose() * gravity);
  }
}

[[noreturn]] void throw_singular_hinge(const RigidBodyModel& model, int node) {
  throw SingularMassMatrixError(
      node, "joint '" + model.mechanism().joints[node].name +
                "' moves no inertia its other joints do not move at this configuration (H P H* "
                "is singular), so the mass matrix is singular");
}

void check_size(const Eigen::Ref<const Eigen::VectorXd>& v, int size, const char* what) {
  if (v.size() != size) throw std::invalid_argument(std::string("rigid dynamics: size of ") + what);
}

}  // namespace

const Eigen::VectorXd& inverse_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                        const Eigen::Vector3d& gravity) {
  check_size(qdd, model.dof_count(), "qdd");
  update_kinematics(model, q, qd, data);
  fill_base_acceleration(model, gravity, data);
  synchronize_sko_model(model, data);
  return inverse_dynamics(data.sko, qd, qdd, data.coriolis, data.gyroscopic, data.base_acceleration,
                          data.inverse);
}

const Eigen::VectorXd& inverse_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                        const Eigen::Vector3d& gravity,
                                        const Eigen::Ref<const Eigen::VectorXd>& link_forces) {
  check_size(qdd, model.dof_count(), "qdd");
  check_size(link_forces, 6 * model.link_count(), "link_forces");
  update_kinematics(model, q, qd, data);
  fill_base_acceleration(model, gravity, data);
  for (int k = 0; k < model.node_count(); ++k)
    data.gyroscopic_with_forces.segment<6>(6 * k) =
        data.gyroscopic.segment<6>(6 * k) - link_forces.segment<6>(6 * model.link_of_node(k));
  return inverse_dynamics(data.sko, qd, qdd, data.coriolis, data.gyroscopic_with_forces,
                          data.base_acceleration, data.inverse);
}

const Eigen::MatrixXd& mass_matrix(const RigidBodyModel& model, RigidBodyData& data,
                                   const Eigen::Ref<const Eigen::VectorXd>& q) {
  update_positions(model, q, data);
  const Forest& forest = model.forest();
  for (const int k : forest.post_order()) {
    Matrix6d& composite = data.composite_inertia[k];
    composite = model.link_inertia(k);
    for (const int j : forest.children(k))
      composite.noalias() += data.phi[j] * data.composite_inertia[j] * data.phi[j].transpose();
  }
  data.mass.setZero();
  for (int k = 0; k < model.node_count(); ++k) {
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    if (dofs == 0) continue;
    HingeMatrix column = data.composite_inertia[k].lazyProduct(data.hinge[k]);
    data.mass.block(offset, offset, dofs, dofs).noalias() =
        data.hinge[k].transpose().lazyProduct(column);
    for (int j = k; forest.parent(j) != Forest::kNone;) {
      const HingeMatrix moved = data.phi[j].lazyProduct(column);
      column = moved;
      j = forest.parent(j);
      const int ancestor_dofs = model.joint_dofs(j), ancestor_offset = model.joint_dof_offset(j);
      if (ancestor_dofs == 0) continue;
      auto block = data.mass.block(ancestor_offset, offset, ancestor_dofs, dofs);
      block.noalias() = data.hinge[j].transpose().lazyProduct(column);
      data.mass.block(offset, ancestor_offset, dofs, ancestor_dofs) = block.transpose();
    }
  }
  return data.mass;
}

const Eigen::MatrixXd& mass_matrix_through_operators(const RigidBodyModel& model,
                                                     RigidBodyData& data,
                                                     const Eigen::Ref<const Eigen::VectorXd>& q) {
  update_positions(model, q, data);
  synchronize_sko_model(model, data);
  composite_body_inertias(data.sko, data.composite);
  mass_matrix(data.sko, data.composite, data.mass);
  return data.mass;
}

const Eigen::VectorXd& bias_forces(const RigidBodyModel& model, RigidBodyData& data,
                                   const Eigen::Ref<const Eigen::VectorXd>& q,
                                   const Eigen::Ref<const Eigen::VectorXd>& qd,
                                   const Eigen::Vector3d& gravity) {
  return inverse_dynamics(model, data, q, qd, data.zero_dofs, gravity);
}

const Eigen::VectorXd& forward_dynamics_through_operators(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
    const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Ref<const Eigen::VectorXd>& tau,
    const Eigen::Vector3d& gravity) {
  check_size(tau, model.dof_count(), "tau");
  update_kinematics(model, q, qd, data);
  synchronize_sko_model(model, data);
  fill_base_acceleration(model, gravity, data);
  // a is propagated by A*, so the world's acceleration -g added to a(base) accelerates the forest.
  data.coriolis_with_gravity = data.coriolis;
  const std::span<const int> bases = model.forest().bases();
  for (std::size_t i = 0; i < bases.size(); ++i)
    data.coriolis_with_gravity.segment<6>(6 * bases[i]) += data.base_acceleration.segment<6>(6 * i);
  return forward_dynamics(data.sko, qd, tau, data.coriolis_with_gravity, data.gyroscopic,
                          data.forward);
}

const Eigen::VectorXd& forward_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity) {
  check_size(tau, model.dof_count(), "tau");
  update_kinematics(model, q, qd, data);
  fill_base_acceleration(model, gravity, data);
  const Forest& forest = model.forest();
  // Tips-to-base gather (part II Eq. 33 and 58a-d): P(k) = M(k) + sum phi P+(j) phi*,
  // z(k) = sum phi z+(j) + P a + b, D = H P H*, epsilon = T - H z, nu = D^-1 epsilon,
  // P+ = P - P H* D^-1 H P, z+ = z + P H* nu. P+ and z+ overwrite P and z.
  for (const int k : forest.post_order()) {
    Matrix6d& inertia = data.articulated_inertia[k];
    Vector6d& force = data.residual_force[k];
    inertia = model.link_inertia(k);
    force = data.gyroscopic.segment<6>(6 * k);
    for (const int j : forest.children(k)) {
      const Matrix6d& phi = data.phi[j];
      inertia.noalias() += phi * data.articulated_inertia[j] * phi.transpose();
      force.noalias() += phi * data.residual_force[j];
    }
    force.noalias() += inertia * data.coriolis.segment<6>(6 * k);
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    if (dofs == 0) continue;
    HingeMatrix& projected = data.projected_inertia[k];
    HingeSquare& inverse = data.innovations_inverse[k];
    JointVector& nu = data.innovation[k];
    if (model.carries_no_mass(k)) {
      // A massless subtree: P = 0 and z = 0, D = 0. Its motion exerts no force on the parent, and
      // the dynamics leave its acceleration free: prescribed zero (zero gain and innovation).
      projected.setZero();
      inverse.setZero();
      nu.setZero();
      continue;
    }
    // Coefficient-wise (lazy) products: Eigen's blocked products of dynamic-size operands would
    // allocate workspace.
    projected.noalias() = inertia.lazyProduct(data.hinge[k]);
    if (dofs == 1) {
      const double d = data.hinge[k].col(0).dot(projected.col(0));
      if (!(std::abs(d) > 1e-13 * inertia.diagonal().cwiseAbs().maxCoeff()))
        throw_singular_hinge(model, k);
      const double d_inverse = 1.0 / d;
      inverse(0, 0) = d_inverse;
      nu(0) = d_inverse * (tau[offset] - data.hinge[k].col(0).dot(force));
      inertia.noalias() -= (d_inverse * projected.col(0)) * projected.col(0).transpose();
      force.noalias() += projected.col(0) * nu(0);
      continue;
    }
    const HingeSquare d = data.hinge[k].transpose().lazyProduct(projected);
    const Eigen::LLT<HingeSquare> cholesky(d);
    if (cholesky.info() == Eigen::Success) {
      for (int i = 0; i < dofs; ++i) inverse.col(i) = cholesky.solve(JointVector::Unit(dofs, i));
    } else {
      // Not positive definite: an inconsistent inertia (accepted with a warning) or singular.
      Eigen::FullPivLU<HingeSquare> lu(d);
      lu.setThreshold(1e-13);
      if (!lu.isInvertible()) throw_singular_hinge(model, k);
      inverse = lu.inverse();
    }
    JointVector residual = tau.segment(offset, dofs);  // fixed capacity: no temporary VectorXd
    residual.noalias() -= data.hinge[k].transpose() * force;
    nu.noalias() = inverse * residual;
    const HingeMatrix gain = projected.lazyProduct(inverse);
    inertia.noalias() -= gain.lazyProduct(projected.transpose());
    force.noalias() += projected * nu;
  }
  // Base-to-tips scatter (Eq. 58e-g): alpha+ = phi* alpha(parent) (the world's -g at a base),
  // qdd = nu - D^-1 (P H*)* alpha+, alpha = alpha+ + H* qdd + a.
  const std::span<const int> bases = forest.bases();
  for (std::size_t i = 0; i < bases.size(); ++i)
    data.acceleration.segment<6>(6 * bases[i]) = data.base_acceleration.segment<6>(6 * i);
  const std::span<const int> order = forest.post_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = forest.parent(k);
    Vector6d alpha = p == Forest::kNone
                         ? Vector6d(data.acceleration.segment<6>(6 * k))
                         : Vector6d(data.phi[k].transpose() * data.acceleration.segment<6>(6 * p));
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    if (dofs == 1) {
      const double qdd = data.innovation[k](0) - data.innovations_inverse[k](0, 0) *
                                                     data.projected_inertia[k].col(0).dot(alpha);
      data.generalized_acceleration[offset] = qdd;
      alpha.noalias() += data.hinge[k].col(0) * qdd;
    } else if (dofs > 1) {
      const JointVector qdd =
          data.innovation[k] -
          data.innovations_inverse[k] * (data.projected_inertia[k].transpose() * alpha);
      data.generalized_acceleration.segment(offset, dofs) = qdd;
      alpha.noalias() += data.hinge[k] * qdd;
    }
    data.acceleration.segment<6>(6 * k) = alpha + data.coriolis.segment<6>(6 * k);
  }
  return data.generalized_acceleration;
}

void innovations_factors(const RigidBodyModel& model, RigidBodyData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q, InnovationsFactors& factors) {
  update_positions(model, q, data);
  synchronize_sko_model(model, data);
  innovations_factors(data.sko, data.forward.articulated, factors);
}

Matrix6d operational_space_inertia(const RigidBodyModel& model, RigidBodyData& data, int link) {
  if (link < 0 || link >= model.link_count())
    throw std::invalid_argument("operational_space_inertia: link index out of range");
  const int nodes[1] = {model.node_of_link(link)};
  Eigen::MatrixXd inertia;
  synchronize_sko_model(model, data);
  operational_space_inertia(data.sko, nodes, data.operational, inertia);
  return inertia;
}

double kinetic_energy(const RigidBodyModel& model, const RigidBodyData& data) {
  double energy = 0.0;
  for (int k = 0; k < model.node_count(); ++k) {
    const Vector6d v = data.velocity.segment<6>(6 * k);
    energy += 0.5 * v.dot(model.link_inertia(k) * v);
  }
  return energy;
}

double potential_energy(const RigidBodyModel& model, const RigidBodyData& data,
                        const Eigen::Vector3d& gravity) {
  double energy = 0.0;
  for (int k = 0; k < model.node_count(); ++k) {
    const Link& link = model.mechanism().links[model.link_of_node(k)];
    energy -= link.mass * gravity.dot(data.link_pose[k] * link.center_of_mass);
  }
  return energy;
}

void configuration_rate(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                        Eigen::Ref<Eigen::VectorXd> q_rate) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(q_rate, model.dof_count(), "q_rate");
  for (int k = 0; k < model.node_count(); ++k) {
    const int offset = model.joint_dof_offset(k);
    joint_configuration_rate(model.joint_geometry(k), q.data() + offset, qd.data() + offset,
                             q_rate.data() + offset);
  }
}

}  // namespace skograph

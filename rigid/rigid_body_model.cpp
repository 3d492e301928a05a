#include "skograph/rigid/rigid_body_model.hpp"

#include "skograph/operators/elimination_order.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <ranges>
#include <span>
#include <stdexcept>
#include <unordered_set>

#include "size_checks.hpp"

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

// The modal data's own numbers (io/ checks them with lines; hand-built mechanisms reach here) and
// the whole body's mass matrix.
void validate_flexible_link(const Mechanism& mechanism, const Link& link) {
  const std::string problem =
      flexible_body_mass_problem(*link.flexible, link.mass, link.center_of_mass, link.inertia);
  if (!problem.empty()) fail(mechanism, "flexible link '" + link.name + "': " + problem);
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
  modes_.assign(joints, 0);
  for (int j = 0; j < joints; ++j) {
    const int parent_link = m.joints[j].parent;
    parent[j] = parent_link == -1 ? Forest::kNone : node_of_link_[parent_link];
    hinge_dims[j] = joint_dof_count(m.joints[j].type);
    if (const ModalBody* body = m.links[m.joints[j].child].flexible.get()) {
      validate_flexible_link(m, m.links[m.joints[j].child]);
      modes_[j] = body->modes();
      flexible_ = true;
    }
  }
  joint_dofs_ = hinge_dims;
  // A flexible link's modal coordinates follow its joint's dofs in its node's hinge.
  for (int j = 0; j < joints; ++j) {
    node_dims[j] += modes_[j];
    hinge_dims[j] += modes_[j];
  }
  Forest forest;
  try {
    forest = Forest(parent);
  } catch (const std::invalid_argument&) {
    fail(m, "the joints form a cycle (no path from some link to the world)");
  }
  structure_ = std::make_shared<const SkoStructure>(std::move(forest), node_dims, hinge_dims);

  dof_names_ = skograph::dof_names(m);
  // State files, inputs and results name dofs: two of one name (a joint named like another's dof
  // "joint:1" or a flexible link's modal coordinate "link:eta1") would be read as one.
  std::unordered_set<std::string> seen;
  for (const std::string& name : dof_names_)
    if (!seen.insert(name).second)
      fail(m, "two dofs are named '" + name +
                  "' (a joint named like another joint's dof or a flexible link's modal "
                  "coordinate)");
  for (int j = 0; j < joints; ++j) {
    const Joint& joint = m.joints[j];
    const Link& link = m.links[joint.child];
    geometry_.push_back(make_joint_geometry(joint.type, joint.axis));
    inertia_.push_back(spatial_inertia(link.mass, link.center_of_mass, link.inertia));
    node_inertia_.push_back(link.flexible
                                ? flexible_body_mass_matrix(*link.flexible, link.mass,
                                                            link.center_of_mass, link.inertia)
                                : Eigen::MatrixXd(inertia_.back()));
    // The node of the parent link this joint hangs from moves with the parent's modes.
    Eigen::MatrixXd attachment;
    if (joint.parent >= 0)
      if (const ModalBody* parent_body = m.links[joint.parent].flexible.get()) {
        const ModalNode* node = parent_body->node(joint.name);
        if (node == nullptr)
          fail(m, "flexible link '" + m.links[joint.parent].name + "' has no node for joint '" +
                      joint.name + "' (its modal influence there)");
        if (node->influence.rows() != 6 || node->influence.cols() != parent_body->modes())
          fail(m, "flexible link '" + m.links[joint.parent].name + "' node '" + joint.name +
                      "' is not 6 x " + std::to_string(parent_body->modes()));
        attachment = node->influence;
      }
    attachment_.push_back(std::move(attachment));
  }
  // The walk and the constants of the fast recursions (rigid/rigid_body_dynamics.cpp).
  const Forest& walk = structure_->forest;
  parent_.resize(joints);
  bool ascending = true;
  for (int k = 0; k < joints; ++k) {
    parent_[k] = walk.parent(k) == Forest::kNone ? -1 : walk.parent(k);
    ascending = ascending && parent_[k] < k;
  }
  parents_first_.resize(joints);
  for (int i = 0; i < joints; ++i)
    parents_first_[i] = ascending ? i : walk.post_order()[joints - 1 - i];
  for (int k = 0; k < joints; ++k) {
    const Joint& joint = m.joints[k];
    origin_rotation_.push_back(joint.origin.linear());
    origin_translation_.push_back(joint.origin.translation());
    const Link& link = m.links[joint.child];
    kernels::RigidInertia inertia;
    inertia.mass = link.mass;
    inertia.first_moment = link.mass * link.center_of_mass;
    const Eigen::Matrix3d c = cross_matrix(link.center_of_mass);
    inertia.rotational = link.inertia - link.mass * c * c;
    rigid_inertia_.push_back(inertia);
    signed char axis = 0;
    if (joint.type == JointType::kRevolute || joint.type == JointType::kContinuous)
      for (int i = 0; i < 3; ++i)
        if (std::abs(std::abs(geometry_[k].axis(i)) - 1.0) < 1e-15)
          axis = static_cast<signed char>(geometry_[k].axis(i) > 0 ? i + 1 : -(i + 1));
    // Such an axis is taken as the coordinate axis itself (its other components, up to 4e-8, are
    // a file's rounding): the walk turns about it exactly, and so do H* and every recursion.
    if (axis != 0)
      geometry_[k].axis = (axis > 0 ? 1.0 : -1.0) * Eigen::Vector3d::Unit(std::abs(axis) - 1);
    const double zeros[6] = {0, 0, 0, 0, 0, 0};
    hinge_column_.push_back(joint_dofs_[k] == 1
                                ? Vector6d(joint_hinge_transpose(geometry_[k], zeros).col(0))
                                : Vector6d::Zero());
    coordinate_axis_.push_back(axis);
    const bool unturned_origin = joint.origin.linear() == Eigen::Matrix3d::Identity();
    turn_axis_.push_back(
        static_cast<signed char>(axis != 0 && unturned_origin ? std::abs(axis) - 1 : -1));
  }
  // The preorder of the mass matrix's columns: an explicit stack, children pushed in descending
  // order so that they are visited ascending.
  subtree_position_.assign(joints, 0);
  subtree_dof_count_.assign(joints, 0);
  dof_in_preorder_.reserve(dof_names_.size());
  {
    const Forest& tree = structure_->forest;
    std::vector<int> stack(tree.bases().rbegin(), tree.bases().rend());
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      subtree_position_[k] = static_cast<int>(dof_in_preorder_.size());
      for (int d = 0; d < hinge_dims[k]; ++d)
        dof_in_preorder_.push_back(structure_->hinge.offset(k) + d);
      const std::span<const int> children = tree.children(k);
      for (auto child = children.rbegin(); child != children.rend(); ++child)
        stack.push_back(*child);
    }
    for (const int k : tree.post_order()) {
      subtree_dof_count_[k] += hinge_dims[k];
      if (tree.parent(k) != Forest::kNone)
        subtree_dof_count_[tree.parent(k)] += subtree_dof_count_[k];
    }
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

namespace {

// The entries of the base nodes (6, or 6 + modes for a flexible base), over forest().bases().
int base_node_entries(const RigidBodyModel& model) {
  int entries = 0;
  for (const int base : model.forest().bases()) entries += model.structure()->node.dim(base);
  return entries;
}

}  // namespace

RigidBodyData::RigidBodyData(const RigidBodyModel& model)
    : sko(model.structure()),
      rotation(model.node_count(), Eigen::Matrix3d::Identity()),
      translation(model.node_count(), Eigen::Vector3d::Zero()),
      link_pose(model.node_count(), Eigen::Isometry3d::Identity()),
      velocity(Eigen::VectorXd::Zero(model.structure()->node.total())),
      coriolis(Eigen::VectorXd::Zero(model.structure()->node.total())),
      gyroscopic(Eigen::VectorXd::Zero(model.structure()->node.total())),
      base_acceleration(Eigen::VectorXd::Zero(base_node_entries(model))),
      coriolis_with_gravity(Eigen::VectorXd::Zero(model.structure()->node.total())),
      gyroscopic_with_forces(Eigen::VectorXd::Zero(model.structure()->node.total())),
      zero_dofs(Eigen::VectorXd::Zero(model.dof_count())),
      carried_columns(6, model.dof_count()),
      force(Eigen::VectorXd::Zero(6 * model.node_count())),
      generalized_force(Eigen::VectorXd::Zero(model.dof_count())),
      composite_inertia(model.node_count()),
      articulated_inertia(model.node_count(), Matrix6d::Zero()),
      residual_force(model.node_count(), Vector6d::Zero()),
      acceleration(Eigen::VectorXd::Zero(model.structure()->node.total())),
      subtree_moment(model.node_count(), Eigen::Vector4d::Zero()),
      generalized_acceleration(Eigen::VectorXd::Zero(model.dof_count())) {
  const int nodes = model.node_count();
  phi.assign(nodes, Matrix6d::Identity());
  hinge.resize(nodes);
  projected_inertia.resize(nodes);
  innovations_inverse.resize(nodes);
  tree_origin.assign(nodes, Eigen::Vector3d::Zero());
  world_hinge.resize(nodes);
  world_velocity.assign(nodes, Vector6d::Zero());
  world_coriolis.assign(nodes, Vector6d::Zero());
  world_acceleration.assign(nodes, Vector6d::Zero());
  innovation.resize(nodes);
  base_factored.assign(nodes, 0);
  for (int k = 0; k < nodes; ++k) {
    const int dofs = model.joint_dofs(k);
    sko.inertia(k) = model.node_inertia(k);
    const double zeros[6] = {0, 0, 0, 0, 0, 0};
    hinge[k] = joint_hinge_transpose(model.joint_geometry(k), zeros);
    projected_inertia[k].setZero(6, dofs);
    world_hinge[k].setZero(6, dofs);
    innovations_inverse[k].setZero(dofs, dofs);
    innovation[k].setZero(dofs);
  }
}

DerivativeWorkspace::DerivativeWorkspace(const RigidBodyModel& model)
    : column(6, model.dof_count()),
      velocity_by_q(6, model.dof_count()),
      acceleration_by_q(6, model.dof_count()),
      acceleration_by_qd(6, model.dof_count()),
      inertia_column(6, model.dof_count()),
      rate_product(6, model.dof_count()),
      configuration_product(6, model.dof_count()),
      rate_column(6, model.dof_count()),
      composite_inertia(static_cast<std::size_t>(model.node_count())),
      composite_rate(static_cast<std::size_t>(model.node_count())),
      acceleration(static_cast<std::size_t>(model.node_count())),
      force(static_cast<std::size_t>(model.node_count())),
      dof_parent(dof_parents(*model.structure())) {
  const int n = static_cast<int>(dof_parent.size());
  inverse_pivot.resize(n);
  ancestor_offsets.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    for (int j = dof_parent[static_cast<std::size_t>(i)]; j >= 0;
         j = dof_parent[static_cast<std::size_t>(j)])
      ancestors.push_back(j);
    ancestor_offsets.push_back(static_cast<int>(ancestors.size()));
  }
  lower.resize(static_cast<Eigen::Index>(ancestors.size()));
  diagonal.resize(n);
  for (int i = 0; i < n; ++i)
    if (dof_parent[static_cast<std::size_t>(i)] >= i) parents_first = false;
  dof_last_descendant.resize(dof_parent.size());
  for (int i = 0; i < n; ++i) dof_last_descendant[static_cast<std::size_t>(i)] = i;
  if (parents_first)  // children after their parents: one pass from the last dof
    for (int i = n - 1; i >= 0; --i) {
      const int p = dof_parent[static_cast<std::size_t>(i)];
      if (p >= 0)
        dof_last_descendant[static_cast<std::size_t>(p)] =
            std::max(dof_last_descendant[static_cast<std::size_t>(p)],
                     dof_last_descendant[static_cast<std::size_t>(i)]);
    }
  for (int i = 0; i < n; ++i)
    if (model.dof_in_preorder()[static_cast<std::size_t>(i)] != i) dofs_in_preorder = false;
}

DerivativeWorkspace& derivative_workspace(const RigidBodyModel& model, RigidBodyData& data) {
  if (!data.derivatives) data.derivatives = std::make_unique<DerivativeWorkspace>(model);
  return *data.derivatives;
}

InverseDynamicsWorkspace& inverse_workspace(RigidBodyData& data) {
  if (!data.inverse)
    data.inverse = std::make_unique<InverseDynamicsWorkspace>(data.sko.structure());
  return *data.inverse;
}

ForwardDynamicsWorkspace& forward_workspace(RigidBodyData& data) {
  if (!data.forward)
    data.forward = std::make_unique<ForwardDynamicsWorkspace>(data.sko.structure_ptr());
  return *data.forward;
}

CompositeInertiaWorkspace& composite_workspace(RigidBodyData& data) {
  if (!data.composite)
    data.composite = std::make_unique<CompositeInertiaWorkspace>(data.sko.structure());
  return *data.composite;
}

OperationalSpaceWorkspace& operational_workspace(RigidBodyData& data) {
  if (!data.operational)
    data.operational = std::make_unique<OperationalSpaceWorkspace>(data.sko.structure_ptr());
  return *data.operational;
}

void innovations_factors(const RigidBodyModel& model, RigidBodyData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q, InnovationsFactors& factors) {
  update_positions(model, q, data);
  synchronize_sko_model(model, data);
  innovations_factors(data.sko, forward_workspace(data).articulated, factors);
}

Matrix6d operational_space_inertia(const RigidBodyModel& model, RigidBodyData& data, int link) {
  if (link < 0 || link >= model.link_count())
    throw std::invalid_argument("operational_space_inertia: link index out of range");
  const int nodes[1] = {model.node_of_link(link)};
  Eigen::MatrixXd inertia;
  synchronize_sko_model(model, data);
  operational_space_inertia(data.sko, nodes, operational_workspace(data), inertia);
  if (inertia.rows() == 6) return inertia;
  // A flexible link's node is [V; etadot]: its frame's compliance is the rigid block of the node's
  // compliance, the inverse of the node's operational-space inertia.
  const Eigen::MatrixXd compliance =
      inertia.ldlt().solve(Eigen::MatrixXd::Identity(inertia.rows(), inertia.cols()));
  return compliance.topLeftCorner<6, 6>().ldlt().solve(Matrix6d::Identity());
}

namespace {

// -sum m g . c over the links at their poses (their rigid invariants).
double rigid_potential_energy(const RigidBodyModel& model, const RigidBodyData& data,
                              const Eigen::Vector3d& gravity) {
  double energy = 0.0;
  const std::vector<Eigen::Isometry3d>& poses = link_poses(model, data);
  for (int k = 0; k < model.node_count(); ++k) {
    const Link& link = model.mechanism().links[model.link_of_node(k)];
    energy -= link.mass * gravity.dot(poses[k] * link.center_of_mass);
  }
  return energy;
}

}  // namespace

double kinetic_energy(const RigidBodyModel& model, const RigidBodyData& data) {
  double energy = 0.0;
  if (model.has_flexible_links()) {  // 1/2 nu* M(k) nu over nodes [V; etadot]
    const BlockLayout& nodes = model.structure()->node;
    for (int k = 0; k < model.node_count(); ++k) {
      const auto nu = data.velocity.segment(nodes.offset(k), nodes.dim(k));
      energy += 0.5 * nu.dot(model.node_inertia(k) * nu);
    }
    return energy;
  }
  for (int k = 0; k < model.node_count(); ++k) {
    const Vector6d v = data.velocity.segment<6>(6 * k);
    energy += 0.5 * v.dot(model.link_inertia(k) * v);
  }
  return energy;
}

double potential_energy(const RigidBodyModel& model, const RigidBodyData& data,
                        const Eigen::Vector3d& gravity) {
  if (model.has_flexible_links())  // the elastic energy and the modes' first moment need eta
    throw std::invalid_argument(
        "potential_energy: a model with flexible links needs q (the overload taking it)");
  return rigid_potential_energy(model, data, gravity);
}

double potential_energy(const RigidBodyModel& model, const RigidBodyData& data,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Vector3d& gravity) {
  double energy = rigid_potential_energy(model, data, gravity);
  // A flexible link's modes move its first moment by coupling_t eta and store 1/2 eta* K eta.
  const std::vector<Eigen::Isometry3d>& poses = link_poses(model, data);
  for (int k = 0; k < model.node_count(); ++k) {
    const int modes = model.modes(k);
    if (modes == 0) continue;
    const ModalBody& body = *model.modal_body(k);
    const auto eta = q.segment(model.modal_offset(k), modes);
    energy -= gravity.dot(poses[k].linear() * (body.coupling.bottomRows<3>() * eta));
    energy += 0.5 * eta.dot(body.modal_stiffness * eta);
  }
  return energy;
}

using rigid_detail::check_size;

void configuration_rate(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                        Eigen::Ref<Eigen::VectorXd> q_rate) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(q_rate, model.dof_count(), "q_rate");
  for (int k = 0; k < model.node_count(); ++k) {
    const int offset = model.hinge_offset(k), joint_dofs = model.joint_dofs(k);
    joint_configuration_rate(model.joint_geometry(k), q.data() + offset, qd.data() + offset,
                             q_rate.data() + offset);
    // Modal coordinates are plain: their rate is qd.
    for (int i = joint_dofs; i < model.hinge_dofs(k); ++i) q_rate[offset + i] = qd[offset + i];
  }
}

}  // namespace skograph

// Closed-chain mechanisms by constraint embedding (constraint-embedding §4-7; conventions.md
// "Constraint embedding"). See closed_chain_model.hpp for the constraint definitions.
#include "rigid/closed_chain_model.hpp"
#include "rigid/closed_chain_internal.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <ranges>
#include <stdexcept>

#include "graph/aggregation_subgraphs.hpp"
#include "operators/forward_dynamics.hpp"
#include "operators/inverse_dynamics.hpp"
#include "operators/mass_matrix.hpp"

namespace skograph {

namespace {

// Two unit vectors normal to the unit axis a, with (n1, n2, a) right-handed.
Eigen::Matrix<double, 3, 2> axis_normals(const Eigen::Vector3d& a) {
  const Eigen::Vector3d helper =
      std::abs(a.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  const Eigen::Vector3d n1 = a.cross(helper).normalized();
  const Eigen::Vector3d n2 = a.cross(n1);
  Eigen::Matrix<double, 3, 2> normals;
  normals << n1, n2;
  return normals;
}

LoopRows make_loop_rows(const LoopClosure& loop) {
  LoopRows rows;
  const Eigen::Matrix3d identity = Eigen::Matrix3d::Identity();
  rows.axis = loop.axis.normalized();
  rows.normals = axis_normals(rows.axis);
  switch (loop.type) {
    case LoopType::kRevolute:
      rows.angular = rows.normals.transpose();
      rows.linear = identity;
      break;
    case LoopType::kPrismatic:
      rows.angular = identity;
      rows.linear = rows.normals.transpose();
      break;
    case LoopType::kSpherical:
      rows.angular.resize(0, 3);
      rows.linear = identity;
      break;
    case LoopType::kWeld:
      rows.angular = identity;
      rows.linear = identity;
      break;
  }
  return rows;
}

bool uses_rotation_vector(JointType type) {
  return type == JointType::kSpherical || type == JointType::kFloating;
}

std::string format_residual(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1e", value);
  return buffer;
}

}  // namespace

const ClosedChainModel::Impl& closed_chain_impl(const ClosedChainModel& model) {
  return *model.impl_;
}

namespace {

std::string loop_label(const Mechanism& m, int loop) {
  return "loop '" + m.loops[loop].name + "'";
}
std::string coupling_label(const Mechanism& m, int coupling) {
  return "coupling '" + m.couplings[coupling].name + "'";
}

void validate_closures(const RigidBodyModel& tree) {
  const Mechanism& m = tree.mechanism();
  const int links = tree.link_count();
  for (std::size_t i = 0; i < m.loops.size(); ++i) {
    const LoopClosure& loop = m.loops[i];
    const std::string label = loop_label(m, static_cast<int>(i));
    if (loop.parent < -1 || loop.parent >= links || loop.child < -1 || loop.child >= links)
      throw std::invalid_argument(label + " names a link out of range");
    if (loop.parent == loop.child)
      throw std::invalid_argument(label + " connects a link to itself");
    if (!loop.parent_origin.matrix().allFinite() || !loop.child_origin.matrix().allFinite() ||
        !loop.axis.allFinite())
      throw std::invalid_argument(label + " has non-finite numbers");
    if ((loop.type == LoopType::kRevolute || loop.type == LoopType::kPrismatic) &&
        loop.axis.norm() < 1e-12)
      throw std::invalid_argument(label + " has a zero-length axis");
  }
  for (std::size_t i = 0; i < m.couplings.size(); ++i) {
    const Coupling& coupling = m.couplings[i];
    const std::string label = coupling_label(m, static_cast<int>(i));
    if (coupling.type != "gear")
      throw std::invalid_argument(label + " has type '" + coupling.type + "'; only gear is known");
    const int joints = tree.joint_count();
    if (coupling.joint_a < 0 || coupling.joint_a >= joints || coupling.joint_b < 0 ||
        coupling.joint_b >= joints)
      throw std::invalid_argument(label + " names a joint out of range");
    if (coupling.joint_a == coupling.joint_b)
      throw std::invalid_argument(label + " couples a joint with itself");
    const Joint& a = m.joints[coupling.joint_a];
    const Joint& b = m.joints[coupling.joint_b];
    if (a.type == JointType::kFixed || b.type == JointType::kFixed)
      throw std::invalid_argument(label + " couples a fixed joint");
    if (joint_dof_count(a.type) != joint_dof_count(b.type))
      throw std::invalid_argument(label + " couples joints with different dof counts ('" + a.name +
                                  "' has " + std::to_string(joint_dof_count(a.type)) + ", '" +
                                  b.name + "' has " + std::to_string(joint_dof_count(b.type)) +
                                  ")");
    // A gear relates coordinates whose rates are their time derivatives.
    if (uses_rotation_vector(a.type) || uses_rotation_vector(b.type))
      throw std::invalid_argument(label + " couples a spherical or floating joint (gears couple " +
                                  "revolute, continuous, prismatic or planar joints)");
    if (!std::isfinite(coupling.ratio) || !std::isfinite(coupling.offset))
      throw std::invalid_argument(label + " has a non-finite ratio or offset");
  }
}

// The generic rank of each aggregate's Q (defined after aggregate_constraints below).
std::vector<int> generic_constraint_ranks(const ClosedChainModel& model);

}  // namespace

ClosedChainModel::ClosedChainModel(Mechanism mechanism, ClosedChainOptions options)
    : tree_(std::make_shared<const RigidBodyModel>(std::move(mechanism))), options_(options) {
  validate_closures(*tree_);
  const RigidBodyModel& tree = *tree_;
  const Mechanism& m = tree.mechanism();
  auto impl = std::make_shared<Impl>();

  // The link forest with the world as its root (node link_count()): cut edges may end at the world.
  const int links = tree.link_count(), world = links;
  std::vector<int> link_parent(links + 1, Forest::kNone);
  for (const Joint& joint : m.joints)
    link_parent[joint.child] = joint.parent < 0 ? world : joint.parent;
  const Forest link_forest(link_parent);
  auto link_node = [&](int link) { return link < 0 ? world : link; };

  // Cut edges: loops (parent link, child link) and gears between the joints' child links, moved
  // up to the parent link when one child link is an ancestor of the other so that both hinges lie
  // in the sub-graph (the sub-graph of (u, v) excludes the common root).
  std::vector<Edge> cut_edges;
  std::vector<int> cut_link;  // per cut edge: a link of the sub-graph that holds it
  auto add_cut = [&](int u, int v) {
    cut_edges.emplace_back(u, v);
    cut_link.push_back(link_forest.is_ancestor_or_self(v, u) ? u : v);
  };
  for (const LoopClosure& loop : m.loops) add_cut(link_node(loop.parent), link_node(loop.child));
  for (const Coupling& coupling : m.couplings) {
    const int la = m.joints[coupling.joint_a].child, lb = m.joints[coupling.joint_b].child;
    const int pa = link_node(m.joints[coupling.joint_a].parent);
    const int pb = link_node(m.joints[coupling.joint_b].parent);
    if (link_forest.is_ancestor(la, lb))
      add_cut(pa, lb);
    else if (link_forest.is_ancestor(lb, la))
      add_cut(la, pb);
    else
      add_cut(la, lb);
  }

  const int nodes = tree.node_count();
  impl->aggregate_of_node.assign(nodes, -1);
  if (!cut_edges.empty()) {
    const std::vector<AggregationSubgraph> subgraphs =
        aggregation_subgraphs(link_forest, cut_edges);
    // Base first in the SKO forest: decreasing post-order position.
    const Forest& forest = tree.forest();
    std::vector<int> post_position(nodes);
    for (int i = 0; i < nodes; ++i) post_position[forest.post_order()[i]] = i;
    for (std::size_t s = 0; s < subgraphs.size(); ++s) {
      std::vector<int> members;
      for (const int link : subgraphs[s].nodes) members.push_back(tree.node_of_link(link));
      std::ranges::sort(members, [&](int i, int j) { return post_position[i] > post_position[j]; });
      for (const int k : members) impl->aggregate_of_node[k] = static_cast<int>(s);
      impl->nodes.push_back(std::move(members));
    }
    const int count = static_cast<int>(subgraphs.size());
    impl->loops.resize(count);
    impl->couplings.resize(count);
    for (std::size_t e = 0; e < cut_edges.size(); ++e) {
      const int s = impl->aggregate_of_node[tree.node_of_link(cut_link[e])];
      if (e < m.loops.size())
        impl->loops[s].push_back(static_cast<int>(e));
      else
        impl->couplings[s].push_back(static_cast<int>(e - m.loops.size()));
    }
  }

  for (const LoopClosure& loop : m.loops) impl->loop_rows.push_back(make_loop_rows(loop));
  const int aggregates = static_cast<int>(impl->nodes.size());
  impl->dofs.resize(aggregates);
  impl->rows.assign(aggregates, 0);
  for (int s = 0; s < aggregates; ++s) {
    for (const int k : impl->nodes[s])
      for (int j = 0; j < tree.joint_dofs(k); ++j)
        impl->dofs[s].push_back(tree.joint_dof_offset(k) + j);
    for (const int l : impl->loops[s]) impl->rows[s] += impl->loop_rows[l].rows();
    for (const int c : impl->couplings[s]) impl->rows[s] += tree.joint_dofs(m.couplings[c].joint_a);
  }
  impl->dof_node.resize(tree.dof_count());
  impl->dof_in_joint.resize(tree.dof_count());
  for (int k = 0; k < nodes; ++k)
    for (int j = 0; j < tree.joint_dofs(k); ++j) {
      impl->dof_node[tree.joint_dof_offset(k) + j] = k;
      impl->dof_in_joint[tree.joint_dof_offset(k) + j] = j;
    }
  for (int d = 0; d < tree.dof_count(); ++d)
    if (impl->aggregate_of_node[impl->dof_node[d]] < 0) impl->plain_dofs.push_back(d);
  impl->swallows_whole = aggregates == 1 && static_cast<int>(impl->nodes[0].size()) == nodes;
  impl->nominal_rank.assign(aggregates, 0);
  impl_ = impl;
  impl->nominal_rank = generic_constraint_ranks(*this);
}

bool ClosedChainModel::moves_no_mass(int joint) const {
  const RigidBodyModel& tree = *tree_;
  if (tree.joint_dofs(joint) == 0 || !tree.carries_no_mass(joint)) return false;
  const int s = impl_->aggregate_of_node[joint];
  if (s < 0) return true;
  for (const int k : impl_->nodes[s])
    if (!tree.carries_no_mass(k)) return false;
  return true;
}

std::vector<int> ClosedChainModel::massless_moving_joints() const {
  std::vector<int> joints;
  const Forest& forest = tree_->forest();
  for (int k = 0; k < tree_->node_count(); ++k) {
    if (!moves_no_mass(k)) continue;
    bool top = true;
    for (int p = forest.parent(k); p != Forest::kNone && top; p = forest.parent(p))
      top = !moves_no_mass(p);
    if (top) joints.push_back(k);
  }
  return joints;
}

int ClosedChainModel::aggregate_count() const {
  return static_cast<int>(impl_->nodes.size());
}
const std::vector<int>& ClosedChainModel::aggregate_nodes(int s) const {
  return impl_->nodes[s];
}
const std::vector<int>& ClosedChainModel::aggregate_loops(int s) const {
  return impl_->loops[s];
}
const std::vector<int>& ClosedChainModel::aggregate_couplings(int s) const {
  return impl_->couplings[s];
}
const std::vector<int>& ClosedChainModel::aggregate_dofs(int s) const {
  return impl_->dofs[s];
}
bool ClosedChainModel::swallows_whole_mechanism() const {
  return impl_->swallows_whole;
}
int ClosedChainModel::constraint_rows(int s) const {
  return impl_->rows[s];
}
int ClosedChainModel::nominal_rank(int s) const {
  return impl_->nominal_rank[s];
}

ClosedChainData::ClosedChainData(const ClosedChainModel& model)
    : tree(model.tree()), work(std::make_shared<Workspaces>()) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  const int aggregates = model.aggregate_count();
  const int dofs = model.dof_count(), nodes = model.tree().node_count();
  constraint_matrix.resize(aggregates);
  constraint_velocity_product.resize(aggregates);
  selection.resize(aggregates);
  embedding.resize(aggregates);
  embedding_rate.resize(aggregates);
  nominal_rank.resize(aggregates);
  for (int s = 0; s < aggregates; ++s) nominal_rank[s] = model.nominal_rank(s);
  work->position_jacobian.resize(aggregates);
  work->position_error.resize(aggregates);
  work->orientation_flip.assign(aggregates, 0.0);
  work->flipped_loop.assign(aggregates, -1);
  work->embedding_structure_order.resize(aggregates);
  for (int s = 0; s < aggregates; ++s) {
    const int rows = impl.rows[s], columns = static_cast<int>(impl.dofs[s].size());
    constraint_matrix[s].setZero(rows, columns);
    constraint_velocity_product[s].setZero(rows);
    work->position_jacobian[s].setZero(rows, columns);
    work->position_error[s].setZero(rows);
  }
  work->newton_state.assign(aggregates, Workspaces::Newton::kClosed);
  work->newton_steps.assign(aggregates, 0);
  work->step_accepted.assign(aggregates, 0);
  work->dependent_jacobian.resize(aggregates);
  work->least_squares.resize(aggregates);
  work->newton_step.resize(aggregates);
  work->dependent_step.resize(aggregates);
  work->error_norm.assign(aggregates, 0.0);
  work->step_scale.assign(aggregates, 1.0);
  work->saved_configuration.setZero(dofs);
  for (int s = 0; s < aggregates; ++s) {
    const int columns = static_cast<int>(impl.dofs[s].size());
    work->newton_step[s].setZero(columns);
    work->dependent_step[s].setZero(columns);
    work->dependent_jacobian[s].setZero(impl.rows[s], columns);
  }
  work->node_acceleration.setZero(6 * nodes);
  work->embedding_rate_full.setZero(dofs);
  work->coriolis_tree.setZero(6 * nodes);
  work->zero_dofs.setZero(dofs);
  work->accelerations.setZero(dofs);
  work->column_of.assign(dofs, -1);
  // Capacity for the independent-dof lists so that updates do not allocate them again.
  independent.reserve(dofs);
  work->independent_previous.reserve(dofs);
}

namespace {

using Impl = ClosedChainModel::Impl;

// World pose, velocities and accelerations (qdd = 0) of a closure frame's origin.
struct FrameMotion {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d position = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_acceleration = Eigen::Vector3d::Zero();
  Eigen::Vector3d acceleration = Eigen::Vector3d::Zero();
};

// A frame fixed on `link` (-1: the world) at `origin` in the link frame. With the body-frame
// velocity V = [w_b; v_b] and its derivative alpha = [wdot_b; vdot_b] (rigid/spatial.hpp), a point
// at r (link frame) has world velocity R (v_b + w_b x r) and acceleration
// R (w_b x (v_b + w_b x r) + vdot_b + wdot_b x r); the world angular velocity is R w_b and its
// derivative R wdot_b.
FrameMotion frame_motion(const RigidBodyModel& tree, const RigidBodyData& data,
                         const Eigen::VectorXd* node_acceleration, int link,
                         const Eigen::Isometry3d& origin, bool with_velocity) {
  FrameMotion frame;
  if (link < 0) {
    frame.rotation = origin.linear();
    frame.position = origin.translation();
    return frame;
  }
  const int k = tree.node_of_link(link);
  const Eigen::Isometry3d& pose = data.link_pose[k];
  frame.rotation = pose.linear() * origin.linear();
  frame.position = pose * origin.translation();
  if (!with_velocity) return frame;
  const Eigen::Vector3d r = origin.translation();
  const Eigen::Vector3d w = data.velocity.segment<3>(6 * k);
  const Eigen::Vector3d v = data.velocity.segment<3>(6 * k + 3);
  const Eigen::Vector3d point_velocity = v + w.cross(r);
  frame.angular_velocity = pose.linear() * w;
  frame.velocity = pose.linear() * point_velocity;
  if (node_acceleration != nullptr) {
    const Eigen::Vector3d wdot = node_acceleration->segment<3>(6 * k);
    const Eigen::Vector3d vdot = node_acceleration->segment<3>(6 * k + 3);
    frame.angular_acceleration = pose.linear() * wdot;
    frame.acceleration = pose.linear() * (w.cross(point_velocity) + vdot + wdot.cross(r));
  }
  return frame;
}

// Body-frame accelerations with qdd = 0 and no gravity: alpha(k) = phi*(p, k) alpha(p) + a(k)
// (rigid/spatial.hpp; part I section 7 scatter with thetaddot = 0).
void velocity_product_accelerations(const RigidBodyModel& tree, const RigidBodyData& data,
                                    Eigen::VectorXd& acceleration) {
  const Forest& forest = tree.forest();
  for (const int k : forest.post_order() | std::views::reverse) {
    Vector6d alpha = data.coriolis.segment<6>(6 * k);
    const int p = forest.parent(k);
    if (p != Forest::kNone)
      alpha.noalias() += data.phi[k].transpose() * acceleration.segment<6>(6 * p);
    acceleration.segment<6>(6 * k) = alpha;
  }
}

// The relative twist of F_c with respect to F_p in F_p coordinates per unit rate of each dof of
// aggregate s (6 x n_S): the sub-graph Jacobians J_o - J_p of constraint-embedding Eq. 58 with
// the closure nodes o = F_c, p = F_p, before the constraint rows A select its directions:
//   [R_p^T (w_c - w_p); R_p^T (v_c - v_p - w_p x D)],  D = x_c - x_p,
// where a dof of joint k moves link L when k is an ancestor-or-self of L in the tree, giving
// w = R_k h_w, v(x) = R_k h_v + w x (x - x_k) (h = [h_w; h_v] the column of H*(k)).
void relative_twist_jacobian(const RigidBodyModel& tree, const RigidBodyData& data,
                             const Impl& impl, int s, const LoopClosure& loop,
                             const FrameMotion& parent, const FrameMotion& child,
                             Eigen::Matrix<double, 6, Eigen::Dynamic>& jacobian) {
  const std::vector<int>& dofs = impl.dofs[s];
  const Forest& forest = tree.forest();
  const int parent_node = loop.parent < 0 ? -1 : tree.node_of_link(loop.parent);
  const int child_node = loop.child < 0 ? -1 : tree.node_of_link(loop.child);
  const Eigen::Vector3d d = child.position - parent.position;
  const Eigen::Matrix3d rotation_transpose = parent.rotation.transpose();
  jacobian.setZero(6, static_cast<int>(dofs.size()));
  for (std::size_t i = 0; i < dofs.size(); ++i) {
    const int k = impl.dof_node[dofs[i]];
    const bool moves_child = child_node >= 0 && forest.is_ancestor_or_self(k, child_node);
    const bool moves_parent = parent_node >= 0 && forest.is_ancestor_or_self(k, parent_node);
    if (!moves_child && !moves_parent) continue;
    const Eigen::Isometry3d& pose = data.link_pose[k];
    const auto h = data.hinge[k].col(impl.dof_in_joint[dofs[i]]);
    const Eigen::Vector3d w = pose.linear() * h.head<3>();
    const Eigen::Vector3d v_origin = pose.linear() * h.tail<3>();
    Eigen::Vector3d w_c = Eigen::Vector3d::Zero(), v_c = Eigen::Vector3d::Zero();
    Eigen::Vector3d w_p = Eigen::Vector3d::Zero(), v_p = Eigen::Vector3d::Zero();
    if (moves_child) {
      w_c = w;
      v_c = v_origin + w.cross(child.position - pose.translation());
    }
    if (moves_parent) {
      w_p = w;
      v_p = v_origin + w.cross(parent.position - pose.translation());
    }
    jacobian.col(i).head<3>() = rotation_transpose * (w_c - w_p);
    jacobian.col(i).tail<3>() = rotation_transpose * (v_c - v_p - w_p.cross(d));
  }
}

// Position error of a loop in its constrained directions (closed_chain_model.hpp): linear rows of
// R_p^T D; angular rows T^T (a x (R_rel a)) for a revolute, the rotation vector r = log(R_rel)
// otherwise, with R_rel = R_p^T R_c. `angular_jacobian` (3 x 3) maps the relative angular
// velocity w (F_p coordinates, d(R_rel)/dt = w~ R_rel) to the derivative of the angular error
// before the row selection: d/dt (a x R_rel a) = -a~ (R_rel a)~ w, and dr/dt = J_l^-1(r) w =
// J_r^-1(-r) w (rotation_vector_rate_matrix). Returns how far a revolute's axis is flipped
// (1 - a . R_rel a when a . R_rel a < 0, else 0): a x (R_rel a) vanishes there too, so the
// closure counts as open.
double loop_position_error(const LoopRows& rows, const LoopClosure& loop, const FrameMotion& parent,
                           const FrameMotion& child, Eigen::Ref<Eigen::VectorXd> error,
                           Eigen::Matrix3d& angular_jacobian) {
  const Eigen::Matrix3d relative = parent.rotation.transpose() * child.rotation;
  const Eigen::Vector3d position = parent.rotation.transpose() * (child.position - parent.position);
  Eigen::Vector3d angular;
  double flip = 0.0;
  if (loop.type == LoopType::kRevolute) {
    const Eigen::Vector3d turned = relative * rows.axis;
    angular = rows.axis.cross(turned);
    angular_jacobian = -cross_matrix(rows.axis) * cross_matrix(turned);
    const double alignment = rows.axis.dot(turned);
    if (alignment < 0) flip = 1.0 - alignment;
  } else {
    const Eigen::AngleAxisd angle_axis(relative);
    angular = angle_axis.angle() * angle_axis.axis();
    angular_jacobian = rotation_vector_rate_matrix(-angular);
  }
  const int angular_rows = static_cast<int>(rows.angular.rows());
  error.head(angular_rows) = rows.angular * angular;
  error.tail(rows.linear.rows()) = rows.linear * position;
  return flip;
}

// The position residual of aggregate s after aggregate_constraints: max |error|, or the flip of a
// revolute axis when larger.
double aggregate_position_residual(const ClosedChainData& data, int s) {
  const Eigen::VectorXd& error = data.work->position_error[s];
  const double largest = error.size() ? error.cwiseAbs().maxCoeff() : 0.0;
  return std::max(largest, data.work->orientation_flip[s]);
}

// Which loop or coupling row r of aggregate s belongs to (for messages).
std::string row_owner(const ClosedChainModel& model, int s, int row) {
  const Impl& impl = closed_chain_impl(model);
  const Mechanism& m = model.mechanism();
  for (const int l : impl.loops[s]) {
    if (row < impl.loop_rows[l].rows()) return loop_label(m, l);
    row -= impl.loop_rows[l].rows();
  }
  for (const int c : impl.couplings[s]) {
    const int rows = model.tree().joint_dofs(m.couplings[c].joint_a);
    if (row < rows) return coupling_label(m, c);
    row -= rows;
  }
  return "aggregate " + std::to_string(s + 1);
}

}  // namespace

namespace closed_chain_detail {

std::string aggregate_label(const ClosedChainModel& model, int s) {
  const Impl& impl = closed_chain_impl(model);
  const Mechanism& m = model.mechanism();
  std::string label;
  for (const int l : impl.loops[s]) label += (label.empty() ? "" : ", ") + loop_label(m, l);
  for (const int c : impl.couplings[s]) label += (label.empty() ? "" : ", ") + coupling_label(m, c);
  return label;
}

}  // namespace closed_chain_detail

using closed_chain_detail::aggregate_label;

namespace {

enum class Level { kPosition, kVelocity, kAcceleration };

// The constraints of aggregate s at the kinematics in data.tree (constraint-embedding Eq. 58-59,
// Q = [Y1 Y2] up to the column split; Qdot qd the velocity-product term of Corollary 8.1, Eq. 61,
// formed directly as d/dt (Q qd) at qdd = 0): position error and its Jacobian
// (kPosition and up), Q (kVelocity and up), Qdot qd (kAcceleration; needs
// work.node_acceleration). Rows: loops in order, then gears.
void aggregate_constraints(const ClosedChainModel& model, ClosedChainData& data, int s,
                           const Eigen::Ref<const Eigen::VectorXd>& q, Level level) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  const Mechanism& m = model.mechanism();
  Eigen::MatrixXd& jacobian = data.work->position_jacobian[s];
  Eigen::VectorXd& error = data.work->position_error[s];
  Eigen::MatrixXd& constraint = data.constraint_matrix[s];
  Eigen::VectorXd& product = data.constraint_velocity_product[s];
  // Frame velocities and accelerations enter Qdot qd only.
  const bool with_velocity = level == Level::kAcceleration;
  const Eigen::VectorXd* acceleration = with_velocity ? &data.work->node_acceleration : nullptr;
  Eigen::Matrix<double, 6, Eigen::Dynamic> twist;
  data.work->orientation_flip[s] = 0.0;
  data.work->flipped_loop[s] = -1;
  int row = 0;
  for (const int l : impl.loops[s]) {
    const LoopClosure& loop = m.loops[l];
    const LoopRows& rows = impl.loop_rows[l];
    const FrameMotion parent =
        frame_motion(tree, data.tree, acceleration, loop.parent, loop.parent_origin, with_velocity);
    const FrameMotion child =
        frame_motion(tree, data.tree, acceleration, loop.child, loop.child_origin, with_velocity);
    relative_twist_jacobian(tree, data.tree, impl, s, loop, parent, child, twist);
    const int angular_rows = static_cast<int>(rows.angular.rows());
    const int linear_rows = static_cast<int>(rows.linear.rows());
    Eigen::Matrix3d angular_jacobian;
    const double flip = loop_position_error(rows, loop, parent, child,
                                            error.segment(row, rows.rows()), angular_jacobian);
    if (flip > data.work->orientation_flip[s]) {
      data.work->orientation_flip[s] = flip;
      data.work->flipped_loop[s] = l;
    }
    jacobian.middleRows(row, angular_rows) = rows.angular * angular_jacobian * twist.topRows<3>();
    jacobian.middleRows(row + angular_rows, linear_rows) = rows.linear * twist.bottomRows<3>();
    constraint.middleRows(row, angular_rows) = rows.angular * twist.topRows<3>();
    constraint.middleRows(row + angular_rows, linear_rows) = rows.linear * twist.bottomRows<3>();
    if (acceleration != nullptr) {
      // d/dt of the relative twist with qdd = 0: d/dt (R_p^T y) = R_p^T (ydot - w_p x y) with
      // y_ang = w_c - w_p, y_lin = v_c - v_p - w_p x D, ydot_lin = a_c - a_p - wdot_p x D -
      // w_p x (v_c - v_p).
      const Eigen::Vector3d d = child.position - parent.position;
      const Eigen::Vector3d w_p = parent.angular_velocity;
      const Eigen::Vector3d y_angular = child.angular_velocity - w_p;
      const Eigen::Vector3d y_linear = child.velocity - parent.velocity - w_p.cross(d);
      const Eigen::Vector3d angular_rate =
          child.angular_acceleration - parent.angular_acceleration - w_p.cross(y_angular);
      const Eigen::Vector3d linear_rate =
          child.acceleration - parent.acceleration - parent.angular_acceleration.cross(d) -
          w_p.cross(child.velocity - parent.velocity) - w_p.cross(y_linear);
      const Eigen::Matrix3d rotation_transpose = parent.rotation.transpose();
      product.segment(row, angular_rows) = rows.angular * (rotation_transpose * angular_rate);
      product.segment(row + angular_rows, linear_rows) =
          rows.linear * (rotation_transpose * linear_rate);
    }
    row += rows.rows();
  }
  const std::vector<int>& dofs = impl.dofs[s];
  auto position_of = [&](int dof) {
    return static_cast<int>(std::ranges::find(dofs, dof) - dofs.begin());
  };
  for (const int c : impl.couplings[s]) {
    const Coupling& coupling = m.couplings[c];
    const int count = tree.joint_dofs(coupling.joint_a);
    const int offset_a = tree.joint_dof_offset(coupling.joint_a);
    const int offset_b = tree.joint_dof_offset(coupling.joint_b);
    for (int j = 0; j < count; ++j, ++row) {
      jacobian.row(row).setZero();
      jacobian(row, position_of(offset_a + j)) = 1.0;
      jacobian(row, position_of(offset_b + j)) = -coupling.ratio;
      constraint.row(row) = jacobian.row(row);
      error[row] = q[offset_a + j] - coupling.ratio * q[offset_b + j] - coupling.offset;
      product[row] = 0.0;
    }
  }
}

// The nominal rank of each aggregate's Q (ClosedChainModel::nominal_rank): the largest rank of Q
// (constraint-embedding Eq. 58) over a few configurations of the tree with every coordinate drawn
// uniformly from [-1.5, 1.5] (rad or m) by a fixed-seed generator, so the rank is reproducible. A
// configuration where Q happens to lose rank is outvoted by the others.
std::vector<int> generic_constraint_ranks(const ClosedChainModel& model) {
  constexpr int kSamples = 4;
  ClosedChainData data(model);
  std::vector<int> ranks(model.aggregate_count(), 0);
  if (ranks.empty()) return ranks;
  std::mt19937 generator(20260522u);
  Eigen::VectorXd q(model.dof_count());
  for (int sample = 0; sample < kSamples; ++sample) {
    for (Eigen::Index i = 0; i < q.size(); ++i)
      q[i] = 3.0 * (static_cast<double>(generator()) / 4294967295.0) - 1.5;
    update_positions(model.tree(), q, data.tree);
    for (int s = 0; s < model.aggregate_count(); ++s) {
      aggregate_constraints(model, data, s, q, Level::kVelocity);
      ranks[s] = std::max(
          ranks[s],
          select_coordinates(data.constraint_matrix[s], model.options().rank_tolerance).rank);
    }
  }
  return ranks;
}

// The Newton Jacobian with respect to the coordinates q themselves (columns of aggregate s): the
// velocity-space Jacobian times dqd/dq, which differs from the identity for rotation vectors
// (omega = J_r(r) dr/dt, J_r the right Jacobian of the exponential map) and floating positions
// (v = R^T dp/dt). Steps are then added to q, so the independent entries of q stay as given.
void coordinate_jacobian(const ClosedChainModel& model, int s,
                         const Eigen::Ref<const Eigen::VectorXd>& q, Eigen::MatrixXd& jacobian) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  const std::vector<int>& dofs = impl.dofs[s];
  std::size_t i = 0;
  while (i < dofs.size()) {
    const int k = impl.dof_node[dofs[i]];
    const JointType type = tree.joint_geometry(k).type;
    const auto column = static_cast<Eigen::Index>(i);
    if (uses_rotation_vector(type)) {
      const int offset = tree.joint_dof_offset(k);
      const Eigen::Vector3d rotation_vector = q.segment<3>(offset);
      const Eigen::Matrix3d right_jacobian = rotation_vector_rate_matrix(rotation_vector).inverse();
      jacobian.middleCols<3>(column) = (jacobian.middleCols<3>(column) * right_jacobian).eval();
      if (type == JointType::kFloating)
        jacobian.middleCols<3>(column + 3) =
            (jacobian.middleCols<3>(column + 3) * rotation_from_vector(rotation_vector).transpose())
                .eval();
      i += static_cast<std::size_t>(tree.joint_dofs(k));
    } else {
      ++i;
    }
  }
}

// True once aggregate s has a selection (an aggregate without dofs never needs one).
bool has_selection(const ClosedChainData& data, int s) {
  return !data.selection[s].dependent.empty() || !data.selection[s].independent.empty();
}

}  // namespace

void newton_closure(const ClosedChainModel& model, ClosedChainData& data,
                    Eigen::Ref<Eigen::VectorXd> q, int only_aggregate);

namespace closed_chain_detail {

// Whether aggregate s, closed at q with Q of rank selection.rank below the generic rank, keeps
// that rank on its closure near q (a mechanism over-constrained by its geometry, e.g. a spherical
// four-bar closed by a revolute: its rows are dependent on every closed configuration) rather
// than sitting at a singular configuration. Moves the selection's independent coordinates by a
// few milliradians/millimetres, closes the dependent ones by Newton and takes the rank there: at
// a singular configuration the closure does not follow the move or the rank rises. Leaves
// data.tree and aggregate s's constraints at the probe (the caller updates them again).
bool closure_keeps_rank(const ClosedChainModel& model, ClosedChainData& data, int s,
                        const CoordinateSelection& selection,
                        const Eigen::Ref<const Eigen::VectorXd>& q) {
  const Impl& impl = closed_chain_impl(model);
  CoordinateSelection kept = data.selection[s];
  data.selection[s] = selection;
  Eigen::VectorXd probe = q;  // a rare path: only when a rank drops below nominal
  for (std::size_t j = 0; j < selection.independent.size(); ++j)
    probe[impl.dofs[s][selection.independent[j]]] +=
        (j % 2 ? -1e-3 : 1e-3) * (1.0 + 0.37 * static_cast<double>(j));
  bool follows = true;
  try {
    newton_closure(model, data, probe, s);
  } catch (const ClosureError&) {
    follows = false;
  }
  int probe_rank = -1;
  if (follows) {
    update_positions(model.tree(), probe, data.tree);
    aggregate_constraints(model, data, s, probe, Level::kVelocity);
    probe_rank = select_coordinates(data.constraint_matrix[s], model.options().rank_tolerance).rank;
  }
  data.selection[s] = std::move(kept);
  return follows && probe_rank == selection.rank;
}

// Keeps the stored selection of aggregate s while its Y1 stays well conditioned, otherwise
// selects again from data.constraint_matrix[s]. A rank below the nominal rank is a singular
// configuration (ClosureError, also on the first update), unless the first such drop is the
// closure's own rank (closure_keeps_rank): that rank becomes this data's nominal rank.
void update_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd) {
  const ClosedChainOptions& options = model.options();
  const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
  if (has_selection(data, s) && data.selection[s].rank >= data.nominal_rank[s] &&
      selection_conditioning(constraint, data.selection[s]) >= options.reselect_conditioning)
    return;
  CoordinateSelection selection = select_coordinates(constraint, options.rank_tolerance);
  if (selection.rank < data.nominal_rank[s]) {
    if (data.nominal_rank[s] != model.nominal_rank(s) ||
        !closure_keeps_rank(model, data, s, selection, q))
      throw ClosureError("singular configuration: " + aggregate_label(model, s) + " loses rank (" +
                         std::to_string(data.nominal_rank[s]) + " -> " +
                         std::to_string(selection.rank) + ")");
    data.nominal_rank[s] = selection.rank;
    update_kinematics(model.tree(), q, qd, data.tree);  // back from the probe
    velocity_product_accelerations(model.tree(), data.tree, data.work->node_acceleration);
    aggregate_constraints(model, data, s, q, Level::kAcceleration);
  }
  data.selection[s] = std::move(selection);
}

void check_vector(const Eigen::Ref<const Eigen::VectorXd>& v, int size, const char* what) {
  if (v.size() != size)
    throw std::invalid_argument(std::string("closed-chain model: ") + what + " has " +
                                std::to_string(v.size()) + " entries, expected " +
                                std::to_string(size));
}

// The largest |Q X_S| of aggregate s relative to the size of Q: zero up to roundoff when the
// selection's rank is Q's full rank.
double embedding_violation(const ClosedChainData& data, int s) {
  const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
  if (constraint.size() == 0 || data.embedding[s].size() == 0) return 0.0;
  return (constraint * data.embedding[s]).cwiseAbs().maxCoeff() /
         (1.0 + constraint.cwiseAbs().maxCoeff());
}

// Kinematics, constraints, selections, X and Xdot qd_R (not the embedded model).
void update_constraints(const ClosedChainModel& model, ClosedChainData& data,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& qd) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  ClosedChainData::Workspaces& work = *data.work;
  check_vector(q, model.dof_count(), "q");
  check_vector(qd, model.dof_count(), "qd");
  update_kinematics(tree, q, qd, data.tree);
  velocity_product_accelerations(tree, data.tree, work.node_acceleration);
  work.embedding_rate_full.setZero();
  for (int s = 0; s < model.aggregate_count(); ++s) {
    aggregate_constraints(model, data, s, q, Level::kAcceleration);
    update_selection(model, data, s, q, qd);
    embedding_matrices(data.constraint_matrix[s], data.constraint_velocity_product[s],
                       data.selection[s], data.embedding[s], data.embedding_rate[s]);
    // A rank of Q above the sampled nominal rank (the samples missed it) leaves constraints out
    // of Y1: Q X_S != 0. Select again and take the higher rank as nominal.
    if (embedding_violation(data, s) > 1e3 * model.options().rank_tolerance) {
      CoordinateSelection selection =
          select_coordinates(data.constraint_matrix[s], model.options().rank_tolerance);
      if (selection.rank > data.selection[s].rank) {
        data.nominal_rank[s] = std::max(data.nominal_rank[s], selection.rank);
        data.selection[s] = std::move(selection);
        embedding_matrices(data.constraint_matrix[s], data.constraint_velocity_product[s],
                           data.selection[s], data.embedding[s], data.embedding_rate[s]);
      }
    }
    const std::vector<int>& dofs = impl.dofs[s];
    for (std::size_t i = 0; i < dofs.size(); ++i)
      work.embedding_rate_full[dofs[i]] = data.embedding_rate[s][static_cast<Eigen::Index>(i)];
  }
  // The independent dofs: plain dofs and each aggregate's independent columns, increasing.
  work.independent_previous.swap(data.independent);
  data.independent.clear();
  for (const int d : impl.plain_dofs) data.independent.push_back(d);
  for (int s = 0; s < model.aggregate_count(); ++s)
    for (const int i : data.selection[s].independent) data.independent.push_back(impl.dofs[s][i]);
  std::ranges::sort(data.independent);
  const int independent = static_cast<int>(data.independent.size());
  for (int c = 0; c < independent; ++c) work.column_of[data.independent[c]] = c;
  // The full X: identity entries for plain dofs, X_S blocks for aggregates. When the independent
  // dofs are those of the last update only the X_S blocks change (O(N)).
  if (data.independent != work.independent_previous || data.X.cols() != independent ||
      data.X.rows() != model.dof_count()) {
    data.X.setZero(model.dof_count(), independent);
    for (const int d : impl.plain_dofs) data.X(d, work.column_of[d]) = 1.0;
  }
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[s];
    const CoordinateSelection& selection = data.selection[s];
    for (std::size_t j = 0; j < selection.independent.size(); ++j) {
      const int column = work.column_of[dofs[selection.independent[j]]];
      for (std::size_t i = 0; i < dofs.size(); ++i)
        data.X(dofs[i], column) =
            data.embedding[s](static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
    }
  }
}

// independent = X* full (T_R = X* tau), block by block (O(N)).
void apply_embedding_transpose(const ClosedChainModel& model, const ClosedChainData& data,
                               const Eigen::Ref<const Eigen::VectorXd>& full,
                               Eigen::VectorXd& independent) {
  const Impl& impl = closed_chain_impl(model);
  const std::vector<int>& column_of = data.work->column_of;
  independent.resize(static_cast<Eigen::Index>(data.independent.size()));
  for (const int d : impl.plain_dofs) independent[column_of[d]] = full[d];
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[s];
    const CoordinateSelection& selection = data.selection[s];
    for (std::size_t j = 0; j < selection.independent.size(); ++j) {
      double sum = 0.0;
      for (std::size_t i = 0; i < dofs.size(); ++i)
        sum += data.embedding[s](static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) *
               full[dofs[i]];
      independent[column_of[dofs[selection.independent[j]]]] = sum;
    }
  }
}

// full = X independent + offset (qd = X qd_R; qdd = X qdd_R + Xdot qd_R), block by block (O(N)).
void apply_embedding(const ClosedChainModel& model, const ClosedChainData& data,
                     const Eigen::Ref<const Eigen::VectorXd>& independent,
                     const Eigen::Ref<const Eigen::VectorXd>& offset,
                     Eigen::Ref<Eigen::VectorXd> full) {
  const Impl& impl = closed_chain_impl(model);
  const std::vector<int>& column_of = data.work->column_of;
  for (const int d : impl.plain_dofs) full[d] = independent[column_of[d]] + offset[d];
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[s];
    const CoordinateSelection& selection = data.selection[s];
    for (std::size_t i = 0; i < dofs.size(); ++i) {
      double sum = offset[dofs[i]];
      for (std::size_t j = 0; j < selection.independent.size(); ++j)
        sum += data.embedding[s](static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) *
               independent[column_of[dofs[selection.independent[j]]]];
      full[dofs[i]] = sum;
    }
  }
}

// (Re)builds the aggregated structure when the ranks differ from those it was built with.
void ensure_structure(const ClosedChainModel& model, ClosedChainData& data) {
  const Impl& impl = closed_chain_impl(model);
  ClosedChainData::Workspaces& work = *data.work;
  std::vector<int> ranks(model.aggregate_count());
  for (int s = 0; s < model.aggregate_count(); ++s) ranks[s] = data.selection[s].rank;
  if (data.structure && ranks == work.structure_rank) return;
  std::vector<int> hinge_dims(model.aggregate_count());
  for (int s = 0; s < model.aggregate_count(); ++s)
    hinge_dims[s] = static_cast<int>(impl.dofs[s].size()) - ranks[s];
  data.structure =
      std::make_unique<AggregatedStructure>(model.tree().structure(), impl.nodes, hinge_dims);
  const AggregatedStructure& structure = *data.structure;
  data.embedded = std::make_unique<SkoModel>(structure.aggregated());
  work.aggregation = std::make_unique<AggregationWorkspace>(structure);
  work.forward = std::make_unique<ForwardDynamicsWorkspace>(structure.aggregated());
  work.inverse = std::make_unique<InverseDynamicsWorkspace>(*structure.aggregated());
  work.composite = std::make_unique<CompositeInertiaWorkspace>(*structure.aggregated());
  const int node_size = structure.aggregated()->node.total();
  const int hinge_size = structure.aggregated()->hinge.total();
  work.coriolis_aggregated.setZero(node_size);
  work.gyroscopic_aggregated.setZero(node_size);
  work.velocity_embedded.setZero(hinge_size);
  work.force_embedded.setZero(hinge_size);
  work.acceleration_embedded.setZero(hinge_size);
  data.embedded_to_independent.assign(hinge_size, -1);
  for (int s = 0; s < model.aggregate_count(); ++s)
    work.embedding_structure_order[s].setZero(static_cast<Eigen::Index>(impl.dofs[s].size()),
                                              hinge_dims[s]);
  work.structure_rank = ranks;
}

}  // namespace closed_chain_detail

using namespace closed_chain_detail;

namespace {

// The dependent coordinates of aggregate s for Newton: the stored selection while it stays well
// conditioned at the current Q; a selection of lower rank than nominal (a singular point on the
// way) is not taken, the update after closing reports a closed configuration that is singular.
void newton_selection(const ClosedChainModel& model, ClosedChainData& data, int s) {
  const ClosedChainOptions& options = model.options();
  if (has_selection(data, s) &&
      selection_conditioning(data.constraint_matrix[s], data.selection[s]) >=
          options.reselect_conditioning)
    return;
  CoordinateSelection selection =
      select_coordinates(data.constraint_matrix[s], options.rank_tolerance);
  if (!has_selection(data, s) || selection.rank >= data.nominal_rank[s])
    data.selection[s] = std::move(selection);
}

// The Newton step of aggregate s at the q of its last aggregate_constraints: delta_u = -J_u^+ e
// (least squares; rows may be redundant), zero on the independent coordinates; into
// work.newton_step[s], with |e| into work.error_norm[s].
void newton_step(const ClosedChainModel& model, ClosedChainData& data, int s,
                 const Eigen::Ref<const Eigen::VectorXd>& q) {
  ClosedChainData::Workspaces& work = *data.work;
  const std::vector<int>& dependent = data.selection[s].dependent;
  const Eigen::VectorXd& error = work.position_error[s];
  Eigen::MatrixXd& jacobian = work.position_jacobian[s];
  coordinate_jacobian(model, s, q, jacobian);
  Eigen::MatrixXd& dependent_jacobian = work.dependent_jacobian[s];
  dependent_jacobian.resize(error.size(), static_cast<Eigen::Index>(dependent.size()));
  for (std::size_t j = 0; j < dependent.size(); ++j)
    dependent_jacobian.col(static_cast<Eigen::Index>(j)) = jacobian.col(dependent[j]);
  Eigen::VectorXd& dependent_step = work.dependent_step[s];
  dependent_step.resize(static_cast<Eigen::Index>(dependent.size()));
  dependent_step = work.least_squares[s].compute(dependent_jacobian).solve(error);
  Eigen::VectorXd& step = work.newton_step[s];
  step.setZero();
  for (std::size_t j = 0; j < dependent.size(); ++j)
    step[dependent[j]] = -dependent_step[static_cast<Eigen::Index>(j)];
  work.error_norm[s] = error.norm();
  work.step_scale[s] = 1.0;
}

}  // namespace

// Newton on the position-level closure equations over the dependent coordinates of every
// aggregate at once (constraint-embedding §7: the dependent coordinates follow from the
// independent ones): delta_u = -J_u^+ e per aggregate with J the exact Jacobian of its e with
// respect to q (coordinate_jacobian), q_u <- q_u + delta_u, each aggregate halving its own step
// while its own residual grows. An aggregate's closure depends only on its own dofs (the relative
// pose of its closure frames), so one tree pass (update_positions) per trial serves all
// aggregates: an iteration costs O(N), not O(N k). The dependent entries of q are those of the
// selection's dependent velocity columns.
// Newton closure of every aggregate (only_aggregate < 0) or of one (close_positions).
void newton_closure(const ClosedChainModel& model, ClosedChainData& data,
                    Eigen::Ref<Eigen::VectorXd> q, int only_aggregate) {
  using Newton = ClosedChainData::Workspaces::Newton;
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  const ClosedChainOptions& options = model.options();
  ClosedChainData::Workspaces& work = *data.work;
  check_vector(q, model.dof_count(), "q");
  if (!q.allFinite()) throw ClosureError("the configuration q has non-finite entries");
  const int aggregates = model.aggregate_count();
  update_positions(tree, q, data.tree);
  int active = 0;
  for (int s = 0; s < aggregates; ++s) {
    aggregate_constraints(model, data, s, q, Level::kVelocity);
    work.newton_steps[s] = 0;
    work.newton_state[s] = Newton::kClosed;
    if ((only_aggregate >= 0 && s != only_aggregate) ||
        aggregate_position_residual(data, s) <= options.position_tolerance)
      continue;
    work.newton_state[s] = Newton::kActive;
    ++active;
    newton_selection(model, data, s);
  }
  constexpr int kHalvings = 30;
  for (int iteration = 0; active > 0 && iteration < options.max_newton_iterations; ++iteration) {
    work.saved_configuration = q;
    int pending = 0;
    for (int s = 0; s < aggregates; ++s) {
      work.step_accepted[s] = work.newton_state[s] != Newton::kActive;
      if (work.step_accepted[s]) continue;
      newton_step(model, data, s, q);
      ++pending;
    }
    // Trial steps of all pending aggregates, one tree pass per trial.
    for (int halving = 0; halving < kHalvings && pending > 0; ++halving) {
      for (int s = 0; s < aggregates; ++s) {
        if (work.step_accepted[s]) continue;
        const std::vector<int>& dofs = impl.dofs[s];
        for (std::size_t i = 0; i < dofs.size(); ++i)
          q[dofs[i]] = work.saved_configuration[dofs[i]] +
                       work.step_scale[s] * work.newton_step[s][static_cast<Eigen::Index>(i)];
      }
      update_positions(tree, q, data.tree);
      for (int s = 0; s < aggregates; ++s) {
        if (work.step_accepted[s]) continue;
        aggregate_constraints(model, data, s, q, Level::kVelocity);
        const Eigen::VectorXd& error = work.position_error[s];
        if (error.allFinite() && error.norm() < work.error_norm[s]) {
          work.step_accepted[s] = 1;
          --pending;
        } else {
          work.step_scale[s] *= 0.5;
        }
      }
    }
    for (int s = 0; s < aggregates; ++s) {
      if (work.newton_state[s] != Newton::kActive) continue;
      if (!work.step_accepted[s]) {  // no descent left: roundoff floor or a closure out of reach
        for (const int d : impl.dofs[s]) q[d] = work.saved_configuration[d];
        work.newton_state[s] = Newton::kStalled;
        --active;
        continue;
      }
      ++work.newton_steps[s];
      if (aggregate_position_residual(data, s) <= options.position_tolerance) {
        work.newton_state[s] = Newton::kClosed;
        --active;
      }
    }
  }
  if (std::ranges::all_of(work.newton_state, [](Newton n) { return n == Newton::kClosed; })) return;
  // The residuals at the final q (stalled aggregates were put back); at the roundoff floor a
  // residual a little above a tight tolerance is closed. Report the worst aggregate.
  update_positions(tree, q, data.tree);
  int worst_aggregate = -1;
  double worst = std::max(options.position_tolerance, 1e-11);
  for (int s = 0; s < aggregates; ++s) {
    if (work.newton_state[s] == Newton::kClosed) continue;
    aggregate_constraints(model, data, s, q, Level::kVelocity);
    const double residual = aggregate_position_residual(data, s);
    if (residual > worst) {
      worst = residual;
      worst_aggregate = s;
    }
  }
  if (worst_aggregate < 0) return;
  const int s = worst_aggregate;
  const Eigen::VectorXd& error = work.position_error[s];
  Eigen::Index row = 0;
  if (error.size()) error.cwiseAbs().maxCoeff(&row);
  const int flipped = work.flipped_loop[s];
  const std::string owner = flipped >= 0 && work.orientation_flip[s] >= worst
                                ? loop_label(model.mechanism(), flipped)
                                : row_owner(model, s, static_cast<int>(row));
  const int steps = work.newton_steps[s];
  std::string what;
  if (work.newton_state[s] == Newton::kActive)
    what = " after " + std::to_string(steps) + " Newton steps";
  else if (steps == 0)
    what = ", and no Newton step from the given values reduces it";
  else
    what =
        ", the least Newton reaches (" + std::to_string(steps) + " steps, then no step reduces it)";
  throw ClosureError(owner + " cannot be closed from the given state: residual " +
                     format_residual(worst) + what);
}

void close_positions(const ClosedChainModel& model, ClosedChainData& data,
                     Eigen::Ref<Eigen::VectorXd> q) {
  newton_closure(model, data, q, -1);
}

// qd = X qd_R at the closed q, keeping the independent entries (constraint-embedding Lemma 5,
// Eq. 60).
void close_velocities(const ClosedChainModel& model, ClosedChainData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q, Eigen::Ref<Eigen::VectorXd> qd) {
  update_constraints(model, data, q, qd);
  Eigen::VectorXd& independent = data.work->independent_forces;  // scratch
  independent.resize(static_cast<Eigen::Index>(data.independent.size()));
  for (std::size_t c = 0; c < data.independent.size(); ++c)
    independent[static_cast<Eigen::Index>(c)] = qd[data.independent[c]];
  apply_embedding(model, data, independent, data.work->zero_dofs, qd);
}

double position_residual(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q) {
  check_vector(q, model.dof_count(), "q");
  update_positions(model.tree(), q, data.tree);
  double residual = 0.0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    aggregate_constraints(model, data, s, q, Level::kPosition);
    residual = std::max(residual, aggregate_position_residual(data, s));
  }
  return residual;
}

double velocity_residual(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd) {
  const Impl& impl = closed_chain_impl(model);
  check_vector(q, model.dof_count(), "q");
  check_vector(qd, model.dof_count(), "qd");
  update_positions(model.tree(), q, data.tree);
  double residual = 0.0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    aggregate_constraints(model, data, s, q, Level::kVelocity);
    // max |Q_S qd_S| row by row, qd_S gathered from the tree dofs of aggregate s.
    const std::vector<int>& dofs = impl.dofs[s];
    const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
    for (Eigen::Index row = 0; row < constraint.rows(); ++row) {
      double rate = 0.0;
      for (std::size_t i = 0; i < dofs.size(); ++i)
        rate += constraint(row, static_cast<Eigen::Index>(i)) * qd[dofs[i]];
      residual = std::max(residual, std::abs(rate));
    }
  }
  return residual;
}

// The embedded SKO model (H_Ra, A_a, M) at (q, qd) (constraint-embedding Lemma 6; conventions.md
// "Constraint embedding"): A_a and M by aggregation (Lemmas 3-4), H_Ra = X_S* H_S A_S.
}  // namespace skograph

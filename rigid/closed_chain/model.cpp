// Closed-chain models (constraint-embedding §4-7; conventions.md "Constraint embedding"): the
// aggregates of the loops and couplings, their constraint row layout and nominal ranks, and the
// data's workspaces. See closed_chain_model.hpp for the constraint definitions.
#include "closed_chain/internal.hpp"
#include "kinematics_detail.hpp"
#include "skograph/rigid/closed_chain_model.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <ranges>
#include <stdexcept>

#include "skograph/graph/aggregation_subgraphs.hpp"
#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"

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
  rows.angular_padded.topRows(rows.angular.rows()) = rows.angular;
  rows.linear_padded.topRows(rows.linear.rows()) = rows.linear;
  return rows;
}

}  // namespace

namespace closed_chain_detail {

bool uses_rotation_vector(JointType type) {
  return type == JointType::kSpherical || type == JointType::kFloating;
}

std::string format_residual(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1e", value);
  return buffer;
}

std::string loop_label(const Mechanism& m, int loop) {
  return "loop '" + m.loops[loop].name + "'";
}

std::string coupling_label(const Mechanism& m, int coupling) {
  return "coupling '" + m.couplings[coupling].name + "'";
}

}  // namespace closed_chain_detail

using namespace closed_chain_detail;

const ClosedChainModel::Impl& closed_chain_impl(const ClosedChainModel& model) {
  return *model.impl_;
}

namespace {

// The modal coordinates that move one end of a loop of aggregate s relative to the other: the
// modes of a flexible link P that is a strict ancestor of one end only, or of both ends through
// different children of P (different nodes). A mode moving both ends through one node moves them
// together.
void add_modal_dofs(const RigidBodyModel& tree, int s, ClosedChainModel::Impl& impl) {
  const Mechanism& m = tree.mechanism();
  const Forest& forest = tree.forest();
  // The child of P on the path from P down to node k (-1 when P is not a strict ancestor).
  auto child_toward = [&](int p, int k) {
    for (; k >= 0; k = forest.parent(k) == Forest::kNone ? -1 : forest.parent(k))
      if (forest.parent(k) == p) return k;
    return -1;
  };
  std::vector<int>& modal = impl.modal_dofs[static_cast<std::size_t>(s)];
  for (int p = 0; p < tree.node_count(); ++p) {
    if (tree.modes(p) == 0) continue;
    bool moves = false;
    for (const int l : impl.loops[static_cast<std::size_t>(s)]) {
      const LoopClosure& loop = m.loops[static_cast<std::size_t>(l)];
      const int a = loop.parent < 0 ? -1 : child_toward(p, tree.node_of_link(loop.parent));
      const int b = loop.child < 0 ? -1 : child_toward(p, tree.node_of_link(loop.child));
      moves = moves || a != b;
    }
    if (!moves) continue;
    for (int i = 0; i < tree.modes(p); ++i) modal.push_back(tree.modal_offset(p) + i);
  }
}

void validate_closures(const RigidBodyModel& tree) {
  const Mechanism& m = tree.mechanism();
  const int links = tree.link_count();
  for (std::size_t i = 0; i < m.loops.size(); ++i) {
    const LoopClosure& loop = m.loops[i];
    const std::string label = loop_label(m, static_cast<int>(i));
    const int index = static_cast<int>(i);
    if (loop.parent < -1 || loop.parent >= links || loop.child < -1 || loop.child >= links)
      throw LoopDefinitionError(label + " names a link out of range", index);
    if (loop.parent == loop.child)
      throw LoopDefinitionError(label + " connects a link to itself (its frames are on one " +
                                    "rigid body and do not coincide: no configuration closes it)",
                                index);
    if (!loop.parent_origin.matrix().allFinite() || !loop.child_origin.matrix().allFinite() ||
        !loop.axis.allFinite())
      throw LoopDefinitionError(label + " has non-finite numbers", index);
    if ((loop.type == LoopType::kRevolute || loop.type == LoopType::kPrismatic) &&
        loop.axis.norm() < 1e-12)
      throw LoopDefinitionError(label + " has a zero-length axis", index);
  }
  for (std::size_t i = 0; i < m.couplings.size(); ++i) {
    const Coupling& coupling = m.couplings[i];
    const std::string label = coupling_label(m, static_cast<int>(i));
    if (coupling.type != "gear" && coupling.type != "differential")
      throw std::invalid_argument(label + " has type '" + coupling.type +
                                  "' (expected gear or differential)");
    if (coupling.further_joints.size() != coupling.further_ratios.size() ||
        (coupling.type == "gear") != coupling.further_joints.empty())
      throw std::invalid_argument(label + (coupling.type == "gear"
                                               ? " is a gear of more than two joints"
                                               : " is a differential of fewer than three joints"));
    const int joints = tree.joint_count();
    std::vector<int> coupled = {coupling.joint_a};
    for (int t = 0; t < coupling.term_count(); ++t) coupled.push_back(coupling.term_joint(t));
    for (std::size_t k = 0; k < coupled.size(); ++k) {
      if (coupled[k] < 0 || coupled[k] >= joints)
        throw std::invalid_argument(label + " names a joint out of range");
      if (std::find(coupled.begin(), coupled.begin() + static_cast<std::ptrdiff_t>(k),
                    coupled[k]) != coupled.begin() + static_cast<std::ptrdiff_t>(k))
        throw std::invalid_argument(label + " couples a joint with itself");
    }
    const Joint& a = m.joints[coupling.joint_a];
    for (const int j : coupled) {
      const Joint& b = m.joints[j];
      if (b.type == JointType::kFixed)
        throw std::invalid_argument(label + " couples a fixed joint");
      if (joint_dof_count(a.type) != joint_dof_count(b.type))
        throw std::invalid_argument(label + " couples joints with different dof counts ('" +
                                    a.name + "' has " + std::to_string(joint_dof_count(a.type)) +
                                    ", '" + b.name + "' has " +
                                    std::to_string(joint_dof_count(b.type)) + ")");
      // A gear relates coordinates whose rates are their time derivatives.
      if (uses_rotation_vector(b.type))
        throw std::invalid_argument(label +
                                    " couples a spherical or floating joint (gears couple " +
                                    "revolute, continuous, prismatic or planar joints)");
    }
    bool finite = std::isfinite(coupling.offset);
    for (int t = 0; t < coupling.term_count(); ++t)
      finite = finite && std::isfinite(coupling.term_ratio(t));
    if (!finite) throw std::invalid_argument(label + " has a non-finite ratio or offset");
  }
}

// A loop end on a flexible link L sits at L's node named after the loop (ModalBody::nodes), which
// L's modes move and turn. The closure reads a rigid frame's motion, so the end moves to a
// massless link `L/LOOP` welded at that node by a fixed joint of the same name (the node renamed
// after it, by which the tree finds the node's influence): the flexible tree's kinematics then
// give that frame's pose, velocity and Jacobian, modal columns included.
Mechanism with_loop_carriers(Mechanism mechanism) {
  for (LoopClosure& loop : mechanism.loops)
    for (const bool parent_end : {true, false}) {
      int& end = parent_end ? loop.parent : loop.child;
      Eigen::Isometry3d& origin = parent_end ? loop.parent_origin : loop.child_origin;
      if (end < 0 || end >= static_cast<int>(mechanism.links.size()) ||
          !mechanism.links[static_cast<std::size_t>(end)].flexible)
        continue;
      Link& link = mechanism.links[static_cast<std::size_t>(end)];
      const std::string name = link.name + "/" + loop.name;
      auto body = std::make_shared<ModalBody>(*link.flexible);
      for (ModalNode& node : body->nodes)
        if (node.name == loop.name) node.name = name;
      link.flexible = std::move(body);
      Link carrier;
      carrier.name = name;
      Joint weld;
      weld.name = name;
      weld.type = JointType::kFixed;
      weld.parent = end;
      weld.child = static_cast<int>(mechanism.links.size());
      weld.origin = origin;
      mechanism.links.push_back(std::move(carrier));
      mechanism.joints.push_back(std::move(weld));
      end = static_cast<int>(mechanism.links.size()) - 1;
      origin = Eigen::Isometry3d::Identity();
    }
  return mechanism;
}

}  // namespace

ClosedChainModel::ClosedChainModel(Mechanism mechanism, ClosedChainOptions options)
    : tree_(std::make_shared<const RigidBodyModel>(with_loop_carriers(std::move(mechanism)))),
      options_(options) {
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
  // A differential has one cut edge per other joint (all through joint a's link: one aggregate).
  std::vector<Edge> cut_edges;
  std::vector<int> cut_link;   // per cut edge: a link of the sub-graph that holds it
  std::vector<int> cut_owner;  // per cut edge: the loop index, or loops + the coupling index
  auto add_cut = [&](int u, int v, int owner) {
    cut_edges.emplace_back(u, v);
    cut_link.push_back(link_forest.is_ancestor_or_self(v, u) ? u : v);
    cut_owner.push_back(owner);
  };
  for (std::size_t l = 0; l < m.loops.size(); ++l)
    add_cut(link_node(m.loops[l].parent), link_node(m.loops[l].child), static_cast<int>(l));
  for (std::size_t c = 0; c < m.couplings.size(); ++c) {
    const Coupling& coupling = m.couplings[c];
    const int owner = static_cast<int>(m.loops.size() + c);
    const int la = m.joints[coupling.joint_a].child;
    const int pa = link_node(m.joints[coupling.joint_a].parent);
    for (int t = 0; t < coupling.term_count(); ++t) {
      const int lb = m.joints[coupling.term_joint(t)].child;
      const int pb = link_node(m.joints[coupling.term_joint(t)].parent);
      if (link_forest.is_ancestor(la, lb))
        add_cut(pa, lb, owner);
      else if (link_forest.is_ancestor(lb, la))
        add_cut(la, pb, owner);
      else
        add_cut(la, lb, owner);
    }
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
      const int owner = cut_owner[e];
      std::vector<int>& list =
          owner < static_cast<int>(m.loops.size()) ? impl->loops[s] : impl->couplings[s];
      const int index = owner < static_cast<int>(m.loops.size())
                            ? owner
                            : owner - static_cast<int>(m.loops.size());
      if (std::find(list.begin(), list.end(), index) == list.end()) list.push_back(index);
    }
  }

  for (const LoopClosure& loop : m.loops) impl->loop_rows.push_back(make_loop_rows(loop));
  const int aggregates = static_cast<int>(impl->nodes.size());
  // Each aggregate is embedded as one dense node of dimension 6 |S| (constraint-embedding §5):
  // its blocks grow as |S|^2, so that a larger one would ask for gigabytes.
  for (int s = 0; s < aggregates; ++s)
    if (static_cast<int>(impl->nodes[s].size()) > kMaxAggregateLinks)
      throw LoopDefinitionError(
          (impl->loops[s].empty() ? coupling_label(m, impl->couplings[s].front())
                                  : loop_label(m, impl->loops[s].front())) +
              " joins " + std::to_string(impl->nodes[s].size()) +
              " links into one aggregate, more than the " + std::to_string(kMaxAggregateLinks) +
              " that constraint embedding takes (its dense blocks grow as the square)",
          impl->loops[s].empty() ? -1 : impl->loops[s].front());
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
  impl->modal.assign(tree.dof_count(), 0);
  for (int k = 0; k < nodes; ++k) {
    for (int j = 0; j < tree.joint_dofs(k); ++j) {
      impl->dof_node[tree.joint_dof_offset(k) + j] = k;
      impl->dof_in_joint[tree.joint_dof_offset(k) + j] = j;
    }
    for (int i = 0; i < tree.modes(k); ++i) {
      impl->dof_node[tree.modal_offset(k) + i] = k;
      impl->dof_in_joint[tree.modal_offset(k) + i] = tree.joint_dofs(k) + i;
      impl->modal[tree.modal_offset(k) + i] = 1;
    }
  }
  // Modal coordinates stay independent (the loops' joints follow them): plain dofs.
  for (int d = 0; d < tree.dof_count(); ++d)
    if (impl->modal[d] || impl->aggregate_of_node[impl->dof_node[d]] < 0)
      impl->plain_dofs.push_back(d);
  impl->modal_dofs.resize(aggregates);
  for (int s = 0; s < aggregates; ++s) add_modal_dofs(tree, s, *impl);
  for (int s = 0; s < aggregates; ++s)
    for (const int l : impl->loops[s]) {
      const LoopClosure& loop = m.loops[static_cast<std::size_t>(l)];
      const int parent_node = loop.parent < 0 ? -1 : tree.node_of_link(loop.parent);
      const int child_node = loop.child < 0 ? -1 : tree.node_of_link(loop.child);
      for (std::size_t i = 0; i < impl->dofs[s].size(); ++i) {
        const int k = impl->dof_node[impl->dofs[s][i]];
        const bool child = child_node >= 0 && tree.forest().is_ancestor_or_self(k, child_node);
        const bool parent = parent_node >= 0 && tree.forest().is_ancestor_or_self(k, parent_node);
        // A dof moving both ends moves them together: its contributions cancel.
        if (child != parent)
          impl->loop_rows[l].moving.push_back(
              {static_cast<int>(i), child, impl->dofs[s][i],
               tree.subtree_position(k) + impl->dof_in_joint[impl->dofs[s][i]]});
      }
      LoopRows& rows = impl->loop_rows[l];
      const std::size_t count = rows.moving.size();
      rows.moves.resize(count * count);
      for (std::size_t a = 0; a < count; ++a)
        for (std::size_t b = 0; b < count; ++b) {
          const int dof_a = rows.moving[a].dof, dof_b = rows.moving[b].dof;
          const int node_a = impl->dof_node[dof_a], node_b = impl->dof_node[dof_b];
          rows.moves[a * count + b] =
              node_a == node_b
                  ? rigid_detail::moves_within(tree.joint_geometry(node_a).type,
                                               impl->dof_in_joint[dof_a], impl->dof_in_joint[dof_b])
                  : tree.forest().is_ancestor_or_self(node_a, node_b);
        }
    }
  // M_SS couples two dofs of an aggregate only along a path to the root: the other entries stay
  // zero at every state (a Stewart platform: 51 pairs, 81 of 441 entries).
  impl->mass_entries.resize(aggregates);
  for (int s = 0; s < aggregates; ++s) {
    const std::vector<int>& dofs = impl->dofs[s];
    for (std::size_t j = 0; j < dofs.size(); ++j)
      for (std::size_t i = 0; i < dofs.size(); ++i) {
        const int a = impl->dof_node[dofs[i]], b = impl->dof_node[dofs[j]];
        if (tree.forest().is_ancestor_or_self(a, b) && (a != b || i <= j))
          impl->mass_entries[s].push_back({static_cast<int>(i), static_cast<int>(j)});
      }
  }
  impl->swallows_whole = aggregates == 1 && static_cast<int>(impl->nodes[0].size()) == nodes;
  impl->nominal_rank.assign(aggregates, 0);
  impl_ = impl;
  impl->nominal_rank = generic_constraint_ranks(*this);
  check_modes_are_followed(*this);
  choose_independent(*this, *impl);
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

const std::vector<std::string>& ClosedChainModel::notes() const {
  return impl_->notes;
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

void ConstraintWorkspace::resize(const ClosedChainModel& model) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  const int aggregates = model.aggregate_count();
  const int dofs = model.dof_count(), nodes = model.tree().node_count();
  position_jacobian.resize(aggregates);
  position_error.resize(aggregates);
  for (int s = 0; s < aggregates; ++s) {
    position_jacobian[s].setZero(impl.rows[s], static_cast<int>(impl.dofs[s].size()));
    position_error[s].setZero(impl.rows[s]);
  }
  orientation_flip.assign(aggregates, 0.0);
  flipped_loop.assign(aggregates, -1);
  relative_twist.resize(aggregates);
  violation.resize(aggregates);
  world_column.setZero(6, dofs);
  node_acceleration.setZero(6 * nodes);
  embedding_rate_full.setZero(dofs);
  column_of.assign(dofs, -1);
  modal_constraint.resize(aggregates);
  modal_embedding.resize(aggregates);
  for (int s = 0; s < aggregates; ++s)
    modal_constraint[s].setZero(impl.rows[s], static_cast<Eigen::Index>(impl.modal_dofs[s].size()));
  end_jacobian_parent.setZero(6, dofs);
  end_jacobian_child.setZero(6, dofs);
  independent_previous.reserve(dofs);  // capacity: the updates do not allocate it again
}

void SelectionWorkspace::resize(const ClosedChainModel& model) {
  const int aggregates = model.aggregate_count();
  dependent_factorization.resize(aggregates);
  kept_bar.assign(aggregates, KeptSelectionBar{model.options().reselect_conditioning, {}, 0});
}

void AssemblyWorkspace::resize(const ClosedChainModel& model) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  const int aggregates = model.aggregate_count();
  newton_state.assign(aggregates, Newton::kClosed);
  newton_steps.assign(aggregates, 0);
  step_accepted.assign(aggregates, 0);
  dependent_jacobian.resize(aggregates);
  least_squares.resize(aggregates);
  least_squares_rotated.resize(aggregates);
  least_squares_unpermuted.resize(aggregates);
  least_squares_essential.resize(aggregates);
  newton_step.resize(aggregates);
  dependent_step.resize(aggregates);
  for (int s = 0; s < aggregates; ++s) {
    const int columns = static_cast<int>(impl.dofs[s].size());
    newton_step[s].setZero(columns);
    dependent_step[s].setZero(columns);
    dependent_jacobian[s].setZero(impl.rows[s], columns);
  }
  error_norm.assign(aggregates, 0.0);
  step_scale.assign(aggregates, 1.0);
  saved_configuration.setZero(model.dof_count());
  start_choice.resize(aggregates);
}

void DynamicsWorkspace::resize(const ClosedChainModel& model) {
  const int aggregates = model.aggregate_count();
  const int dofs = model.dof_count(), nodes = model.tree().node_count();
  articulated.assign(nodes, Matrix6d::Zero());
  for (auto* vectors : {&bias, &acceleration, &subtree_force})
    vectors->assign(nodes, Vector6d::Zero());
  members_seen.assign(aggregates, 0);
  node_step.resize(nodes);
  for (int k = 0; k < nodes; ++k) {
    const int r = model.tree().joint_dofs(k);
    node_step[k].projected.setZero(6, r);
    node_step[k].inverse.setZero(r, r);
    node_step[k].innovation.setZero(r);
  }
  aggregate_step.resize(aggregates);
  refinement.resize(aggregates);
  embedding_structure_order.resize(aggregates);
  coriolis_tree.setZero(6 * nodes);
  accelerations.setZero(dofs);
}

void ForceWorkspace::resize(const ClosedChainModel& model) {
  force_solve.resize(model.aggregate_count());
}

ClosedChainData::ClosedChainData(const ClosedChainModel& model)
    : tree(model.tree()), work(std::make_shared<Workspaces>()) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  const int aggregates = model.aggregate_count();
  constraint_matrix.resize(aggregates);
  constraint_velocity_product.resize(aggregates);
  for (int s = 0; s < aggregates; ++s) {
    constraint_matrix[s].setZero(impl.rows[s], static_cast<int>(impl.dofs[s].size()));
    constraint_velocity_product[s].setZero(impl.rows[s]);
  }
  selection.resize(aggregates);
  embedding.resize(aggregates);
  embedding_rate.resize(aggregates);
  nominal_rank.resize(aggregates);
  for (int s = 0; s < aggregates; ++s) nominal_rank[s] = model.nominal_rank(s);
  ill_conditioned.assign(aggregates, 0);
  independent.reserve(model.dof_count());  // capacity: the updates do not allocate it again
  work->constraints.resize(model);
  work->selection.resize(model);
  work->assembly.resize(model);
  work->dynamics.resize(model);
  work->forces.resize(model);
  work->zero_dofs.setZero(model.dof_count());
}

}  // namespace skograph

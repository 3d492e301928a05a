// Inverse dynamics of closed chains in their minimal coordinates and M_R
// (rigid/closed_chain_model.hpp: inverse_dynamics, actuator_forces, reduced_mass_matrix), on the
// motion the constraints' update leaves in world axes; the embedded model is not built.
#include <Eigen/Dense>

#include "closed_chain/internal.hpp"
#include "kinematics_detail.hpp"

namespace skograph {

using namespace closed_chain_detail;
using Impl = ClosedChainModel::Impl;
using kernels::cross_force;

namespace closed_chain_detail {

// M qdd + C (gravity included) in tree dofs at the constraints' last update, into
// data.tree.generalized_force: Newton-Euler (part II Algorithm 3.1) in world axes about the
// update's point (update_world_motion: poses, V(k), a(k), H*(k)), where spatial vectors at one
// point add without transforms: parents first alpha(k) = alpha(p) (the world's [0; -g] at a base)
// + a(k) + H* qdd and f(k) = M alpha + V x* M V with M in world axes; children first T(k) = H f(k)
// and f(p) += f(k).
const Eigen::VectorXd& tree_forces_at_update(const ClosedChainModel& model, ClosedChainData& data,
                                             const double* qdd, const Eigen::Vector3d& gravity) {
  ClosedChainData::Workspaces& work = *data.work;
  const RigidBodyModel& tree = model.tree();
  if (tree.has_flexible_links())  // nodes of 6 + modes: the tree's own recursion at that state
    return skograph::inverse_dynamics(
        tree, data.tree, work.constraints.updated_q, work.constraints.updated_qd,
        Eigen::Map<const Eigen::VectorXd>(qdd, model.dof_count()), gravity);
  RigidBodyData& kinematics = data.tree;
  const std::vector<int>& order = tree.parents_first();
  const std::vector<int>& parents = tree.parents();
  Vector6d world_acceleration = Vector6d::Zero();
  world_acceleration.tail<3>() = -gravity;
  const Eigen::Vector3d& reference = kinematics.tree_origin[order.front()];
  for (const int k : order) {
    const int p = parents[k], offset = tree.joint_dof_offset(k);
    Vector6d alpha = (p >= 0 ? work.dynamics.acceleration[p] : world_acceleration) +
                     kinematics.world_coriolis[k];
    for (int d = 0; d < tree.joint_dofs(k); ++d)
      alpha.noalias() += work.constraints.world_column.col(offset + d) * qdd[offset + d];
    work.dynamics.acceleration[k] = alpha;
    const Eigen::Isometry3d& pose = kinematics.link_pose[k];
    const kernels::RigidInertia inertia =
        tree.rigid_inertia(k).moved(pose.linear(), pose.translation() - reference);
    const Vector6d& velocity = kinematics.world_velocity[k];
    work.dynamics.subtree_force[k] =
        inertia.times(alpha) + cross_force(velocity, inertia.times(velocity));
  }
  Eigen::VectorXd& force = kinematics.generalized_force;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = parents[k], offset = tree.joint_dof_offset(k);
    const Vector6d& f = work.dynamics.subtree_force[k];
    for (int d = 0; d < tree.joint_dofs(k); ++d)
      force[offset + d] = work.constraints.world_column.col(offset + d).dot(f);
    if (p >= 0) work.dynamics.subtree_force[p] += f;
  }
  return force;
}

}  // namespace closed_chain_detail

// T_R = X* (M qdd + C) with qdd = X qdd_R + Xdot qd_R (constraint-embedding §5, Eq. of the
// embedded model's inverse dynamics, H_Ra A_a (M A_a* (H_Ra* qdd_R + a_Ra) + b)): Newton-Euler
// (part II Algorithm 3.1) on the tree at the consistent accelerations, then X* block by block.
// The same forces as the embedded model's recursion without building it: O(N) plus the X_S
// blocks.
namespace {

// T_R = X* (M qdd + C) at the constraints' last update (of this q, qd) for
// qdd = X qdd_R + Xdot qd_R (tree_forces_at_update, then X* block by block).
const Eigen::VectorXd& reduced_forces_at_update(
    const ClosedChainModel& model, ClosedChainData& data,
    const Eigen::Ref<const Eigen::VectorXd>& qdd_independent, const Eigen::Vector3d& gravity) {
  check_vector(qdd_independent, static_cast<int>(data.independent.size()), "qdd_independent");
  ClosedChainData::Workspaces& work = *data.work;
  work.dynamics.tree_acceleration.resize(model.dof_count());
  apply_embedding(model, data, qdd_independent, work.constraints.embedding_rate_full,
                  work.dynamics.tree_acceleration);
  const Eigen::VectorXd& force =
      tree_forces_at_update(model, data, work.dynamics.tree_acceleration.data(), gravity);
  apply_embedding_transpose(model, data, force, work.dynamics.independent_forces);
  return work.dynamics.independent_forces;
}

}  // namespace

const Eigen::VectorXd& inverse_dynamics(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd_independent,
                                        const Eigen::Vector3d& gravity) {
  update_constraints(model, data, q, qd);
  return reduced_forces_at_update(model, data, qdd_independent, gravity);
}

const Eigen::VectorXd& actuator_forces(const ClosedChainModel& model, ClosedChainData& data,
                                       const Eigen::Ref<const Eigen::VectorXd>& q,
                                       const Eigen::Ref<const Eigen::VectorXd>& qd,
                                       const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                       const Eigen::Vector3d& gravity) {
  ClosedChainData::Workspaces& work = *data.work;
  check_vector(qdd, model.dof_count(), "qdd");  // read at the independent dofs below
  update_constraints(model, data, q, qd);       // the independent dofs at this state, once
  const std::vector<int>& independent = data.independent;
  Eigen::VectorXd& qdd_independent = work.dynamics.actuated_acceleration;
  qdd_independent.resize(static_cast<Eigen::Index>(independent.size()));
  for (std::size_t j = 0; j < independent.size(); ++j)
    qdd_independent(static_cast<Eigen::Index>(j)) = qdd(independent[j]);
  const Eigen::VectorXd& reduced = reduced_forces_at_update(model, data, qdd_independent, gravity);
  Eigen::VectorXd& tau = work.dynamics.actuated_forces;
  tau.setZero(model.dof_count());
  for (std::size_t j = 0; j < independent.size(); ++j)
    tau(independent[j]) = reduced(static_cast<Eigen::Index>(j));
  return tau;
}

// M_R = H_Ra A_a M A_a* H_Ra* = X* M X (constraint-embedding §7.2): the tree's M by composite
// inertias (part II Algorithms 4.1-4.2), then M X and X* (M X) through X's blocks (a plain dof's
// column of X is a unit vector, an aggregate's is X_S on its dofs), without the embedded model.
const Eigen::MatrixXd& reduced_mass_matrix(const ClosedChainModel& model, ClosedChainData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q) {
  const Impl& impl = closed_chain_impl(model);
  ClosedChainData::Workspaces& work = *data.work;
  update_constraints(model, data, q, work.zero_dofs);
  if (has_flexible_links(model)) {  // X's modal columns reach beyond the blocks: dense
    const Eigen::MatrixXd& mass = mass_matrix(model.tree(), data.tree, q);
    work.dynamics.mass_embedding.noalias() = mass * data.X;
    work.dynamics.reduced_mass.noalias() = data.X.transpose() * work.dynamics.mass_embedding;
    return work.dynamics.reduced_mass;
  }
  // M at the transforms update_constraints' walk made.
  const Eigen::MatrixXd& mass = rigid_detail::mass_matrix_at_transforms(model.tree(), data.tree);
  const std::vector<int>& column_of = work.constraints.column_of;
  const int n = model.dof_count();
  const auto independent = static_cast<Eigen::Index>(data.independent.size());
  // M X. One aggregate holding every dof (a parallel robot, a four-bar): X (data.X, the tree's
  // dofs by the independent columns) is dense, one matrix product, up to a size whose packed
  // blocks Eigen keeps on the stack (at most n^2 doubles each, under its 128 KB limit): no
  // allocation. Otherwise column by column, a plain dof's column of M as it is.
  constexpr int kLargestProduct = 90;
  work.dynamics.mass_embedding.resize(n, independent);
  if (model.aggregate_count() == 1 && impl.plain_dofs.empty() && n <= kLargestProduct) {
    work.dynamics.mass_embedding.noalias() = mass * data.X;
  } else {
    for (const int d : impl.plain_dofs)
      work.dynamics.mass_embedding.col(column_of[d]) = mass.col(d);
    for_each_embedding_column(model, data, [&](int column, const std::vector<int>& dofs, auto x) {
      auto out = work.dynamics.mass_embedding.col(column);
      out.setZero();
      for (std::size_t i = 0; i < dofs.size(); ++i)
        if (const double entry = x(static_cast<Eigen::Index>(i)); entry != 0.0)
          out += entry * mass.col(dofs[i]);
    });
  }
  // X* (M X), its upper triangle: entry (a, b), a <= b, is column a of X (a plain dof's unit
  // vector, or X_S on its aggregate's dofs) dotted with column b of M X, read down that column.
  // Then the lower triangle mirrored from the upper, so that M_R is exactly symmetric.
  const Eigen::MatrixXd& mass_embedding = work.dynamics.mass_embedding;
  work.dynamics.reduced_mass.resize(independent, independent);
  for (const int d : impl.plain_dofs)
    for (Eigen::Index b = column_of[d]; b < independent; ++b)
      work.dynamics.reduced_mass(column_of[d], b) = mass_embedding(d, b);
  for_each_embedding_column(model, data, [&](int column, const std::vector<int>& dofs, auto x) {
    for (Eigen::Index b = column; b < independent; ++b) {
      const double* product = mass_embedding.col(b).data();
      double sum = 0.0;
      for (std::size_t i = 0; i < dofs.size(); ++i)
        sum += x(static_cast<Eigen::Index>(i)) * product[dofs[i]];
      work.dynamics.reduced_mass(column, b) = sum;
    }
  });
  for (Eigen::Index j = 0; j < independent; ++j)
    for (Eigen::Index i = j + 1; i < independent; ++i)
      work.dynamics.reduced_mass(i, j) = work.dynamics.reduced_mass(j, i);
  return work.dynamics.reduced_mass;
}

}  // namespace skograph

// The embedded SKO model of closed chains (constraint-embedding §5-7): its update at a state
// (rigid/closed_chain_model.hpp: update_closed_chain), forward dynamics through it (the reference
// forward_dynamics is held to) and its innovations factors.
#include <Eigen/Dense>
#include <string>

#include "articulated_step.hpp"
#include "closed_chain/internal.hpp"
#include "kinematics_detail.hpp"

namespace skograph {

using namespace closed_chain_detail;
using Impl = ClosedChainModel::Impl;

namespace closed_chain_detail {

// The SingularMassMatrixError message of an aggregate whose minimal-coordinate D is singular.
std::string singular_aggregate_message(const ClosedChainModel& model, int s) {
  return aggregate_label(model, s) +
         " moves no inertia its other coordinates do not move at this configuration, so the "
         "mass matrix is singular";
}

}  // namespace closed_chain_detail

void update_closed_chain(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd) {
  closed_chain_detail::require_rigid_links(model, "the embedded SKO model");
  const Impl& impl = closed_chain_impl(model);
  update_constraints(model, data, q, qd);
  // The embedded model reads the link-frame V, a(k) and V x* M V (the constraints' are in world
  // axes).
  rigid_detail::update_motion(model.tree(), q, qd, data.tree);
  ensure_structure(model, data);
  const AggregatedStructure& structure = *data.structure;
  ClosedChainData::Workspaces& work = *data.work;
  synchronize_sko_model(model.tree(), data.tree);
  // X_S with its rows in the structure's member order (its unreduced hinge layout).
  for (int s = 0; s < model.aggregate_count(); ++s) {
    // A locked aggregate (no independent coordinate) has no columns to copy; Eigen's row() of a
    // 0-column matrix offsets a null pointer (UBSan).
    if (data.embedding[s].cols() == 0) continue;
    const std::vector<int>& dofs = impl.dofs[s];
    for (std::size_t i = 0; i < dofs.size(); ++i) {
      const int k = impl.dof_node[dofs[i]];
      work.dynamics.embedding_structure_order[s].row(structure.hinge_offset_in_aggregate(k) +
                                                     impl.dof_in_joint[dofs[i]]) =
          data.embedding[s].row(static_cast<Eigen::Index>(i));
    }
  }
  aggregate_model(data.tree.sko, structure, *work.dynamics.aggregation, *data.embedded);
  embed_hinge_maps(structure, *work.dynamics.aggregation, work.dynamics.embedding_structure_order,
                   *data.embedded);
  // Embedded hinge entries -> columns of X: plain nodes keep their joint's dofs, reduced nodes
  // their selection's independent coordinates in increasing order.
  const std::vector<int>& column_of = work.constraints.column_of;
  const SkoStructure& embedded = *structure.aggregated();
  for (int a = 0; a < structure.size(); ++a) {
    const int offset = embedded.hinge.offset(a);
    const int s = structure.subgraph_of(a);
    if (s < 0) {
      const int k = structure.members(a)[0];
      for (int j = 0; j < model.tree().joint_dofs(k); ++j)
        data.embedded_to_independent[offset + j] = column_of[model.tree().joint_dof_offset(k) + j];
    } else {
      const std::vector<int>& independent = data.selection[s].independent;
      for (std::size_t j = 0; j < independent.size(); ++j)
        data.embedded_to_independent[offset + static_cast<int>(j)] =
            column_of[impl.dofs[s][independent[j]]];
    }
  }
  aggregate_node_vector(structure, data.tree.gyroscopic, work.dynamics.gyroscopic_aggregated);
  for (std::size_t e = 0; e < data.embedded_to_independent.size(); ++e)
    work.dynamics.velocity_embedded[static_cast<Eigen::Index>(e)] =
        qd[data.independent[data.embedded_to_independent[e]]];
}

namespace {

// a_Ra = A_S* (a_S + H_S* Xdot_S qd_R) with the world's acceleration -g at the base nodes
// (conventions.md "Constraint embedding"; gravity as in forward_dynamics_through_operators).
void embedded_coriolis(const ClosedChainModel& model, ClosedChainData& data,
                       const Eigen::Vector3d& gravity) {
  ClosedChainData::Workspaces& work = *data.work;
  const RigidBodyModel& tree = model.tree();
  work.dynamics.coriolis_tree = data.tree.coriolis;
  for (const int k : tree.forest().bases())
    work.dynamics.coriolis_tree.segment<3>(6 * k + 3) -=
        link_poses(tree, data.tree)[k].linear().transpose() * gravity;
  aggregate_coriolis(data.tree.sko, *data.structure, *work.dynamics.aggregation,
                     work.dynamics.coriolis_tree, work.constraints.embedding_rate_full,
                     work.dynamics.coriolis_aggregated);
}

}  // namespace

// qdd_R by AB forward dynamics on the embedded model (constraint-embedding §7.3; part II Algorithm
// 6.1), T_R = X* tau, then qdd = X qdd_R + Xdot qd_R.
const Eigen::VectorXd& forward_dynamics_through_embedded_model(
    const ClosedChainModel& model, ClosedChainData& data,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity) {
  check_vector(tau, model.dof_count(), "tau");
  update_closed_chain(model, data, q, qd);
  embedded_coriolis(model, data, gravity);
  ClosedChainData::Workspaces& work = *data.work;
  apply_embedding_transpose(model, data, tau, work.dynamics.independent_forces);
  for (std::size_t e = 0; e < data.embedded_to_independent.size(); ++e)
    work.dynamics.force_embedded[static_cast<Eigen::Index>(e)] =
        work.dynamics.independent_forces[data.embedded_to_independent[e]];
  const Eigen::VectorXd& embedded_acceleration = [&]() -> const Eigen::VectorXd& {
    try {
      return forward_dynamics(*data.embedded, work.dynamics.velocity_embedded,
                              work.dynamics.force_embedded, work.dynamics.coriolis_aggregated,
                              work.dynamics.gyroscopic_aggregated, *work.dynamics.forward);
    } catch (const SingularMassMatrixError& e) {
      // A singular D of an embedded node: name its aggregate or its joint.
      const int s = data.structure->subgraph_of(e.node());
      const int joint = data.structure->members(e.node()).front();
      if (s < 0)
        throw SingularMassMatrixError(
            joint, articulated::singular_joint_message(model.mechanism().joints[joint].name));
      throw SingularMassMatrixError(joint, singular_aggregate_message(model, s));
    }
  }();
  Eigen::VectorXd& independent_acceleration = work.dynamics.independent_forces;  // scratch
  for (std::size_t e = 0; e < data.embedded_to_independent.size(); ++e)
    independent_acceleration[data.embedded_to_independent[e]] =
        embedded_acceleration[static_cast<Eigen::Index>(e)];
  apply_embedding(model, data, independent_acceleration, work.constraints.embedding_rate_full,
                  work.dynamics.accelerations);
  return work.dynamics.accelerations;
}

// The innovations factors of part II Lemma 11 (Eq. 49-50; constraint-embedding §7.2, Lemma 9) on
// the embedded model, rows and columns
// permuted from the embedded hinge order to the order of data.independent.
void innovations_factors(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q, InnovationsFactors& factors) {
  update_closed_chain(model, data, q, data.work->zero_dofs);
  innovations_factors(*data.embedded, data.work->dynamics.forward->articulated, factors);
  const std::vector<int>& map = data.embedded_to_independent;
  const int n = static_cast<int>(map.size());
  Eigen::PermutationMatrix<Eigen::Dynamic> permutation(n);
  for (int i = 0; i < n; ++i) permutation.indices()[i] = map[i];
  Eigen::MatrixXd permuted;
  for (Eigen::MatrixXd* factor :
       {&factors.newton_euler_factor, &factors.innovations_inertia, &factors.inverse_factor}) {
    permuted = permutation * (*factor);
    *factor = permuted * permutation.transpose();
  }
}

}  // namespace skograph

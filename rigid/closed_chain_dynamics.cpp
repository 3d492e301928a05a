// The dynamics of closed chains (rigid/closed_chain_model.hpp): the embedded SKO model
// (constraint-embedding §5-7) for inverse dynamics, M_R and the innovations factors, and forward
// dynamics.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "rigid/closed_chain_internal.hpp"

namespace skograph {

using namespace closed_chain_detail;
using Impl = ClosedChainModel::Impl;

void update_closed_chain(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd) {
  const Impl& impl = closed_chain_impl(model);
  update_constraints(model, data, q, qd);
  ensure_structure(model, data);
  const AggregatedStructure& structure = *data.structure;
  ClosedChainData::Workspaces& work = *data.work;
  synchronize_sko_model(model.tree(), data.tree);
  // X_S with its rows in the structure's member order (its unreduced hinge layout).
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[s];
    for (std::size_t i = 0; i < dofs.size(); ++i) {
      const int k = impl.dof_node[dofs[i]];
      work.embedding_structure_order[s].row(structure.hinge_offset_in_aggregate(k) +
                                            impl.dof_in_joint[dofs[i]]) =
          data.embedding[s].row(static_cast<Eigen::Index>(i));
    }
  }
  aggregate_model(data.tree.sko, structure, *work.aggregation, *data.embedded);
  embed_hinge_maps(structure, *work.aggregation, work.embedding_structure_order, *data.embedded);
  // Embedded hinge entries -> columns of X: plain nodes keep their joint's dofs, reduced nodes
  // their selection's independent coordinates in increasing order.
  const std::vector<int>& column_of = work.column_of;
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
  aggregate_node_vector(structure, data.tree.gyroscopic, work.gyroscopic_aggregated);
  for (std::size_t e = 0; e < data.embedded_to_independent.size(); ++e)
    work.velocity_embedded[static_cast<Eigen::Index>(e)] =
        qd[data.independent[data.embedded_to_independent[e]]];
}

namespace {

// a_Ra = A_S* (a_S + H_S* Xdot_S qd_R) with the world's acceleration -g at the base nodes
// (conventions.md "Constraint embedding"; gravity as in forward_dynamics_through_operators).
void embedded_coriolis(const ClosedChainModel& model, ClosedChainData& data,
                       const Eigen::Vector3d& gravity) {
  ClosedChainData::Workspaces& work = *data.work;
  const RigidBodyModel& tree = model.tree();
  work.coriolis_tree = data.tree.coriolis;
  for (const int k : tree.forest().bases())
    work.coriolis_tree.segment<3>(6 * k + 3) -=
        data.tree.link_pose[k].linear().transpose() * gravity;
  aggregate_coriolis(data.tree.sko, *data.structure, *work.aggregation, work.coriolis_tree,
                     work.embedding_rate_full, work.coriolis_aggregated);
}

}  // namespace

// qdd_R by AB forward dynamics on the embedded model (constraint-embedding §7.3; part II Algorithm
// 6.1), T_R = X* tau, then qdd = X qdd_R + Xdot qd_R.
const Eigen::VectorXd& forward_dynamics(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity) {
  check_vector(tau, model.dof_count(), "tau");
  update_closed_chain(model, data, q, qd);
  embedded_coriolis(model, data, gravity);
  ClosedChainData::Workspaces& work = *data.work;
  apply_embedding_transpose(model, data, tau, work.independent_forces);
  for (std::size_t e = 0; e < data.embedded_to_independent.size(); ++e)
    work.force_embedded[static_cast<Eigen::Index>(e)] =
        work.independent_forces[data.embedded_to_independent[e]];
  const Eigen::VectorXd& embedded_acceleration = [&]() -> const Eigen::VectorXd& {
    try {
      return forward_dynamics(*data.embedded, work.velocity_embedded, work.force_embedded,
                              work.coriolis_aggregated, work.gyroscopic_aggregated, *work.forward);
    } catch (const SingularHingeError& e) {
      // A singular D of an embedded node: name its aggregate or its joint.
      const int s = data.structure->subgraph_of(e.node());
      const std::string what =
          s >= 0
              ? aggregate_label(model, s)
              : "joint '" +
                    model.mechanism().joints[data.structure->members(e.node()).front()].name + "'";
      throw ClosureError("singular mass matrix: " + what +
                         " moves no inertia its other coordinates do not move at this "
                         "configuration");
    }
  }();
  Eigen::VectorXd& independent_acceleration = work.independent_forces;  // scratch
  for (std::size_t e = 0; e < data.embedded_to_independent.size(); ++e)
    independent_acceleration[data.embedded_to_independent[e]] =
        embedded_acceleration[static_cast<Eigen::Index>(e)];
  apply_embedding(model, data, independent_acceleration, work.embedding_rate_full,
                  work.accelerations);
  return work.accelerations;
}

// T_R = H_Ra A_a (M A_a* (H_Ra* qdd_R + a_Ra) + b) by Newton-Euler on the embedded model (part
// II Algorithm 3.1), = X* (M qdd + C) with qdd = X qdd_R + Xdot qd_R.
const Eigen::VectorXd& inverse_dynamics(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd_independent,
                                        const Eigen::Vector3d& gravity) {
  update_closed_chain(model, data, q, qd);
  check_vector(qdd_independent, static_cast<int>(data.independent.size()), "qdd_independent");
  embedded_coriolis(model, data, gravity);
  ClosedChainData::Workspaces& work = *data.work;
  for (std::size_t e = 0; e < data.embedded_to_independent.size(); ++e)
    work.acceleration_embedded[static_cast<Eigen::Index>(e)] =
        qdd_independent[data.embedded_to_independent[e]];
  const Eigen::VectorXd& force =
      inverse_dynamics(*data.embedded, work.velocity_embedded, work.acceleration_embedded,
                       work.coriolis_aggregated, work.gyroscopic_aggregated, *work.inverse);
  work.independent_forces.resize(static_cast<Eigen::Index>(data.independent.size()));
  for (std::size_t e = 0; e < data.embedded_to_independent.size(); ++e)
    work.independent_forces[data.embedded_to_independent[e]] = force[static_cast<Eigen::Index>(e)];
  return work.independent_forces;
}

// M_R = H_Ra A_a M A_a* H_Ra* = X* M_tree X by composite inertias of the embedded model (part II
// Algorithms 4.1-4.2).
const Eigen::MatrixXd& reduced_mass_matrix(const ClosedChainModel& model, ClosedChainData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q) {
  update_closed_chain(model, data, q, data.work->zero_dofs);
  ClosedChainData::Workspaces& work = *data.work;
  mass_matrix(*data.embedded, *work.composite, work.embedded_mass);
  const int n = static_cast<int>(data.independent.size());
  work.reduced_mass.resize(n, n);
  const std::vector<int>& map = data.embedded_to_independent;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) work.reduced_mass(map[i], map[j]) = work.embedded_mass(i, j);
  return work.reduced_mass;
}

// The innovations factors of part II Lemma 11 (Eq. 49-50; constraint-embedding §7.2, Lemma 9) on
// the embedded model, rows and columns
// permuted from the embedded hinge order to the order of data.independent.
void innovations_factors(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q, InnovationsFactors& factors) {
  update_closed_chain(model, data, q, data.work->zero_dofs);
  innovations_factors(*data.embedded, data.work->forward->articulated, factors);
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

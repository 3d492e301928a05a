// Forward dynamics of closed chains (rigid/closed_chain_model.hpp: forward_dynamics): the
// articulated-body recursion on the embedded model in world axes, each aggregate through its
// member tree (constraint-embedding §7.3, part II Algorithm 6.1), and one step of refinement on
// the constraint equations where a choice of independent coordinates is ill-conditioned.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "articulated_step.hpp"
#include "closed_chain/internal.hpp"
#include "skograph/aggregation/fixed_count.hpp"

namespace skograph {

using namespace closed_chain_detail;
using Impl = ClosedChainModel::Impl;

namespace {

using kernels::cross_force;

// D = L L* in place (the lower triangle of `square` is read, L is left there): the Cholesky-
// Crout loops, for the few independent coordinates of an aggregate. False at a pivot <= 0, where
// Eigen's LLT reports NumericalIssue.
bool cholesky_in_place(Eigen::MatrixXd& square) {
  const Eigen::Index r = square.rows();
  for (Eigen::Index j = 0; j < r; ++j) {
    double pivot = square(j, j);
    for (Eigen::Index k = 0; k < j; ++k) pivot -= square(j, k) * square(j, k);
    if (pivot <= 0.0) return false;
    const double diagonal = std::sqrt(pivot);
    square(j, j) = diagonal;
    const double inverse = 1.0 / diagonal;
    for (Eigen::Index i = j + 1; i < r; ++i) {
      double value = square(i, j);
      for (Eigen::Index k = 0; k < j; ++k) value -= square(i, k) * square(j, k);
      square(i, j) = value * inverse;
    }
  }
  return true;
}

// b <- L^-1 b by forward substitution (L from cholesky_in_place).
void solve_lower(const Eigen::MatrixXd& lower, Eigen::VectorXd& right) {
  for (Eigen::Index i = 0; i < lower.rows(); ++i) {
    double value = right(i);
    for (Eigen::Index k = 0; k < i; ++k) value -= lower(i, k) * right(k);
    right(i) = value / lower(i, i);
  }
}

// B <- B L^-* for B with 6 rows, column by column (the columns are spatial vectors).
void solve_lower_transposed_right(const Eigen::MatrixXd& lower,
                                  Eigen::Matrix<double, 6, Eigen::Dynamic>& right) {
  for (Eigen::Index a = 0; a < lower.rows(); ++a) {
    Vector6d column = right.col(a);
    for (Eigen::Index b = 0; b < a; ++b) column -= lower(a, b) * right.col(b);
    right.col(a) = column / lower(a, a);
  }
}

// b <- L^-* b by back substitution.
void solve_lower_transposed(const Eigen::MatrixXd& lower, Eigen::VectorXd& right) {
  for (Eigen::Index i = lower.rows() - 1; i >= 0; --i) {
    double value = right(i);
    for (Eigen::Index k = i + 1; k < lower.rows(); ++k) value -= lower(k, i) * right(k);
    right(i) = value / lower(i, i);
  }
}

// residual -= M_SS rate and projected += M_SS X (n x r, column-major, projected zeroed) over M_SS's
// entry list (one per symmetric pair). Columns > 0 fixes r at compile time (with_fixed_count, for
// r = 1-6), so that the column loop unrolls.
template <int Columns>
void add_mass_products(const std::vector<ClosedChainModel::Impl::MassEntry>& entries,
                       const Eigen::VectorXd& values, const double* rate, const double* x,
                       Eigen::Index n, Eigen::Index r, double* residual, double* projected) {
  const Eigen::Index columns = Columns > 0 ? Columns : r;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const int i = entries[e].row, j = entries[e].column;
    const double value = values(static_cast<Eigen::Index>(e));
    residual[i] -= value * rate[j];
    for (Eigen::Index b = 0; b < columns; ++b) projected[i + b * n] += value * x[j + b * n];
    if (i == j) continue;
    residual[j] -= value * rate[i];
    for (Eigen::Index b = 0; b < columns; ++b) projected[j + b * n] += value * x[i + b * n];
  }
}

// The motion terms of one articulated-body pass (see forward_dynamics below): per node the
// velocity products a(k) in world axes, per aggregate the offset qdd_S = X qdd_R + offset (Xdot
// qd_R), and whether the links' gyroscopic forces V x* M V enter. The forward dynamics' own are the
// update's; the refinement's solve is a pass with none of them and another offset.
struct PassTerms {
  const std::vector<Vector6d>& coriolis;
  const std::vector<Eigen::VectorXd>& offset;
  bool gyroscopic;
};

// The aggregate step of the world-frame articulated-body gather (see forward_dynamics below).
void gather_aggregate(const ClosedChainModel& model, ClosedChainData& data, int s,
                      const Eigen::Ref<const Eigen::VectorXd>& tau, const PassTerms& terms) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  ClosedChainData::Workspaces& work = *data.work;
  DynamicsWorkspace::AggregateStep& step = work.dynamics.aggregate_step[s];
  const std::vector<int>& members = impl.nodes[s];
  const std::vector<int>& dofs = impl.dofs[s];
  const std::vector<int>& parents = tree.parents();
  const int n = static_cast<int>(dofs.size());
  // The bias: member accelerations from the velocity products alone (no parent acceleration, no
  // hinge accelerations) and forces f = P a + z, base first (members are listed base first).
  for (const int k : members) {
    const int p = parents[k];
    const bool inside = p >= 0 && impl.aggregate_of_node[p] == s;
    work.dynamics.acceleration[k] =
        (inside ? work.dynamics.acceleration[p] : Vector6d::Zero()) + terms.coriolis[k];
    work.dynamics.subtree_force[k] =
        work.dynamics.articulated[k] * work.dynamics.acceleration[k] + work.dynamics.bias[k];
  }
  // Children first: the forces gathered and the composite inertias R(k) formed in place in
  // work.dynamics.articulated (a member's own P is not read again).
  Vector6d total_force = Vector6d::Zero();
  Matrix6d total_inertia = Matrix6d::Zero();
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    const int k = *it, p = parents[k];
    if (p >= 0 && impl.aggregate_of_node[p] == s) {
      work.dynamics.subtree_force[p] += work.dynamics.subtree_force[k];
      work.dynamics.articulated[p] += work.dynamics.articulated[k];
    } else {
      total_force += work.dynamics.subtree_force[k];
      total_inertia += work.dynamics.articulated[k];
    }
  }
  const std::vector<Matrix6d>& composite = work.dynamics.articulated;
  // F* columns R(member) s_j and M_SS's structurally nonzero upper triangle (s_i . R(b) s_j for
  // i at or above j's member b), kept as a list: M_SS is mostly zero when the aggregate branches.
  step.force_columns.resize(6, n);
  for (int j = 0; j < n; ++j) {
    const int b = impl.dof_node[dofs[j]];
    step.force_columns.col(j).noalias() = composite[b] * work.constraints.world_column.col(dofs[j]);
  }
  const std::vector<Impl::MassEntry>& entries = impl.mass_entries[static_cast<std::size_t>(s)];
  step.mass_values.resize(static_cast<Eigen::Index>(entries.size()));
  for (std::size_t e = 0; e < entries.size(); ++e)
    step.mass_values(static_cast<Eigen::Index>(e)) =
        work.constraints.world_column.col(dofs[entries[e].row])
            .dot(step.force_columns.col(entries[e].column));
  step.bias.resize(n);
  step.forces.resize(n);
  for (int i = 0; i < n; ++i) {
    step.bias(i) = work.constraints.world_column.col(dofs[i]).dot(
        work.dynamics.subtree_force[impl.dof_node[dofs[i]]]);
    step.forces(i) = tau[dofs[i]];
  }
  // D = X* M_SS X, K* = F* X, epsilon = X* (T - bias - M_SS Xdot qd_R). Plain loops over the
  // column-major X (n x r, r a handful): Eigen's general products spend more on dispatch and
  // blocking than on arithmetic at these sizes.
  const Eigen::MatrixXd& X = data.embedding[s];
  const Eigen::VectorXd& rate = terms.offset[static_cast<std::size_t>(s)];
  const Eigen::Index r = X.cols();
  step.residual = step.forces - step.bias;
  step.projected.setZero(n, r);
  const double* x = X.data();
  // Called out of line, through the pointer: inlined here, it cost the fourbar 1% more
  // instructions per call.
  const auto products =
      with_fixed_count<6>(r, []<int Columns>(std::integral_constant<int, Columns>) {
        return &add_mass_products<Columns>;
      });
  products(entries, step.mass_values, rate.data(), x, n, r, step.residual.data(),
           step.projected.data());
  step.factor.resize(r, r);
  step.whitened_gain.setZero(6, r);
  step.whitened_innovation.resize(r);
  for (Eigen::Index a = 0; a < r; ++a) {
    const auto column = X.col(a);
    step.whitened_innovation(a) = column.dot(step.residual);
    for (Eigen::Index b = 0; b <= a; ++b) step.factor(a, b) = column.dot(step.projected.col(b));
  }
  for (int j = 0; j < n; ++j) {
    const auto force_column = step.force_columns.col(j);
    for (Eigen::Index a = 0; a < r; ++a) step.whitened_gain.col(a) += x[j + a * n] * force_column;
  }
  step.massless = total_inertia.isZero(0.0);
  if (step.massless) {
    // A massless aggregate: no inertia, no force on the parent; its accelerations stay zero.
    step.whitened_gain.setZero();
    step.whitened_innovation.setZero();
    step.articulated.setZero();
    step.force.setZero();
    return;
  }
  // D = L L*, then W = L^-1 K (kept as W* = K* L^-*) and w = L^-1 epsilon, so that
  // K* D^-1 K = W* W, K* D^-1 epsilon = W* w, and the scatter's
  // qdd_R = D^-1 (epsilon - K a_p) = L^-* (w - W a_p).
  if (!cholesky_in_place(step.factor))
    throw SingularMassMatrixError(impl.nodes[s].front(), singular_aggregate_message(model, s));
  solve_lower_transposed_right(step.factor, step.whitened_gain);
  solve_lower(step.factor, step.whitened_innovation);
  // P_agg = R_total - K* D^-1 K, z_agg = f_bias + F* Xdot qd_R + K* D^-1 epsilon.
  step.force = total_force;
  step.force.noalias() += step.force_columns * rate;
  step.force.noalias() += step.whitened_gain * step.whitened_innovation;
  step.articulated = total_inertia;
  for (Eigen::Index a = 0; a < r; ++a)
    step.articulated.noalias() -= step.whitened_gain.col(a) * step.whitened_gain.col(a).transpose();
}

}  // namespace

namespace {

// One gather and scatter of forward_dynamics (below) at the update's configuration, with the
// given motion terms, input tau and gravity: the accelerations into `qdd`.
void articulated_pass(const ClosedChainModel& model, ClosedChainData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity,
                      const PassTerms& terms, Eigen::VectorXd& qdd) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  ClosedChainData::Workspaces& work = *data.work;
  const std::vector<int>& order = tree.parents_first();
  const std::vector<int>& parents = tree.parents();
  const RigidBodyData& kinematics = data.tree;
  const std::vector<Eigen::Isometry3d>& poses = kinematics.link_pose;  // update_world_motion's
  // World-frame inertias and gyroscopic forces V x* M V of every link about update_world_motion's
  // point (its velocities, velocity products a(k) and hinge columns, read where they are, are about
  // it too).
  const Eigen::Vector3d& reference = kinematics.tree_origin[order.front()];
  for (const int k : order) {
    const Eigen::Isometry3d& pose = poses[k];
    const kernels::RigidInertia inertia =
        tree.rigid_inertia(k).moved(pose.linear(), pose.translation() - reference);
    work.dynamics.articulated[k] = inertia.matrix();
    if (terms.gyroscopic) {
      const Vector6d& velocity = kinematics.world_velocity[k];
      work.dynamics.bias[k] = cross_force(velocity, inertia.times(velocity));
    } else {
      work.dynamics.bias[k].setZero();
    }
  }
  // Gather, children first; an aggregate when the walk reaches the last of its members.
  std::fill(work.dynamics.members_seen.begin(), work.dynamics.members_seen.end(), 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it;
    const int s = impl.aggregate_of_node[k];
    int parent = parents[k];
    Matrix6d articulated;
    Vector6d force;
    if (s >= 0) {
      if (++work.dynamics.members_seen[s] < static_cast<int>(impl.nodes[s].size())) continue;
      gather_aggregate(model, data, s, tau, terms);
      const int base = impl.nodes[s].front();
      parent = parents[base];
      articulated = work.dynamics.aggregate_step[s].articulated;
      force = work.dynamics.aggregate_step[s].force;
    } else {
      const int dofs = tree.joint_dofs(k), offset = tree.joint_dof_offset(k);
      DynamicsWorkspace::NodeStep& step = work.dynamics.node_step[k];
      articulated = work.dynamics.articulated[k];
      force = work.dynamics.bias[k];
      if (dofs > 0 && tree.carries_no_mass(k)) {
        step.massless = true;
        continue;
      }
      step.massless = false;
      if (dofs > 0) {
        if (!articulated::gather_hinge(articulated, force,
                                       work.constraints.world_column.middleCols(offset, dofs), dofs,
                                       tau.data() + offset, terms.coriolis[k], true, step.projected,
                                       step.inverse, step.innovation))
          throw SingularMassMatrixError(
              k, articulated::singular_joint_message(model.mechanism().joints[k].name));
      } else {
        force.noalias() += articulated * terms.coriolis[k];
      }
    }
    if (parent >= 0) {
      work.dynamics.articulated[parent] += articulated;
      work.dynamics.bias[parent] += force;
    }
  }
  // Scatter, parents first: world-frame accelerations, the root's being -g.
  Vector6d world_acceleration = Vector6d::Zero();
  world_acceleration.tail<3>() = -gravity;
  std::fill(work.dynamics.members_seen.begin(), work.dynamics.members_seen.end(), 0);
  qdd.resize(model.dof_count());
  for (const int k : order) {
    const int s = impl.aggregate_of_node[k];
    if (s >= 0) {
      if (work.dynamics.members_seen[s]++ > 0) continue;  // done with its first member
      DynamicsWorkspace::AggregateStep& step = work.dynamics.aggregate_step[s];
      const std::vector<int>& members = impl.nodes[s];
      const std::vector<int>& dofs = impl.dofs[s];
      const int p = parents[members.front()];
      const Vector6d parent_acceleration =
          p >= 0 ? work.dynamics.acceleration[p] : world_acceleration;
      const Eigen::MatrixXd& X = data.embedding[s];
      step.independent_acceleration.setZero(X.cols());
      if (!step.massless) {
        for (Eigen::Index a = 0; a < X.cols(); ++a)
          step.independent_acceleration(a) =
              step.whitened_innovation(a) - step.whitened_gain.col(a).dot(parent_acceleration);
        solve_lower_transposed(step.factor, step.independent_acceleration);
      }
      step.dof_acceleration = terms.offset[static_cast<std::size_t>(s)];
      step.dof_acceleration.noalias() += X * step.independent_acceleration;
      for (std::size_t i = 0; i < dofs.size(); ++i)
        qdd[dofs[i]] = step.dof_acceleration(static_cast<Eigen::Index>(i));
      for (const int m : members) {
        const int pm = parents[m];
        Vector6d a =
            (pm >= 0 ? work.dynamics.acceleration[pm] : world_acceleration) + terms.coriolis[m];
        const int offset = tree.joint_dof_offset(m);
        for (int d = 0; d < tree.joint_dofs(m); ++d)
          a += work.constraints.world_column.col(offset + d) * qdd[offset + d];
        work.dynamics.acceleration[m] = a;
      }
      continue;
    }
    const int p = parents[k];
    Vector6d a = (p >= 0 ? work.dynamics.acceleration[p] : world_acceleration) + terms.coriolis[k];
    const int dofs = tree.joint_dofs(k), offset = tree.joint_dof_offset(k);
    if (dofs > 0) {
      const DynamicsWorkspace::NodeStep& step = work.dynamics.node_step[k];
      if (step.massless)
        qdd.segment(offset, dofs).setZero();
      else
        articulated::scatter_hinge(step.projected, step.inverse, step.innovation,
                                   work.constraints.world_column.middleCols(offset, dofs), dofs,
                                   qdd.data() + offset, a);
    }
    work.dynamics.acceleration[k] = a;
  }
}

// One step of iterative refinement of qdd on the constraint equations where a selection is
// ill-conditioned (data.ill_conditioned): there X's rounding, amplified by Y1's condition number,
// leaves qdd off the exact solution by up to cond(Y1) eps. With f = M qdd + C - tau (Newton-Euler)
// and per aggregate the loop multipliers of Y1* lambda = f_u, the residuals of
//   M qdd + C - tau = Q* lambda,   Q qdd + Qdot qd = 0
// are r1 = Q* lambda - f and r2 = -(Q qdd + Qdot qd); the correction solves the same equations
// with r1 as the input, no motion terms and the offset w (Y1 w_u = r2, w zero on the independent
// coordinates), by the same articulated-body pass: delta = X M_R^-1 X* (r1 - M w) + w. The
// residuals take the large loop forces out before X* projects, so X's rounding acts only on what
// is left: one step brings qdd to the solution of the equations to rounding (constraint-embedding
// Eq. 1 and 58; a mixed residual-correction of the kind of Wilkinson's iterative refinement).
void refine_accelerations(const ClosedChainModel& model, ClosedChainData& data,
                          const Eigen::Ref<const Eigen::VectorXd>& tau,
                          const Eigen::Vector3d& gravity, Eigen::VectorXd& qdd) {
  const Impl& impl = closed_chain_impl(model);
  ClosedChainData::Workspaces& work = *data.work;
  const int n = model.dof_count();
  const Eigen::VectorXd& tree_force = tree_forces_at_update(model, data, qdd.data(), gravity);
  Eigen::VectorXd& residual = work.dynamics.refinement_force;
  residual.resize(n);
  for (int i = 0; i < n; ++i) residual[i] = tau[i] - tree_force[i];  // r1 before Q* lambda
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[static_cast<std::size_t>(s)];
    const CoordinateSelection& selection = data.selection[static_cast<std::size_t>(s)];
    const Eigen::MatrixXd& constraint = data.constraint_matrix[static_cast<std::size_t>(s)];
    DependentFactorization& y1 =
        work.selection.dependent_factorization[static_cast<std::size_t>(s)];
    DynamicsWorkspace::Refinement& step = work.dynamics.refinement[static_cast<std::size_t>(s)];
    const auto rows = constraint.rows();
    const auto dependent = static_cast<Eigen::Index>(selection.dependent.size());
    step.offset.setZero(static_cast<Eigen::Index>(dofs.size()));
    if (rows == 0 || dependent == 0) continue;
    // lambda from the dependent rows of f: Y1* lambda = f_u (least norm).
    step.dependent_force.resize(dependent);
    for (Eigen::Index j = 0; j < dependent; ++j)
      step.dependent_force(j) = -residual[dofs[static_cast<std::size_t>(selection.dependent[j])]];
    step.multipliers.resize(rows);
    if (!y1.solve_transposed(step.dependent_force, step.multipliers)) continue;
    for (std::size_t i = 0; i < dofs.size(); ++i)
      residual[dofs[i]] += constraint.col(static_cast<Eigen::Index>(i)).dot(step.multipliers);
    // r2 and w_u: Y1 w_u = -(Q qdd + Qdot qd).
    step.constraint_residual = -data.constraint_velocity_product[static_cast<std::size_t>(s)];
    for (std::size_t i = 0; i < dofs.size(); ++i)
      step.constraint_residual.noalias() -=
          constraint.col(static_cast<Eigen::Index>(i)) * qdd[dofs[i]];
    step.dependent_offset.resize(dependent);
    y1.solve(step.constraint_residual, step.dependent_offset);
    for (Eigen::Index j = 0; j < dependent; ++j)
      step.offset(selection.dependent[static_cast<std::size_t>(j)]) = step.dependent_offset(j);
  }
  work.dynamics.refinement_offsets.resize(static_cast<std::size_t>(model.aggregate_count()));
  for (int s = 0; s < model.aggregate_count(); ++s)
    work.dynamics.refinement_offsets[static_cast<std::size_t>(s)] =
        work.dynamics.refinement[static_cast<std::size_t>(s)].offset;
  work.dynamics.zero_motion.assign(static_cast<std::size_t>(model.tree().node_count()),
                                   Vector6d::Zero());
  articulated_pass(model, data, residual, Eigen::Vector3d::Zero(),
                   {work.dynamics.zero_motion, work.dynamics.refinement_offsets, false},
                   work.dynamics.refinement_step);
  qdd += work.dynamics.refinement_step;
}

// Flexible links in a loop (docs/flexible-bodies.md, "In a loop"): X's modal columns reach beyond
// the aggregates' blocks, so the embedded equations are formed densely,
//   X* M X qdd_R = X* (tau - M Xdot qd_R - C),  qdd = X qdd_R + Xdot qd_R,
// with the flexible tree's M and its inverse dynamics at qdd = Xdot qd_R for M Xdot qd_R + C
// (constraint-embedding §5): O(n^3) instead of the articulated pass's O(N).
const Eigen::VectorXd& flexible_forward_dynamics(const ClosedChainModel& model,
                                                 ClosedChainData& data,
                                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                                 const Eigen::Ref<const Eigen::VectorXd>& tau,
                                                 const Eigen::Vector3d& gravity) {
  ClosedChainData::Workspaces& work = *data.work;
  const Eigen::VectorXd& rate = work.constraints.embedding_rate_full;
  work.dynamics.tree_acceleration = tree_forces_at_update(model, data, rate.data(), gravity);
  work.dynamics.tree_acceleration = tau - work.dynamics.tree_acceleration;  // scratch: the forces
  work.dynamics.independent_forces.noalias() = data.X.transpose() * work.dynamics.tree_acceleration;
  const Eigen::MatrixXd& mass = mass_matrix(model.tree(), data.tree, q);
  work.dynamics.mass_embedding.noalias() = mass * data.X;
  work.dynamics.reduced_mass.noalias() = data.X.transpose() * work.dynamics.mass_embedding;
  const Eigen::LLT<Eigen::MatrixXd> factor(work.dynamics.reduced_mass);
  if (factor.info() != Eigen::Success)
    throw SingularMassMatrixError(
        -1,
        "the embedded mass matrix X* M X of the mechanism with flexible links is not positive "
        "definite");
  work.dynamics.actuated_acceleration = factor.solve(work.dynamics.independent_forces);
  Eigen::VectorXd& qdd = work.dynamics.accelerations;
  qdd.noalias() = data.X * work.dynamics.actuated_acceleration;
  qdd += rate;
  return qdd;
}

}  // namespace

// Part II Algorithm 6.1 on the embedded model (constraint-embedding §7.3), in world coordinates
// about one point (update_world_motion's) so that an aggregate S is handled through its member tree
// instead of dense 6|S| blocks. World-frame spatial vectors add without transforms: a link's
// acceleration is a(parent) + H* qdd + a(k), a rigid body's force f = I a + V x* I V. For a plain
// node the step is the articulated-body step (D = H P H*, ...). For an aggregate with parent
// acceleration a_p, its member tree gives (with P(k) the members' articulated inertias, external
// children included)
//   T_S = M_SS qdd_S + F a_p + bias_S,  R(k) = sum of P over k's members (composites),
//   M_SS(i, j) = H_i R(b_j) H_j*,  F = (R(b_j) H_j*)*,  bias_S from a = velocity products,
// and with qdd_S = X qdd_R + Xdot qd_R and T_R = X* T_S:
//   D = X* M_SS X,  K = X* F,  epsilon = X* (T - bias_S - M_SS Xdot qd_R),
//   qdd_R = D^-1 (epsilon - K a_p),
//   P_agg = R_total - K* D^-1 K,  z_agg = f_bias + F* Xdot qd_R + K* D^-1 epsilon,
// the aggregate's articulated inertia and bias force at the parent (constraint-embedding §7.2:
// H_Ra P H_Ra* = X* M_SS X on the block-diagonal P of an aggregated node). O(N) over plain nodes,
// O(n_S^2) per aggregate; the embedded SKO model is not built. Where a selection is
// ill-conditioned, one step of refinement follows (refine_accelerations).
const Eigen::VectorXd& forward_dynamics(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity) {
  check_vector(tau, model.dof_count(), "tau");
  update_constraints(model, data, q, qd);
  if (has_flexible_links(model)) return flexible_forward_dynamics(model, data, q, tau, gravity);
  return forward_dynamics_at_update(model, data, tau, gravity);
}

const Eigen::VectorXd& closed_chain_detail::forward_dynamics_at_update(
    const ClosedChainModel& model, ClosedChainData& data,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity) {
  Eigen::VectorXd& qdd = data.work->dynamics.accelerations;
  articulated_pass(model, data, tau, gravity, {data.tree.world_coriolis, data.embedding_rate, true},
                   qdd);
  if (any_ill_conditioned(data)) refine_accelerations(model, data, tau, gravity, qdd);
  return qdd;
}

}  // namespace skograph

// Derivatives of a closed chain's constraint rows (rigid/closed_chain_derivatives.hpp): the
// relative twist of each loop's two closure frames and its rate, differentiated along the tree's
// tangent from the per-dof derivatives the tree's inverse-dynamics derivatives leave in their
// workspace (rigid/derivatives.hpp), and the derivative of the loop forces' generalized forces.
#include "skograph/rigid/closed_chain_derivatives.hpp"

#include <Eigen/Dense>
#include <algorithm>

#include "closed_chain/internal.hpp"
#include "derivatives_detail.hpp"
#include "size_checks.hpp"
#include "skograph/operators/articulated_body.hpp"  // SingularMassMatrixError
#include "skograph/rigid/rigid_kernels.hpp"

namespace skograph {

using kernels::cross_force;
using kernels::cross_motion;
using rigid_detail::check_size;

namespace {

// [w x z_angular; w x z_linear]: the rotation of both halves of a 6-vector held in moving axes.
[[gnu::always_inline]] inline Vector6d cross_halves(const Eigen::Vector3d& w, const Vector6d& z) {
  Vector6d out;
  out.head<3>() = w.cross(z.head<3>());
  out.tail<3>() = w.cross(z.tail<3>());
  return out;
}

// One loop's rows S R_p^T applied to a 6-vector in world axes (the angular rows to its first half,
// the linear rows to its second) into a column of a row-derivative matrix: the rows padded to
// 3 x 3 times R_p^T, formed once per loop, so that each column is two fixed-size products.
struct RotatedRows {
  Eigen::Matrix3d angular, linear;
  int angular_rows, linear_rows;
  void put(const Vector6d& z, Eigen::MatrixXd& out, int row, int column) const {
    const Eigen::Vector3d a = angular * z.head<3>(), l = linear * z.tail<3>();
    double* entries = out.col(column).data() + row;
    for (int i = 0; i < angular_rows; ++i) entries[i] = a[i];
    for (int i = 0; i < linear_rows; ++i) entries[angular_rows + i] = l[i];
  }
};

// [a; b + a x r]: a change [a; b] of the ends' relative motion seen at x_c (y's form below).
[[gnu::always_inline]] inline Vector6d at_point(const Eigen::Vector3d& angular,
                                                const Eigen::Vector3d& linear,
                                                const Eigen::Vector3d& r) {
  Vector6d out;
  out << angular, linear + angular.cross(r);
  return out;
}

// The right sides' dependent rows solved on the constraints restricted to the dependent dofs
// (least squares: redundant rows, such as a planar loop's out-of-plane ones, are consistent), the
// independent rows zero: the particular solution w of G w = b. Aggregate by aggregate through
// the update's own factorization of its Y1 (an aggregate's rows touch its dofs only) when every
// aggregate has one; otherwise by the complete orthogonal decomposition of the stacked rows.
void solve_dependent(const ClosedChainModel& model, ClosedChainData& data, ManifoldTangent& tangent,
                     Eigen::Index dofs, const Eigen::MatrixXd& b, Eigen::MatrixXd& w) {
  w.setZero(dofs, b.cols());
  if (tangent.dependent.empty()) return;
  if (!tangent.by_aggregate) {
    const Eigen::MatrixXd solution = tangent.dependent_solver.solve(b);
    for (std::size_t i = 0; i < tangent.dependent.size(); ++i)
      w.row(tangent.dependent[i]) = solution.row(static_cast<Eigen::Index>(i));
    return;
  }
  // One buffer as long as the longest aggregate's dependent dofs: aggregates of different sizes
  // share it without resizing it back and forth.
  std::size_t most_dependent = 0;
  for (int s = 0; s < model.aggregate_count(); ++s)
    most_dependent = std::max(most_dependent, data.selection[s].dependent.size());
  if (static_cast<std::size_t>(tangent.aggregate_solution.size()) < most_dependent)
    tangent.aggregate_solution.resize(static_cast<Eigen::Index>(most_dependent));
  int row = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const int rows = model.constraint_rows(s);
    const std::vector<int>& aggregate = model.aggregate_dofs(s);
    const std::vector<int>& dependent = data.selection[s].dependent;
    DependentFactorization& y1 = data.work->selection.dependent_factorization[s];
    auto solution = tangent.aggregate_solution.head(static_cast<Eigen::Index>(dependent.size()));
    for (Eigen::Index c = 0; c < b.cols(); ++c) {
      // A direction that leaves the aggregate's rows alone leaves its dependent dofs alone (w's
      // entries stay the zeros set above): the chain of small loops' common case.
      if (b.col(c).segment(row, rows).isZero(0.0)) continue;
      y1.solve(b.col(c).segment(row, rows), solution);
      for (std::size_t i = 0; i < dependent.size(); ++i)
        w(aggregate[static_cast<std::size_t>(dependent[i])], c) =
            solution(static_cast<Eigen::Index>(i));
    }
    row += rows;
  }
}

// The loop and coupling forces' derivatives from the generalized forces they must balance along
// each direction (a column of `generalized`: G* dlambda = that column), per aggregate by the solve
// constraint_forces took for lambda: the least-norm multipliers of the dependent dofs' equations
// (Y1* dlambda_S = the column's dependent entries), or of all the aggregate's equations. Per
// loop S* dlambda (F_p axes at O_c, as ConstraintForces::loop), per coupling dlambda.
void force_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                       const Eigen::MatrixXd& generalized, ClosedChainDerivativeWorkspace& work,
                       std::vector<Eigen::MatrixXd>& loops,
                       std::vector<Eigen::MatrixXd>& couplings) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  const Mechanism& mechanism = model.mechanism();
  const Eigen::Index columns = generalized.cols();
  loops.resize(mechanism.loops.size());
  couplings.resize(mechanism.couplings.size());
  // The workspace sized for the largest aggregate once; each uses its leading part.
  Eigen::Index most_rows = 0, most_dofs = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    most_rows = std::max(most_rows, data.constraint_matrix[s].rows());
    most_dofs = std::max(most_dofs, static_cast<Eigen::Index>(impl.dofs[s].size()));
  }
  // Grown only: the directions' widths differ (independent, dofs), one buffer serves them all.
  const auto grow = [](Eigen::MatrixXd& buffer, Eigen::Index rows, Eigen::Index cols) {
    if (buffer.rows() < rows || buffer.cols() < cols)
      buffer.resize(std::max(rows, buffer.rows()), std::max(cols, buffer.cols()));
  };
  grow(work.multipliers, most_rows, columns);
  grow(work.dependent_rights, most_dofs, columns);
  work.right.resize(most_dofs);
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[s];
    const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
    const CoordinateSelection& selection = data.selection[s];
    DependentFactorization& y1 = data.work->selection.dependent_factorization[s];
    // The path constraint_forces took for lambda: Y1's equations, or every equation.
    const bool all_equations = data.work->forces.force_solve[s].all_equations;
    const Eigen::Index rows = constraint.rows();
    const auto dependent_count = static_cast<Eigen::Index>(selection.dependent.size());
    auto multipliers = work.multipliers.topLeftCorner(rows, columns);
    // Y1* dlambda = the dependent dofs' entries, every direction in one solve.
    auto dependent_rights = work.dependent_rights.topLeftCorner(dependent_count, columns);
    for (Eigen::Index i = 0; i < dependent_count; ++i)
      dependent_rights.row(i) =
          generalized.row(dofs[static_cast<std::size_t>(selection.dependent[i])]);
    const bool solved =
        rows == 0 || (!all_equations && y1.rows() == rows && y1.columns() == dependent_count &&
                      y1.solve_transposed_columns(dependent_rights, multipliers));
    if (!solved) {  // the least-squares fallback (allocates)
      Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> all_rows(constraint.transpose());
      all_rows.setThreshold(model.options().rank_tolerance);
      auto right = work.right.head(static_cast<Eigen::Index>(dofs.size()));
      for (Eigen::Index c = 0; c < columns; ++c) {
        for (std::size_t i = 0; i < dofs.size(); ++i)
          right[static_cast<Eigen::Index>(i)] = generalized(dofs[i], c);
        multipliers.col(c) = all_rows.solve(Eigen::VectorXd(right));
      }
    }
    Eigen::Index row = 0;
    for (const int l : impl.loops[s]) {
      const LoopRows& loop_rows = impl.loop_rows[l];
      const Eigen::Index angular = loop_rows.angular.rows(), linear = loop_rows.linear.rows();
      Eigen::MatrixXd& out = loops[static_cast<std::size_t>(l)];
      out.resize(6, columns);
      out.topRows<3>().noalias() =
          loop_rows.angular.transpose() * multipliers.middleRows(row, angular);
      out.bottomRows<3>().noalias() =
          loop_rows.linear.transpose() * multipliers.middleRows(row + angular, linear);
      row += angular + linear;
    }
    for (const int c : impl.couplings[s]) {
      const int count = model.tree().joint_dofs(mechanism.couplings[c].joint_a);
      couplings[static_cast<std::size_t>(c)] = multipliers.middleRows(row, count);
      row += count;
    }
  }
}

// The constraint rows' derivatives of ConstraintDerivatives (all but `tree`) from the tree's
// derivative passes already run at this state (their per-dof dV_j, dA_j, dW_j in the derivative
// workspace, the world motion in data.tree). One loop's relative twist and its rate, in world
// axes about the point o (F_c relative to F_p at x_c, r = x_c - o, rd = x_c's velocity):
//   y  = [D_w; D_v + D_w x r],  yd = [Da_w; Da_v + Da_w x r + D_w x rd],  u = yd - w_p x y,
// D = V_c - V_p, Da = A_c - A_p; the rows read R_p^T y (velocity) and R_p^T u (acceleration: d/dt
// of R_p^T y, the qdd terms included). Along a dof j that moves one end only (a dof moving both
// turns the whole loop and leaves its rows unchanged), with the end's dV = dV_j + s_j x V and dA =
// dA_j + dV_j x V + s_j x A:
//   moving F_c, along q_j:  dr = v_j + w_j x r, drd = dV_v + dV_w x r + w_c x dr,
//       dy = [dV_w; dV_v + dV_w x r + D_w x dr],
//       dyd = [dA_w; dA_v + dA_w x r + Da_w x dr + dV_w x rd + D_w x drd],
//       rows of dy and of dyd - w_p x dy;
//     along qd_j: dD = s_j, dDa = dW_j + s_j x V_c, drd = dr, rows of dyd - w_p x dy;
//   moving F_p, along q_j:  dD = -dV, dDa = -dA, dr = drd = 0, and R_p turns with w_j:
//       rows of dy - w_j x y, dyd - dV_w x y - w_p x dy - w_j x u;
//     along qd_j: dD = -s_j, dDa = -(dW_j + s_j x V_p), rows of dyd - w_j x y - w_p x dy
// (w x z on both halves of z). The loop forces: with f = [S_a* lambda_a; S_l* lambda_l] (F_p axes,
// at x_c), the wrench in world axes about o is F = [R_p f_N + r x R_p f_F; R_p f_F] and
// (G* lambda)_i = sigma_i s_i . F (sigma = +1 for a dof moving the child end, -1 for F_p's), so
//   d(G* lambda)_i/dq_j = sigma_i s_i . (dF_j - [j moves i] s_j x* F)
// ((s_j x s_i) . F = -s_i . (s_j x* F)), dF_j = [dr x R_p f_F; 0] moving F_c and [w_j x R_p f_N +
// r x (w_j x R_p f_F); w_j x R_p f_F] moving F_p.
void constraint_row_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                const Eigen::Ref<const Eigen::VectorXd>& lambda,
                                const Eigen::Vector3d& gravity, ConstraintDerivatives& result) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  const Mechanism& mechanism = model.mechanism();
  const int n = tree.dof_count();
  const auto total_rows = static_cast<Eigen::Index>(lambda.size());
  result.velocity_by_q.setZero(total_rows, n);
  result.acceleration_by_q.setZero(total_rows, n);
  result.acceleration_by_qd.setZero(total_rows, n);
  result.force_by_q.setZero(n, n);
  if (n == 0) return;
  const DerivativeWorkspace& work = derivative_workspace(tree, data.tree);
  const Eigen::Vector3d origin = data.tree.tree_origin[tree.parents_first().front()];
  const std::vector<Eigen::Isometry3d>& poses = link_poses(tree, data.tree);
  Vector6d world_acceleration;
  world_acceleration << 0.0, 0.0, 0.0, -gravity;
  const auto velocity_of = [&](int link) -> Vector6d {
    return link < 0 ? Vector6d::Zero() : data.tree.world_velocity[tree.node_of_link(link)];
  };
  const auto acceleration_of = [&](int link) -> Vector6d {
    return link < 0 ? world_acceleration : work.acceleration[tree.node_of_link(link)];
  };
  int row = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    for (const int l : impl.loops[s]) {
      const LoopClosure& loop = mechanism.loops[l];
      const LoopRows& rows = impl.loop_rows[l];
      const Vector6d child_velocity = velocity_of(loop.child);
      const Vector6d parent_velocity = velocity_of(loop.parent);
      const Vector6d child_acceleration = acceleration_of(loop.child);
      const Vector6d parent_acceleration = acceleration_of(loop.parent);
      const Eigen::Vector3d x_c = loop.child < 0
                                      ? Eigen::Vector3d(loop.child_origin.translation())
                                      : Eigen::Vector3d(poses[tree.node_of_link(loop.child)] *
                                                        loop.child_origin.translation());
      const Eigen::Matrix3d rotation =
          loop.parent < 0 ? Eigen::Matrix3d(loop.parent_origin.linear())
                          : Eigen::Matrix3d(poses[tree.node_of_link(loop.parent)].linear() *
                                            loop.parent_origin.linear());
      const Eigen::Vector3d r = x_c - origin;
      const Vector6d delta = child_velocity - parent_velocity;
      const Vector6d delta_acceleration = child_acceleration - parent_acceleration;
      const Eigen::Vector3d w_c = child_velocity.head<3>(), w_p = parent_velocity.head<3>();
      const Eigen::Vector3d D_w = delta.head<3>(), Da_w = delta_acceleration.head<3>();
      const Eigen::Vector3d point_velocity = child_velocity.tail<3>() + w_c.cross(r);
      const Vector6d y = at_point(D_w, delta.tail<3>(), r);
      const Vector6d yd =
          at_point(Da_w, delta_acceleration.tail<3>() + D_w.cross(point_velocity), r);
      const Vector6d u = yd - cross_halves(w_p, y);
      const RotatedRows rotated{
          rows.angular_padded * rotation.transpose(), rows.linear_padded * rotation.transpose(),
          static_cast<int>(rows.angular.rows()), static_cast<int>(rows.linear.rows())};

      // The loop's multipliers as a wrench in world axes about o.
      const Eigen::Vector3d moment =
          rotation * (rows.angular.transpose() * lambda.segment(row, rotated.angular_rows));
      const Eigen::Vector3d force =
          rotation * (rows.linear.transpose() *
                      lambda.segment(row + rotated.angular_rows, rotated.linear_rows));
      Vector6d wrench;
      wrench << moment + r.cross(force), force;

      const std::size_t moving_count = rows.moving.size();
      for (std::size_t a = 0; a < moving_count; ++a) {
        const LoopRows::MovingDof& moving = rows.moving[a];
        const int j = moving.dof, at = moving.column;
        const Vector6d s_j = work.column.col(at), dV_j = work.velocity_by_q.col(at);
        const Vector6d dA_j = work.acceleration_by_q.col(at);
        const Vector6d dW_j = work.acceleration_by_qd.col(at);
        const Eigen::Vector3d w_j = s_j.head<3>();
        Vector6d d_wrench;
        if (moving.moves_child) {
          const Vector6d dV = dV_j + cross_motion(s_j, child_velocity);
          const Vector6d dA =
              dA_j + cross_motion(dV_j, child_velocity) + cross_motion(s_j, child_acceleration);
          const Eigen::Vector3d dr = s_j.tail<3>() + w_j.cross(r);
          const Eigen::Vector3d d_point_velocity =
              dV.tail<3>() + dV.head<3>().cross(r) + w_c.cross(dr);
          const Vector6d dy = at_point(dV.head<3>(), dV.tail<3>() + D_w.cross(dr), r);
          const Vector6d dyd =
              at_point(dA.head<3>(),
                       dA.tail<3>() + Da_w.cross(dr) + dV.head<3>().cross(point_velocity) +
                           D_w.cross(d_point_velocity),
                       r);
          rotated.put(dy, result.velocity_by_q, row, j);
          rotated.put(dyd - cross_halves(w_p, dy), result.acceleration_by_q, row, j);
          const Vector6d rate_change = dW_j + cross_motion(s_j, child_velocity);  // along qd_j
          Vector6d ey;  // the relative twist's change along qd_j: [w_j; dr]
          ey << w_j, dr;
          const Vector6d eyd =
              at_point(rate_change.head<3>(),
                       rate_change.tail<3>() + w_j.cross(point_velocity) + D_w.cross(dr), r);
          rotated.put(eyd - cross_halves(w_p, ey), result.acceleration_by_qd, row, j);
          d_wrench << dr.cross(force), Eigen::Vector3d::Zero();
        } else {
          const Vector6d dV = dV_j + cross_motion(s_j, parent_velocity);
          const Vector6d dA =
              dA_j + cross_motion(dV_j, parent_velocity) + cross_motion(s_j, parent_acceleration);
          const Vector6d dy = -at_point(dV.head<3>(), dV.tail<3>(), r);
          const Vector6d dyd =
              -at_point(dA.head<3>(), dA.tail<3>() + dV.head<3>().cross(point_velocity), r);
          rotated.put(dy - cross_halves(w_j, y), result.velocity_by_q, row, j);
          rotated.put(
              dyd - cross_halves(dV.head<3>(), y) - cross_halves(w_p, dy) - cross_halves(w_j, u),
              result.acceleration_by_q, row, j);
          const Vector6d rate_change = dW_j + cross_motion(s_j, parent_velocity);  // along qd_j
          const Vector6d ey = -at_point(w_j, s_j.tail<3>(), r);
          const Vector6d eyd = -at_point(rate_change.head<3>(),
                                         rate_change.tail<3>() + w_j.cross(point_velocity), r);
          rotated.put(eyd - cross_halves(w_j, y) - cross_halves(w_p, ey), result.acceleration_by_qd,
                      row, j);
          const Eigen::Vector3d turned_force = w_j.cross(force);
          d_wrench << w_j.cross(moment) + r.cross(turned_force), turned_force;
        }
        // Column j of d(G* lambda)/dq over the loop's moving dofs i.
        const Vector6d d_wrench_moving = d_wrench - cross_force(s_j, wrench);  // j moves i too
        const char* moves = rows.moves.data() + a * moving_count;
        for (std::size_t b = 0; b < moving_count; ++b) {
          const LoopRows::MovingDof& other = rows.moving[b];
          const double value =
              work.column.col(other.column).dot(moves[b] ? d_wrench_moving : d_wrench);
          result.force_by_q(other.dof, j) += other.moves_child ? value : -value;
        }
      }
      row += rows.rows();
    }
    for (const int c : impl.couplings[s])  // constant rows: nothing moves them
      row += tree.joint_dofs(mechanism.couplings[c].joint_a);
  }
}

}  // namespace

// The tree's inverse-dynamics derivatives (they walk the configuration), then the rows'
// (constraint_row_derivatives above).
void constraint_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& qd,
                            const Eigen::Ref<const Eigen::VectorXd>& qdd,
                            const Eigen::Ref<const Eigen::VectorXd>& lambda,
                            const Eigen::Vector3d& gravity, ConstraintDerivatives& result) {
  int total_rows = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) total_rows += model.constraint_rows(s);
  check_size(lambda, total_rows, "lambda");
  inverse_dynamics_derivatives(model.tree(), data.tree, q, qd, qdd, gravity, result.tree);
  constraint_row_derivatives(model, data, lambda, gravity, result);
}

namespace {

// At the constraints' last update of this state (q, qd), whose world motion data.tree holds, and
// the tree's inverse-dynamics derivatives at qdd in constraints.tree (their tau: no second
// Newton-Euler pass): the loop forces under `tau`, the constraint rows' derivatives with those
// multipliers and the manifold's directions W1, W2q, W2d (ManifoldTangent), X the update's
// embedding, its pattern already scanned into tangent.embedding_pattern.
void manifold_tangent(const ClosedChainModel& model, ClosedChainData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& tau,
                      const std::vector<int>& independent, const Eigen::MatrixXd& X,
                      const Eigen::Vector3d& gravity, ConstraintForces& forces,
                      ConstraintDerivatives& constraints, ManifoldTangent& tangent) {
  closed_chain_detail::require_rigid_links(model, "closed-chain derivatives");
  const int n = model.dof_count();
  closed_chain_detail::constraint_forces_from_tree_force(model, data, constraints.tree.tau, tau,
                                                         forces);
  // The stacked multipliers and G, aggregate by aggregate (constraint_jacobian's stacked rows).
  int total_rows = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) total_rows += model.constraint_rows(s);
  tangent.multipliers.resize(total_rows);
  tangent.rows.setZero(total_rows, n);
  int row = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const int rows = model.constraint_rows(s);
    tangent.multipliers.segment(row, rows) = forces.multipliers[s];
    const std::vector<int>& dofs = model.aggregate_dofs(s);
    for (std::size_t c = 0; c < dofs.size(); ++c)
      tangent.rows.col(dofs[c]).segment(row, rows) =
          data.constraint_matrix[s].col(static_cast<Eigen::Index>(c));
    row += rows;
  }
  constraint_row_derivatives(model, data, tangent.multipliers, gravity, constraints);

  tangent.dependent.clear();
  std::size_t next = 0;
  for (int i = 0; i < n; ++i) {
    if (next < independent.size() && independent[next] == i) {
      ++next;
      continue;
    }
    tangent.dependent.push_back(i);
  }
  tangent.by_aggregate = true;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const DependentFactorization& y1 = data.work->selection.dependent_factorization[s];
    tangent.by_aggregate = tangent.by_aggregate && y1.rows() == model.constraint_rows(s) &&
                           y1.columns() == static_cast<int>(data.selection[s].dependent.size());
  }
  if (!tangent.by_aggregate && !tangent.dependent.empty()) {
    tangent.dependent_rows.resize(total_rows, static_cast<Eigen::Index>(tangent.dependent.size()));
    for (std::size_t i = 0; i < tangent.dependent.size(); ++i)
      tangent.dependent_rows.col(static_cast<Eigen::Index>(i)) =
          tangent.rows.col(tangent.dependent[i]);
    tangent.dependent_solver.compute(tangent.dependent_rows);
  }

  // G W = -(the rows' derivative along the direction): W solved for the derivative, then negated.
  const ConstraintDerivatives& d = constraints;
  // X and the directions are block-sparse when the aggregates are small: their products go by
  // their nonzeros (SparseColumns).
  Eigen::MatrixXd& right = tangent.right_side;
  const SparseColumns& embedding = tangent.embedding_pattern;
  multiply(d.velocity_by_q, X, embedding, 1.0, false, right);
  solve_dependent(model, data, tangent, n, right, tangent.dqd_dq);
  tangent.dqd_dq *= -1.0;
  tangent.dqd_dq_pattern.scan(tangent.dqd_dq);
  multiply(d.acceleration_by_q, X, embedding, 1.0, false, right);
  multiply(d.acceleration_by_qd, tangent.dqd_dq, tangent.dqd_dq_pattern, 1.0, true, right);
  solve_dependent(model, data, tangent, n, right, tangent.acceleration_by_q);
  tangent.acceleration_by_q *= -1.0;
  tangent.acceleration_by_q_pattern.scan(tangent.acceleration_by_q);
  multiply(d.acceleration_by_qd, X, embedding, 1.0, false, right);
  solve_dependent(model, data, tangent, n, right, tangent.acceleration_by_qd);
  tangent.acceleration_by_qd *= -1.0;
  tangent.acceleration_by_qd_pattern.scan(tangent.acceleration_by_qd);
}

// M X and M_R = X* M X by X's nonzeros (`embedding`, X's scanned pattern).
void form_reduced_mass(const Eigen::MatrixXd& X, const SparseColumns& embedding,
                       const Eigen::MatrixXd& M, Eigen::MatrixXd& mass_embedding,
                       Eigen::MatrixXd& reduced_mass) {
  multiply(M, X, embedding, 1.0, false, mass_embedding);
  multiply_transposed(X, embedding, mass_embedding, reduced_mass);
}

// M_R into the result and its Cholesky factor. False where M_R is not positive definite.
bool factor_reduced_mass(const Eigen::MatrixXd& X, const Eigen::MatrixXd& M,
                         ClosedChainForwardDerivatives& result) {
  form_reduced_mass(X, result.tangent.embedding_pattern, M, result.work.mass_embedding,
                    result.reduced_mass);
  result.reduced_factor.compute(result.reduced_mass);
  return result.reduced_factor.info() == Eigen::Success;
}

// How far the independent coordinates' equations may miss at M_R's solution (relative) before the
// articulated-body recursion is asked instead (as for trees, forward_dynamics_derivatives.cpp: M
// formed about one point loses digits when small links sit far from it).
constexpr double kReducedResidual = 1e-12;

// qdd at the constraints' update of (q, qd) from M_R, between the two halves of the tree's
// derivative passes that the derivatives run anyway: the first half gives M and the bias forces C,
// then M_R qdd_R = X* (tau - C - M w0) with w0 = Xdot qd_R (qdd = X qdd_R + w0: the embedded
// model's equations, constraint-embedding §7.2), and the second half gives dtau/dq and tau at that
// qdd. The articulated-body recursion is not run. False (the caller runs it) where a selection is
// ill-conditioned (the recursion refines those), M_R is not positive definite, or X* (ID(qdd) -
// tau), zero in exact arithmetic (X* G* = 0), exceeds kReducedResidual relative to the sizes of X*
// tau and X* (C + M w0).
bool accelerations_from_reduced_mass(const ClosedChainModel& model, ClosedChainData& data,
                                     const Eigen::Ref<const Eigen::VectorXd>& qd,
                                     const Eigen::Ref<const Eigen::VectorXd>& tau,
                                     const Eigen::Vector3d& gravity,
                                     ClosedChainForwardDerivatives& result) {
  if (closed_chain_detail::any_ill_conditioned(data)) return false;
  const RigidBodyModel& tree = model.tree();
  InverseDynamicsDerivatives& derivatives = result.constraints.tree;
  rigid_detail::inverse_dynamics_derivatives_velocity_half(tree, data.tree, qd, gravity,
                                                           derivatives);
  const Eigen::MatrixXd& X = data.X;
  if (!factor_reduced_mass(X, derivatives.mass, result)) return false;
  // The forward dynamics' own buffers (its recursion is not run here).
  DynamicsWorkspace& work = data.work->dynamics;
  const Eigen::VectorXd& rate = data.work->constraints.embedding_rate_full;  // w0
  work.tree_acceleration = derivatives.tau;  // scratch: C + M w0, the forces at qdd = w0
  work.tree_acceleration.noalias() += derivatives.mass * rate;
  work.independent_forces.noalias() = X.transpose() * work.tree_acceleration;
  work.actuated_acceleration.noalias() = X.transpose() * tau;
  const double scale = 1.0 + work.actuated_acceleration.norm() + work.independent_forces.norm();
  work.actuated_acceleration -= work.independent_forces;
  result.reduced_factor.solveInPlace(work.actuated_acceleration);  // qdd_R
  result.qdd = rate;
  result.qdd.noalias() += X * work.actuated_acceleration;
  rigid_detail::inverse_dynamics_derivatives_acceleration_half(tree, data.tree, qd, result.qdd,
                                                               gravity, derivatives);
  work.tree_acceleration = derivatives.tau - tau;
  work.independent_forces.noalias() = X.transpose() * work.tree_acceleration;
  return work.independent_forces.norm() <= kReducedResidual * scale;
}

}  // namespace

void forward_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                  const Eigen::Vector3d& gravity,
                                  ClosedChainForwardDerivatives& result,
                                  LoopForceDerivatives forces) {
  if (closed_chain_detail::has_flexible_links(model))
    return closed_chain_detail::flexible_forward_dynamics_derivatives(model, data, q, qd, tau,
                                                                      gravity, result, forces);
  closed_chain_detail::check_vector(tau, model.dof_count(), "tau");
  // One update of the constraints for every piece: a second could select other independent
  // coordinates and mix two charts.
  closed_chain_detail::update_constraints(model, data, q, qd);
  result.independent = data.independent;
  const Eigen::MatrixXd& X = data.X;
  result.tangent.embedding_pattern.scan(X);
  if (!accelerations_from_reduced_mass(model, data, qd, tau, gravity, result)) {
    result.qdd = closed_chain_detail::forward_dynamics_at_update(model, data, tau, gravity);
    rigid_detail::inverse_dynamics_derivatives_at_world_motion(
        model.tree(), data.tree, qd, result.qdd, gravity, result.constraints.tree);
    if (!factor_reduced_mass(X, result.constraints.tree.mass, result))
      throw SingularMassMatrixError(
          -1, "the reduced mass matrix is singular at this state (a dof that moves no mass)");
  }
  manifold_tangent(model, data, tau, result.independent, X, gravity, result.forces,
                   result.constraints, result.tangent);
  const ConstraintDerivatives& d = result.constraints;
  const Eigen::MatrixXd& M = d.tree.mass;
  const Eigen::MatrixXd& W1 = result.tangent.dqd_dq;
  const Eigen::MatrixXd& W2q = result.tangent.acceleration_by_q;
  const Eigen::MatrixXd& W2d = result.tangent.acceleration_by_qd;
  result.dqd_dq = W1;
  ClosedChainDerivativeWorkspace& work = result.work;
  const ManifoldTangent& tangent = result.tangent;
  const SparseColumns& embedding = tangent.embedding_pattern;

  // The reduced right sides X* (...), into the workspace (no temporaries).
  work.held = d.tree.dtau_dq - d.force_by_q;  // d ID / dq, lambda held
  // by_q = -(held X + dtau/dqd W1 + M W2q), by_qd = -(dtau/dqd X + M W2d).
  multiply(work.held, X, embedding, -1.0, false, work.by_q);
  multiply(d.tree.dtau_dqd, W1, tangent.dqd_dq_pattern, -1.0, true, work.by_q);
  multiply(M, W2q, tangent.acceleration_by_q_pattern, -1.0, true, work.by_q);
  multiply(d.tree.dtau_dqd, X, embedding, -1.0, false, work.by_qd);
  multiply(M, W2d, tangent.acceleration_by_qd_pattern, -1.0, true, work.by_qd);
  multiply_transposed(X, embedding, work.by_q, work.reduced_by_q);
  result.reduced_factor.solveInPlace(work.reduced_by_q);
  multiply_transposed(X, embedding, work.by_qd, work.reduced_by_qd);
  result.reduced_factor.solveInPlace(work.reduced_by_qd);
  work.reduced_by_tau = X.transpose();
  result.reduced_factor.solveInPlace(work.reduced_by_tau);
  result.dqdd_dq = W2q;
  add_product(X, embedding, work.reduced_by_q, result.dqdd_dq);
  result.dqdd_dqd = W2d;
  add_product(X, embedding, work.reduced_by_qd, result.dqdd_dqd);
  result.dqdd_dtau.setZero(X.rows(), work.reduced_by_tau.cols());
  add_product(X, embedding, work.reduced_by_tau, result.dqdd_dtau);

  if (forces == LoopForceDerivatives::kWithout) {
    for (auto* list : {&result.loop_by_q, &result.loop_by_qd, &result.loop_by_tau,
                       &result.coupling_by_q, &result.coupling_by_qd, &result.coupling_by_tau})
      list->clear();
    return;
  }
  // The loop forces: differentiating M qdd + C - tau = G* lambda along each direction,
  // G* dlambda = M dqdd + (dtau/dq - d(G* lambda)/dq) dq + dtau/dqd dqd - dtau, which with
  // dqdd = X dqdd_R + w is M X dqdd_R - (the right sides above): M X dqdd_R - by_q along q_R,
  // M X dqdd_R - by_qd along qd_R and M X M_R^-1 X* - 1 along tau.
  work.generalized = -work.by_q;
  work.generalized.noalias() += work.mass_embedding * work.reduced_by_q;
  force_derivatives(model, data, work.generalized, work, result.loop_by_q, result.coupling_by_q);
  work.generalized = -work.by_qd;
  work.generalized.noalias() += work.mass_embedding * work.reduced_by_qd;
  force_derivatives(model, data, work.generalized, work, result.loop_by_qd, result.coupling_by_qd);
  work.generalized_by_tau.noalias() = work.mass_embedding * work.reduced_by_tau;
  work.generalized_by_tau.diagonal().array() -= 1.0;
  force_derivatives(model, data, work.generalized_by_tau, work, result.loop_by_tau,
                    result.coupling_by_tau);
}

void inverse_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                  const Eigen::Vector3d& gravity,
                                  ClosedChainInverseDerivatives& result) {
  if (closed_chain_detail::has_flexible_links(model))
    return closed_chain_detail::flexible_inverse_dynamics_derivatives(model, data, q, qd, qdd,
                                                                      gravity, result);
  // qdd_R read from qdd at the same update that selects the independent dofs (actuator_forces).
  result.actuator_forces = actuator_forces(model, data, q, qd, qdd, gravity);
  result.qdd = data.work->dynamics.tree_acceleration;  // X qdd_R + Xdot qd_R
  result.independent = data.independent;
  result.tau.resize(static_cast<Eigen::Index>(result.independent.size()));
  for (std::size_t j = 0; j < result.independent.size(); ++j)
    result.tau(static_cast<Eigen::Index>(j)) = result.actuator_forces(result.independent[j]);
  const Eigen::MatrixXd& X = data.X;
  rigid_detail::inverse_dynamics_derivatives_at_world_motion(
      model.tree(), data.tree, qd, result.qdd, gravity, result.constraints.tree);
  result.tangent.embedding_pattern.scan(X);
  // lambda with M qdd + C - tau_a = G* lambda: the loops' forces under the actuator forces.
  manifold_tangent(model, data, result.actuator_forces, result.independent, X, gravity,
                   result.forces, result.constraints, result.tangent);
  const ConstraintDerivatives& d = result.constraints;
  const Eigen::MatrixXd& M = d.tree.mass;
  ClosedChainDerivativeWorkspace& work = result.work;
  const ManifoldTangent& tangent = result.tangent;
  const SparseColumns& embedding = tangent.embedding_pattern;
  work.held = d.tree.dtau_dq - d.force_by_q;
  multiply(work.held, X, embedding, 1.0, false, work.by_q);
  multiply(d.tree.dtau_dqd, tangent.dqd_dq, tangent.dqd_dq_pattern, 1.0, true, work.by_q);
  multiply(M, tangent.acceleration_by_q, tangent.acceleration_by_q_pattern, 1.0, true, work.by_q);
  multiply_transposed(X, embedding, work.by_q, result.dtau_dq);
  multiply(d.tree.dtau_dqd, X, embedding, 1.0, false, work.by_qd);
  multiply(M, tangent.acceleration_by_qd, tangent.acceleration_by_qd_pattern, 1.0, true,
           work.by_qd);
  multiply_transposed(X, embedding, work.by_qd, result.dtau_dqd);
  form_reduced_mass(X, embedding, M, work.mass_embedding, result.reduced_mass);
}

}  // namespace skograph

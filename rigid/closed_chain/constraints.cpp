// The constraints of closed chains (rigid/closed_chain_model.hpp): closure frames' motion, the
// rows Q and Qdot qd of each aggregate (constraint-embedding Eq. 58-61), and X, Xdot qd_R
// (Lemma 5) for the dynamics; the selection of independent coordinates along a motion is
// closed_chain/selection.cpp's.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <ranges>
#include <stdexcept>

#include "closed_chain/internal.hpp"
#include "flexible_nodes.hpp"
#include "kinematics_detail.hpp"
#include "skograph/rigid/kinematics.hpp"

namespace skograph {

using Impl = ClosedChainModel::Impl;

namespace {

// World pose, velocities and accelerations (qdd = 0) of a closure frame's origin.
struct FrameMotion {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d position = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_acceleration = Eigen::Vector3d::Zero();
  Eigen::Vector3d acceleration = Eigen::Vector3d::Zero();
};

// A frame fixed on `link` (-1: the world) at `origin` in the link frame. With the link's velocity
// V = [w; v_o] in world axes about the point `reference` and its derivative alpha = [wdot; a_o]
// there (update_world_motion: spatial vectors at a fixed point), the frame's origin x moves at
// v_o + w x r and accelerates at a_o + wdot x r + w x (v_o + w x r), r = x - reference; the
// angular velocity is w and its derivative wdot.
// Without `with_rotation` the frame's orientation is left at the identity (the child end's is
// read by the position error only).
FrameMotion frame_motion(const RigidBodyModel& tree, const RigidBodyData& data,
                         const Eigen::VectorXd* node_acceleration, int link,
                         const Eigen::Isometry3d& origin, const Eigen::Vector3d& reference,
                         bool with_velocity, bool with_rotation) {
  FrameMotion frame;
  if (link < 0) {
    frame.rotation = origin.linear();
    frame.position = origin.translation();
    return frame;
  }
  const int k = tree.node_of_link(link);
  const Eigen::Isometry3d& pose = link_poses(tree, data)[k];
  if (with_rotation) frame.rotation = pose.linear() * origin.linear();
  frame.position = pose * origin.translation();
  if (!with_velocity) return frame;
  const Eigen::Vector3d r = frame.position - reference;
  const Eigen::Vector3d w = data.world_velocity[k].head<3>();
  frame.angular_velocity = w;
  frame.velocity = data.world_velocity[k].tail<3>() + w.cross(r);
  if (node_acceleration != nullptr) {
    const Eigen::Vector3d wdot = node_acceleration->segment<3>(6 * k);
    frame.angular_acceleration = wdot;
    frame.acceleration =
        node_acceleration->segment<3>(6 * k + 3) + wdot.cross(r) + w.cross(frame.velocity);
  }
  return frame;
}

// Flexible trees: a loop end's frame from the frame kinematics of rigid/kinematics.hpp, which
// follow the modes (a flexible link's end sits on a rigid carrier link, closed_chain/model.cpp):
// its pose, and with `with_velocity` its velocity and classical acceleration at qdd = 0 (the
// Coriolis sum of frame_jacobian_bias) in world axes at the frame's origin.
FrameMotion flexible_frame_motion(const RigidBodyModel& tree, const RigidBodyData& data, int link,
                                  const Eigen::Isometry3d& origin, bool with_velocity) {
  FrameMotion frame;
  if (link < 0) {
    frame.rotation = origin.linear();
    frame.position = origin.translation();
    return frame;
  }
  const Eigen::Isometry3d pose = link_poses(tree, data)[tree.node_of_link(link)] * origin;
  frame.rotation = pose.linear();
  frame.position = pose.translation();
  if (!with_velocity) return frame;
  const FrameRef end{link, origin};
  const Vector6d velocity = frame_velocity(tree, data, end, FrameAxes::kWorld);
  const Vector6d acceleration = frame_jacobian_bias(tree, data, end, FrameAxes::kWorld);
  frame.angular_velocity = velocity.head<3>();
  frame.velocity = velocity.tail<3>();
  frame.angular_acceleration = acceleration.head<3>();
  frame.acceleration = acceleration.tail<3>();
  return frame;
}

// Flexible trees: the relative twist of F_c with respect to F_p per unit rate of every dof, as
// the difference of the two ends' frame Jacobians both taken at F_c's origin (J_c - J_p carried
// to x_c: the relative twist's columns below, modal columns included). Writes the moving dofs'
// columns of aggregate s into `twist`; the caller reads the modal ones from `parent_jacobian`
// and `child_jacobian`.
void flexible_relative_twist(const RigidBodyModel& tree, const RigidBodyData& data,
                             const Impl& impl, int s, const LoopClosure& loop, const LoopRows& rows,
                             const FrameMotion& child, Eigen::MatrixXd& parent_jacobian,
                             Eigen::MatrixXd& child_jacobian,
                             Eigen::Matrix<double, 6, Eigen::Dynamic>& twist) {
  FrameRef parent_end{loop.parent, Eigen::Isometry3d::Identity()};
  if (loop.parent >= 0)
    parent_end.pose.translation() =
        link_poses(tree, data)[tree.node_of_link(loop.parent)].inverse() * child.position;
  frame_jacobian(tree, data, parent_end, FrameAxes::kWorld, parent_jacobian);
  frame_jacobian(tree, data, FrameRef{loop.child, loop.child_origin}, FrameAxes::kWorld,
                 child_jacobian);
  const std::vector<int>& dofs = impl.dofs[s];
  twist.resize(6, static_cast<int>(dofs.size()));
  for (const LoopRows::MovingDof& moving : rows.moving) {
    const int dof = dofs[static_cast<std::size_t>(moving.position)];
    twist.col(moving.position) = child_jacobian.col(dof) - parent_jacobian.col(dof);
  }
}

// The relative twist of F_c with respect to F_p per unit rate of each dof of aggregate s
// (6 x n_S, world coordinates): the sub-graph Jacobians J_o - J_p of constraint-embedding Eq. 58
// with the closure nodes o = F_c, p = F_p, before the rotation into F_p and the constraint rows
// A (the caller's). In F_p coordinates the relative twist is
//   [R_p^T (w_c - w_p); R_p^T (v_c - v_p - w_p x D)],  D = x_c - x_p,
// where a dof of joint k moves link L when k is an ancestor-or-self of L in the tree, giving
// w = R_k h_w, v(x) = R_k h_v + w x (x - x_k) (h = [h_w; h_v] the column of H*(k)). A dof moving
// F_p adds v_p + w x D = v(x_c): either end's dof enters as +-[w; v(x_c)], and a dof moving both
// ends cancels (only the moving dofs' columns are written; Q's others stay zero).
// With the dof's column about the point `reference`, [w; v_o] = [R_k h_w; R_k h_v + (x_k - o) x w]
// (update_world_motion's, or aggregate_constraints' about the world origin at position levels),
// v(x_c) = v_o + w x (x_c - o).
void relative_twist_jacobian(const Impl& impl, int s, const LoopRows& rows,
                             const FrameMotion& child, const Eigen::Vector3d& reference,
                             const Eigen::Matrix<double, 6, Eigen::Dynamic>& world_column,
                             Eigen::Matrix<double, 6, Eigen::Dynamic>& jacobian) {
  const Eigen::Vector3d r = child.position - reference;
  const std::vector<int>& dofs = impl.dofs[s];
  // Only the moving dofs' columns are written and read (aggregate_constraints): no zeroing.
  jacobian.resize(6, static_cast<int>(dofs.size()));
  for (const LoopRows::MovingDof& moving : rows.moving) {
    const auto column = world_column.col(dofs[static_cast<std::size_t>(moving.position)]);
    const Eigen::Vector3d w = column.head<3>();
    const Eigen::Vector3d v = column.tail<3>() + w.cross(r);
    const double sign = moving.moves_child ? 1.0 : -1.0;
    jacobian.col(moving.position).head<3>() = sign * w;
    jacobian.col(moving.position).tail<3>() = sign * v;
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
  error.head(angular_rows).noalias() = rows.angular * angular;  // no temporary
  error.tail(rows.linear.rows()).noalias() = rows.linear * position;
  return flip;
}

}  // namespace

namespace closed_chain_detail {

// The motion Qdot qd and the dynamics read, in world axes about one point that the trees a loop
// joins share, the first base link's origin (rigid_detail::world_motion; every node's
// data.tree.tree_origin): the link poses, V(k), a(k), every
// dof's hinge column (work.constraints.world_column) and the accelerations with qdd = 0 and no
// gravity, alpha(k) = alpha(p) + a(k) (work.constraints.node_acceleration: spatial vectors at one
// point add without transforms; part I section 7 scatter with thetaddot = 0).
void update_world_motion(const RigidBodyModel& tree, const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd, ClosedChainData& data) {
  RigidBodyData& kinematics = data.tree;
  ClosedChainData::Workspaces& work = *data.work;
  if (tree.has_flexible_links()) {
    // Nodes of 6 + modes: the flexible walk's poses, velocities and velocity products, which the
    // frame kinematics read (flexible_frame_motion); the dynamics walk q and qd again.
    rigid_detail::update_flexible_nodes(tree, q, &qd, kinematics);
    work.constraints.updated_q = q;
    work.constraints.updated_qd = qd;
    return;
  }
  rigid_detail::world_motion(tree, q, qd, kinematics);
  const std::vector<int>& parents = tree.parents();
  for (const int k : tree.parents_first()) {
    const int p = parents[k];
    Vector6d alpha = kinematics.world_coriolis[k];
    if (p >= 0) alpha += work.constraints.node_acceleration.segment<6>(6 * p);
    work.constraints.node_acceleration.segment<6>(6 * k) = alpha;
    const int offset = tree.joint_dof_offset(k);
    for (int d = 0; d < tree.joint_dofs(k); ++d)
      work.constraints.world_column.col(offset + d) = kinematics.world_hinge[k].col(d);
  }
}

// The position residual of aggregate s after aggregate_constraints: max |error|, or the flip of a
// revolute axis when larger.
double aggregate_position_residual(const ClosedChainData& data, int s) {
  const Eigen::VectorXd& error = data.work->constraints.position_error[s];
  const double largest = error.size() ? error.cwiseAbs().maxCoeff() : 0.0;
  return std::max(largest, data.work->constraints.orientation_flip[s]);
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

int row_loop(const ClosedChainModel& model, int s, int row) {
  const Impl& impl = closed_chain_impl(model);
  for (const int l : impl.loops[s]) {
    if (row < impl.loop_rows[l].rows()) return l;
    row -= impl.loop_rows[l].rows();
  }
  return -1;
}

int aggregate_loop(const ClosedChainModel& model, int s) {
  const Impl& impl = closed_chain_impl(model);
  return impl.loops[s].empty() ? -1 : impl.loops[s].front();
}

std::string aggregate_label(const ClosedChainModel& model, int s) {
  const Impl& impl = closed_chain_impl(model);
  const Mechanism& m = model.mechanism();
  std::string label;
  for (const int l : impl.loops[s]) label += (label.empty() ? "" : ", ") + loop_label(m, l);
  for (const int c : impl.couplings[s]) label += (label.empty() ? "" : ", ") + coupling_label(m, c);
  return label;
}

// The constraints of aggregate s at the kinematics in data.tree (constraint-embedding Eq. 58-59,
// Q = [Y1 Y2] up to the column split; Qdot qd the velocity-product term of Corollary 8.1, Eq. 61,
// formed directly as d/dt (Q qd) at qdd = 0): position error and its Jacobian
// and Q (kPosition, kVelocity: the Newton closure), Q and Qdot qd (kAcceleration, the dynamics;
// needs update_world_motion at this q and qd). Rows: loops in order, then gears.
void aggregate_constraints(const ClosedChainModel& model, ClosedChainData& data, int s,
                           const Eigen::Ref<const Eigen::VectorXd>& q, Level level) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  const Mechanism& m = model.mechanism();
  Eigen::MatrixXd& jacobian = data.work->constraints.position_jacobian[s];
  Eigen::VectorXd& error = data.work->constraints.position_error[s];
  Eigen::MatrixXd& constraint = data.constraint_matrix[s];
  Eigen::VectorXd& product = data.constraint_velocity_product[s];
  // Frame velocities and accelerations enter Qdot qd only.
  const bool with_velocity = level == Level::kAcceleration;
  const bool with_position = !with_velocity;
  const Eigen::VectorXd* acceleration = with_velocity && !tree.has_flexible_links()
                                            ? &data.work->constraints.node_acceleration
                                            : nullptr;
  Eigen::Matrix<double, 6, Eigen::Dynamic>& twist = data.work->constraints.relative_twist[s];
  data.work->constraints.orientation_flip[s] = 0.0;
  data.work->constraints.flipped_loop[s] = -1;
  // The aggregate's hinge columns in world axes, once for all its loops. At kAcceleration
  // update_world_motion's, about its point (the first base link's origin, where the robot is:
  // the rounding does not grow with its distance from the world origin); at the position levels
  // [R_k h_w; R_k h_v + x_k x R_k h_w], about the world origin.
  const bool flexible = tree.has_flexible_links();
  const Eigen::Vector3d reference = with_velocity && !flexible
                                        ? data.tree.tree_origin[tree.parents_first().front()]
                                        : Eigen::Vector3d::Zero();
  ConstraintWorkspace& work = data.work->constraints;
  const std::vector<int>& modal_dofs = impl.modal_dofs[static_cast<std::size_t>(s)];
  if (flexible) work.modal_constraint[static_cast<std::size_t>(s)].setZero();
  if (with_position && !flexible) {
    const std::vector<Eigen::Isometry3d>& poses = link_poses(tree, data.tree);
    for (const int dof : impl.dofs[s]) {
      const int k = impl.dof_node[dof];
      data.work->constraints.world_column.col(dof) =
          kernels::motion_to_outer(poses[k].linear(), poses[k].translation(),
                                   data.tree.hinge[k].col(impl.dof_in_joint[dof]));
    }
  }
  constraint.setZero();  // one contiguous fill instead of strided rows per loop
  if (with_position) jacobian.setZero();
  int row = 0;
  for (const int l : impl.loops[s]) {
    const LoopClosure& loop = m.loops[l];
    const LoopRows& rows = impl.loop_rows[l];
    FrameMotion parent, child;
    if (flexible) {
      parent =
          flexible_frame_motion(tree, data.tree, loop.parent, loop.parent_origin, with_velocity);
      child = flexible_frame_motion(tree, data.tree, loop.child, loop.child_origin, with_velocity);
      flexible_relative_twist(tree, data.tree, impl, s, loop, rows, child, work.end_jacobian_parent,
                              work.end_jacobian_child, twist);
    } else {
      parent = frame_motion(tree, data.tree, acceleration, loop.parent, loop.parent_origin,
                            reference, with_velocity, true);
      child = frame_motion(tree, data.tree, acceleration, loop.child, loop.child_origin, reference,
                           with_velocity, with_position);
      relative_twist_jacobian(impl, s, rows, child, reference, work.world_column, twist);
    }
    const int angular_rows = static_cast<int>(rows.angular.rows());
    const int linear_rows = static_cast<int>(rows.linear.rows());
    // The rows A R_p^T once per loop, as 3 x 3 products of the zero-padded rows (the padding's
    // entries of each product are dropped when written).
    const Eigen::Matrix3d rotation_transpose = parent.rotation.transpose();
    Eigen::Matrix3d angular_rotated, linear_rotated;
    angular_rotated.noalias() = rows.angular_padded * rotation_transpose;
    linear_rotated.noalias() = rows.linear_padded * rotation_transpose;
    auto write = [&](Eigen::MatrixXd& target, int column, const Eigen::Matrix3d& angular_directions,
                     const Eigen::Matrix3d& linear_directions, const auto& twist_column) {
      // A point contact (connect) has no angular rows, a loop of angular rows only no linear
      // ones: only the products a row reads are formed.
      double* out = target.col(column).data() + row;
      if (angular_rows > 0) {
        const Eigen::Vector3d angular = angular_directions * twist_column.template head<3>();
        for (int i = 0; i < 3; ++i)  // at most 3 rows: unrolled, not a memcpy call
          if (i < angular_rows) out[i] = angular[i];
      }
      if (linear_rows > 0) {
        const Eigen::Vector3d linear = linear_directions * twist_column.template tail<3>();
        for (int i = 0; i < 3; ++i)
          if (i < linear_rows) out[angular_rows + i] = linear[i];
      }
    };
    if (with_position) {
      Eigen::Matrix3d angular_jacobian;
      const double flip = loop_position_error(rows, loop, parent, child,
                                              error.segment(row, rows.rows()), angular_jacobian);
      if (flip > data.work->constraints.orientation_flip[s]) {
        data.work->constraints.orientation_flip[s] = flip;
        data.work->constraints.flipped_loop[s] = l;
      }
      const Eigen::Matrix3d angular_error_rows =
          rows.angular_padded * angular_jacobian * rotation_transpose;
      for (const LoopRows::MovingDof& moving : rows.moving)
        write(jacobian, moving.position, angular_error_rows, linear_rotated,
              twist.col(moving.position));
    }
    // Only the columns of the dofs that move one end of the loop are nonzero (Q, the
    // Jacobian were zeroed whole above).
    for (const LoopRows::MovingDof& moving : rows.moving)
      write(constraint, moving.position, angular_rotated, linear_rotated,
            twist.col(moving.position));
    // The modal coordinates' columns, from the same difference of the ends' Jacobians.
    for (std::size_t j = 0; j < modal_dofs.size(); ++j) {
      const Vector6d column =
          work.end_jacobian_child.col(modal_dofs[j]) - work.end_jacobian_parent.col(modal_dofs[j]);
      write(work.modal_constraint[static_cast<std::size_t>(s)], static_cast<int>(j),
            angular_rotated, linear_rotated, column);
    }
    if (with_velocity) {
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
      const Eigen::Vector3d angular = angular_rotated * angular_rate;
      const Eigen::Vector3d linear = linear_rotated * linear_rate;
      product.segment(row, angular_rows) = angular.head(angular_rows);
      product.segment(row + angular_rows, linear_rows) = linear.head(linear_rows);
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
    for (int j = 0; j < count; ++j, ++row) {
      // q_a - sum_i r_i q_i - offset = 0 (a gear has one term, a differential several).
      constraint(row, position_of(offset_a + j)) = 1.0;
      double value = q[offset_a + j] - coupling.offset;
      for (int t = 0; t < coupling.term_count(); ++t) {
        const int offset = tree.joint_dof_offset(coupling.term_joint(t));
        constraint(row, position_of(offset + j)) -= coupling.term_ratio(t);
        value -= coupling.term_ratio(t) * q[offset + j];
      }
      product[row] = 0.0;
      if (!with_position) continue;
      jacobian.row(row) = constraint.row(row);
      error[row] = value;
    }
  }
}

void check_vector(const Eigen::Ref<const Eigen::VectorXd>& v, int size, const char* what) {
  if (v.size() != size)
    throw std::invalid_argument(std::string("closed-chain model: ") + what + " has " +
                                std::to_string(v.size()) + " entries, expected " +
                                std::to_string(size));
}

// Whether the largest |Q X_S| of aggregate s relative to the size of Q, 1 + |Q|_max, exceeds
// `threshold`: zero up to roundoff when the selection's rank is Q's full rank. With as many
// dependent coordinates as rows Y1 is square and invertible, Q X_S = 0 by construction and Q
// cannot have a higher rank: nothing to check. Q X_S's columns are the least-squares residuals
// of X's solve: when their bound (DependentFactorization::residual_bound) is within half the
// threshold (the other half the solve's rounding margin) the product is not formed.
bool embedding_violated(const ClosedChainData& data, int s, double threshold) {
  const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
  const Eigen::MatrixXd& embedding = data.embedding[s];
  if (constraint.size() == 0 || embedding.size() == 0) return false;
  if (data.selection[s].rank == constraint.rows()) return false;
  if (data.work->selection.dependent_factorization[s].residual_bound(
          constraint, data.selection[s].independent) <= 0.5 * threshold)
    return false;
  Eigen::VectorXd& column =
      data.work->constraints.violation[s];  // Q X_S column by column, no temporary
  double largest = 0.0;
  for (Eigen::Index j = 0; j < embedding.cols(); ++j) {
    column.noalias() = constraint * embedding.col(j);
    largest = std::max(largest, column.cwiseAbs().maxCoeff());
  }
  return largest / (1.0 + constraint.cwiseAbs().maxCoeff()) > threshold;
}

// Kinematics, constraints, selections, X and Xdot qd_R (not the embedded model).
void update_constraints(const ClosedChainModel& model, ClosedChainData& data,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& qd, bool with_embedding) {
  const Impl& impl = closed_chain_impl(model);
  const RigidBodyModel& tree = model.tree();
  ClosedChainData::Workspaces& work = *data.work;
  check_vector(q, model.dof_count(), "q");
  check_vector(qd, model.dof_count(), "qd");
  update_world_motion(tree, q, qd, data);
  work.constraints.embedding_rate_full.setZero();
  for (int s = 0; s < model.aggregate_count(); ++s) {
    aggregate_constraints(model, data, s, q, Level::kAcceleration);
    update_selection(model, data, s, q, qd);  // leaves Y1 factorized
    if (!with_embedding) continue;
    embedding_matrices(data.constraint_matrix[s], data.constraint_velocity_product[s],
                       data.selection[s], work.selection.dependent_factorization[s],
                       data.embedding[s], data.embedding_rate[s]);
    // A rank of Q above the sampled nominal rank (the samples missed it) leaves constraints out
    // of Y1: Q X_S != 0. Select again and take the higher rank as nominal.
    if (impl.chosen_independent[static_cast<std::size_t>(s)].empty() &&
        (impl.preferred_kept[static_cast<std::size_t>(s)].empty() ||
         impl.structural_preference[static_cast<std::size_t>(s)]) &&
        embedding_violated(data, s, 1e3 * model.options().rank_tolerance)) {
      CoordinateSelection selection =
          select_coordinates(data.constraint_matrix[s], model.options().rank_tolerance, false);
      if (selection.rank > data.selection[s].rank) {
        data.nominal_rank[s] = std::max(data.nominal_rank[s], selection.rank);
        data.selection[s] = std::move(selection);
        factorize_dependent(data.constraint_matrix[s], data.selection[s],
                            work.selection.dependent_factorization[s]);  // Y1 stays the selection's
        embedding_matrices(data.constraint_matrix[s], data.constraint_velocity_product[s],
                           data.selection[s], work.selection.dependent_factorization[s],
                           data.embedding[s], data.embedding_rate[s]);
      }
    }
    const std::vector<int>& dofs = impl.dofs[s];
    for (std::size_t i = 0; i < dofs.size(); ++i)
      work.constraints.embedding_rate_full[dofs[i]] =
          data.embedding_rate[s][static_cast<Eigen::Index>(i)];
    // A modal coordinate's column of X: its unit entry (a plain dof) and, on the dependent
    // coordinates, -Y1^+ Q_eta, the joints' rates that keep the loops closed as the mode moves
    // (Q_S qd_S + Q_eta etadot = 0).
    const std::vector<int>& modal = impl.modal_dofs[static_cast<std::size_t>(s)];
    if (modal.empty()) continue;
    Eigen::MatrixXd& modal_embedding =
        work.constraints.modal_embedding[static_cast<std::size_t>(s)];
    const Eigen::MatrixXd& modal_constraint =
        work.constraints.modal_constraint[static_cast<std::size_t>(s)];
    const auto dependent = static_cast<Eigen::Index>(data.selection[s].dependent.size());
    modal_embedding.resize(dependent, static_cast<Eigen::Index>(modal.size()));
    work.constraints.dependent_solution.resize(dependent);
    for (Eigen::Index j = 0; j < modal_embedding.cols(); ++j) {
      work.selection.dependent_factorization[s].solve(modal_constraint.col(j),
                                                      work.constraints.dependent_solution);
      modal_embedding.col(j) = -work.constraints.dependent_solution;
    }
    // Where the joints' columns lose a direction a mode moves the loop's ends in (checked at
    // generic configurations by the model), -Y1^+ Q_eta is only a least-squares answer: the loop
    // would open as the mode moves.
    const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
    const std::vector<int>& dependent_columns = data.selection[s].dependent;
    const double bound =
        1e3 * model.options().rank_tolerance * (1.0 + constraint.cwiseAbs().maxCoeff());
    Eigen::VectorXd& residual = work.constraints.violation[s];
    for (Eigen::Index j = 0; j < modal_embedding.cols(); ++j) {
      residual = modal_constraint.col(j);
      for (std::size_t i = 0; i < dependent_columns.size(); ++i)
        residual.noalias() +=
            constraint.col(dependent_columns[i]) * modal_embedding(static_cast<Eigen::Index>(i), j);
      if (residual.size() && residual.cwiseAbs().maxCoeff() > bound)
        throw SingularConfigurationError(
            "singular configuration: " + aggregate_label(model, s) +
                " cannot follow modal coordinate '" +
                tree.dof_names()[static_cast<std::size_t>(modal[static_cast<std::size_t>(j)])] +
                "' here (its joints lose the direction the mode moves the loop's ends in)",
            aggregate_loop(model, s));
    }
  }
  if (!with_embedding) return;
  // The independent dofs: plain dofs and each aggregate's independent columns, increasing.
  work.constraints.independent_previous.swap(data.independent);
  data.independent.clear();
  for (const int d : impl.plain_dofs) data.independent.push_back(d);
  for (int s = 0; s < model.aggregate_count(); ++s)
    for (const int i : data.selection[s].independent) data.independent.push_back(impl.dofs[s][i]);
  std::ranges::sort(data.independent);
  const int independent = static_cast<int>(data.independent.size());
  for (int c = 0; c < independent; ++c) work.constraints.column_of[data.independent[c]] = c;
  // The full X: identity entries for plain dofs, X_S blocks for aggregates. When the independent
  // dofs are those of the last update only the X_S blocks change (O(N)).
  if (data.independent != work.constraints.independent_previous || data.X.cols() != independent ||
      data.X.rows() != model.dof_count()) {
    data.X.setZero(model.dof_count(), independent);
    for (const int d : impl.plain_dofs) data.X(d, work.constraints.column_of[d]) = 1.0;
  }
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[s];
    const CoordinateSelection& selection = data.selection[s];
    for (std::size_t j = 0; j < selection.independent.size(); ++j) {
      const int column = work.constraints.column_of[dofs[selection.independent[j]]];
      for (std::size_t i = 0; i < dofs.size(); ++i)
        data.X(dofs[i], column) =
            data.embedding[s](static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
    }
    const std::vector<int>& modal = impl.modal_dofs[static_cast<std::size_t>(s)];
    for (std::size_t j = 0; j < modal.size(); ++j) {
      const int column = work.constraints.column_of[modal[j]];
      for (std::size_t i = 0; i < selection.dependent.size(); ++i)
        data.X(dofs[selection.dependent[i]], column) =
            work.constraints.modal_embedding[static_cast<std::size_t>(s)](
                static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
    }
  }
}

bool has_flexible_links(const ClosedChainModel& model) {
  return model.tree().has_flexible_links();
}

void require_rigid_links(const ClosedChainModel& model, const char* what) {
  if (has_flexible_links(model))
    throw std::invalid_argument(std::string(what) +
                                ": closed chains with flexible links do not take this yet "
                                "(docs/flexible-bodies.md lists what does)");
}

// independent = X* full (T_R = X* tau), block by block (O(N)).
void apply_embedding_transpose(const ClosedChainModel& model, const ClosedChainData& data,
                               const Eigen::Ref<const Eigen::VectorXd>& full,
                               Eigen::VectorXd& independent) {
  const Impl& impl = closed_chain_impl(model);
  const std::vector<int>& column_of = data.work->constraints.column_of;
  independent.resize(static_cast<Eigen::Index>(data.independent.size()));
  if (has_flexible_links(model)) {  // X's modal columns reach beyond the blocks: dense
    independent.noalias() = data.X.transpose() * full;
    return;
  }
  for (const int d : impl.plain_dofs) independent[column_of[d]] = full[d];
  for_each_embedding_column(model, data, [&](int column, const std::vector<int>& dofs, auto x) {
    double sum = 0.0;
    for (std::size_t i = 0; i < dofs.size(); ++i)
      sum += x(static_cast<Eigen::Index>(i)) * full[dofs[i]];
    independent[column] = sum;
  });
}

// full = X independent + offset (qd = X qd_R; qdd = X qdd_R + Xdot qd_R), block by block (O(N)).
void apply_embedding(const ClosedChainModel& model, const ClosedChainData& data,
                     const Eigen::Ref<const Eigen::VectorXd>& independent,
                     const Eigen::Ref<const Eigen::VectorXd>& offset,
                     Eigen::Ref<Eigen::VectorXd> full) {
  const Impl& impl = closed_chain_impl(model);
  const std::vector<int>& column_of = data.work->constraints.column_of;
  if (has_flexible_links(model)) {  // X's modal columns reach beyond the blocks: dense
    full.noalias() = data.X * independent;
    full += offset;
    return;
  }
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
  if (data.structure && ranks == work.dynamics.structure_rank) return;
  std::vector<int> hinge_dims(model.aggregate_count());
  for (int s = 0; s < model.aggregate_count(); ++s)
    hinge_dims[s] = static_cast<int>(impl.dofs[s].size()) - ranks[s];
  data.structure =
      std::make_unique<AggregatedStructure>(model.tree().structure(), impl.nodes, hinge_dims);
  const AggregatedStructure& structure = *data.structure;
  data.embedded = std::make_unique<SkoModel>(structure.aggregated());
  work.dynamics.aggregation = std::make_unique<AggregationWorkspace>(structure);
  work.dynamics.forward = std::make_unique<ForwardDynamicsWorkspace>(structure.aggregated());
  const int node_size = structure.aggregated()->node.total();
  const int hinge_size = structure.aggregated()->hinge.total();
  work.dynamics.coriolis_aggregated.setZero(node_size);
  work.dynamics.gyroscopic_aggregated.setZero(node_size);
  work.dynamics.velocity_embedded.setZero(hinge_size);
  work.dynamics.force_embedded.setZero(hinge_size);
  data.embedded_to_independent.assign(hinge_size, -1);
  for (int s = 0; s < model.aggregate_count(); ++s)
    work.dynamics.embedding_structure_order[s].setZero(
        static_cast<Eigen::Index>(impl.dofs[s].size()), hinge_dims[s]);
  work.dynamics.structure_rank = ranks;
}

}  // namespace closed_chain_detail

const Eigen::VectorXd& embedding_rate(const ClosedChainModel&, const ClosedChainData& data) {
  return data.work->constraints.embedding_rate_full;
}

Eigen::VectorXd consistent_accelerations(const ClosedChainModel& model, const ClosedChainData& data,
                                         const Eigen::Ref<const Eigen::VectorXd>& qdd) {
  closed_chain_detail::check_vector(qdd, model.dof_count(), "qdd");
  Eigen::VectorXd independent(static_cast<Eigen::Index>(data.independent.size()));
  for (std::size_t a = 0; a < data.independent.size(); ++a)
    independent(static_cast<Eigen::Index>(a)) = qdd(data.independent[a]);
  return data.X * independent + embedding_rate(model, data);
}

}  // namespace skograph

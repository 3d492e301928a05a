// The mass matrix of rigid/rigid_body_model.hpp by composite inertias (part II Algorithms
// 4.1-4.2) specialized to rigid nodes (rigid/rigid_kernels.hpp), and the generic operators path
// the tests compare with (mass_matrix_through_operators).
#include <optional>

#include "articulated_step.hpp"
#include "axis_turn.hpp"
#include "configuration_walk.hpp"
#include "size_checks.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

using kernels::RigidInertia;
using rigid_detail::check_size;
using rigid_detail::ConfigurationWalk;
using rigid_detail::unit_hinge;

namespace {

// R(k) H*(k) column c of node k in its link frame into `column`, with R(k) = (m, h, J):
// M [e_i; 0] = [J e_i; e_i x h] and M [0; e_i] = [h x e_i; m e_i], so a revolute about a
// coordinate axis (sign sigma) and the unit columns of a floating or spherical joint take no
// products.
template <class Column>
void composite_column(const RigidBodyModel& model, const RigidBodyData& data, int k, int c,
                      Column&& column) {
  const RigidInertia& composite = data.composite_inertia[k];
  const Eigen::Vector3d& h = composite.first_moment;
  int axis = model.coordinate_axis(k);
  if (axis == 0 && unit_hinge(model, k)) {
    if (c >= 3) {
      const int i = c - 3, a = (i + 1) % 3, b = (i + 2) % 3;
      column.template tail<3>().setZero();
      column(3 + i) = composite.mass;
      column(i) = 0.0;
      column(a) = h(b);
      column(b) = -h(a);
      return;
    }
    axis = c + 1;
  }
  if (axis == 0) {
    column = composite.times(model.joint_dofs(k) == 1 ? model.hinge_column(k)
                                                      : Vector6d(data.hinge[k].col(c)));
    return;
  }
  const int i = std::abs(axis) - 1, a = (i + 1) % 3, b = (i + 2) % 3;
  const double sign = axis > 0 ? 1.0 : -1.0;
  column.template head<3>() = sign * composite.rotational.col(i);
  column(3 + i) = 0.0;
  column(3 + a) = -sign * h(b);
  column(3 + b) = sign * h(a);
}

// M(k, j) = M(j, k) = H(k) X for the carried columns X of node k's subtree (in k's frame).
void write_hinge_rows(const RigidBodyModel& model, const RigidBodyData& data, int k,
                      Eigen::MatrixXd& mass) {
  const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
  const int first = model.subtree_position(k), count = model.subtree_dof_count(k);
  const int* dof = model.dof_in_preorder().data() + first;
  const auto columns = data.carried_columns.middleCols(first, count);
  if (dofs == 1) {
    const int axis = model.coordinate_axis(k);
    if (axis != 0) {
      const int row = std::abs(axis) - 1;
      const double sign = axis > 0 ? 1.0 : -1.0;
      for (int j = 0; j < count; ++j) {
        const double value = sign * columns(row, j);
        mass(offset, dof[j]) = value;
        mass(dof[j], offset) = value;
      }
      return;
    }
    for (int j = 0; j < count; ++j) {
      const double value = model.hinge_column(k).dot(columns.col(j));
      mass(offset, dof[j]) = value;
      mass(dof[j], offset) = value;
    }
    return;
  }
  const bool unit = unit_hinge(model, k);
  for (int r = 0; r < dofs; ++r)
    for (int j = 0; j < count; ++j) {
      const double value = unit ? columns(r, j) : data.hinge[k].col(r).dot(columns.col(j));
      mass(offset + r, dof[j]) = value;
      mass(dof[j], offset + r) = value;
    }
}

// The carried columns are stored row by row (RigidBodyData::carried_columns is row-major), so
// that two neighbouring columns move at once as the two lanes of an SSE2 register (Eigen's
// Array2d); an odd last column moves as scalars. load_lanes/store_lanes read and write the six
// rows of one or two columns.
template <class Lane>
struct ColumnLanes {
  Lane moment[3], force[3];
};

inline double lane_at(const double* p, double) {
  return *p;
}
inline Eigen::Array2d lane_at(const double* p, const Eigen::Array2d&) {
  return Eigen::Map<const Eigen::Array2d>(p);
}
inline void put_lane(double* p, double value) {
  *p = value;
}
inline void put_lane(double* p, const Eigen::Array2d& value) {
  Eigen::Map<Eigen::Array2d> lanes(p);
  lanes = value;
}

template <class Lane>
ColumnLanes<Lane> load_lanes(double* const rows[6], int j) {
  ColumnLanes<Lane> lanes;
  for (int r = 0; r < 3; ++r) {
    lanes.moment[r] = lane_at(rows[r] + j, Lane());
    lanes.force[r] = lane_at(rows[3 + r] + j, Lane());
  }
  return lanes;
}

template <class Lane>
void store_lanes(const ColumnLanes<Lane>& lanes, double* const rows[6], int j) {
  for (int r = 0; r < 3; ++r) {
    put_lane(rows[r] + j, lanes.moment[r]);
    put_lane(rows[3 + r] + j, lanes.force[r]);
  }
}

// [N; F] <- [R N + l x (R F); R F] (kernels::add_force_to_parent) on lanes.
template <class Lane>
void move_lanes(const Eigen::Matrix3d& R, const Eigen::Vector3d& l, ColumnLanes<Lane>& x) {
  Lane moment[3], force[3];
  for (int i = 0; i < 3; ++i) {
    force[i] = R(i, 0) * x.force[0] + R(i, 1) * x.force[1] + R(i, 2) * x.force[2];
    moment[i] = R(i, 0) * x.moment[0] + R(i, 1) * x.moment[1] + R(i, 2) * x.moment[2];
  }
  x.moment[0] = moment[0] + (l(1) * force[2] - l(2) * force[1]);
  x.moment[1] = moment[1] + (l(2) * force[0] - l(0) * force[2]);
  x.moment[2] = moment[2] + (l(0) * force[1] - l(1) * force[0]);
  for (int i = 0; i < 3; ++i) x.force[i] = force[i];
}

// The same through a turn about axis I (kernels::add_turned_force_to_parent).
template <int I, class Lane>
void turn_lanes(const kernels::AxisTurn<I>& turn, const Eigen::Vector3d& l, ColumnLanes<Lane>& x) {
  constexpr int A = kernels::AxisTurn<I>::A, B = kernels::AxisTurn<I>::B;
  const double c = turn.c, s = turn.s;
  Lane force[3];
  force[I] = x.force[I];
  force[A] = c * x.force[A] - s * x.force[B];
  force[B] = s * x.force[A] + c * x.force[B];
  const Lane moment_a = c * x.moment[A] - s * x.moment[B];
  const Lane moment_b = s * x.moment[A] + c * x.moment[B];
  x.moment[A] = moment_a;
  x.moment[B] = moment_b;
  x.moment[0] += l(1) * force[2] - l(2) * force[1];
  x.moment[1] += l(2) * force[0] - l(0) * force[2];
  x.moment[2] += l(0) * force[1] - l(1) * force[0];
  for (int i = 0; i < 3; ++i) x.force[i] = force[i];
}

// Applies move(lanes) to the carried columns of node k's subtree, two at a time.
template <class Move>
void move_subtree_columns(const RigidBodyModel& model, RigidBodyData& data, int k, Move&& move) {
  const Eigen::Index stride = data.carried_columns.cols();
  double* const base = data.carried_columns.data();
  double* const rows[6] = {base,
                           base + stride,
                           base + 2 * stride,
                           base + 3 * stride,
                           base + 4 * stride,
                           base + 5 * stride};
  const int first = model.subtree_position(k), end = first + model.subtree_dof_count(k);
  int j = first;
  for (; j + 1 < end; j += 2) {
    ColumnLanes<Eigen::Array2d> lanes = load_lanes<Eigen::Array2d>(rows, j);
    move(lanes);
    store_lanes(lanes, rows, j);
  }
  if (j < end) {
    ColumnLanes<double> lanes = load_lanes<double>(rows, j);
    move(lanes);
    store_lanes(lanes, rows, j);
  }
}

// The carried columns of node k's subtree to k's parent frame, and R(k) into the parent's.
template <int I>
void turn_to_parent(const RigidBodyModel& model, RigidBodyData& data, int k, int p) {
  const kernels::AxisTurn<I> turn(data.rotation[k]);
  const Eigen::Vector3d& l = data.translation[k];
  move_subtree_columns(model, data, k, [&](auto& lanes) { turn_lanes(turn, l, lanes); });
  kernels::add_turned_inertia_to_parent(turn, l, data.composite_inertia[k],
                                        data.composite_inertia[p]);
}

// Inlined into its one caller as it was beside the other recursions (GCC kept it out of line here).
[[gnu::always_inline]] inline void move_to_parent(const RigidBodyModel& model, RigidBodyData& data,
                                                  int k, int p) {
  const Eigen::Matrix3d& R = data.rotation[k];
  const Eigen::Vector3d& l = data.translation[k];
  move_subtree_columns(model, data, k, [&](auto& lanes) { move_lanes(R, l, lanes); });
  data.composite_inertia[k].add_to_parent(R, l, data.composite_inertia[p]);
}

}  // namespace

// Part II Algorithms 4.1-4.2 on rigid nodes, in link frames, children first: the composite
// inertia R(k) = M(k) + sum phi(k, j) R(j) phi*(k, j) is complete when node k is reached; its
// columns X = R(k) H*(k) join the columns of k's subtree, already carried to k's frame, and
// M(k, j) = H(k) X(j) for each of them (the off-diagonal blocks H(l) phi(l, k) R(k) H*(k) of
// Algorithm 4.2); then all of them move to the parent's frame (X <- phi(parent, k) X) and R(k)
// joins the parent's. The subtree's columns sit side by side (RigidBodyModel::dof_in_preorder),
// so each node moves them in one loop; a joint that only turns about a coordinate axis moves them
// and R(k) by 2 x 2 turns (rigid/axis_turn.hpp). Entries of dofs on no common path stay zero
// from the first call.
namespace {

// The composite-inertia recursion of mass_matrix after walking q into data.rotation and
// data.translation, or (q null) at the transforms there (a walk of this q already made them). One
// function for both, so that the steps it calls once are inlined as they were.
void composite_mass_matrix(const RigidBodyModel& model, RigidBodyData& data, const double* q) {
  const int n = model.dof_count();
  if (data.mass.rows() != n) data.mass.setZero(n, n);
  const std::vector<int>& order = model.parents_first();
  const std::vector<int>& parents = model.parents();
  std::optional<ConfigurationWalk> walk;
  if (q != nullptr) walk.emplace(model, data, false);
  for (const int k : order) {
    if (q != nullptr) walk->transform(k, q + model.joint_dof_offset(k));
    data.composite_inertia[k] = model.rigid_inertia(k);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = parents[k];
    const int dofs = model.joint_dofs(k);
    if (dofs > 0) {
      for (int c = 0; c < dofs; ++c)
        composite_column(model, data, k, c,
                         data.carried_columns.col(model.subtree_position(k) + c));
      write_hinge_rows(model, data, k, data.mass);
    }
    if (p < 0) continue;
    switch (model.turn_axis(k)) {
      case 0:
        turn_to_parent<0>(model, data, k, p);
        break;
      case 1:
        turn_to_parent<1>(model, data, k, p);
        break;
      case 2:
        turn_to_parent<2>(model, data, k, p);
        break;
      default:
        move_to_parent(model, data, k, p);
    }
  }
}

}  // namespace

const Eigen::MatrixXd& mass_matrix(const RigidBodyModel& model, RigidBodyData& data,
                                   const Eigen::Ref<const Eigen::VectorXd>& q) {
  check_size(q, model.dof_count(), "q");
  if (model.has_flexible_links()) return mass_matrix_through_operators(model, data, q);
  composite_mass_matrix(model, data, q.data());
  return data.mass;
}

const Eigen::MatrixXd& rigid_detail::mass_matrix_at_transforms(const RigidBodyModel& model,
                                                               RigidBodyData& data) {
  composite_mass_matrix(model, data, nullptr);
  return data.mass;
}

const Eigen::MatrixXd& mass_matrix_through_operators(const RigidBodyModel& model,
                                                     RigidBodyData& data,
                                                     const Eigen::Ref<const Eigen::VectorXd>& q) {
  const int n = model.dof_count();
  if (data.mass.rows() != n) data.mass.resize(n, n);
  update_positions(model, q, data);
  synchronize_sko_model(model, data);
  composite_body_inertias(data.sko, composite_workspace(data));
  mass_matrix(data.sko, composite_workspace(data), data.mass);
  return data.mass;
}

}  // namespace skograph

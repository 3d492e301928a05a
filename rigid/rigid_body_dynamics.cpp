// The rigid-body recursions of rigid/rigid_body_model.hpp: kinematics, inverse dynamics (part II
// Algorithm 3.1), the mass matrix by composite inertias (Algorithms 4.1-4.2) and forward dynamics
// by articulated-body inertias (Algorithm 6.1), specialized to rigid nodes (part II section 8,
// "optimize algorithms"; rigid/rigid_kernels.hpp): transforms as (R, l), inertias as (m, h, J),
// 1-dof hinges as one 6-vector, each recursion one walk over the model's plain arrays in the order
// it needs (parents first, or back). The generic operators paths (..._through_operators) stay as
// the reference the tests compare with.
#include <cmath>
#include <optional>
#include <span>
#include <stdexcept>

#include "articulated_step.hpp"
#include "axis_turn.hpp"
#include "kinematics_detail.hpp"
#include "size_checks.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

using kernels::add_articulated_inertia_to_parent;
using kernels::add_force_to_parent;
using kernels::cross_force;
using kernels::cross_motion;
using kernels::motion_to_child;
using kernels::RigidInertia;
using rigid_detail::check_size;

namespace {

[[noreturn]] void throw_singular_hinge(const RigidBodyModel& model, int node) {
  throw SingularMassMatrixError(
      node, articulated::singular_joint_message(model.mechanism().joints[node].name));
}

// The one writer of what the configuration moves: the joint transforms (data.rotation,
// translation, link_pose) and the planar joints' H*. Every walk over a new q starts by making one,
// which invalidates what is derived from them (data.phi and data.sko: rigid_body_transforms and
// synchronize_sko_model rebuild them on demand), so that no path can leave them stale.
class ConfigurationWalk {
 public:
  ConfigurationWalk(const RigidBodyModel& model, RigidBodyData& data, bool poses = true)
      : model_(model), data_(data), poses_(poses) {
    data.phi_valid = false;
    data.sko_synchronized = false;
    data.poses_valid = poses;  // once the walk is through
  }
  // X_parent_child(q) = origin * joint_motion(q) of node k into data.rotation / translation, the
  // link's world pose, and a planar joint's H*(q). A revolute joint about a coordinate axis turns
  // two columns of R0; one whose origin has no rotation (turn_axis) turns two columns of the
  // parent's pose.
  void transform(int k, const double* qk) {
    switch (model_.turn_axis(k)) {
      case 0:
        return turn<0>(k, qk[0]);
      case 1:
        return turn<1>(k, qk[0]);
      case 2:
        return turn<2>(k, qk[0]);
      default:
        break;
    }
    Eigen::Matrix3d& R = data_.rotation[k];
    Eigen::Vector3d& l = data_.translation[k];
    const Eigen::Matrix3d& R0 = model_.origin_rotation(k);
    const int axis = model_.coordinate_axis(k);
    if (axis != 0) {
      const double angle = axis > 0 ? qk[0] : -qk[0];
      const double c = std::cos(angle), s = std::sin(angle);
      const int i = std::abs(axis) - 1, a = (i + 1) % 3, b = (i + 2) % 3;
      R.col(i) = R0.col(i);
      R.col(a) = c * R0.col(a) + s * R0.col(b);
      R.col(b) = c * R0.col(b) - s * R0.col(a);
      l = model_.origin_translation(k);
    } else {
      const JointGeometry& geometry = model_.joint_geometry(k);
      if (geometry.type == JointType::kFixed) {
        R = R0;
        l = model_.origin_translation(k);
      } else {
        const Eigen::Isometry3d motion = joint_motion(geometry, qk);
        // H* depends on q only for planar joints (set once in RigidBodyData otherwise).
        if (geometry.type == JointType::kPlanar)
          data_.hinge[k] = joint_hinge_transpose(geometry, qk);
        R.noalias() = R0 * motion.linear();
        l = model_.origin_translation(k);
        l.noalias() += R0 * motion.translation();
      }
    }
    if (!poses_) return;
    Eigen::Isometry3d& pose = data_.link_pose[k];
    const int p = model_.parents()[k];
    if (p < 0) {
      pose.linear() = R;
      pose.translation() = l;
    } else {
      const Eigen::Isometry3d& parent = data_.link_pose[p];
      pose.linear().noalias() = parent.linear() * R;
      pose.translation().noalias() = parent.linear() * l;
      pose.translation() += parent.translation();
    }
  }

 private:
  // transform() of a joint that only turns about axis I: R = R_I(angle) (rigid/axis_turn.hpp).
  template <int I>
  void turn(int k, double q) {
    constexpr int A = (I + 1) % 3, B = (I + 2) % 3;
    const double angle = model_.coordinate_axis(k) > 0 ? q : -q;
    const double c = std::cos(angle), s = std::sin(angle);
    Eigen::Matrix3d& R = data_.rotation[k];
    R.setZero();
    R(I, I) = 1.0;
    R(A, A) = c;
    R(B, A) = s;
    R(A, B) = -s;
    R(B, B) = c;
    const Eigen::Vector3d& l = data_.translation[k] = model_.origin_translation(k);
    if (!poses_) return;
    Eigen::Isometry3d& pose = data_.link_pose[k];
    const int p = model_.parents()[k];
    if (p < 0) {
      pose.linear() = R;
      pose.translation() = l;
      return;
    }
    const Eigen::Isometry3d& parent = data_.link_pose[p];
    const auto P = parent.linear();
    pose.linear().col(I) = P.col(I);
    pose.linear().col(A) = c * P.col(A) + s * P.col(B);
    pose.linear().col(B) = c * P.col(B) - s * P.col(A);
    pose.translation().noalias() = P * l;
    pose.translation() += parent.translation();
  }

 private:
  const RigidBodyModel& model_;
  RigidBodyData& data_;
  bool poses_;
};

// phi*(p, k) V(p) and f(p) += phi(p, k) f(k) across node k's joint
// (rigid_kernels.hpp), by 2 x 2 turns where the joint only turns about a coordinate axis
// (RigidBodyModel::turn_axis, rigid/axis_turn.hpp).
[[gnu::always_inline]] inline Vector6d to_child(const RigidBodyModel& model,
                                                const RigidBodyData& data, int k,
                                                const Vector6d& parent) {
  const Eigen::Matrix3d& R = data.rotation[k];
  const Eigen::Vector3d& l = data.translation[k];
  switch (model.turn_axis(k)) {
    case 0:
      return kernels::turned_motion_to_child(kernels::AxisTurn<0>(R), l, parent);
    case 1:
      return kernels::turned_motion_to_child(kernels::AxisTurn<1>(R), l, parent);
    case 2:
      return kernels::turned_motion_to_child(kernels::AxisTurn<2>(R), l, parent);
    default:
      return motion_to_child(R, l, parent);
  }
}

[[gnu::always_inline]] inline void force_to_parent(const RigidBodyModel& model,
                                                   const RigidBodyData& data, int k,
                                                   const Vector6d& force, Vector6d& parent) {
  const Eigen::Matrix3d& R = data.rotation[k];
  const Eigen::Vector3d& l = data.translation[k];
  switch (model.turn_axis(k)) {
    case 0:
      return kernels::add_turned_force_to_parent(kernels::AxisTurn<0>(R), l, force, parent);
    case 1:
      return kernels::add_turned_force_to_parent(kernels::AxisTurn<1>(R), l, force, parent);
    case 2:
      return kernels::add_turned_force_to_parent(kernels::AxisTurn<2>(R), l, force, parent);
    default:
      return add_force_to_parent(R, l, force, parent);
  }
}

// H*(k) qd(k), with H*(k) at q already (ConfigurationWalk::hinge).
Vector6d relative_velocity(const RigidBodyModel& model, const RigidBodyData& data, int k,
                           const double* qdk) {
  const int dofs = model.joint_dofs(k);
  if (dofs == 1) return model.hinge_column(k) * qdk[0];
  Vector6d relative = Vector6d::Zero();
  for (int i = 0; i < dofs; ++i) relative.noalias() += data.hinge[k].col(i) * qdk[i];
  return relative;
}

// The world's acceleration -g seen from a base node (conventions.md).
Vector6d base_acceleration_of(const RigidBodyData& data, int k, const Eigen::Vector3d& gravity) {
  Vector6d a;
  a.head<3>().setZero();
  a.tail<3>().noalias() = -(data.rotation[k].transpose() * gravity);  // a base's R is its pose
  return a;
}

// Inverse dynamics with optional external link forces (part II Algorithm 3.1): one walk parents
// first for X, V, a(k), alpha and f = M alpha + V x* M V - f_ext, one back for T = H f and the
// gather f(p) += phi f(k).
const Eigen::VectorXd& newton_euler(const RigidBodyModel& model, RigidBodyData& data,
                                    const Eigen::Ref<const Eigen::VectorXd>& q,
                                    const Eigen::Ref<const Eigen::VectorXd>& qd,
                                    const Eigen::Ref<const Eigen::VectorXd>* qdd,
                                    const Eigen::Vector3d& gravity,
                                    const Eigen::Ref<const Eigen::VectorXd>* link_forces) {
  const std::vector<int>& parents = model.parents();
  ConfigurationWalk walk(model, data, false);
  for (const int k : model.parents_first()) {
    const int offset = model.joint_dof_offset(k), dofs = model.joint_dofs(k);
    const double* qk = q.data() + offset;
    walk.transform(k, qk);
    const int p = parents[k];
    const Vector6d relative = relative_velocity(model, data, k, qd.data() + offset);
    Vector6d velocity = relative, acceleration;
    if (p < 0) {
      acceleration = base_acceleration_of(data, k, gravity);
    } else {
      velocity += to_child(model, data, k, data.velocity.segment<6>(6 * p));
      acceleration = to_child(model, data, k, data.acceleration.segment<6>(6 * p));
    }
    Vector6d coriolis = cross_motion(velocity, relative);
    if (model.joint_geometry(k).type == JointType::kPlanar)
      coriolis += joint_velocity_product(model.joint_geometry(k), qk, qd.data() + offset);
    acceleration += coriolis;
    if (qdd != nullptr) {
      if (dofs == 1) {
        acceleration.noalias() += model.hinge_column(k) * (*qdd)[offset];
      } else {
        for (int i = 0; i < dofs; ++i)
          acceleration.noalias() += data.hinge[k].col(i) * (*qdd)[offset + i];
      }
    }
    data.velocity.segment<6>(6 * k) = velocity;
    data.coriolis.segment<6>(6 * k) = coriolis;
    data.acceleration.segment<6>(6 * k) = acceleration;
    const RigidInertia& inertia = model.rigid_inertia(k);
    Vector6d force = inertia.times(acceleration) + cross_force(velocity, inertia.times(velocity));
    if (link_forces != nullptr) force -= link_forces->segment<6>(6 * model.link_of_node(k));
    data.force.segment<6>(6 * k) = force;
  }
  const std::vector<int>& order = model.parents_first();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = parents[k];
    const int offset = model.joint_dof_offset(k), dofs = model.joint_dofs(k);
    const auto force = data.force.segment<6>(6 * k);
    if (dofs == 1) {
      data.generalized_force[offset] = model.hinge_column(k).dot(force);
    } else if (dofs > 1) {
      data.generalized_force.segment(offset, dofs).noalias() = data.hinge[k].transpose() * force;
    }
    if (p >= 0) {
      Vector6d parent_force = data.force.segment<6>(6 * p);
      force_to_parent(model, data, k, force, parent_force);
      data.force.segment<6>(6 * p) = parent_force;
    }
  }
  return data.generalized_force;
}

}  // namespace

void update_positions(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                      RigidBodyData& data) {
  if (q.size() != model.dof_count()) throw std::invalid_argument("update_positions: q size");
  ConfigurationWalk walk(model, data);
  for (const int k : model.parents_first()) {
    const double* qk = q.data() + model.joint_dof_offset(k);
    walk.transform(k, qk);
  }
  rigid_body_transforms(model, data);
}

const std::vector<Eigen::Isometry3d>& link_poses(const RigidBodyModel& model,
                                                 const RigidBodyData& data) {
  if (data.poses_valid) return data.link_pose;
  for (const int k : model.parents_first()) {
    Eigen::Isometry3d& pose = data.link_pose[k];
    const Eigen::Matrix3d& R = data.rotation[k];
    const Eigen::Vector3d& l = data.translation[k];
    const int p = model.parents()[k];
    if (p < 0) {
      pose.linear() = R;
      pose.translation() = l;
      continue;
    }
    const Eigen::Isometry3d& parent = data.link_pose[p];
    pose.linear().noalias() = parent.linear() * R;
    pose.translation().noalias() = parent.linear() * l;
    pose.translation() += parent.translation();
  }
  data.poses_valid = true;
  return data.link_pose;
}

void rigid_body_transforms(const RigidBodyModel& model, RigidBodyData& data) {
  if (data.phi_valid) return;
  for (int k = 0; k < model.node_count(); ++k)
    if (model.parents()[k] >= 0)
      data.phi[k] = rigid_body_transform(data.rotation[k], data.translation[k]);
  data.phi_valid = true;
}

void synchronize_sko_model(const RigidBodyModel& model, RigidBodyData& data) {
  if (data.sko_synchronized) return;
  rigid_body_transforms(model, data);
  for (int k = 0; k < model.node_count(); ++k) {
    if (model.parents()[k] >= 0) data.sko.weight(k) = data.phi[k];
    if (model.joint_dofs(k) > 0) data.sko.hinge_map(k) = data.hinge[k].transpose();
  }
  data.sko_synchronized = true;
}

void rigid_detail::update_motion(const RigidBodyModel& model,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data) {
  if (q.size() != model.dof_count()) throw std::invalid_argument("update_kinematics: q size");
  if (qd.size() != model.dof_count()) throw std::invalid_argument("update_kinematics: qd size");
  {
    ConfigurationWalk walk(model, data);
    for (const int k : model.parents_first())
      walk.transform(k, q.data() + model.joint_dof_offset(k));
  }
  for (const int k : model.parents_first()) {
    const int offset = model.joint_dof_offset(k);
    const Vector6d relative = relative_velocity(model, data, k, qd.data() + offset);
    Vector6d velocity = relative;
    const int p = model.parents()[k];
    if (p >= 0) velocity += to_child(model, data, k, data.velocity.segment<6>(6 * p));
    Vector6d coriolis = cross_motion(velocity, relative);
    if (model.joint_geometry(k).type == JointType::kPlanar)
      coriolis +=
          joint_velocity_product(model.joint_geometry(k), q.data() + offset, qd.data() + offset);
    data.velocity.segment<6>(6 * k) = velocity;
    data.coriolis.segment<6>(6 * k) = coriolis;
    data.gyroscopic.segment<6>(6 * k) = gyroscopic_force(model.link_inertia(k), velocity);
  }
}

void update_kinematics(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data) {
  rigid_detail::update_motion(model, q, qd, data);
  rigid_body_transforms(model, data);
}

namespace {

// -g in each base node's frame, over forest().bases() (the generic operators' layout).
void fill_base_acceleration(const RigidBodyModel& model, const Eigen::Vector3d& gravity,
                            RigidBodyData& data) {
  const std::span<const int> bases = model.forest().bases();
  for (std::size_t i = 0; i < bases.size(); ++i)
    data.base_acceleration.segment<6>(6 * i) = base_acceleration_of(data, bases[i], gravity);
}

}  // namespace

const Eigen::VectorXd& inverse_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                        const Eigen::Vector3d& gravity) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(qdd, model.dof_count(), "qdd");
  return newton_euler(model, data, q, qd, &qdd, gravity, nullptr);
}

const Eigen::VectorXd& inverse_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                        const Eigen::Vector3d& gravity,
                                        const Eigen::Ref<const Eigen::VectorXd>& link_forces) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(qdd, model.dof_count(), "qdd");
  check_size(link_forces, 6 * model.link_count(), "link_forces");
  return newton_euler(model, data, q, qd, &qdd, gravity, &link_forces);
}

const Eigen::VectorXd& inverse_dynamics_through_operators(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
    const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Ref<const Eigen::VectorXd>& qdd,
    const Eigen::Vector3d& gravity) {
  check_size(qdd, model.dof_count(), "qdd");
  update_kinematics(model, q, qd, data);
  fill_base_acceleration(model, gravity, data);
  synchronize_sko_model(model, data);
  return inverse_dynamics(data.sko, qd, qdd, data.coriolis, data.gyroscopic, data.base_acceleration,
                          inverse_workspace(data));
}

const Eigen::VectorXd& bias_forces(const RigidBodyModel& model, RigidBodyData& data,
                                   const Eigen::Ref<const Eigen::VectorXd>& q,
                                   const Eigen::Ref<const Eigen::VectorXd>& qd,
                                   const Eigen::Vector3d& gravity) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  return newton_euler(model, data, q, qd, nullptr, gravity, nullptr);
}

namespace {

// Floating and spherical joints: H*(k) is the first r columns of the 6 x 6 identity.
bool unit_hinge(const RigidBodyModel& model, int k) {
  const JointType type = model.joint_geometry(k).type;
  return type == JointType::kFloating || type == JointType::kSpherical;
}

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

void move_to_parent(const RigidBodyModel& model, RigidBodyData& data, int k, int p) {
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

void update_sko_dynamics_state(const RigidBodyModel& model,
                               const Eigen::Ref<const Eigen::VectorXd>& q,
                               const Eigen::Ref<const Eigen::VectorXd>& qd,
                               const Eigen::Vector3d& gravity, RigidBodyData& data) {
  update_kinematics(model, q, qd, data);
  synchronize_sko_model(model, data);
  fill_base_acceleration(model, gravity, data);
  // a is propagated by A*, so the world's acceleration -g added to a(base) accelerates the forest.
  data.coriolis_with_gravity = data.coriolis;
  const std::span<const int> bases = model.forest().bases();
  for (std::size_t i = 0; i < bases.size(); ++i)
    data.coriolis_with_gravity.segment<6>(6 * bases[i]) += data.base_acceleration.segment<6>(6 * i);
}

const Eigen::VectorXd& forward_dynamics_through_operators(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
    const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Ref<const Eigen::VectorXd>& tau,
    const Eigen::Vector3d& gravity) {
  check_size(tau, model.dof_count(), "tau");
  update_sko_dynamics_state(model, q, qd, gravity, data);
  return forward_dynamics(data.sko, qd, tau, data.coriolis_with_gravity, data.gyroscopic,
                          forward_workspace(data));
}

namespace {

// Parents first: the link poses and, in world axes about each tree's base link origin
// (data.tree_origin) or, OnePoint, about the first base link's origin for every tree: H*(k),
// V(k) = V(p) + H* qd and a(k) = V x H* qd (with a planar joint's velocity product); WithInertia,
// also P(k) = M(k) and z(k) = V x* M V (data.articulated_inertia, data.residual_force). The first
// pass of forward_dynamics below, and the closed chains' motion (rigid_detail::world_motion).
template <bool OnePoint, bool WithInertia>
[[gnu::always_inline]] inline void world_motion_pass(const RigidBodyModel& model,
                                                     const Eigen::Ref<const Eigen::VectorXd>& q,
                                                     const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                     RigidBodyData& data) {
  const std::vector<int>& order = model.parents_first();
  const std::vector<int>& parents = model.parents();
  ConfigurationWalk walk(model, data);
  for (const int k : order) {
    const int offset = model.joint_dof_offset(k), dofs = model.joint_dofs(k);
    const double* qk = q.data() + offset;
    const double* qdk = qd.data() + offset;
    walk.transform(k, qk);
    const Eigen::Isometry3d& pose = data.link_pose[k];
    const int p = parents[k];
    const Eigen::Vector3d& origin = data.tree_origin[k] =
        p >= 0 ? data.tree_origin[p]
               : (OnePoint && k != order.front() ? data.tree_origin[order.front()]
                                                 : Eigen::Vector3d(pose.translation()));
    const Eigen::Matrix3d R = pose.linear();
    const Eigen::Vector3d l = pose.translation() - origin;
    HingeMatrix& hinge = data.world_hinge[k];
    Vector6d relative;
    if (const int axis = model.coordinate_axis(k); axis != 0) {
      const Eigen::Vector3d w =
          axis > 0 ? Eigen::Vector3d(R.col(axis - 1)) : Eigen::Vector3d(-R.col(-axis - 1));
      hinge.col(0) << w, l.cross(w);
      relative = hinge.col(0) * qdk[0];
    } else if (dofs == 1) {
      hinge.col(0) = kernels::motion_to_outer(R, l, model.hinge_column(k));
      relative = hinge.col(0) * qdk[0];
    } else {
      relative.setZero();
      for (int d = 0; d < dofs; ++d) {
        hinge.col(d) = kernels::motion_to_outer(R, l, data.hinge[k].col(d));
        relative.noalias() += hinge.col(d) * qdk[d];
      }
    }
    const Vector6d velocity = p >= 0 ? Vector6d(data.world_velocity[p] + relative) : relative;
    Vector6d coriolis = cross_motion(velocity, relative);
    if (model.joint_geometry(k).type == JointType::kPlanar)
      coriolis +=
          kernels::motion_to_outer(R, l, joint_velocity_product(model.joint_geometry(k), qk, qdk));
    data.world_velocity[k] = velocity;
    data.world_coriolis[k] = coriolis;
    if constexpr (WithInertia) {
      const RigidInertia inertia = model.rigid_inertia(k).moved(R, l);
      data.articulated_inertia[k] = inertia.matrix();
      data.residual_force[k] = cross_force(velocity, inertia.times(velocity));
    }
  }
}

}  // namespace

void rigid_detail::world_motion(const RigidBodyModel& model,
                                const Eigen::Ref<const Eigen::VectorXd>& q,
                                const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  world_motion_pass<true, false>(model, q, qd, data);
}

// Part II Algorithm 6.1 on rigid nodes, in world axes about the origin of each tree's base link
// (as the closed-chain recursion does about one point, closed_chain_dynamics.cpp): there
// spatial vectors and inertias add without transforms, so a node's P+ and z+ join its parent's as
// they are, and its acceleration is alpha(parent) + a + H* qdd. Parents first: link poses, H*(k),
// V(k) = V(p) + H* qd, a(k) = V x H* qd, P(k) = M(k) and z(k) = V x* M V; children first, the
// gather (Eq. 33, 58a-d): D = H P H*, epsilon = T - H z, nu = D^-1 epsilon, P+ = P - P H* D^-1 H P,
// z+ = z + P+ a + P H* nu, P(p) += P+, z(p) += z+; parents first, the scatter (Eq. 58e-g):
// alpha+ = alpha(p) (the world's -g at a base) + a, qdd = nu - D^-1 (P H*)* alpha+,
// alpha = alpha+ + H* qdd. A floating base's D = P is factored in its own axes (factor_base).
// Massless subtrees keep qdd = 0.
const Eigen::VectorXd& forward_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(tau, model.dof_count(), "tau");
  world_motion_pass<false, true>(model, q, qd, data);
  const std::vector<int>& order = model.parents_first();
  const std::vector<int>& parents = model.parents();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = parents[k];
    Matrix6d& inertia = data.articulated_inertia[k];
    Vector6d& force = data.residual_force[k];
    const Vector6d& coriolis = data.world_coriolis[k];
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    HingeMatrix& projected = data.projected_inertia[k];
    HingeSquare& inverse = data.innovations_inverse[k];
    JointVector& nu = data.innovation[k];
    data.base_factored[k] = 0;
    if (dofs > 0 && model.carries_no_mass(k)) {
      // A massless subtree: P = 0 and z = 0, D = 0. Its motion exerts no force on the parent, and
      // the dynamics leave its acceleration free: prescribed zero (zero gain and innovation).
      projected.setZero();
      inverse.setZero();
      nu.setZero();
      continue;
    }
    if (p < 0 && dofs == 6 && unit_hinge(model, k)) {
      // D = H P H* = P in the base's own axes, whose origin is the tree's: the world axes seen
      // from them have orientation R^T.
      const Eigen::Matrix3d Rt = data.link_pose[k].linear().transpose();
      Matrix6d local = Matrix6d::Zero();
      Vector6d local_force = Vector6d::Zero();
      add_articulated_inertia_to_parent(Rt, Eigen::Vector3d::Zero(), inertia, local);
      add_force_to_parent(Rt, Eigen::Vector3d::Zero(), force, local_force);
      if (articulated::factor_base(local, local_force, tau.data() + offset, inverse, nu)) {
        data.base_factored[k] = 1;
        inertia = local;
        projected.resize(6, 0);  // no P H* is kept for it (D's factor and epsilon are)
        continue;
      }
    }
    if (dofs > 0) {
      if (!articulated::gather_hinge(inertia, force, data.world_hinge[k], dofs, tau.data() + offset,
                                     coriolis, p >= 0, projected, inverse, nu))
        throw_singular_hinge(model, k);
    } else if (p >= 0) {
      force.noalias() += inertia * coriolis;
    }
    if (p < 0) continue;
    data.articulated_inertia[p] += inertia;
    data.residual_force[p] += force;
  }
  Vector6d world_acceleration = Vector6d::Zero();
  world_acceleration.tail<3>() = -gravity;
  for (const int k : order) {
    const int p = parents[k];
    Vector6d alpha =
        (p < 0 ? world_acceleration : data.world_acceleration[p]) + data.world_coriolis[k];
    const int dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    double* qdd = data.generalized_acceleration.data() + offset;
    if (data.base_factored[k]) {
      const Vector6d local =
          motion_to_child(data.link_pose[k].linear(), Eigen::Vector3d::Zero(), alpha);
      articulated::solve_base(data.articulated_inertia[k], data.innovations_inverse[k],
                              data.innovation[k], local, qdd);
      alpha.noalias() += data.world_hinge[k] * Eigen::Map<const Vector6d>(qdd);
    } else if (dofs > 0) {
      articulated::scatter_hinge(data.projected_inertia[k], data.innovations_inverse[k],
                                 data.innovation[k], data.world_hinge[k], dofs, qdd, alpha);
    }
    data.world_acceleration[k] = alpha;
  }
  return data.generalized_acceleration;
}

}  // namespace skograph

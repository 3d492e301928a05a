#include "skograph/rigid/kinematics.hpp"

#include <stdexcept>
#include <string>

#include "skograph/rigid/flexible_kinematics.hpp"

#include "skograph/rigid/rigid_kernels.hpp"

namespace skograph {

namespace {

using kernels::motion_to_child;

// Column i of H*(k) at the configuration of the last update (body frame of link k).
Vector6d hinge_column(const RigidBodyModel& model, const RigidBodyData& data, int k, int i) {
  return model.joint_dofs(k) == 1 ? model.hinge_column(k) : Vector6d(data.hinge[k].col(i));
}

// A motion vector [w; v] in a link's coordinates about a point r of the link, expressed in the
// world's axes (kWorld) or in the frame's (kLocal, rotation R_link_frame of the frame in the link).
Vector6d in_axes(const Eigen::Matrix3d& link_rotation, const Eigen::Matrix3d& frame_rotation,
                 const Vector6d& link_vector, FrameAxes axes) {
  Vector6d out;
  if (axes == FrameAxes::kWorld) {
    out.head<3>().noalias() = link_rotation * link_vector.head<3>();
    out.tail<3>().noalias() = link_rotation * link_vector.tail<3>();
  } else {
    out.head<3>().noalias() = frame_rotation.transpose() * link_vector.head<3>();
    out.tail<3>().noalias() = frame_rotation.transpose() * link_vector.tail<3>();
  }
  return out;
}

// The classical acceleration of the point r of a link (link coordinates) from the link's
// velocity V = [w; v] and the body-frame derivative alpha = [w'; v'] of its coordinates: the
// origin accelerates by v' + w x v, the point by that + w' x r + w x (w x r).
Vector6d classical_acceleration(const Vector6d& velocity, const Vector6d& alpha,
                                const Eigen::Vector3d& r) {
  const Eigen::Vector3d w = velocity.head<3>(), v = velocity.tail<3>();
  const Eigen::Vector3d w_dot = alpha.head<3>();
  Vector6d a;
  a.head<3>() = w_dot;
  a.tail<3>() = alpha.tail<3>() + w.cross(v) + w_dot.cross(r) + w.cross(w.cross(r));
  return a;
}

void check_jacobian(const RigidBodyModel& model, const Eigen::Ref<Eigen::MatrixXd>& jacobian,
                    int rows, const char* what) {
  if (jacobian.rows() != rows || jacobian.cols() != model.dof_count())
    throw std::invalid_argument(std::string(what) + ": the Jacobian must be " +
                                std::to_string(rows) + " x dofs");
}

// A flexible link's modes move its first moment, and the centre's functions below have no q to
// read them from.
void require_rigid_links(const RigidBodyModel& model) {
  if (model.has_flexible_links())
    throw std::invalid_argument(
        "center of mass: a model with flexible links needs q (rigid/flexible_kinematics.hpp)");
}

int node_of(const RigidBodyModel& model, int link) {
  if (link < -1 || link >= model.link_count())
    throw std::invalid_argument("center of mass: link index out of range");
  return link < 0 ? -1 : model.node_of_link(link);
}

// data.subtree_moment: per node (m, m c) of its subtree, c in world coordinates (positions of
// the last update_positions), each flexible link's first moment moved by coupling_t eta when q is
// given. One walk children first. O(N).
void update_subtree_moments(const RigidBodyModel& model, RigidBodyData& data,
                            const Eigen::Ref<const Eigen::VectorXd>* q = nullptr) {
  const std::vector<int>& order = model.parents_first();
  for (const int k : order) {
    const kernels::RigidInertia& inertia = model.rigid_inertia(k);
    const Eigen::Isometry3d& pose = link_poses(model, data)[k];
    Eigen::Vector3d first_moment = inertia.first_moment;
    if (const int modes = model.modes(k); q != nullptr && modes > 0)
      first_moment.noalias() +=
          model.modal_body(k)->coupling.bottomRows<3>() * q->segment(model.modal_offset(k), modes);
    Eigen::Vector4d& moment = data.subtree_moment[k];
    moment(0) = inertia.mass;
    moment.tail<3>().noalias() = pose.linear() * first_moment;
    moment.tail<3>() += inertia.mass * pose.translation();
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (const int p = model.parents()[*it]; p >= 0)
      data.subtree_moment[p] += data.subtree_moment[*it];
}

// (m, m c) of the whole model (static bodies fused into the world included) or of the subtree of
// `node` (-1: the whole model).
Eigen::Vector4d moment_of(const RigidBodyModel& model, const RigidBodyData& data, int node) {
  if (node >= 0) return data.subtree_moment[node];
  Eigen::Vector4d total;
  total << model.mechanism().static_mass, model.mechanism().static_first_moment;
  for (int k = 0; k < model.node_count(); ++k)
    if (model.parents()[k] < 0) total += data.subtree_moment[k];
  return total;
}

void check_configuration(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q) {
  if (q.size() != model.dof_count())
    throw std::invalid_argument("center of mass: q must have " + std::to_string(model.dof_count()) +
                                " entries");
}

// The centre of mass at the last update_positions, the flexible links' modes read from q (none
// when q is null).
Eigen::Vector3d center_of_mass_at(const RigidBodyModel& model, RigidBodyData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>* q, int link) {
  const int top = node_of(model, link);
  update_subtree_moments(model, data, q);
  const Eigen::Vector4d moment = moment_of(model, data, top);
  if (!(moment(0) > 0.0)) return Eigen::Vector3d::Zero();
  return moment.tail<3>() / moment(0);
}

// The rate of m c of the part of the tree that moves rigidly with a link frame at `pose`, whose
// moment is `moment`, when that frame moves with the twist `twist` (link axes, about its origin):
// m v + w x (m c - m p) in world coordinates.
Eigen::Vector3d moment_rate(const Eigen::Isometry3d& pose, const Eigen::Vector4d& moment,
                            const Vector6d& twist) {
  const Eigen::Vector3d w = pose.linear() * twist.head<3>();
  const Eigen::Vector3d arm = moment.tail<3>() - moment(0) * pose.translation();
  return moment(0) * (pose.linear() * twist.tail<3>()) + w.cross(arm);
}

// The centre of mass's Jacobian: a joint's column moves the mass below it rigidly; a mode's
// column moves its own link's first moment by R coupling_t's column and each child subtree with
// the twist of the child's frame per unit modal rate (the weight's X(C<-N) B_N column,
// rigid/flexible_nodes.cpp). Modes only when q is given. O(N * depth).
void fill_center_of_mass_jacobian(const RigidBodyModel& model, RigidBodyData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>* q,
                                  Eigen::Ref<Eigen::MatrixXd> jacobian, int link) {
  const int top = node_of(model, link);
  jacobian.setZero();
  update_subtree_moments(model, data, q);
  const double mass = moment_of(model, data, top)(0);
  if (!(mass > 0.0)) return;
  const Forest& forest = model.forest();
  const std::vector<Eigen::Isometry3d>& poses = link_poses(model, data);
  // The part of the subtree of interest that moves with node k's frame: all of k's subtree when
  // it lies inside, top's when k is above top, nothing otherwise.
  auto moved_by = [&](int k) {
    if (top < 0 || forest.is_ancestor_or_self(top, k)) return k;
    if (forest.is_ancestor_or_self(k, top)) return top;
    return -1;
  };
  for (int k = 0; k < model.node_count(); ++k) {
    const int moved = moved_by(k);
    if (moved < 0) continue;
    const Eigen::Vector4d& moment = data.subtree_moment[moved];
    const int offset = model.joint_dof_offset(k);
    for (int i = 0; i < model.joint_dofs(k); ++i)
      jacobian.col(offset + i) = moment_rate(poses[k], moment, hinge_column(model, data, k, i));
    const int modes = model.modes(k);
    if (q == nullptr || modes == 0) continue;
    const int first = model.modal_offset(k);
    if (moved == k)  // the link's own first moment
      jacobian.middleCols(first, modes).noalias() =
          poses[k].linear() * model.modal_body(k)->coupling.bottomRows<3>();
    for (const int child : forest.children(k)) {
      const int carried = moved_by(child);
      if (carried < 0 || model.attachment(child).cols() == 0) continue;
      // Row 6 + j of the child's weight phi(k, child) is X(C<-N) B_N's column j.
      const auto weight = data.sko.weight(child);
      for (int j = 0; j < modes; ++j)
        jacobian.col(first + j) += moment_rate(poses[child], data.subtree_moment[carried],
                                               Vector6d(weight.row(6 + j).head<6>().transpose()));
    }
  }
  jacobian /= mass;
}

}  // namespace

Vector6d frame_velocity(const RigidBodyModel& model, const RigidBodyData& data,
                        const FrameRef& frame, FrameAxes axes) {
  if (frame.link < 0) return Vector6d::Zero();
  const int k = model.node_of_link(frame.link);
  const Vector6d velocity = data.velocity.segment<6>(model.structure()->node.offset(k));
  Vector6d at_frame;
  at_frame.head<3>() = velocity.head<3>();
  at_frame.tail<3>() = velocity.tail<3>() + velocity.head<3>().cross(frame.pose.translation());
  return in_axes(link_poses(model, data)[k].linear(), frame.pose.linear(), at_frame, axes);
}

// Part I section 7: the forward sweep of the accelerations, alpha(k) = phi* alpha(p) + H* qdd + a.
void update_accelerations(const RigidBodyModel& model, RigidBodyData& data,
                          const Eigen::Ref<const Eigen::VectorXd>& qdd) {
  if (qdd.size() != model.dof_count())
    throw std::invalid_argument("update_accelerations: qdd size");
  if (model.has_flexible_links()) {
    // Nodes of 6 + modes: the same sweep with the weights and hinge maps of data.sko, which the
    // flexible walk wrote (rigid/flexible_nodes.cpp); a mode's acceleration is its etaddot.
    const SkoStructure& structure = *model.structure();
    for (const int k : model.parents_first()) {
      auto alpha = data.acceleration.segment(structure.node.offset(k), structure.node.dim(k));
      alpha = data.coriolis.segment(structure.node.offset(k), structure.node.dim(k));
      if (const int p = model.parents()[k]; p >= 0)
        alpha.noalias() +=
            data.sko.weight(k).transpose() *
            data.acceleration.segment(structure.node.offset(p), structure.node.dim(p));
      alpha.noalias() += data.sko.hinge_map(k).transpose() *
                         qdd.segment(structure.hinge.offset(k), structure.hinge.dim(k));
    }
    return;
  }
  for (const int k : model.parents_first()) {
    Vector6d alpha = data.coriolis.segment<6>(6 * k);
    if (const int p = model.parents()[k]; p >= 0)
      alpha += motion_to_child(data.rotation[k], data.translation[k],
                               data.acceleration.segment<6>(6 * p));
    const int offset = model.joint_dof_offset(k);
    for (int i = 0; i < model.joint_dofs(k); ++i)
      alpha.noalias() += hinge_column(model, data, k, i) * qdd[offset + i];
    data.acceleration.segment<6>(6 * k) = alpha;
  }
}

Vector6d frame_acceleration(const RigidBodyModel& model, const RigidBodyData& data,
                            const FrameRef& frame, FrameAxes axes) {
  if (frame.link < 0) return Vector6d::Zero();
  const int k = model.node_of_link(frame.link);
  const int node = model.structure()->node.offset(k);
  const Vector6d a = classical_acceleration(
      data.velocity.segment<6>(node), data.acceleration.segment<6>(node), frame.pose.translation());
  return in_axes(link_poses(model, data)[k].linear(), frame.pose.linear(), a, axes);
}

// J = sum over the ancestors j of the frame's link of phi*(frame, j) H*(j): each column of
// H*(j), [w; v] about O_j in link j's axes, turned to world axes and carried to the frame's
// origin p (v + w x (p - o_j)). On a flexible parent P of j, each mode moves j's frame by the
// twist X(C<-N) B_N's column (row 6 + i of the weight phi(P, j), rigid/flexible_nodes.cpp),
// carried the same way; the frame's own link's modes do not move its floating frame.
void frame_jacobian(const RigidBodyModel& model, const RigidBodyData& data, const FrameRef& frame,
                    FrameAxes axes, Eigen::Ref<Eigen::MatrixXd> jacobian) {
  check_jacobian(model, jacobian, 6, "frame_jacobian");
  jacobian.setZero();
  if (frame.link < 0) return;
  const int node = model.node_of_link(frame.link);
  const Eigen::Isometry3d& link = link_poses(model, data)[node];
  const Eigen::Vector3d origin = link * frame.pose.translation();
  const Eigen::Matrix3d to_frame = (link.linear() * frame.pose.linear()).transpose();
  auto set_column = [&](int column, const Eigen::Isometry3d& pose, const Vector6d& h) {
    const Eigen::Vector3d w = pose.linear() * h.head<3>();
    const Eigen::Vector3d v = pose.linear() * h.tail<3>() + w.cross(origin - pose.translation());
    if (axes == FrameAxes::kWorld) {
      jacobian.col(column).head<3>() = w;
      jacobian.col(column).tail<3>() = v;
    } else {
      jacobian.col(column).head<3>().noalias() = to_frame * w;
      jacobian.col(column).tail<3>().noalias() = to_frame * v;
    }
  };
  for (int j = node; j >= 0; j = model.parents()[j]) {
    const Eigen::Isometry3d& pose = link_poses(model, data)[j];
    const int offset = model.joint_dof_offset(j);
    for (int i = 0; i < model.joint_dofs(j); ++i)
      set_column(offset + i, pose, hinge_column(model, data, j, i));
    const int parent = model.parents()[j];
    if (parent < 0 || model.attachment(j).cols() == 0) continue;
    const auto weight = data.sko.weight(j);
    for (int i = 0; i < model.modes(parent); ++i)
      set_column(model.modal_offset(parent) + i, pose,
                 Vector6d(weight.row(6 + i).head<6>().transpose()));
  }
}

// alpha(k) at qdd = 0 is sum over the ancestors j of phi*(k, j) a(j) (the sweep of
// update_accelerations unrolled): summed in world axes about the link's origin, then turned into
// the classical acceleration of the frame's origin.
Vector6d frame_jacobian_bias(const RigidBodyModel& model, const RigidBodyData& data,
                             const FrameRef& frame, FrameAxes axes) {
  if (frame.link < 0) return Vector6d::Zero();
  const int node = model.node_of_link(frame.link);
  const Eigen::Isometry3d& link = link_poses(model, data)[node];
  Eigen::Vector3d angular = Eigen::Vector3d::Zero(), linear = Eigen::Vector3d::Zero();
  for (int j = node; j >= 0; j = model.parents()[j]) {
    const Eigen::Matrix3d& R = link_poses(model, data)[j].linear();
    const Vector6d a = data.coriolis.segment<6>(model.structure()->node.offset(j));
    const Eigen::Vector3d w = R * a.head<3>();
    angular += w;
    linear.noalias() += R * a.tail<3>();
    linear += w.cross(link.translation() - link_poses(model, data)[j].translation());
  }
  Vector6d alpha;
  alpha.head<3>().noalias() = link.linear().transpose() * angular;
  alpha.tail<3>().noalias() = link.linear().transpose() * linear;
  const Vector6d velocity = data.velocity.segment<6>(model.structure()->node.offset(node));
  const Vector6d a = classical_acceleration(velocity, alpha, frame.pose.translation());
  Vector6d bias = in_axes(link.linear(), frame.pose.linear(), a, axes);
  if (axes == FrameAxes::kLocal) {
    // d/dt (R_f* x) = R_f* x' - w_f x (R_f* x): the frame's axes turn with it.
    const Vector6d moving = frame_velocity(model, data, frame, FrameAxes::kLocal);
    bias.tail<3>() -= moving.head<3>().cross(moving.tail<3>());
  }
  return bias;
}

double subtree_mass(const RigidBodyModel& model, int link) {
  const int top = node_of(model, link);
  double mass = top < 0 ? model.mechanism().static_mass : 0.0;
  for (int k = 0; k < model.node_count(); ++k)
    if (top < 0 || model.forest().is_ancestor_or_self(top, k)) mass += model.rigid_inertia(k).mass;
  return mass;
}

Eigen::Vector3d center_of_mass(const RigidBodyModel& model, RigidBodyData& data, int link) {
  require_rigid_links(model);
  return center_of_mass_at(model, data, nullptr, link);
}

Eigen::Vector3d flexible_center_of_mass(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q, int link) {
  check_configuration(model, q);
  return center_of_mass_at(model, data, &q, link);
}

// c' = sum m_k c_k' / m with m_k c_k' = R_k (m_k v_k + w_k x h_k) (h_k = m_k c_k in the link).
Eigen::Vector3d center_of_mass_velocity(const RigidBodyModel& model, const RigidBodyData& data,
                                        int link) {
  require_rigid_links(model);
  const int top = node_of(model, link);
  double mass = top < 0 ? model.mechanism().static_mass : 0.0;  // at rest
  Eigen::Vector3d momentum = Eigen::Vector3d::Zero();
  for (int k = 0; k < model.node_count(); ++k) {
    if (top >= 0 && !model.forest().is_ancestor_or_self(top, k)) continue;
    const kernels::RigidInertia& inertia = model.rigid_inertia(k);
    const Vector6d velocity = data.velocity.segment<6>(6 * k);
    mass += inertia.mass;
    momentum.noalias() +=
        link_poses(model, data)[k].linear() *
        (inertia.mass * velocity.tail<3>() + velocity.head<3>().cross(inertia.first_moment));
  }
  return mass > 0.0 ? Eigen::Vector3d(momentum / mass) : Eigen::Vector3d::Zero();
}

void center_of_mass_jacobian(const RigidBodyModel& model, RigidBodyData& data,
                             Eigen::Ref<Eigen::MatrixXd> jacobian, int link) {
  check_jacobian(model, jacobian, 3, "center_of_mass_jacobian");
  require_rigid_links(model);
  fill_center_of_mass_jacobian(model, data, nullptr, jacobian, link);
}

void flexible_center_of_mass_jacobian(const RigidBodyModel& model, RigidBodyData& data,
                                      const Eigen::Ref<const Eigen::VectorXd>& q,
                                      Eigen::Ref<Eigen::MatrixXd> jacobian, int link) {
  check_configuration(model, q);
  check_jacobian(model, jacobian, 3, "flexible_center_of_mass_jacobian");
  fill_center_of_mass_jacobian(model, data, &q, jacobian, link);
}

}  // namespace skograph

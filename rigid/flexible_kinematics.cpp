#include "skograph/rigid/flexible_kinematics.hpp"

#include <stdexcept>
#include <string>

namespace skograph {

namespace {

int subtree_node(const RigidBodyModel& model, int link) {
  if (link < -1 || link >= model.link_count())
    throw std::invalid_argument("center of mass: link index out of range");
  return link < 0 ? -1 : model.node_of_link(link);
}

// data.subtree_moment: per node (m, m c) of its subtree at q, c in world coordinates, with each
// flexible link's first moment moved by coupling_t eta. One walk children first. O(N).
void update_deformed_subtree_moments(const RigidBodyModel& model, RigidBodyData& data,
                                     const Eigen::Ref<const Eigen::VectorXd>& q) {
  const std::vector<int>& order = model.parents_first();
  const std::vector<Eigen::Isometry3d>& poses = link_poses(model, data);
  for (const int k : order) {
    const kernels::RigidInertia& inertia = model.rigid_inertia(k);
    Eigen::Vector3d first_moment = inertia.first_moment;
    if (const int modes = model.modes(k); modes > 0)
      first_moment.noalias() +=
          model.modal_body(k)->coupling.bottomRows<3>() * q.segment(model.modal_offset(k), modes);
    Eigen::Vector4d& moment = data.subtree_moment[k];
    moment(0) = inertia.mass;
    moment.tail<3>().noalias() = poses[k].linear() * first_moment;
    moment.tail<3>() += inertia.mass * poses[k].translation();
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (const int p = model.parents()[*it]; p >= 0)
      data.subtree_moment[p] += data.subtree_moment[*it];
}

Eigen::Vector4d total_moment(const RigidBodyModel& model, const RigidBodyData& data, int node) {
  if (node >= 0) return data.subtree_moment[node];
  Eigen::Vector4d total;
  total << model.mechanism().static_mass, model.mechanism().static_first_moment;
  for (int k = 0; k < model.node_count(); ++k)
    if (model.parents()[k] < 0) total += data.subtree_moment[k];
  return total;
}

// The rate of m c of the part of the tree that moves rigidly with node k's link frame, whose
// moment is `moment`, when that frame moves with the twist `twist` (link axes, about its origin):
// m v + w x (m c - m p) in world coordinates.
Eigen::Vector3d moment_rate(const Eigen::Isometry3d& pose, const Eigen::Vector4d& moment,
                            const Vector6d& twist) {
  const Eigen::Vector3d w = pose.linear() * twist.head<3>();
  const Eigen::Vector3d arm = moment.tail<3>() - moment(0) * pose.translation();
  return moment(0) * (pose.linear() * twist.tail<3>()) + w.cross(arm);
}

void check_configuration(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q) {
  if (q.size() != model.dof_count())
    throw std::invalid_argument("center of mass: q must have " + std::to_string(model.dof_count()) +
                                " entries");
}

}  // namespace

Eigen::Vector3d flexible_center_of_mass(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q, int link) {
  check_configuration(model, q);
  const int top = subtree_node(model, link);
  update_deformed_subtree_moments(model, data, q);
  const Eigen::Vector4d moment = total_moment(model, data, top);
  if (!(moment(0) > 0.0)) return Eigen::Vector3d::Zero();
  return moment.tail<3>() / moment(0);
}

void flexible_center_of_mass_jacobian(const RigidBodyModel& model, RigidBodyData& data,
                                      const Eigen::Ref<const Eigen::VectorXd>& q,
                                      Eigen::Ref<Eigen::MatrixXd> jacobian, int link) {
  check_configuration(model, q);
  if (jacobian.rows() != 3 || jacobian.cols() != model.dof_count())
    throw std::invalid_argument("flexible_center_of_mass_jacobian: the Jacobian must be 3 x dofs");
  const int top = subtree_node(model, link);
  jacobian.setZero();
  update_deformed_subtree_moments(model, data, q);
  const double mass = total_moment(model, data, top)(0);
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
      jacobian.col(offset + i) = moment_rate(poses[k], moment, Vector6d(data.hinge[k].col(i)));
    const int modes = model.modes(k);
    if (modes == 0) continue;
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

}  // namespace skograph

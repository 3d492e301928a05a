// The SKO model of a tree with flexible links (part I section 8; docs/flexible-bodies.md, "The
// equations of motion"): the weights, hinge maps, velocities, a(k) and b(k) of nodes of size
// 6 + modes, written into data.sko and the node-layout vectors the generic operators read.
//
// Node k's velocity is nu(k) = [V(k); etadot(k)] (V the link frame's spatial velocity in link
// axes). Joint k hangs from a node N of its parent link P whose frame moves with P's modes:
// R_N = exp([Pi_r eta_P]) R_0 and p_N = p_0 + Pi_t eta_P in P's axes, so N's twist relative to P,
// in N's axes, is B_N etadot_P with B_N = [R_N* J_l(Pi_r eta_P) Pi_r; R_N* Pi_t] (J_l the left
// Jacobian of the rotation exponential). The child's link frame C = N * joint_motion(q_k), and
//   V(k) = X(C<-P) V(P) + X(C<-N) B_N etadot_P + H*_joint qd_joint,
// which is nu(k) = phi*(P, k) nu(P) + H*(k) qdot(k) with
//   phi*(P, k) = [[X(C<-P), X(C<-N) B_N], [0, 0]],   H*(k) = blockdiag(H*_joint, 1).
// Differentiating, with u = H*_joint qd_joint, w = X(C<-N) B_N etadot_P and V_rel = u + w:
//   a(k) = [V(k) x V_rel - u x w + X(C<-N) [R_N* Jdot_l rdot; -R_N* (w_N x v_N)]; 0]
// (r = Pi_r eta_P, rdot = Pi_r etadot_P, w_N = J_l rdot and v_N = Pi_t etadot_P in P's axes),
// and b(k) = [V x* h; K eta + D etadot] with h the rigid rows of M_fl nu (Lagrange's equations in
// the body-frame velocity with the constant modal inertia M_fl).
#include "flexible_nodes.hpp"

#include <cmath>

#include "kinematics_detail.hpp"
#include "skograph/rigid/spatial.hpp"

namespace skograph::rigid_detail {
namespace {

// The coefficients of J_l(r) = 1 + a [r] + b [r]^2, a = (1 - cos t) / t^2, b = (t - sin t) / t^3,
// and of their derivatives a'(t) / t, b'(t) / t (t = |r|), by their series below t = 1 (the
// closed forms cancel there: modal rotations are small) and the closed forms above.
struct LeftJacobianCoefficients {
  double a, b, a_rate, b_rate;
};

LeftJacobianCoefficients left_jacobian_coefficients(double t2) {
  LeftJacobianCoefficients c{};
  if (t2 < 1.0) {
    // a = sum (-1)^n t^2n / (2n + 2)!, b = sum (-1)^n t^2n / (2n + 3)!, and a'/t, b'/t termwise.
    double power = 1.0, factorial_a = 2.0, factorial_b = 6.0;  // t^2n, (2n + 2)!, (2n + 3)!
    double sign = 1.0;
    for (int n = 0; n < 12; ++n) {
      c.a += sign * power / factorial_a;
      c.b += sign * power / factorial_b;
      if (n >= 1) {
        c.a_rate += sign * 2.0 * n * (power / t2) / factorial_a;
        c.b_rate += sign * 2.0 * n * (power / t2) / factorial_b;
      }
      if (n == 0 && t2 == 0.0) {
        // Only the constant terms remain; the rates' first terms are -2/4! and -2/5!.
        c.a_rate = -2.0 / 24.0;
        c.b_rate = -2.0 / 120.0;
        return c;
      }
      power *= t2;
      sign = -sign;
      factorial_a *= (2.0 * n + 3.0) * (2.0 * n + 4.0);
      factorial_b *= (2.0 * n + 4.0) * (2.0 * n + 5.0);
    }
    return c;
  }
  const double t = std::sqrt(t2), s = std::sin(t), co = std::cos(t);
  c.a = (1.0 - co) / t2;
  c.b = (t - s) / (t2 * t);
  c.a_rate = (t * s - 2.0 * (1.0 - co)) / (t2 * t2);
  c.b_rate = ((1.0 - co) * t - 3.0 * (t - s)) / (t2 * t2 * t);
  return c;
}

Eigen::Matrix3d left_jacobian(const Eigen::Vector3d& r) {
  const LeftJacobianCoefficients c = left_jacobian_coefficients(r.squaredNorm());
  const Eigen::Matrix3d k = cross_matrix(r);
  return Eigen::Matrix3d::Identity() + c.a * k + c.b * k * k;
}

// (d/dt J_l(r)) rdot for r moving at rdot: a' tdot r x rdot + b' tdot r x (r x rdot)
// + b rdot x (r x rdot), with t tdot = r . rdot.
Eigen::Vector3d left_jacobian_rate(const Eigen::Vector3d& r, const Eigen::Vector3d& rdot) {
  const LeftJacobianCoefficients c = left_jacobian_coefficients(r.squaredNorm());
  const double along = r.dot(rdot);
  const Eigen::Vector3d turn = r.cross(rdot);
  return c.a_rate * along * turn + c.b_rate * along * r.cross(turn) + c.b * rdot.cross(turn);
}

}  // namespace

void update_flexible_nodes(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                           const Eigen::Ref<const Eigen::VectorXd>* qd, RigidBodyData& data) {
  const SkoStructure& structure = data.sko.structure();
  const std::vector<int>& parents = model.parents();
  for (const int k : model.parents_first()) {
    const int p = parents[k], joint_dofs = model.joint_dofs(k), modes = model.modes(k);
    const JointGeometry& geometry = model.joint_geometry(k);
    const double* qk = q.data() + model.joint_dof_offset(k);
    const Eigen::Isometry3d motion = joint_motion(geometry, qk);
    if (geometry.type == JointType::kPlanar) data.hinge[k] = joint_hinge_transpose(geometry, qk);

    // The parent's node frame N, turned and moved by the parent's modes.
    const Eigen::MatrixXd& attachment = model.attachment(k);
    const int parent_modes = attachment.cols();
    Eigen::Matrix3d node_rotation = model.origin_rotation(k);
    Eigen::Vector3d node_position = model.origin_translation(k);
    Eigen::Vector3d turn = Eigen::Vector3d::Zero();
    if (parent_modes > 0) {
      const auto eta = q.segment(model.modal_offset(p), parent_modes);
      turn.noalias() = attachment.topRows<3>() * eta;
      node_rotation = rotation_from_vector(turn) * node_rotation;
      node_position.noalias() += attachment.bottomRows<3>() * eta;
    }
    Eigen::Matrix3d& R = data.rotation[k];
    Eigen::Vector3d& l = data.translation[k];
    R.noalias() = node_rotation * motion.linear();
    l = node_position;
    l.noalias() += node_rotation * motion.translation();
    compose_link_pose(model, data, k);

    // phi(P, k) and H(k). The rows of X(C<-N) B_N (one per parent mode) are written straight into
    // the weight's bottom-left block, column by column of B_N, and read back for the velocity.
    auto weight = data.sko.weight(k);
    Matrix6d child_from_node;                                // X(C<-N)
    Eigen::Matrix3d jacobian = Eigen::Matrix3d::Identity();  // J_l(r)
    if (p >= 0) {
      data.phi[k] = rigid_body_transform(R, l);
      weight.setZero();
      weight.topLeftCorner<6, 6>() = data.phi[k];
      if (parent_modes > 0) {
        child_from_node = rigid_body_transform(motion.linear(), motion.translation()).transpose();
        jacobian = left_jacobian(turn);
        const Eigen::Matrix3d node_jacobian = node_rotation.transpose() * jacobian;
        for (int j = 0; j < parent_modes; ++j) {
          Vector6d node_twist;  // B_N's column j
          node_twist.head<3>().noalias() = node_jacobian * attachment.col(j).head<3>();
          node_twist.tail<3>().noalias() = node_rotation.transpose() * attachment.col(j).tail<3>();
          weight.row(6 + j).head<6>().noalias() = (child_from_node * node_twist).transpose();
        }
      }
    }
    auto hinge = data.sko.hinge_map(k);
    hinge.setZero();
    if (joint_dofs > 0) hinge.topLeftCorner(joint_dofs, 6) = data.hinge[k].transpose();
    hinge.bottomRightCorner(modes, modes).setIdentity();
    if (qd == nullptr) continue;

    // nu(k), a(k), b(k).
    const int node = structure.node.offset(k);
    const double* qdk = qd->data() + model.joint_dof_offset(k);
    Vector6d joint_velocity = Vector6d::Zero();  // u
    for (int i = 0; i < joint_dofs; ++i) joint_velocity.noalias() += data.hinge[k].col(i) * qdk[i];
    Vector6d node_velocity = Vector6d::Zero();  // w
    Vector6d node_rate = Vector6d::Zero();      // X(C<-N) d/dt(B_N) etadot_P
    if (parent_modes > 0) {
      const auto eta_rate = qd->segment(model.modal_offset(p), parent_modes);
      for (int j = 0; j < parent_modes; ++j)
        node_velocity.noalias() += eta_rate[j] * weight.row(6 + j).head<6>().transpose();
      const Eigen::Vector3d turn_rate = attachment.topRows<3>() * eta_rate;
      const Eigen::Vector3d angular = jacobian * turn_rate;
      const Eigen::Vector3d linear = attachment.bottomRows<3>() * eta_rate;
      Vector6d in_node;
      in_node << node_rotation.transpose() * left_jacobian_rate(turn, turn_rate),
          -(node_rotation.transpose() * angular.cross(linear));
      node_rate.noalias() = child_from_node * in_node;
    }
    const Vector6d relative = joint_velocity + node_velocity;
    Vector6d velocity = relative;
    if (p >= 0)
      velocity.noalias() +=
          data.phi[k].transpose() * data.velocity.segment<6>(structure.node.offset(p));
    Vector6d coriolis =
        motion_cross(velocity, relative) - motion_cross(joint_velocity, node_velocity) + node_rate;
    if (geometry.type == JointType::kPlanar) coriolis += joint_velocity_product(geometry, qk, qdk);
    data.velocity.segment<6>(node) = velocity;
    data.coriolis.segment<6>(node) = coriolis;
    if (modes > 0) {
      data.velocity.segment(node + 6, modes) = qd->segment(model.modal_offset(k), modes);
      data.coriolis.segment(node + 6, modes).setZero();
    }
    const auto nu = data.velocity.segment(node, 6 + modes);
    const Vector6d momentum = model.node_inertia(k).topRows<6>() * nu;
    data.gyroscopic.segment<6>(node) = force_cross(velocity, momentum);
    if (modes > 0) {
      const ModalBody& body = *model.modal_body(k);
      const int first = model.modal_offset(k);
      data.gyroscopic.segment(node + 6, modes).noalias() =
          body.modal_stiffness * q.segment(first, modes);
      data.gyroscopic.segment(node + 6, modes).noalias() +=
          body.modal_damping * qd->segment(first, modes);
    }
  }
  data.phi_valid = true;
  data.sko_synchronized = true;
  data.poses_valid = true;
}

void add_modal_gravity(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Vector3d& gravity, RigidBodyData& data) {
  const SkoStructure& structure = data.sko.structure();
  for (int k = 0; k < model.node_count(); ++k) {
    const int modes = model.modes(k);
    if (modes == 0) continue;
    const Eigen::Vector3d along = data.link_pose[k].linear().transpose() * gravity;
    const Eigen::Vector3d moment =
        model.modal_body(k)->coupling.bottomRows<3>() * q.segment(model.modal_offset(k), modes);
    data.gyroscopic.segment<3>(structure.node.offset(k)) -= moment.cross(along);
  }
}

}  // namespace skograph::rigid_detail

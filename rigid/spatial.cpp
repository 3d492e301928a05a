#include "skograph/rigid/spatial.hpp"

#include <cmath>

namespace skograph {

Eigen::Matrix3d cross_matrix(const Eigen::Vector3d& l) {
  Eigen::Matrix3d m;
  m << 0.0, -l.z(), l.y(), l.z(), 0.0, -l.x(), -l.y(), l.x(), 0.0;
  return m;
}

Matrix6d rigid_body_transform(const Eigen::Isometry3d& transform) {
  return rigid_body_transform(transform.linear(), transform.translation());
}

Matrix6d rigid_body_transform(const Eigen::Matrix3d& rotation, const Eigen::Vector3d& translation) {
  Matrix6d phi;
  phi.topLeftCorner<3, 3>() = rotation;
  phi.topRightCorner<3, 3>() = cross_matrix(translation) * rotation;
  phi.bottomLeftCorner<3, 3>().setZero();
  phi.bottomRightCorner<3, 3>() = rotation;
  return phi;
}

Matrix6d spatial_inertia(double mass, const Eigen::Vector3d& center_of_mass,
                         const Eigen::Matrix3d& inertia_about_center_of_mass) {
  const Eigen::Matrix3d p = cross_matrix(center_of_mass);
  Matrix6d inertia;
  inertia.topLeftCorner<3, 3>() = inertia_about_center_of_mass - mass * p * p;
  inertia.topRightCorner<3, 3>() = mass * p;
  inertia.bottomLeftCorner<3, 3>() = -mass * p;
  inertia.bottomRightCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
  return inertia;
}

Vector6d motion_cross(const Vector6d& velocity, const Vector6d& motion) {
  const Eigen::Vector3d w = velocity.head<3>(), v = velocity.tail<3>();
  Vector6d result;
  result.head<3>() = w.cross(motion.head<3>());
  result.tail<3>() = w.cross(motion.tail<3>()) + v.cross(motion.head<3>());
  return result;
}

Vector6d force_cross(const Vector6d& velocity, const Vector6d& force) {
  const Eigen::Vector3d w = velocity.head<3>(), v = velocity.tail<3>();
  Vector6d result;
  result.head<3>() = w.cross(force.head<3>()) + v.cross(force.tail<3>());
  result.tail<3>() = w.cross(force.tail<3>());
  return result;
}

Eigen::Matrix3d rotation_from_vector(const Eigen::Vector3d& rotation_vector) {
  const double angle = rotation_vector.norm();
  if (angle < 1e-300) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, rotation_vector / angle).toRotationMatrix();
}

Eigen::Matrix3d rotation_vector_rate_matrix(const Eigen::Vector3d& rotation_vector) {
  const double angle = rotation_vector.norm();
  const Eigen::Matrix3d r = cross_matrix(rotation_vector);
  // Coefficient of r~^2: 1/angle^2 - (1 + cos)/(2 angle sin), 1/12 + angle^2/720 near zero.
  double c;
  if (angle < 1e-4) {
    c = 1.0 / 12.0 + angle * angle / 720.0;
  } else {
    c = 1.0 / (angle * angle) - (1.0 + std::cos(angle)) / (2.0 * angle * std::sin(angle));
  }
  return Eigen::Matrix3d::Identity() + 0.5 * r + c * r * r;
}

JointGeometry make_joint_geometry(JointType type, const Eigen::Vector3d& axis) {
  JointGeometry joint;
  joint.type = type;
  const double length = axis.norm();
  joint.axis = length > 0.0 ? Eigen::Vector3d(axis / length) : Eigen::Vector3d::UnitX();
  const Eigen::Matrix3d to_axis =
      Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), joint.axis).toRotationMatrix();
  joint.plane_x = to_axis.col(0);
  joint.plane_y = to_axis.col(1);
  return joint;
}

Eigen::Isometry3d joint_motion(const JointGeometry& joint, const double* q) {
  Eigen::Isometry3d motion = Eigen::Isometry3d::Identity();
  switch (joint.type) {
    case JointType::kFixed:
      break;
    case JointType::kRevolute:
    case JointType::kContinuous:
      motion.linear() = Eigen::AngleAxisd(q[0], joint.axis).toRotationMatrix();
      break;
    case JointType::kPrismatic:
      motion.translation() = q[0] * joint.axis;
      break;
    case JointType::kPlanar:
      motion.linear() = Eigen::AngleAxisd(q[2], joint.axis).toRotationMatrix();
      motion.translation() = q[0] * joint.plane_x + q[1] * joint.plane_y;
      break;
    case JointType::kSpherical:
      motion.linear() = rotation_from_vector(Eigen::Vector3d(q[0], q[1], q[2]));
      break;
    case JointType::kFloating:
      motion.linear() = rotation_from_vector(Eigen::Vector3d(q[0], q[1], q[2]));
      motion.translation() = Eigen::Vector3d(q[3], q[4], q[5]);
      break;
  }
  return motion;
}

HingeMatrix joint_hinge_transpose(const JointGeometry& joint, const double* q) {
  HingeMatrix h(6, joint.dofs());
  h.setZero();
  switch (joint.type) {
    case JointType::kFixed:
      break;
    case JointType::kRevolute:
    case JointType::kContinuous:
      h.col(0).head<3>() = joint.axis;
      break;
    case JointType::kPrismatic:
      h.col(0).tail<3>() = joint.axis;
      break;
    case JointType::kPlanar: {
      // The in-plane translation directions seen from the child, which turned by theta.
      const Eigen::Matrix3d rotation = Eigen::AngleAxisd(q[2], joint.axis).toRotationMatrix();
      h.col(0).tail<3>() = rotation.transpose() * joint.plane_x;
      h.col(1).tail<3>() = rotation.transpose() * joint.plane_y;
      h.col(2).head<3>() = joint.axis;
      break;
    }
    case JointType::kSpherical:
      h.topRows<3>().setIdentity();
      break;
    case JointType::kFloating:
      h.setIdentity();
      break;
  }
  return h;
}

Vector6d joint_velocity_product(const JointGeometry& joint, const double* q, const double* qd) {
  Vector6d product = Vector6d::Zero();
  if (joint.type == JointType::kPlanar) {
    const Eigen::Matrix3d rotation = Eigen::AngleAxisd(q[2], joint.axis).toRotationMatrix();
    const Eigen::Vector3d relative_linear =
        rotation.transpose() * (qd[0] * joint.plane_x + qd[1] * joint.plane_y);
    product.tail<3>() = -(qd[2] * joint.axis).cross(relative_linear);
  }
  return product;
}

Vector6d coriolis_acceleration(const Vector6d& velocity, const Vector6d& relative_velocity,
                               const Vector6d& hinge_rate_product) {
  return motion_cross(velocity, relative_velocity) + hinge_rate_product;
}

Vector6d gyroscopic_force(const Matrix6d& inertia, const Vector6d& velocity) {
  return force_cross(velocity, inertia * velocity);
}

void joint_configuration_rate(const JointGeometry& joint, const double* q, const double* qd,
                              double* q_rate) {
  const int dofs = joint.dofs();
  if (joint.type != JointType::kSpherical && joint.type != JointType::kFloating) {
    for (int i = 0; i < dofs; ++i) q_rate[i] = qd[i];
    return;
  }
  const Eigen::Vector3d rotation_vector(q[0], q[1], q[2]);
  const Eigen::Vector3d omega(qd[0], qd[1], qd[2]);
  Eigen::Map<Eigen::Vector3d> rotation_rate(q_rate);
  rotation_rate = rotation_vector_rate_matrix(rotation_vector) * omega;
  if (joint.type == JointType::kFloating) {
    const Eigen::Vector3d linear(qd[3], qd[4], qd[5]);
    Eigen::Map<Eigen::Vector3d> position_rate(q_rate + 3);
    position_rate = rotation_from_vector(rotation_vector) * linear;
  }
}

}  // namespace skograph

// The configuration's tangent (rigid/tangent.hpp): one joint at a time.
#include "skograph/rigid/tangent.hpp"

#include <Eigen/Geometry>
#include <cmath>

#include "size_checks.hpp"
#include "skograph/rigid/spatial.hpp"

namespace skograph {

using rigid_detail::check_size;

namespace {

// The rotation vector of R with norm <= pi.
Eigen::Vector3d rotation_vector_of(const Eigen::Matrix3d& R) {
  const Eigen::AngleAxisd angle_axis(R);
  return angle_axis.angle() * angle_axis.axis();
}

// V(w) = 1 + (1 - cos t)/t^2 [w] + (t - sin t)/t^3 [w]^2, t = |w|: the SE(3) exponential of the
// body twist [w; v] moves the origin by V(w) v (in the starting frame's axes). Series below
// t = 1e-4, where the closed form loses digits.
Eigen::Matrix3d translation_factor(const Eigen::Vector3d& w) {
  const double t2 = w.squaredNorm(), t = std::sqrt(t2);
  double a, b;
  if (t < 1e-4) {
    a = 0.5 - t2 / 24.0;
    b = 1.0 / 6.0 - t2 / 120.0;
  } else {
    a = (1.0 - std::cos(t)) / t2;
    b = (t - std::sin(t)) / (t2 * t);
  }
  const Eigen::Matrix3d W = cross_matrix(w);
  return Eigen::Matrix3d::Identity() + a * W + b * W * W;
}

}  // namespace

void integrate_joint(JointType type, const double* q, const double* v, double dt, double* result) {
  const int dofs = joint_dof_count(type);
  if (type != JointType::kSpherical && type != JointType::kFloating) {
    for (int i = 0; i < dofs; ++i) result[i] = q[i] + dt * v[i];
    return;
  }
  const Eigen::Matrix3d R = rotation_from_vector(Eigen::Vector3d(q[0], q[1], q[2]));
  const Eigen::Vector3d w = dt * Eigen::Vector3d(v[0], v[1], v[2]);
  const Eigen::Vector3d turned = rotation_vector_of(R * rotation_from_vector(w));
  if (type == JointType::kFloating) {
    const Eigen::Vector3d moved =
        Eigen::Vector3d(q[3], q[4], q[5]) +
        R * (translation_factor(w) * (dt * Eigen::Vector3d(v[3], v[4], v[5])));
    for (int i = 0; i < 3; ++i) result[3 + i] = moved[i];
  }
  for (int i = 0; i < 3; ++i) result[i] = turned[i];
}

void difference_joint(JointType type, const double* q0, const double* q1, double* result) {
  const int dofs = joint_dof_count(type);
  if (type != JointType::kSpherical && type != JointType::kFloating) {
    for (int i = 0; i < dofs; ++i) result[i] = q1[i] - q0[i];
    return;
  }
  const Eigen::Matrix3d R0 = rotation_from_vector(Eigen::Vector3d(q0[0], q0[1], q0[2]));
  const Eigen::Matrix3d R1 = rotation_from_vector(Eigen::Vector3d(q1[0], q1[1], q1[2]));
  const Eigen::Vector3d w = rotation_vector_of(R0.transpose() * R1);
  if (type == JointType::kFloating) {
    const Eigen::Vector3d shift = R0.transpose() * (Eigen::Vector3d(q1[3], q1[4], q1[5]) -
                                                    Eigen::Vector3d(q0[3], q0[4], q0[5]));
    const Eigen::Vector3d v = translation_factor(w).lu().solve(shift);
    for (int i = 0; i < 3; ++i) result[3 + i] = v[i];
  }
  for (int i = 0; i < 3; ++i) result[i] = w[i];
}

void integrate(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
               const Eigen::Ref<const Eigen::VectorXd>& v, double dt,
               Eigen::Ref<Eigen::VectorXd> result) {
  const int n = model.dof_count();
  check_size(q, n, "q");
  check_size(v, n, "v");
  check_size(result, n, "result");
  double moved[6];
  for (int k = 0; k < model.node_count(); ++k) {
    const int offset = model.hinge_offset(k), dofs = model.joint_dofs(k);
    if (dofs > 0) {
      integrate_joint(model.joint_geometry(k).type, q.data() + offset, v.data() + offset, dt,
                      moved);
      for (int i = 0; i < dofs; ++i) result[offset + i] = moved[i];
    }
    // Modal coordinates after the joint's are a vector space.
    for (int i = dofs; i < model.hinge_dofs(k); ++i)
      result[offset + i] = q[offset + i] + dt * v[offset + i];
  }
}

Eigen::VectorXd integrate(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& v, double dt) {
  Eigen::VectorXd result(model.dof_count());
  integrate(model, q, v, dt, result);
  return result;
}

void difference(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q0,
                const Eigen::Ref<const Eigen::VectorXd>& q1, Eigen::Ref<Eigen::VectorXd> result) {
  const int n = model.dof_count();
  check_size(q0, n, "q0");
  check_size(q1, n, "q1");
  check_size(result, n, "result");
  for (int k = 0; k < model.node_count(); ++k) {
    const int offset = model.hinge_offset(k), dofs = model.joint_dofs(k);
    if (dofs > 0)
      difference_joint(model.joint_geometry(k).type, q0.data() + offset, q1.data() + offset,
                       result.data() + offset);
    for (int i = dofs; i < model.hinge_dofs(k); ++i)
      result[offset + i] = q1[offset + i] - q0[offset + i];
  }
}

Eigen::VectorXd difference(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q0,
                           const Eigen::Ref<const Eigen::VectorXd>& q1) {
  Eigen::VectorXd result(model.dof_count());
  difference(model, q0, q1, result);
  return result;
}

}  // namespace skograph

// Random rigid mechanisms and states for the rigid-body tests (test support).
//
// random_mechanism builds a random tree of links (random shape, joints in a shuffled file order,
// so node numbers are not topological) with mixed joint types, masses in [0.5, 3], inertias of
// randomly oriented boxes (symmetric positive definite, triangle inequality by construction),
// random centers of mass, joint origins and unit axes.
#pragma once

#include <Eigen/Geometry>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "skograph/rigid/mechanism.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph::testing_support {

struct RandomMechanismOptions {
  int links = 20;
  bool floating_base = true;     // the first link hangs from the world by a floating joint
  bool rotation_vectors = true;  // spherical joints inside the tree (qd not dq/dt)
  bool planar = true;            // planar joints inside the tree
  int extra_bases = 0;           // further links attached to the world by revolute joints
  // Revolute joints about +-x, +-y or +-z, two in three of them with an unrotated origin, as in
  // most robot files (the recursions' turn kernels, RigidBodyModel::turn_axis).
  bool coordinate_axes = false;
};

inline double rigid_uniform(std::mt19937& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}

inline Eigen::Vector3d rigid_random_vector(std::mt19937& rng, double scale) {
  return Eigen::Vector3d(rigid_uniform(rng, -scale, scale), rigid_uniform(rng, -scale, scale),
                         rigid_uniform(rng, -scale, scale));
}

inline Eigen::Matrix3d rigid_random_rotation(std::mt19937& rng) {
  Eigen::Quaterniond q(rigid_uniform(rng, -1, 1), rigid_uniform(rng, -1, 1),
                       rigid_uniform(rng, -1, 1), rigid_uniform(rng, -1, 1));
  q.normalize();
  return q.toRotationMatrix();
}

inline Eigen::Vector3d rigid_random_unit(std::mt19937& rng) {
  Eigen::Vector3d v;
  do v = rigid_random_vector(rng, 1.0);
  while (v.norm() < 0.1);
  return v.normalized();
}

// A link shaped like a randomly oriented box.
inline Link random_link(const std::string& name, std::mt19937& rng) {
  Link link;
  link.name = name;
  link.mass = rigid_uniform(rng, 0.5, 3.0);
  link.center_of_mass = rigid_random_vector(rng, 0.3);
  const double a = rigid_uniform(rng, 0.05, 0.6), b = rigid_uniform(rng, 0.05, 0.6),
               c = rigid_uniform(rng, 0.05, 0.6);
  const Eigen::Vector3d moments =
      link.mass / 12.0 * Eigen::Vector3d(b * b + c * c, a * a + c * c, a * a + b * b);
  const Eigen::Matrix3d r = rigid_random_rotation(rng);
  link.inertia = r * moments.asDiagonal() * r.transpose();
  link.inertia = 0.5 * (link.inertia + link.inertia.transpose()).eval();
  return link;
}

inline Mechanism random_mechanism(const RandomMechanismOptions& options, std::mt19937& rng) {
  Mechanism mechanism;
  mechanism.name = "random";
  for (int i = 0; i < options.links; ++i)
    mechanism.links.push_back(random_link("link" + std::to_string(i), rng));
  std::vector<JointType> inner = {JointType::kFixed, JointType::kRevolute, JointType::kContinuous,
                                  JointType::kPrismatic, JointType::kRevolute};
  if (options.planar) inner.push_back(JointType::kPlanar);
  if (options.rotation_vectors) inner.push_back(JointType::kSpherical);
  for (int i = 0; i < options.links; ++i) {
    Joint joint;
    joint.name = "joint" + std::to_string(i);
    joint.child = i;
    if (i == 0) {
      joint.parent = -1;
      joint.type = options.floating_base ? JointType::kFloating : JointType::kRevolute;
    } else if (i <= options.extra_bases) {
      joint.parent = -1;
      joint.type = JointType::kRevolute;
    } else {
      joint.parent = static_cast<int>(rng() % i);
      joint.type = inner[rng() % inner.size()];
    }
    joint.origin.linear() = rigid_random_rotation(rng);
    joint.origin.translation() = rigid_random_vector(rng, 0.5);
    joint.axis = rigid_random_unit(rng);
    const bool revolute =
        joint.type == JointType::kRevolute || joint.type == JointType::kContinuous;
    if (options.coordinate_axes && revolute) {
      joint.axis = Eigen::Vector3d::Unit(static_cast<int>(rng() % 3));
      if (rng() % 2 == 0) joint.axis = -joint.axis;
      if (rng() % 3 != 0) joint.origin.linear().setIdentity();
    }
    mechanism.joints.push_back(joint);
  }
  std::shuffle(mechanism.joints.begin(), mechanism.joints.end(), rng);
  return mechanism;
}

inline Eigen::VectorXd rigid_random_state(int size, std::mt19937& rng, double scale = 1.0) {
  Eigen::VectorXd v(size);
  for (int i = 0; i < size; ++i) v(i) = rigid_uniform(rng, -scale, scale);
  return v;
}

// The body-frame spatial velocities of every node for (q, qd), stacked (update_kinematics).
inline Eigen::VectorXd node_velocities(const RigidBodyModel& model, RigidBodyData& data,
                                       const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  update_kinematics(model, q, qd, data);
  return data.velocity;
}

// Total energy T + U at (q, qd).
inline double total_energy(const RigidBodyModel& model, RigidBodyData& data,
                           const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           const Eigen::Vector3d& gravity) {
  update_kinematics(model, q, qd, data);
  return kinetic_energy(model, data) + potential_energy(model, data, gravity);
}

}  // namespace skograph::testing_support

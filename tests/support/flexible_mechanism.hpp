// Trees for the flexible-body tests: random bodies of the dense reference
// (tests/support/flexible_reference.hpp) and the same tree as a skograph Mechanism (test support).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "skograph/rigid/mechanism.hpp"
#include "skograph/rigid/modal_body.hpp"
#include "skograph/rigid/spatial.hpp"
#include "support/flexible_reference.hpp"
#include "support/rigid_support.hpp"

namespace skograph::testing_support {

inline Eigen::Isometry3d random_origin(std::mt19937& rng) {
  Eigen::Isometry3d origin = Eigen::Isometry3d::Identity();
  origin.linear() = rigid_random_rotation(rng);
  origin.translation() = rigid_random_vector(rng, 0.6);
  return origin;
}

inline Eigen::MatrixXd random_matrix(int rows, int cols, double scale, std::mt19937& rng) {
  Eigen::MatrixXd m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = rigid_uniform(rng, -scale, scale);
  return m;
}

// Body k of a random tree, rigid: a random earlier parent, a revolute, prismatic or fixed joint
// (floating for the first body when asked), a random origin, axis and link inertia.
inline flexible_reference::Body random_rigid_body(int k, bool floating, std::mt19937& rng) {
  using flexible_reference::Body;
  Body body;
  body.parent = k == 0 ? -1 : static_cast<int>(rng() % k);
  const int pick = static_cast<int>(rng() % 5);
  body.joint = pick < 3    ? Body::Joint::kRevolute
               : pick == 3 ? Body::Joint::kPrismatic
                           : Body::Joint::kFixed;
  if (k == 0 && floating) body.joint = Body::Joint::kFloating;
  body.origin = random_origin(rng);
  body.axis = rigid_random_unit(rng);
  const Link link = random_link("l", rng);
  body.mass = link.mass;
  body.center_of_mass = link.center_of_mass;
  body.inertia = link.inertia;
  return body;
}

// A random tree of `count` bodies, joint types mixed (a floating first body when asked), each
// with 0 to 3 modes of random modal data: coupling = S G for the spatial inertia S and a random
// G, modal mass G* S G + A A* + 1/2 (so the body's mass matrix is positive definite), random
// positive semidefinite stiffness and damping, and random influences (rotations of up to
// `influence` rad per unit modal coordinate) where a child hangs.
inline std::vector<flexible_reference::Body> random_flexible_bodies(int count, bool floating,
                                                                    double influence,
                                                                    std::mt19937& rng) {
  using flexible_reference::Body;
  std::vector<Body> bodies;
  for (int k = 0; k < count; ++k) {
    Body body = random_rigid_body(k, floating, rng);
    const int modes = static_cast<int>(rng() % 4);
    if (modes > 0) {
      const Matrix6d spatial = spatial_inertia(body.mass, body.center_of_mass, body.inertia);
      const Eigen::MatrixXd g = random_matrix(6, modes, 0.5, rng);
      const Eigen::MatrixXd a = random_matrix(modes, modes, 0.5, rng);
      const Eigen::MatrixXd s = random_matrix(modes, modes, 3.0, rng);
      const Eigen::MatrixXd d = random_matrix(modes, modes, 0.3, rng);
      body.coupling = spatial * g;
      body.modal_mass = g.transpose() * spatial * g + a * a.transpose() +
                        0.5 * Eigen::MatrixXd::Identity(modes, modes);
      body.stiffness = s * s.transpose();
      body.damping = d * d.transpose();
    }
    if (body.parent >= 0 && bodies[body.parent].modes() > 0) {
      body.attachment = random_matrix(6, bodies[body.parent].modes(), 0.3, rng);
      body.attachment.topRows<3>() *= influence / 0.3;
    }
    bodies.push_back(body);
  }
  return bodies;
}

// The reference's tree as a mechanism: link k "link<k>" on joint k "joint<k>", a flexible link's
// nodes named after the joints that hang from it.
inline Mechanism mechanism_of(const std::vector<flexible_reference::Body>& bodies) {
  using flexible_reference::Body;
  Mechanism mechanism;
  mechanism.name = "reference";
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    const Body& body = bodies[k];
    Link link;
    link.name = "link" + std::to_string(k);
    link.mass = body.mass;
    link.center_of_mass = body.center_of_mass;
    link.inertia = body.inertia;
    if (body.modes() > 0) {
      ModalBody modal;
      modal.modal_mass = body.modal_mass;
      modal.modal_stiffness = body.stiffness;
      modal.modal_damping = body.damping;
      modal.coupling = body.coupling;
      for (std::size_t j = k + 1; j < bodies.size(); ++j)
        if (bodies[j].parent == static_cast<int>(k))
          modal.nodes.push_back({"joint" + std::to_string(j), bodies[j].attachment, 0});
      link.flexible = std::make_shared<const ModalBody>(std::move(modal));
    }
    mechanism.links.push_back(link);
    Joint joint;
    joint.name = "joint" + std::to_string(k);
    joint.type = body.joint == Body::Joint::kRevolute    ? JointType::kRevolute
                 : body.joint == Body::Joint::kPrismatic ? JointType::kPrismatic
                 : body.joint == Body::Joint::kFloating  ? JointType::kFloating
                                                         : JointType::kFixed;
    joint.parent = body.parent;
    joint.child = static_cast<int>(k);
    joint.origin = body.origin;
    joint.axis = body.axis;
    mechanism.joints.push_back(joint);
  }
  return mechanism;
}

}  // namespace skograph::testing_support

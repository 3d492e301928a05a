// Closed-chain mechanisms built in code and dense references for the closed-chain tests (test
// support): planar four-bars (terminal and internal cut), geared links, a chain closed to the world
// by each loop type, random trees with random loops closed at a random configuration, the full
// constraint matrix and a dense Lagrange-multiplier (DAE) forward-dynamics reference.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "rigid/closed_chain_model.hpp"
#include "rigid_support.hpp"

namespace skograph::testing_support {

// A slender rod along x from the link origin: center of mass at (length/2, 0, 0).
inline Link rod_link(const std::string& name, double length, double mass) {
  Link link;
  link.name = name;
  link.mass = mass;
  link.center_of_mass = Eigen::Vector3d(0.5 * length, 0, 0);
  const double across = mass * (length * length + 0.01) / 12.0;
  link.inertia = Eigen::Vector3d(mass * 0.01 / 6.0, across, across).asDiagonal();
  return link;
}

inline Joint revolute_joint(const std::string& name, int parent, int child,
                            const Eigen::Vector3d& position,
                            const Eigen::Vector3d& axis = Eigen::Vector3d::UnitZ()) {
  Joint joint;
  joint.name = name;
  joint.type = JointType::kRevolute;
  joint.parent = parent;
  joint.child = child;
  joint.origin.translation() = position;
  joint.axis = axis;
  return joint;
}

struct FourBarLengths {
  double crank = 1.0, coupler = 3.0, rocker = 2.5, ground = 3.0;
};

// A planar four-bar in the x-y plane: crank from the ground pivot O = 0, coupler from the crank's
// tip, rocker between the coupler's tip and the ground pivot D = (ground, 0, 0); rods of unit
// mass per metre. Terminal cut: the tree is the serial chain crank-coupler-rocker and the loop
// closes the rocker's far end to the world at D. Internal cut: the rocker hangs from the world at
// D and the loop closes the coupler's tip to the rocker's tip (the same physical rocker, its frame
// at D pointing the other way; a rod's inertia is unchanged by a half turn about z).
inline Mechanism four_bar(bool internal_cut, const FourBarLengths& lengths = {}) {
  Mechanism m;
  m.name = internal_cut ? "four_bar_internal" : "four_bar_terminal";
  m.links = {rod_link("crank", lengths.crank, lengths.crank),
             rod_link("coupler", lengths.coupler, lengths.coupler),
             rod_link("rocker", lengths.rocker, lengths.rocker)};
  m.joints.push_back(revolute_joint("j_crank", -1, 0, Eigen::Vector3d::Zero()));
  m.joints.push_back(revolute_joint("j_coupler", 0, 1, Eigen::Vector3d(lengths.crank, 0, 0)));
  LoopClosure loop;
  loop.name = "close";
  loop.type = LoopType::kRevolute;
  loop.axis = Eigen::Vector3d::UnitZ();
  if (!internal_cut) {
    m.joints.push_back(revolute_joint("j_rocker", 1, 2, Eigen::Vector3d(lengths.coupler, 0, 0)));
    loop.parent = -1;
    loop.parent_origin.translation() = Eigen::Vector3d(lengths.ground, 0, 0);
    loop.child = 2;
    loop.child_origin.translation() = Eigen::Vector3d(lengths.rocker, 0, 0);
  } else {
    m.joints.push_back(revolute_joint("j_rocker", -1, 2, Eigen::Vector3d(lengths.ground, 0, 0)));
    loop.parent = 1;
    loop.parent_origin.translation() = Eigen::Vector3d(lengths.coupler, 0, 0);
    loop.child = 2;
    loop.child_origin.translation() = Eigen::Vector3d(lengths.rocker, 0, 0);
  }
  m.loops.push_back(loop);
  return m;
}

// The four-bar's coupler tip for a crank angle by intersecting the circles about the crank tip
// (radius coupler) and about D (radius rocker), on the side of positive y when `upper`.
inline Eigen::Vector2d four_bar_coupler_tip(const FourBarLengths& l, double crank_angle,
                                            bool upper) {
  const Eigen::Vector2d p = l.crank * Eigen::Vector2d(std::cos(crank_angle), std::sin(crank_angle));
  const Eigen::Vector2d d(l.ground, 0);
  const double distance = (d - p).norm();
  const double along =
      (l.coupler * l.coupler - l.rocker * l.rocker + distance * distance) / (2 * distance);
  const double height = std::sqrt(std::max(0.0, l.coupler * l.coupler - along * along));
  const Eigen::Vector2d unit = (d - p) / distance;
  const Eigen::Vector2d normal(-unit.y(), unit.x());
  const Eigen::Vector2d a = p + along * unit + height * normal;
  const Eigen::Vector2d b = p + along * unit - height * normal;
  return (a.y() >= b.y()) == upper ? a : b;
}

// A chain of k four-bars with internal cuts: four-bar i's crank and rocker pivot on four-bar
// i-1's rocker (at its origin and at (ground, 0, 0) in its frame; the world for i = 0). Each
// four-bar is one aggregate hanging from the previous one. Joints per four-bar: crank, coupler,
// rocker; the same joint angles as four_bar(true) close every four-bar.
inline Mechanism four_bar_chain(int count, const FourBarLengths& lengths = {}) {
  Mechanism m;
  m.name = "four_bar_chain";
  for (int i = 0; i < count; ++i) {
    const std::string suffix = std::to_string(i);
    const int crank = 3 * i, coupler = 3 * i + 1, rocker = 3 * i + 2;
    const int ground = i == 0 ? -1 : 3 * (i - 1) + 2;
    m.links.push_back(rod_link("crank" + suffix, lengths.crank, lengths.crank));
    m.links.push_back(rod_link("coupler" + suffix, lengths.coupler, lengths.coupler));
    m.links.push_back(rod_link("rocker" + suffix, lengths.rocker, lengths.rocker));
    m.joints.push_back(revolute_joint("j_crank" + suffix, ground, crank, Eigen::Vector3d::Zero()));
    m.joints.push_back(
        revolute_joint("j_coupler" + suffix, crank, coupler, Eigen::Vector3d(lengths.crank, 0, 0)));
    m.joints.push_back(
        revolute_joint("j_rocker" + suffix, ground, rocker, Eigen::Vector3d(lengths.ground, 0, 0)));
    LoopClosure loop;
    loop.name = "close" + suffix;
    loop.type = LoopType::kRevolute;
    loop.parent = coupler;
    loop.parent_origin.translation() = Eigen::Vector3d(lengths.coupler, 0, 0);
    loop.child = rocker;
    loop.child_origin.translation() = Eigen::Vector3d(lengths.rocker, 0, 0);
    m.loops.push_back(loop);
  }
  return m;
}

// The four-bar's joint angles for a crank angle from the closed form (upper branch).
inline Eigen::VectorXd four_bar_configuration(bool internal_cut, double crank_angle,
                                              const FourBarLengths& l = {}) {
  const Eigen::Vector2d p = l.crank * Eigen::Vector2d(std::cos(crank_angle), std::sin(crank_angle));
  const Eigen::Vector2d tip = four_bar_coupler_tip(l, crank_angle, true);
  const Eigen::Vector2d d(l.ground, 0);
  const double coupler = std::atan2(tip.y() - p.y(), tip.x() - p.x());
  Eigen::VectorXd q(3);
  q[0] = crank_angle;
  q[1] = coupler - crank_angle;
  q[2] = internal_cut ? std::atan2(tip.y() - d.y(), tip.x() - d.x())
                      : std::atan2(d.y() - tip.y(), d.x() - tip.x()) - coupler;
  return q;
}

// A Stewart-like platform: six legs, each a spherical joint at a base point b_i on the ground
// (circle of radius 1) and a prismatic joint along the leg to an upper link ending at the platform
// point p_i (circle of radius 0.5 at height 1, rotated by 30 degrees). The platform hangs from leg
// 0's upper link by a spherical joint at p_0; legs 1-5 are closed to it by spherical loops. At
// q = 0 the mechanism is closed and the platform frame (origin p_0) is parallel to the world.
// 27 tree dofs, 15 loop rows: 6 platform dofs and 6 leg spins.
inline Mechanism stewart_platform() {
  Mechanism m;
  m.name = "stewart";
  std::vector<Eigen::Vector3d> base(6), top(6);
  for (int i = 0; i < 6; ++i) {
    const double a = M_PI / 3 * i, b = a + M_PI / 6 * (i % 2 ? -1 : 1);
    base[i] = Eigen::Vector3d(std::cos(a), std::sin(a), 0);
    top[i] = Eigen::Vector3d(0.5 * std::cos(b), 0.5 * std::sin(b), 1.0);
  }
  for (int i = 0; i < 6; ++i) {
    const std::string suffix = std::to_string(i);
    const Eigen::Vector3d leg = top[i] - base[i];
    const Eigen::Matrix3d along =
        Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), leg).toRotationMatrix();
    Link lower = rod_link("lower" + suffix, 0.5, 1.0), upper = rod_link("upper" + suffix, 0.5, 0.5);
    lower.center_of_mass = Eigen::Vector3d(0, 0, 0.25);
    upper.center_of_mass = Eigen::Vector3d(0, 0, -0.25);
    lower.inertia = Eigen::Vector3d(0.03, 0.03, 0.002).asDiagonal();
    upper.inertia = Eigen::Vector3d(0.015, 0.015, 0.001).asDiagonal();
    m.links.push_back(lower);
    m.links.push_back(upper);
    Joint ball;
    ball.name = "ball" + suffix;
    ball.type = JointType::kSpherical;
    ball.parent = -1;
    ball.child = 2 * i;
    ball.origin.linear() = along;
    ball.origin.translation() = base[i];
    m.joints.push_back(ball);
    Joint slide;
    slide.name = "slide" + suffix;
    slide.type = JointType::kPrismatic;
    slide.parent = 2 * i;
    slide.child = 2 * i + 1;
    slide.origin.translation() = Eigen::Vector3d(0, 0, leg.norm());
    slide.axis = Eigen::Vector3d::UnitZ();
    m.joints.push_back(slide);
  }
  Link platform;
  platform.name = "platform";
  platform.mass = 3.0;
  platform.center_of_mass = Eigen::Vector3d(0, 0, 1.0) - top[0];
  platform.inertia = Eigen::Vector3d(0.2, 0.2, 0.35).asDiagonal();
  m.links.push_back(platform);
  const Eigen::Matrix3d along0 =
      Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), top[0] - base[0])
          .toRotationMatrix();
  Joint mount;
  mount.name = "mount";
  mount.type = JointType::kSpherical;
  mount.parent = 1;
  mount.child = 12;
  mount.origin.linear() = along0.transpose();  // the platform parallel to the world at q = 0
  m.joints.push_back(mount);
  for (int i = 1; i < 6; ++i) {
    LoopClosure loop;
    loop.name = "attach" + std::to_string(i);
    loop.type = LoopType::kSpherical;
    loop.parent = 2 * i + 1;
    loop.child = 12;
    loop.child_origin.translation() = top[i] - top[0];
    m.loops.push_back(loop);
  }
  return m;
}

// Base link on a revolute joint; motor and link are its children (siblings) coupled by a gear
// q[motor] = ratio q[link]; the link carries an offset mass. With `serial`, the link hangs from
// the motor instead (the gear's sub-graph then starts at the motor).
inline Mechanism geared_links(double ratio = 5.0, bool serial = false) {
  Mechanism m;
  m.name = "geared";
  m.links = {rod_link("base", 1.0, 2.0), rod_link("motor", 0.1, 0.5), rod_link("arm", 1.5, 1.0)};
  m.joints.push_back(
      revolute_joint("j_base", -1, 0, Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY()));
  m.joints.push_back(revolute_joint("motor", 0, 1, Eigen::Vector3d(0.5, 0, 0)));
  m.joints.push_back(revolute_joint("link", serial ? 1 : 0, 2, Eigen::Vector3d(1.0, 0, 0)));
  Coupling gear;
  gear.name = "gear";
  gear.joint_a = 1;
  gear.joint_b = 2;
  gear.ratio = ratio;
  m.couplings.push_back(gear);
  return m;
}

// Sets the loop frames so that the loop is closed at q0: F_c at a random offset on the child, F_p
// the same frame seen from the parent (the frames coincide, i.e. the loop joint at its zero).
inline void close_loop_at(Mechanism& m, LoopClosure loop, const Eigen::VectorXd& q0,
                          std::mt19937& rng) {
  const RigidBodyModel tree(m);
  RigidBodyData data(tree);
  update_positions(tree, q0, data);
  auto pose = [&](int link) {
    return link < 0 ? Eigen::Isometry3d::Identity() : data.link_pose[tree.node_of_link(link)];
  };
  loop.child_origin.linear() = rigid_random_rotation(rng);
  loop.child_origin.translation() = rigid_random_vector(rng, 0.4);
  loop.parent_origin = pose(loop.parent).inverse() * pose(loop.child) * loop.child_origin;
  loop.axis = rigid_random_unit(rng);
  m.loops.push_back(loop);
}

// A chain world -> spherical -> revolute -> spherical -> prismatic whose last link is closed to the
// world by one loop of the given type at a random closed configuration q0 (returned).
inline Mechanism chain_closed_to_world(LoopType type, std::mt19937& rng, Eigen::VectorXd& q0) {
  Mechanism m;
  m.name = "chain_to_world";
  const JointType types[4] = {JointType::kSpherical, JointType::kRevolute, JointType::kSpherical,
                              JointType::kPrismatic};
  for (int i = 0; i < 4; ++i) {
    m.links.push_back(random_link("l" + std::to_string(i), rng));
    Joint joint;
    joint.name = "j" + std::to_string(i);
    joint.type = types[i];
    joint.parent = i - 1;
    joint.child = i;
    joint.origin.linear() = rigid_random_rotation(rng);
    joint.origin.translation() = rigid_random_vector(rng, 0.5);
    joint.axis = rigid_random_unit(rng);
    m.joints.push_back(joint);
  }
  q0 = rigid_random_state(8, rng, 0.8);
  LoopClosure loop;
  loop.name = std::string("to_world_") + loop_type_name(type);
  loop.type = type;
  loop.parent = -1;
  loop.child = 3;
  close_loop_at(m, loop, q0, rng);
  return m;
}

// Rows of a loop type (closed_chain_model.hpp): revolute 5, prismatic 5, spherical 3, weld 6.
inline int loop_rows(LoopType type) {
  return type == LoopType::kSpherical ? 3 : type == LoopType::kWeld ? 6 : 5;
}

// A random tree (no floating base, spherical and planar joints inside) with `loops` random loops
// of random types between random pairs of links (or a link and the world), closed at q0. Each
// loop's sub-graph has at least two dofs more than the loop has rows (so the closed mechanism
// moves), found by drawing pairs.
inline Mechanism random_closed_mechanism(int links, int loops, std::mt19937& rng,
                                         Eigen::VectorXd& q0) {
  RandomMechanismOptions options;
  options.links = links;
  options.floating_base = false;
  options.extra_bases = 1;
  Mechanism m = random_mechanism(options, rng);
  const RigidBodyModel tree(m);
  q0 = rigid_random_state(tree.dof_count(), rng, 0.8);
  const LoopType types[4] = {LoopType::kRevolute, LoopType::kPrismatic, LoopType::kSpherical,
                             LoopType::kWeld};
  for (int l = 0; l < loops; ++l) {
    LoopClosure loop;
    loop.name = "loop" + std::to_string(l);
    loop.type = types[rng() % 4];
    for (int attempt = 0; attempt < 200; ++attempt) {
      loop.parent = static_cast<int>(rng() % (links + 1)) - 1;
      do loop.child = static_cast<int>(rng() % links);
      while (loop.child == loop.parent);
      Mechanism trial = m;
      trial.loops = {loop};
      const ClosedChainModel model(trial);
      if (static_cast<int>(model.aggregate_dofs(0).size()) >= loop_rows(loop.type) + 2) break;
    }
    close_loop_at(m, loop, q0, rng);
  }
  return m;
}

// Q over all tree dofs (rows of every aggregate stacked) and Qdot qd, from the last update.
inline Eigen::MatrixXd full_constraint_matrix(const ClosedChainModel& model,
                                              const ClosedChainData& data) {
  int rows = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) rows += model.constraint_rows(s);
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(rows, model.dof_count());
  int row = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = model.aggregate_dofs(s);
    for (std::size_t i = 0; i < dofs.size(); ++i)
      q.block(row, dofs[i], model.constraint_rows(s), 1) =
          data.constraint_matrix[s].col(static_cast<Eigen::Index>(i));
    row += model.constraint_rows(s);
  }
  return q;
}

inline Eigen::VectorXd full_velocity_product(const ClosedChainModel& model,
                                             const ClosedChainData& data) {
  Eigen::VectorXd product(full_constraint_matrix(model, data).rows());
  int row = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    product.segment(row, model.constraint_rows(s)) = data.constraint_velocity_product[s];
    row += model.constraint_rows(s);
  }
  return product;
}

// The dense DAE reference: [M Q*; Q 0] [qdd; lambda] = [tau - C; -Qdot qd] solved in the least
// squares sense (redundant rows make lambda non-unique; qdd is unique).
inline Eigen::VectorXd dae_accelerations(const Eigen::MatrixXd& mass, const Eigen::VectorXd& bias,
                                         const Eigen::VectorXd& tau, const Eigen::MatrixXd& q,
                                         const Eigen::VectorXd& velocity_product) {
  const Eigen::Index n = mass.rows(), r = q.rows();
  Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(n + r, n + r);
  kkt.topLeftCorner(n, n) = mass;
  kkt.topRightCorner(n, r) = q.transpose();
  kkt.bottomLeftCorner(r, n) = q;
  Eigen::VectorXd rhs(n + r);
  rhs << tau - bias, -velocity_product;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> solver(kkt);
  solver.setThreshold(1e-10);
  return solver.solve(rhs).head(n);
}

// q(t) along a constant qd (qdd = 0): added for coordinates whose rate is qd, R exp(t omega~) for
// rotation vectors (qd the body-frame angular velocity) and, for floating positions,
// p + integral of R(s) v ds (Simpson's rule on 32 intervals).
inline Eigen::VectorXd advance_configuration(const RigidBodyModel& tree, const Eigen::VectorXd& q,
                                             const Eigen::VectorXd& qd, double t) {
  Eigen::VectorXd result = q;
  auto rotation_at = [&](int offset, double s) {
    return Eigen::Matrix3d(rotation_from_vector(q.segment<3>(offset)) *
                           rotation_from_vector(s * qd.segment<3>(offset)));
  };
  for (int k = 0; k < tree.joint_count(); ++k) {
    const int offset = tree.joint_dof_offset(k);
    const JointType type = tree.joint_geometry(k).type;
    if (type == JointType::kSpherical || type == JointType::kFloating) {
      const Eigen::AngleAxisd angle_axis(rotation_at(offset, t));
      result.segment<3>(offset) = angle_axis.angle() * angle_axis.axis();
      if (type == JointType::kFloating) {
        const int intervals = 32;
        Eigen::Vector3d integral = Eigen::Vector3d::Zero();
        for (int i = 0; i <= intervals; ++i) {
          const double weight = (i == 0 || i == intervals) ? 1.0 : (i % 2 ? 4.0 : 2.0);
          integral += weight * rotation_at(offset, t * i / intervals) * qd.segment<3>(offset + 3);
        }
        result.segment<3>(offset + 3) += t / (3.0 * intervals) * integral;
      }
    } else {
      result.segment(offset, tree.joint_dofs(k)) += t * qd.segment(offset, tree.joint_dofs(k));
    }
  }
  return result;
}

// A free-floating body on a floating joint, a pendulum hanging from it by a revolute joint, and
// the pendulum's tip closed to the world by a spherical loop at a random closed configuration.
inline Mechanism floating_closed_to_world(std::mt19937& rng, Eigen::VectorXd& q0) {
  Mechanism m;
  m.name = "floating_to_world";
  m.links = {random_link("body", rng), random_link("pendulum", rng)};
  Joint free;
  free.name = "free";
  free.type = JointType::kFloating;
  free.parent = -1;
  free.child = 0;
  m.joints.push_back(free);
  Joint hinge = revolute_joint("hinge", 0, 1, Eigen::Vector3d(0.3, 0.1, 0), rigid_random_unit(rng));
  m.joints.push_back(hinge);
  q0 = rigid_random_state(7, rng, 0.8);
  LoopClosure loop;
  loop.name = "anchor";
  loop.type = LoopType::kSpherical;
  loop.parent = -1;
  loop.child = 1;
  close_loop_at(m, loop, q0, rng);
  return m;
}

}  // namespace skograph::testing_support

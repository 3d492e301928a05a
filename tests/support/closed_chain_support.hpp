// Closed-chain mechanisms built in code and dense references for the closed-chain tests (test
// support): planar four-bars (terminal and internal cut) and chains of them, the carriage
// four-bar and the Stewart platform of examples/models (tests of rigid/ cannot read files), geared
// links, a chain closed to the world by each loop type, random trees with random loops closed at a
// random configuration, the full constraint matrix and a dense Lagrange-multiplier (DAE)
// forward-dynamics reference.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "rigid_support.hpp"
#include "skograph/rigid/closed_chain_model.hpp"

namespace skograph::testing_support {

// A frame at `position` turned by `yaw` about z.
inline Eigen::Isometry3d frame(const Eigen::Vector3d& position, double yaw = 0.0) {
  Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
  x.translate(position);
  x.rotate(Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()));
  return x;
}

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

inline int add_link(Mechanism& m, const Link& link) {
  m.links.push_back(link);
  return static_cast<int>(m.links.size()) - 1;
}

inline Joint make_joint(const std::string& name, JointType type, int parent, int child,
                        const Eigen::Isometry3d& origin,
                        const Eigen::Vector3d& axis = Eigen::Vector3d::UnitZ()) {
  Joint joint;
  joint.name = name;
  joint.type = type;
  joint.parent = parent;
  joint.child = child;
  joint.origin = origin;
  joint.axis = axis;
  return joint;
}

inline Joint revolute_joint(const std::string& name, int parent, int child,
                            const Eigen::Vector3d& position,
                            const Eigen::Vector3d& axis = Eigen::Vector3d::UnitZ()) {
  return make_joint(name, JointType::kRevolute, parent, child, frame(position), axis);
}

inline LoopClosure make_loop(const std::string& name, LoopType type, int parent, int child,
                             const Eigen::Isometry3d& parent_origin,
                             const Eigen::Isometry3d& child_origin,
                             const Eigen::Vector3d& axis = Eigen::Vector3d::UnitZ()) {
  LoopClosure loop;
  loop.name = name;
  loop.type = type;
  loop.parent = parent;
  loop.child = child;
  loop.parent_origin = parent_origin;
  loop.child_origin = child_origin;
  loop.axis = axis;
  return loop;
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
  if (!internal_cut) {
    m.joints.push_back(revolute_joint("j_rocker", 1, 2, Eigen::Vector3d(lengths.coupler, 0, 0)));
    m.loops.push_back(make_loop("close", LoopType::kRevolute, -1, 2,
                                frame(Eigen::Vector3d(lengths.ground, 0, 0)),
                                frame(Eigen::Vector3d(lengths.rocker, 0, 0))));
  } else {
    m.joints.push_back(revolute_joint("j_rocker", -1, 2, Eigen::Vector3d(lengths.ground, 0, 0)));
    m.loops.push_back(make_loop("close", LoopType::kRevolute, 1, 2,
                                frame(Eigen::Vector3d(lengths.coupler, 0, 0)),
                                frame(Eigen::Vector3d(lengths.rocker, 0, 0))));
  }
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
    m.loops.push_back(make_loop("close" + suffix, LoopType::kRevolute, coupler, rocker,
                                frame(Eigen::Vector3d(lengths.coupler, 0, 0)),
                                frame(Eigen::Vector3d(lengths.rocker, 0, 0))));
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

// The carriage four-bar of fourbar_internal_cut.yaml / fourbar_terminal_cut.yaml. Geometry: crank
// 0.1 m, coupler 0.4 m, rocker 0.3 m, ground pivots 0.35 m apart, crank at 90 degrees at q = 0;
// absolute link angles of the closed configuration.
inline constexpr double kCrankAngle = 1.5707963267948966;
inline constexpr double kCouplerAngle = 0.5235371968562865;
inline constexpr double kRockerAngle = 1.5827216874342542;

enum class Cut { kInternal, kTerminal };

// fourbar_internal_cut.yaml / fourbar_terminal_cut.yaml: a carriage sliding along world x carries
// the upright four-bar and a pendulum tool on the coupler. Dofs: slide, crank_joint,
// coupler_joint, tool_joint, rocker_joint.
inline Mechanism carriage_fourbar(Cut cut) {
  Mechanism m;
  m.name = cut == Cut::kInternal ? "fourbar_internal_cut" : "fourbar_terminal_cut";
  m.source = m.name + " (built in code)";
  Link carriage = rod_link("carriage", 0.35, 2.0);
  carriage.inertia = Eigen::Vector3d(0.01, 0.03, 0.03).asDiagonal();
  const int c = add_link(m, carriage);
  const int crank = add_link(m, rod_link("crank", 0.1, 0.3));
  const int coupler = add_link(m, rod_link("coupler", 0.4, 0.8));
  const int rocker = add_link(m, rod_link("rocker", 0.3, 0.6));
  const int tool = add_link(m, rod_link("tool", 0.2, 0.2));
  Eigen::Isometry3d upright = Eigen::Isometry3d::Identity();
  upright.translate(Eigen::Vector3d(0, 0, 1.0));
  upright.rotate(Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitX()));
  m.joints.push_back(
      make_joint("slide", JointType::kPrismatic, -1, c, upright, Eigen::Vector3d::UnitX()));
  m.joints.push_back(
      make_joint("crank_joint", JointType::kContinuous, c, crank, frame({0, 0, 0}, kCrankAngle)));
  m.joints.push_back(make_joint("coupler_joint", JointType::kContinuous, crank, coupler,
                                frame({0.1, 0, 0}, kCouplerAngle - kCrankAngle)));
  m.joints.push_back(make_joint("tool_joint", JointType::kContinuous, coupler, tool,
                                frame({0.2, 0, 0}, -M_PI / 2 - kCouplerAngle)));
  if (cut == Cut::kInternal) {
    m.joints.push_back(make_joint("rocker_joint", JointType::kContinuous, c, rocker,
                                  frame({0.35, 0, 0}, kRockerAngle)));
    m.loops.push_back(make_loop("pin_c", LoopType::kRevolute, coupler, rocker, frame({0.4, 0, 0}),
                                frame({0.3, 0, 0}, kCouplerAngle - kRockerAngle)));
  } else {
    // The rocker's frame at C, x towards D: same body, same center of mass and inertia.
    m.joints.push_back(make_joint("rocker_joint", JointType::kContinuous, coupler, rocker,
                                  frame({0.4, 0, 0}, kRockerAngle + M_PI - kCouplerAngle)));
    m.loops.push_back(make_loop("pivot_d", LoopType::kRevolute, c, rocker, frame({0.35, 0, 0}),
                                frame({0.3, 0, 0}, -(kRockerAngle + M_PI))));
  }
  return m;
}

// The Stewart platform of stewart_platform.yaml: six universal-prismatic legs, the platform on
// leg 1 by a spherical joint and closed to legs 2..6 by spherical loops; closed at q = 0. 21 tree
// dofs, 15 loop rows, 6 independent (the platform's).
inline Mechanism stewart_platform() {
  Mechanism m;
  m.name = "stewart_platform";
  m.source = "stewart_platform (built in code)";
  const double base_radius = 0.5, platform_radius = 0.3, height = 0.7;
  const double base_angles[6] = {-12, 12, 108, 132, 228, 252};
  const double platform_angles[6] = {-48, 48, 72, 168, 192, 288};
  Eigen::Vector3d base_point[6], platform_point[6];
  for (int i = 0; i < 6; ++i) {
    const double b = base_angles[i] * M_PI / 180, p = platform_angles[i] * M_PI / 180;
    base_point[i] = Eigen::Vector3d(base_radius * std::cos(b), base_radius * std::sin(b), 0);
    platform_point[i] =
        Eigen::Vector3d(platform_radius * std::cos(p), platform_radius * std::sin(p), height);
  }
  int upper[6];
  Eigen::Matrix3d leg_rotation[6];
  double length[6];
  for (int i = 0; i < 6; ++i) {
    const std::string n = std::to_string(i + 1);
    const Eigen::Vector3d leg = platform_point[i] - base_point[i];
    length[i] = leg.norm();
    const double half = 0.5 * length[i];
    Link cross;
    cross.name = "cross" + n;
    cross.mass = 0.1;
    cross.inertia = 2e-5 * Eigen::Matrix3d::Identity();
    const int cross_link = add_link(m, cross);
    Link lower, top;
    lower.name = "lower" + n;
    lower.mass = 1.5;
    lower.center_of_mass = Eigen::Vector3d(0, 0, 0.5 * half);
    const double transverse = 1.5 * half * half / 12;
    lower.inertia = Eigen::Vector3d(transverse + 2e-4, transverse + 2e-4, 4e-4).asDiagonal();
    top = lower;
    top.name = "upper" + n;
    top.mass = 1.0;
    top.inertia =
        Eigen::Vector3d(transverse / 1.5 + 1e-4, transverse / 1.5 + 1e-4, 2e-4).asDiagonal();
    const int lower_link = add_link(m, lower);
    upper[i] = add_link(m, top);
    // The leg frame: z along the leg (yaw, then pitch), as rpy [0, pitch, yaw] in the YAML.
    const Eigen::Vector3d u = leg / length[i];
    leg_rotation[i] = Eigen::AngleAxisd(std::atan2(u.y(), u.x()), Eigen::Vector3d::UnitZ()) *
                      Eigen::AngleAxisd(std::acos(u.z()), Eigen::Vector3d::UnitY());
    Eigen::Isometry3d origin = Eigen::Isometry3d::Identity();
    origin.translate(base_point[i]);
    origin.rotate(leg_rotation[i]);
    m.joints.push_back(make_joint("u" + n + "a", JointType::kRevolute, -1, cross_link, origin,
                                  Eigen::Vector3d::UnitX()));
    m.joints.push_back(make_joint("u" + n + "b", JointType::kRevolute, cross_link, lower_link,
                                  Eigen::Isometry3d::Identity(), Eigen::Vector3d::UnitY()));
    m.joints.push_back(
        make_joint("leg" + n, JointType::kPrismatic, lower_link, upper[i], frame({0, 0, half})));
  }
  Link platform;
  platform.name = "platform";
  platform.mass = 6.0;
  platform.center_of_mass = Eigen::Vector3d(-platform_point[0].x(), -platform_point[0].y(), 0);
  platform.inertia = Eigen::Vector3d(0.14, 0.14, 0.27).asDiagonal();
  const int platform_link = add_link(m, platform);
  Eigen::Isometry3d top = frame({0, 0, 0.5 * length[0]});
  top.rotate(leg_rotation[0].transpose());  // the platform's axes are the world's at q = 0
  m.joints.push_back(make_joint("top1", JointType::kSpherical, upper[0], platform_link, top));
  for (int i = 1; i < 6; ++i)
    m.loops.push_back(make_loop("top" + std::to_string(i + 1), LoopType::kSpherical, upper[i],
                                platform_link, frame({0, 0, 0.5 * length[i]}),
                                frame(platform_point[i] - platform_point[0])));
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

// The spanning tree's dense M(q) and C(q, qd) with gravity (RigidBodyModel), the references the
// closed-chain dynamics are held to.
struct TreeTerms {
  Eigen::MatrixXd mass;
  Eigen::VectorXd bias;
};
inline TreeTerms tree_terms(const ClosedChainModel& model, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& qd, const Eigen::Vector3d& gravity) {
  RigidBodyData data(model.tree());
  TreeTerms terms;
  terms.mass = mass_matrix(model.tree(), data, q);
  terms.bias = bias_forces(model.tree(), data, q, qd, gravity);
  return terms;
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
// squares sense (redundant rows make lambda non-unique; qdd is unique): [qdd; lambda] with the
// least-norm lambda (the KKT matrix's null space is {0} x null(Q*)).
inline Eigen::VectorXd dae_solution(const Eigen::MatrixXd& mass, const Eigen::VectorXd& bias,
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
  return solver.solve(rhs);
}

inline Eigen::VectorXd dae_accelerations(const Eigen::MatrixXd& mass, const Eigen::VectorXd& bias,
                                         const Eigen::VectorXd& tau, const Eigen::MatrixXd& q,
                                         const Eigen::VectorXd& velocity_product) {
  return dae_solution(mass, bias, tau, q, velocity_product).head(mass.rows());
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

// A closed state (q, qd) of a test mechanism with its model.
struct ClosedCase {
  std::string name;
  Mechanism mechanism;
  Eigen::VectorXd q, qd;
};

// The closed-chain cases of the dynamics tests: four-bars (both cuts, a chain of four), the
// Stewart platform, geared links (siblings and serial), a floating body closed to the world, a
// chain closed to the world by each loop type and random trees with random loops; each at a
// closed q with a random closed qd.
inline std::vector<ClosedCase> closed_cases() {
  std::vector<ClosedCase> cases;
  std::mt19937 rng(7);
  for (const bool internal : {false, true})
    cases.push_back({internal ? "four_bar_internal" : "four_bar_terminal", four_bar(internal),
                     four_bar_configuration(internal, 0.7), Eigen::VectorXd()});
  {
    const Eigen::VectorXd one = four_bar_configuration(true, 0.7);
    cases.push_back({"four_bar_chain", four_bar_chain(4), one.replicate(4, 1), Eigen::VectorXd()});
  }
  cases.push_back({"stewart", stewart_platform(), Eigen::VectorXd::Zero(21), Eigen::VectorXd()});
  for (const bool serial : {false, true}) {
    Eigen::VectorXd q(3);
    q << 0.3, 5 * 0.4, 0.4;
    cases.push_back(
        {serial ? "geared_serial" : "geared", geared_links(5.0, serial), q, Eigen::VectorXd()});
  }
  {
    Eigen::VectorXd q0;
    Mechanism m = floating_closed_to_world(rng, q0);
    cases.push_back({"floating_to_world", m, q0, Eigen::VectorXd()});
  }
  for (const LoopType type :
       {LoopType::kRevolute, LoopType::kPrismatic, LoopType::kSpherical, LoopType::kWeld}) {
    Eigen::VectorXd q0;
    Mechanism m = chain_closed_to_world(type, rng, q0);
    cases.push_back({m.loops[0].name, m, q0, Eigen::VectorXd()});
  }
  for (int trial = 0; trial < 4; ++trial) {
    Eigen::VectorXd q0;
    Mechanism m = random_closed_mechanism(12 + 2 * trial, 1 + trial % 3, rng, q0);
    cases.push_back({"random" + std::to_string(trial), m, q0, Eigen::VectorXd()});
  }
  for (ClosedCase& c : cases) {
    const ClosedChainModel model(c.mechanism);
    ClosedChainData data(model);
    c.qd = rigid_random_state(model.dof_count(), rng, 1.0);
    close_velocities(model, data, c.q, c.qd);
  }
  return cases;
}

}  // namespace skograph::testing_support

// Closed-chain mechanisms built in code with the geometry of examples/models (tests of rigid/
// cannot read files): the carriage four-bar of fourbar_internal_cut.yaml /
// fourbar_terminal_cut.yaml and the Stewart platform of stewart_platform.yaml. Each closes at
// q = 0. (tests/support/closed_chain_support.hpp has the bare four-bars, chains of them and
// random closed mechanisms.)
#pragma once

#include <Eigen/Geometry>
#include <cmath>
#include <string>

#include "rigid/mechanism.hpp"

namespace skograph::closed_chain_test {

// Four-bar geometry: crank 0.1 m, coupler 0.4 m, rocker 0.3 m, ground pivots 0.35 m apart, crank
// at 90 degrees at q = 0; absolute link angles of the closed configuration.
inline constexpr double kCrankAngle = 1.5707963267948966;
inline constexpr double kCouplerAngle = 0.5235371968562865;
inline constexpr double kRockerAngle = 1.5827216874342542;

inline Eigen::Isometry3d frame(const Eigen::Vector3d& position, double yaw = 0.0) {
  Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
  x.translate(position);
  x.rotate(Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()));
  return x;
}

inline Link rod(const std::string& name, double mass, double length) {
  Link link;
  link.name = name;
  link.mass = mass;
  link.center_of_mass = Eigen::Vector3d(0.5 * length, 0.0, 0.0);
  const double transverse = mass * length * length / 12.0;
  link.inertia = Eigen::Vector3d(1e-5, transverse, transverse).asDiagonal();
  return link;
}

inline int add_link(Mechanism& m, const Link& link) {
  m.links.push_back(link);
  return static_cast<int>(m.links.size()) - 1;
}

inline void add_joint(Mechanism& m, const std::string& name, JointType type, int parent, int child,
                      const Eigen::Isometry3d& origin,
                      const Eigen::Vector3d& axis = Eigen::Vector3d::UnitZ()) {
  Joint joint;
  joint.name = name;
  joint.type = type;
  joint.parent = parent;
  joint.child = child;
  joint.origin = origin;
  joint.axis = axis;
  m.joints.push_back(joint);
}

inline void add_loop(Mechanism& m, const std::string& name, LoopType type, int parent, int child,
                     const Eigen::Isometry3d& parent_origin,
                     const Eigen::Isometry3d& child_origin) {
  LoopClosure loop;
  loop.name = name;
  loop.type = type;
  loop.parent = parent;
  loop.child = child;
  loop.parent_origin = parent_origin;
  loop.child_origin = child_origin;
  loop.axis = Eigen::Vector3d::UnitZ();
  m.loops.push_back(loop);
}

enum class Cut { kInternal, kTerminal };

// fourbar_internal_cut.yaml / fourbar_terminal_cut.yaml: a carriage sliding along world x carries
// the upright four-bar and a pendulum tool on the coupler. Dofs: slide, crank_joint,
// coupler_joint, tool_joint, rocker_joint.
inline Mechanism carriage_fourbar(Cut cut) {
  Mechanism m;
  m.name = cut == Cut::kInternal ? "fourbar_internal_cut" : "fourbar_terminal_cut";
  m.source = m.name + " (built in code)";
  Link carriage = rod("carriage", 2.0, 0.35);
  carriage.inertia = Eigen::Vector3d(0.01, 0.03, 0.03).asDiagonal();
  const int c = add_link(m, carriage);
  const int crank = add_link(m, rod("crank", 0.3, 0.1));
  const int coupler = add_link(m, rod("coupler", 0.8, 0.4));
  const int rocker = add_link(m, rod("rocker", 0.6, 0.3));
  const int tool = add_link(m, rod("tool", 0.2, 0.2));
  Eigen::Isometry3d upright = Eigen::Isometry3d::Identity();
  upright.translate(Eigen::Vector3d(0, 0, 1.0));
  upright.rotate(Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitX()));
  add_joint(m, "slide", JointType::kPrismatic, -1, c, upright, Eigen::Vector3d::UnitX());
  add_joint(m, "crank_joint", JointType::kContinuous, c, crank, frame({0, 0, 0}, kCrankAngle));
  add_joint(m, "coupler_joint", JointType::kContinuous, crank, coupler,
            frame({0.1, 0, 0}, kCouplerAngle - kCrankAngle));
  add_joint(m, "tool_joint", JointType::kContinuous, coupler, tool,
            frame({0.2, 0, 0}, -M_PI / 2 - kCouplerAngle));
  if (cut == Cut::kInternal) {
    add_joint(m, "rocker_joint", JointType::kContinuous, c, rocker,
              frame({0.35, 0, 0}, kRockerAngle));
    add_loop(m, "pin_c", LoopType::kRevolute, coupler, rocker, frame({0.4, 0, 0}),
             frame({0.3, 0, 0}, kCouplerAngle - kRockerAngle));
  } else {
    // The rocker's frame at C, x towards D: same body, same center of mass and inertia.
    add_joint(m, "rocker_joint", JointType::kContinuous, coupler, rocker,
              frame({0.4, 0, 0}, kRockerAngle + M_PI - kCouplerAngle));
    add_loop(m, "pivot_d", LoopType::kRevolute, c, rocker, frame({0.35, 0, 0}),
             frame({0.3, 0, 0}, -(kRockerAngle + M_PI)));
  }
  return m;
}

// stewart_platform.yaml: six universal-prismatic legs, the platform on leg 1 by a spherical
// joint and closed to legs 2..6 by spherical loops. 21 dofs, 6 independent.
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
    add_joint(m, "u" + n + "a", JointType::kRevolute, -1, cross_link, origin,
              Eigen::Vector3d::UnitX());
    add_joint(m, "u" + n + "b", JointType::kRevolute, cross_link, lower_link,
              Eigen::Isometry3d::Identity(), Eigen::Vector3d::UnitY());
    add_joint(m, "leg" + n, JointType::kPrismatic, lower_link, upper[i], frame({0, 0, half}));
  }
  Link platform;
  platform.name = "platform";
  platform.mass = 6.0;
  platform.center_of_mass = Eigen::Vector3d(-platform_point[0].x(), -platform_point[0].y(), 0);
  platform.inertia = Eigen::Vector3d(0.14, 0.14, 0.27).asDiagonal();
  const int platform_link = add_link(m, platform);
  Eigen::Isometry3d top = frame({0, 0, 0.5 * length[0]});
  top.rotate(leg_rotation[0].transpose());  // the platform's axes are the world's at q = 0
  add_joint(m, "top1", JointType::kSpherical, upper[0], platform_link, top);
  for (int i = 1; i < 6; ++i)
    add_loop(m, "top" + std::to_string(i + 1), LoopType::kSpherical, upper[i], platform_link,
             frame({0, 0, 0.5 * length[i]}), frame(platform_point[i] - platform_point[0]));
  return m;
}

}  // namespace skograph::closed_chain_test

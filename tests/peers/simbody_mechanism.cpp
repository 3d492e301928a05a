// Simbody side of the peer test (tests/peers/simbody_mechanism.hpp): Pin and Slider mobilizers
// for revolute and prismatic joints (F and M rotated so that the axis is their z or x), Weld and
// Ball constraints for the loops, coordinate couplers for the gears; accelerations at Stage
// Acceleration with the joint forces as mobility forces.
#include "peers/simbody_mechanism.hpp"

#include <Simbody.h>

#include <cmath>

namespace peer {

namespace {

SimTK::Vec3 vec(const Vec3& v) {
  return {v[0], v[1], v[2]};
}
SimTK::Rotation rotation(const Mat33& r) {
  SimTK::Mat33 m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = r[static_cast<std::size_t>(3 * i + j)];
  return SimTK::Rotation(m, true);
}
SimTK::Transform transform(const Pose& pose) {
  return {rotation(pose.rotation), vec(pose.translation)};
}
// The smallest rotation taking the unit vector `from` to `axis` (Rodrigues).
SimTK::Rotation taking(const SimTK::Vec3& from, const Vec3& axis) {
  const SimTK::Vec3 f = from.normalize(), t = vec(axis).normalize();
  const SimTK::Vec3 c = f % t;
  const double s = c.norm(), d = ~f * t;
  if (s < 1e-12) {
    if (d > 0) return SimTK::Rotation();
    const SimTK::Vec3 p = std::abs(f[0]) < 0.9 ? SimTK::Vec3(1, 0, 0) : SimTK::Vec3(0, 1, 0);
    return SimTK::Rotation(SimTK::Pi, SimTK::UnitVec3(f % p));
  }
  return SimTK::Rotation(std::atan2(s, d), SimTK::UnitVec3(c / s));
}

}  // namespace

std::vector<double> simbody_accelerations(const Mechanism& mechanism, const std::vector<double>& q,
                                          const std::vector<double>& qd,
                                          const std::vector<double>& tau, const Vec3& gravity) {
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter(system);
  SimTK::GeneralForceSubsystem forces(system);
  SimTK::Force::UniformGravity(forces, matter, vec(gravity), 0);
  SimTK::Force::DiscreteForces applied(forces, matter);
  std::vector<SimTK::MobilizedBody> bodies;
  auto body_of = [&](int index) -> SimTK::MobilizedBody& {
    return index < 0 ? matter.updGround() : bodies[static_cast<std::size_t>(index)];
  };
  for (const Body& body : mechanism.bodies) {
    SimTK::Mat33 inertia;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) inertia(i, j) = body.inertia[static_cast<std::size_t>(3 * i + j)];
    const SimTK::Vec3 com = vec(body.com);
    const SimTK::Inertia about_com(inertia);
    const SimTK::MassProperties mass(body.mass, com,
                                     about_com.shiftFromMassCenter(-com, body.mass));
    const SimTK::Body::Rigid rigid(mass);
    SimTK::MobilizedBody& parent = body_of(body.parent);
    const SimTK::Transform origin = transform(body.origin);
    if (body.kind == Body::Kind::kFixed) {
      bodies.push_back(SimTK::MobilizedBody::Weld(parent, origin, rigid, SimTK::Transform()));
      continue;
    }
    // Pin turns about the common z of F and M, Slider moves along their common x.
    const bool pin = body.kind == Body::Kind::kRevolute;
    const SimTK::Rotation align =
        taking(pin ? SimTK::Vec3(0, 0, 1) : SimTK::Vec3(1, 0, 0), body.axis);
    const SimTK::Transform f(origin.R() * align, origin.p());
    const SimTK::Transform m(align, SimTK::Vec3(0));
    if (pin)
      bodies.push_back(SimTK::MobilizedBody::Pin(parent, f, rigid, m));
    else
      bodies.push_back(SimTK::MobilizedBody::Slider(parent, f, rigid, m));
  }
  for (const Loop& loop : mechanism.loops) {
    if (loop.weld)
      SimTK::Constraint::Weld(body_of(loop.parent), transform(loop.parent_frame),
                              body_of(loop.child), transform(loop.child_frame));
    else
      SimTK::Constraint::Ball(body_of(loop.parent), vec(loop.parent_frame.translation),
                              body_of(loop.child), vec(loop.child_frame.translation));
  }
  std::vector<int> body_of_dof(static_cast<std::size_t>(mechanism.dofs), -1);
  for (std::size_t b = 0; b < mechanism.bodies.size(); ++b)
    if (mechanism.bodies[b].dof >= 0)
      body_of_dof[static_cast<std::size_t>(mechanism.bodies[b].dof)] = static_cast<int>(b);
  for (const Gear& gear : mechanism.gears) {  // q_a - ratio q_b - offset = 0
    SimTK::Vector coefficients(3);
    coefficients[0] = 1.0;
    coefficients[1] = -gear.ratio;
    coefficients[2] = -gear.offset;
    SimTK::Array_<SimTK::MobilizedBodyIndex> owners;
    owners.push_back(
        bodies[static_cast<std::size_t>(body_of_dof[static_cast<std::size_t>(gear.dof_a)])]
            .getMobilizedBodyIndex());
    owners.push_back(
        bodies[static_cast<std::size_t>(body_of_dof[static_cast<std::size_t>(gear.dof_b)])]
            .getMobilizedBodyIndex());
    SimTK::Array_<SimTK::MobilizerQIndex> which(2, SimTK::MobilizerQIndex(0));
    SimTK::Constraint::CoordinateCoupler(matter, new SimTK::Function::Linear(coefficients), owners,
                                         which);
  }
  SimTK::State state = system.realizeTopology();
  for (std::size_t b = 0; b < mechanism.bodies.size(); ++b) {
    const int dof = mechanism.bodies[b].dof;
    if (dof < 0) continue;
    bodies[b].setOneQ(state, 0, q[static_cast<std::size_t>(dof)]);
    bodies[b].setOneU(state, 0, qd[static_cast<std::size_t>(dof)]);
  }
  system.realize(state, SimTK::Stage::Dynamics);
  for (std::size_t b = 0; b < mechanism.bodies.size(); ++b) {
    const int dof = mechanism.bodies[b].dof;
    if (dof >= 0)
      applied.setOneMobilityForce(state, bodies[b], SimTK::MobilizerUIndex(0),
                                  tau[static_cast<std::size_t>(dof)]);
  }
  system.realize(state, SimTK::Stage::Acceleration);
  std::vector<double> qdd(static_cast<std::size_t>(mechanism.dofs), 0.0);
  for (std::size_t b = 0; b < mechanism.bodies.size(); ++b) {
    const int dof = mechanism.bodies[b].dof;
    if (dof >= 0) qdd[static_cast<std::size_t>(dof)] = bodies[b].getOneUDot(state, 0);
  }
  return qdd;
}

}  // namespace peer

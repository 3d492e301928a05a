// A closed-chain mechanism handed to Simbody in plain terms (for the peer test): this
// header has no skograph or Simbody type, so that simbody_mechanism.cpp compiles as C++17 (Simbody
// 3.7's headers have comparisons C++20 finds ambiguous) and the test as C++20.
#pragma once

#include <array>
#include <vector>

namespace peer {

using Vec3 = std::array<double, 3>;
using Mat33 = std::array<double, 9>;  // row-major

struct Pose {
  Mat33 rotation{1, 0, 0, 0, 1, 0, 0, 0, 1};
  Vec3 translation{0, 0, 0};
};

struct Body {
  int parent = -1;  // index of the parent body, -1 for the ground
  enum class Kind { kRevolute, kPrismatic, kFixed } kind = Kind::kRevolute;
  Pose origin;         // joint frame in the parent body's frame
  Vec3 axis{0, 0, 1};  // unit, in the joint frame
  double mass = 0.0;
  Vec3 com{0, 0, 0};  // in the body frame
  Mat33 inertia{};    // about the center of mass, body axes
  int dof = -1;       // index into q, qd, tau, qdd (-1 for fixed)
};

struct Loop {
  int parent = -1, child = -1;  // bodies, -1 for the ground
  Pose parent_frame, child_frame;
  bool weld = true;  // false: the frames' origins coincide (a ball)
};

struct Gear {  // q[a] = ratio q[b] + offset
  int dof_a = -1, dof_b = -1;
  double ratio = 1.0, offset = 0.0;
};

struct Mechanism {
  std::vector<Body> bodies;  // parents before children
  std::vector<Loop> loops;
  std::vector<Gear> gears;
  int dofs = 0;
};

// Simbody's accelerations of the mechanism at (q, qd) under the joint forces tau and gravity.
std::vector<double> simbody_accelerations(const Mechanism& mechanism, const std::vector<double>& q,
                                          const std::vector<double>& qd,
                                          const std::vector<double>& tau, const Vec3& gravity);

}  // namespace peer

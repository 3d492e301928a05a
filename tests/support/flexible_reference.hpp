// A dense reference for trees of flexible bodies, written from the definitions (test support).
//
// Each body's kinetic energy is T = 1/2 nu* M_fl nu with nu = [V; etadot] (V its link frame's
// spatial velocity [omega; v] in link axes) and M_fl = [[spatial inertia, coupling], [coupling*,
// modal mass]] (docs/flexible-bodies.md). A node on a body moves with the body's modes: the
// joint frame of a child at the node is translated by Pi_t eta and turned by the rotation vector
// Pi_r eta, both in the parent's link axes. The poses are composed as plain matrix products in a
// number type that carries two independent first derivatives and their mixed second derivative,
// so nu = J(q) qd and Jdot qd come exactly (to rounding) from the poses alone: no recursion of
// velocities, no operator of the code under test. Then
//   M(q)    = sum_k J_k* M_fl(k) J_k
//   C(q,qd) = sum_k J_k* (M_fl(k) Jdot_k qd + [V_k x* h_k; 0] - w_k) + K eta + D etadot
// with h_k the rigid rows of M_fl(k) nu_k (Lagrange's equations in the body-frame quasi-velocities:
// T does not depend on eta when M_fl is constant, so the modal rows have no dT/deta term) and w_k
// gravity's wrench on the body, -dU/d(pose) for U = -g . (m p + R (m c + coupling_t eta)): the
// deformed body's first moment of mass, so that gravity has a potential and energy is conserved.
// (Gravity as the base's acceleration -g, M_fl [0; -R* g; 0], would leave out the torque of
// coupling_t eta, a force without a potential; without modes the two are the same.)
//
// Coordinates, body by body in the order given: the body's joint (revolute or prismatic: 1;
// fixed: 0; floating, only on a body whose parent is the world: q = [rotation vector; position],
// qd = [omega; v] of the body in its own axes) then its modal coordinates.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace skograph::flexible_reference {

// x + a e1 + b e2 + c e1 e2 with e1^2 = e2^2 = 0: a the derivative along e1, b along e2, c the
// mixed second derivative.
struct Hyper {
  double x = 0, a = 0, b = 0, c = 0;
  Hyper() = default;
  Hyper(double value) : x(value) {}  // NOLINT: constants mix in implicitly
  Hyper(double value, double e1, double e2, double e12) : x(value), a(e1), b(e2), c(e12) {}
  Hyper& operator+=(const Hyper& o) { return *this = *this + o; }
  Hyper& operator-=(const Hyper& o) { return *this = *this - o; }
  Hyper& operator*=(const Hyper& o) { return *this = *this * o; }
  Hyper& operator/=(const Hyper& o) { return *this = *this / o; }
  friend Hyper operator+(const Hyper& p, const Hyper& q) {
    return {p.x + q.x, p.a + q.a, p.b + q.b, p.c + q.c};
  }
  friend Hyper operator-(const Hyper& p, const Hyper& q) {
    return {p.x - q.x, p.a - q.a, p.b - q.b, p.c - q.c};
  }
  friend Hyper operator-(const Hyper& p) { return {-p.x, -p.a, -p.b, -p.c}; }
  friend Hyper operator*(const Hyper& p, const Hyper& q) {
    return {p.x * q.x, p.a * q.x + p.x * q.a, p.b * q.x + p.x * q.b,
            p.c * q.x + p.a * q.b + p.b * q.a + p.x * q.c};
  }
  friend Hyper operator/(const Hyper& p, const Hyper& q) {
    const double inverse = 1.0 / q.x;
    const Hyper reciprocal{inverse, -q.a * inverse * inverse, -q.b * inverse * inverse,
                           (2.0 * q.a * q.b * inverse - q.c) * inverse * inverse};
    return p * reciprocal;
  }
  friend bool operator==(const Hyper& p, const Hyper& q) {
    return p.x == q.x && p.a == q.a && p.b == q.b && p.c == q.c;
  }
  friend bool operator!=(const Hyper& p, const Hyper& q) { return !(p == q); }
  friend bool operator<(const Hyper& p, const Hyper& q) { return p.x < q.x; }
};

inline Hyper sin(const Hyper& p) {
  const double s = std::sin(p.x), c = std::cos(p.x);
  return {s, c * p.a, c * p.b, c * p.c - s * p.a * p.b};
}
inline Hyper cos(const Hyper& p) {
  const double s = std::sin(p.x), c = std::cos(p.x);
  return {c, -s * p.a, -s * p.b, -s * p.c - c * p.a * p.b};
}
inline Hyper abs(const Hyper& p) {
  return p.x < 0 ? -p : p;
}

}  // namespace skograph::flexible_reference

namespace Eigen {
template <>
struct NumTraits<skograph::flexible_reference::Hyper> : GenericNumTraits<double> {
  using Real = skograph::flexible_reference::Hyper;
  using NonInteger = skograph::flexible_reference::Hyper;
  using Nested = skograph::flexible_reference::Hyper;
  using Literal = double;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 1 };
  enum { ReadCost = 4, AddCost = 4, MulCost = 10 };
};
}  // namespace Eigen

namespace skograph::flexible_reference {

// max |a - b| over max(1, max |b|): the comparisons of the flexible tests.
inline double max_relative_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

using Vector3h = Eigen::Matrix<Hyper, 3, 1>;
using Matrix3h = Eigen::Matrix<Hyper, 3, 3>;

inline Matrix3h skew(const Vector3h& w) {
  Matrix3h s;
  s << Hyper(0), -w.z(), w.y(), w.z(), Hyper(0), -w.x(), -w.y(), w.x(), Hyper(0);
  return s;
}

// exp([r]) by its series after scaling by 2^-s and squaring s times: only products and sums, so
// it is exact in Hyper at r = 0 too (Rodrigues' formula divides by |r|).
inline Matrix3h rotation_exp(const Vector3h& r) {
  const double size = std::sqrt(r.x().x * r.x().x + r.y().x * r.y().x + r.z().x * r.z().x);
  int halvings = 0;
  while (size / std::ldexp(1.0, halvings) > 0.125) ++halvings;
  const Matrix3h a = skew(r) * Hyper(std::ldexp(1.0, -halvings));
  Matrix3h sum = Matrix3h::Identity(), term = Matrix3h::Identity();
  for (int n = 1; n <= 16; ++n) {
    term = (term * a) * Hyper(1.0 / n);
    sum += term;
  }
  for (int i = 0; i < halvings; ++i) sum = sum * sum;
  return sum;
}

struct Body {
  enum class Joint { kFixed, kRevolute, kPrismatic, kFloating };
  int parent = -1;  // an earlier body, or -1: the world
  Joint joint = Joint::kRevolute;
  Eigen::Isometry3d origin =
      Eigen::Isometry3d::Identity();                // joint frame in the parent, undeformed
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  // unit, joint frame
  // The parent's influence at this joint's node: 6 x (the parent's modes), [rotation; translation]
  // per unit modal coordinate in the parent's link axes (empty: the parent has no modes).
  Eigen::MatrixXd attachment;
  double mass = 1.0;
  Eigen::Vector3d center_of_mass = Eigen::Vector3d::Zero();
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Identity();     // about the centre of mass, link axes
  Eigen::MatrixXd coupling, modal_mass, stiffness, damping;  // 6 x nmd, nmd x nmd (nmd may be 0)

  int modes() const { return static_cast<int>(modal_mass.rows()); }
  int joint_dofs() const { return joint == Joint::kFixed ? 0 : joint == Joint::kFloating ? 6 : 1; }
  // [[m 1 ... ]] about the link origin, [angular; linear] rows, then the modal rows.
  Eigen::MatrixXd mass_matrix() const {
    const int n = 6 + modes();
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
    Eigen::Matrix3d c;
    c << 0, -center_of_mass.z(), center_of_mass.y(), center_of_mass.z(), 0, -center_of_mass.x(),
        -center_of_mass.y(), center_of_mass.x(), 0;
    m.topLeftCorner<3, 3>() = inertia - mass * c * c;
    m.block<3, 3>(0, 3) = mass * c;
    m.block<3, 3>(3, 0) = -mass * c;
    m.block<3, 3>(3, 3) = mass * Eigen::Matrix3d::Identity();
    if (modes() > 0) {
      m.topRightCorner(6, modes()) = coupling;
      m.bottomLeftCorner(modes(), 6) = coupling.transpose();
      m.bottomRightCorner(modes(), modes()) = modal_mass;
    }
    return m;
  }
};

class Tree {
 public:
  explicit Tree(std::vector<Body> bodies) : bodies_(std::move(bodies)) {
    int offset = 0;
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
      const Body& body = bodies_[k];
      if (body.parent >= static_cast<int>(k)) throw std::invalid_argument("parents come first");
      if (body.joint == Body::Joint::kFloating && body.parent != -1)
        throw std::invalid_argument("a floating joint hangs from the world");
      const int parent_modes = body.parent < 0 ? 0 : bodies_[body.parent].modes();
      if (parent_modes > 0 &&
          (body.attachment.rows() != 6 || body.attachment.cols() != parent_modes))
        throw std::invalid_argument("the attachment is 6 x the parent's modes");
      offset_.push_back(offset);
      offset += body.joint_dofs() + body.modes();
    }
    dofs_ = offset;
  }
  int dofs() const { return dofs_; }
  int offset(int body) const { return offset_[body]; }
  const std::vector<Body>& bodies() const { return bodies_; }

  // The poses X_world_link of every body in Hyper numbers along the curve
  // q + e1 u + e2 w (u, w: rates qd), floating joints moved by exp of their body-frame rates.
  void poses(const Eigen::VectorXd& q, const Eigen::VectorXd& u, const Eigen::VectorXd& w,
             std::vector<Matrix3h>& rotation, std::vector<Vector3h>& position) const {
    rotation.assign(bodies_.size(), Matrix3h::Identity());
    position.assign(bodies_.size(), Vector3h::Zero());
    const auto coordinate = [&](int i) { return Hyper(q[i], u[i], w[i], 0.0); };
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
      const Body& body = bodies_[k];
      const int o = offset_[k];
      Matrix3h r_joint = body.origin.linear().cast<Hyper>();
      Vector3h p_joint = body.origin.translation().cast<Hyper>();
      if (body.parent >= 0 && bodies_[body.parent].modes() > 0) {
        const Body& parent = bodies_[body.parent];
        const int first = offset_[body.parent] + parent.joint_dofs();
        Vector3h turn = Vector3h::Zero(), shift = Vector3h::Zero();
        for (int m = 0; m < parent.modes(); ++m) {
          const Hyper eta = coordinate(first + m);
          for (int i = 0; i < 3; ++i) {
            turn[i] += Hyper(body.attachment(i, m)) * eta;
            shift[i] += Hyper(body.attachment(3 + i, m)) * eta;
          }
        }
        r_joint = rotation_exp(turn) * r_joint;
        p_joint += shift;
      }
      const Vector3h axis = body.axis.cast<Hyper>();
      Matrix3h r_motion = Matrix3h::Identity();
      Vector3h p_motion = Vector3h::Zero();
      switch (body.joint) {
        case Body::Joint::kFixed:
          break;
        case Body::Joint::kRevolute:
          r_motion = rotation_exp(axis * coordinate(o));
          break;
        case Body::Joint::kPrismatic:
          p_motion = axis * coordinate(o);
          break;
        case Body::Joint::kFloating: {
          // R = exp(q_r) exp([omega] s), p = q_p + exp(q_r) exp([omega] t) v s along e1 (s) and
          // the same with e2 (t): body-frame rates [omega; v] on both directions.
          const Eigen::Matrix3d start =
              rotation_exp(q.segment<3>(o).cast<Hyper>()).unaryExpr([](const Hyper& h) {
                return h.x;
              });
          Vector3h turn, along_u, along_w;
          for (int i = 0; i < 3; ++i) {
            turn[i] = Hyper(0.0, u[o + i], w[o + i], 0.0);
            along_u[i] = Hyper(0.0, u[o + 3 + i], 0.0, 0.0);
            along_w[i] = Hyper(0.0, 0.0, w[o + 3 + i], 0.0);
          }
          Vector3h turn_w;
          for (int i = 0; i < 3; ++i) turn_w[i] = Hyper(0.0, 0.0, w[o + i], 0.0);
          const Matrix3h start_h = start.cast<Hyper>();
          r_motion = start_h * rotation_exp(turn);
          p_motion = q.segment<3>(o + 3).cast<Hyper>() + start_h * along_w +
                     start_h * rotation_exp(turn_w) * along_u;
          break;
        }
      }
      const Matrix3h r_local = r_joint * r_motion;
      const Vector3h p_local = p_joint + r_joint * p_motion;
      if (body.parent < 0) {
        rotation[k] = r_local;
        position[k] = p_local;
      } else {
        rotation[k] = rotation[body.parent] * r_local;
        position[k] = position[body.parent] + rotation[body.parent] * p_local;
      }
    }
  }

  // Per body nu = J qd along e1 (value part) and its derivative along e2 (the e2 part):
  // [omega; v] = [vee(R* dR/ds); R* dp/ds], then the modal rates.
  void body_velocities(const Eigen::VectorXd& q, const Eigen::VectorXd& u, const Eigen::VectorXd& w,
                       std::vector<Eigen::VectorXd>& velocity,
                       std::vector<Eigen::VectorXd>& velocity_rate) const {
    std::vector<Matrix3h> rotation;
    std::vector<Vector3h> position;
    poses(q, u, w, rotation, position);
    velocity.clear();
    velocity_rate.clear();
    const auto along_e1 = [](const Hyper& h) { return Hyper(h.a, h.c, 0.0, 0.0); };
    const auto at_s0 = [](const Hyper& h) { return Hyper(h.x, h.b, 0.0, 0.0); };
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
      const Matrix3h r = rotation[k].unaryExpr(at_s0);
      const Matrix3h spin = r.transpose() * rotation[k].unaryExpr(along_e1);
      const Vector3h linear = r.transpose() * position[k].unaryExpr(along_e1);
      const int modes = bodies_[k].modes();
      Eigen::VectorXd nu(6 + modes), nu_rate = Eigen::VectorXd::Zero(6 + modes);
      const Hyper omega[3] = {spin(2, 1), spin(0, 2), spin(1, 0)};
      for (int i = 0; i < 3; ++i) {
        nu[i] = omega[i].x;
        nu_rate[i] = omega[i].a;
        nu[3 + i] = linear[i].x;
        nu_rate[3 + i] = linear[i].a;
      }
      const int first = offset_[k] + bodies_[k].joint_dofs();
      for (int m = 0; m < modes; ++m) nu[6 + m] = u[first + m];
      velocity.push_back(nu);
      velocity_rate.push_back(nu_rate);
    }
  }

  // The link rotations at q (world axes).
  std::vector<Eigen::Matrix3d> rotations(const Eigen::VectorXd& q) const {
    std::vector<Matrix3h> rotation;
    std::vector<Vector3h> position;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(dofs_);
    poses(q, zero, zero, rotation, position);
    std::vector<Eigen::Matrix3d> out;
    for (const Matrix3h& r : rotation)
      out.push_back(r.unaryExpr([](const Hyper& h) { return h.x; }));
    return out;
  }

  Eigen::MatrixXd mass_matrix(const Eigen::VectorXd& q) const {
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(dofs_);
    std::vector<Eigen::MatrixXd> jacobian(bodies_.size());
    for (std::size_t k = 0; k < bodies_.size(); ++k)
      jacobian[k] = Eigen::MatrixXd::Zero(6 + bodies_[k].modes(), dofs_);
    std::vector<Eigen::VectorXd> velocity, rate;
    for (int i = 0; i < dofs_; ++i) {
      body_velocities(q, Eigen::VectorXd::Unit(dofs_, i), zero, velocity, rate);
      for (std::size_t k = 0; k < bodies_.size(); ++k) jacobian[k].col(i) = velocity[k];
    }
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(dofs_, dofs_);
    for (std::size_t k = 0; k < bodies_.size(); ++k)
      m += jacobian[k].transpose() * bodies_[k].mass_matrix() * jacobian[k];
    return m;
  }

  // C(q, qd) with gravity g, as in the header comment.
  Eigen::VectorXd bias_forces(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                              const Eigen::Vector3d& gravity) const {
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(dofs_);
    std::vector<Eigen::VectorXd> velocity, rate;
    body_velocities(q, qd, qd, velocity, rate);
    const std::vector<Eigen::Matrix3d> rotation = rotations(q);
    Eigen::VectorXd force = Eigen::VectorXd::Zero(dofs_);
    std::vector<Eigen::VectorXd> column_velocity, column_rate;
    std::vector<Eigen::VectorXd> body_force(bodies_.size());
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
      const Body& body = bodies_[k];
      const Eigen::MatrixXd inertia = body.mass_matrix();
      const Eigen::VectorXd momentum = inertia * velocity[k];
      const Eigen::Vector3d omega = velocity[k].head<3>(), v = velocity[k].segment<3>(3);
      const Eigen::Vector3d angular = momentum.head<3>(), linear = momentum.segment<3>(3);
      body_force[k] = inertia * rate[k];
      body_force[k].head<3>() += omega.cross(angular) + v.cross(linear);
      body_force[k].segment<3>(3) += omega.cross(linear);
      // Gravity's wrench on the body, -dU/d(pose): [s x a; m a; coupling_t* a] with a = R* g in
      // link axes and s = m c + coupling_t eta the deformed body's first moment of mass.
      const Eigen::Vector3d a = rotation[k].transpose() * gravity;
      Eigen::Vector3d moment = body.mass * body.center_of_mass;
      if (body.modes() > 0) {
        moment +=
            body.coupling.bottomRows<3>() * q.segment(offset_[k] + body.joint_dofs(), body.modes());
        body_force[k].tail(body.modes()) -= body.coupling.bottomRows<3>().transpose() * a;
      }
      body_force[k].head<3>() -= moment.cross(a);
      body_force[k].segment<3>(3) -= body.mass * a;
    }
    for (int i = 0; i < dofs_; ++i) {
      body_velocities(q, Eigen::VectorXd::Unit(dofs_, i), zero, column_velocity, column_rate);
      for (std::size_t k = 0; k < bodies_.size(); ++k)
        force[i] += column_velocity[k].dot(body_force[k]);
    }
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
      const Body& body = bodies_[k];
      if (body.modes() == 0) continue;
      const int first = offset_[k] + body.joint_dofs(), n = body.modes();
      force.segment(first, n) +=
          body.stiffness * q.segment(first, n) + body.damping * qd.segment(first, n);
    }
    return force;
  }

  // T + U: kinetic energy, gravity's potential -g . (m p + R (m c + coupling_t eta)) and the
  // elastic 1/2 eta* K eta.
  double energy(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                const Eigen::Vector3d& gravity) const {
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(dofs_);
    std::vector<Matrix3h> rotation;
    std::vector<Vector3h> position;
    poses(q, zero, zero, rotation, position);
    std::vector<Eigen::VectorXd> velocity, rate;
    body_velocities(q, qd, zero, velocity, rate);
    double energy = 0.0;
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
      const Body& body = bodies_[k];
      energy += 0.5 * velocity[k].dot(body.mass_matrix() * velocity[k]);
      const Eigen::Matrix3d r = rotation[k].unaryExpr([](const Hyper& h) { return h.x; });
      const Eigen::Vector3d p = position[k].unaryExpr([](const Hyper& h) { return h.x; });
      Eigen::Vector3d moment = body.mass * body.center_of_mass;
      if (body.modes() > 0) {
        const Eigen::VectorXd eta = q.segment(offset_[k] + body.joint_dofs(), body.modes());
        moment += body.coupling.bottomRows<3>() * eta;
        energy += 0.5 * eta.dot(body.stiffness * eta);
      }
      energy -= gravity.dot(body.mass * p + r * moment);
    }
    return energy;
  }

 private:
  std::vector<Body> bodies_;
  std::vector<int> offset_;
  int dofs_ = 0;
};

}  // namespace skograph::flexible_reference

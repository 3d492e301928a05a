// The derivative passes of a tree's dynamics and inverse dynamics' derivatives
// (rigid/derivatives.hpp; docs/derivatives.md gives the derivation; the forward dynamics'
// derivatives built on these passes are forward_dynamics_derivatives.cpp's). Everything is in world
// axes about one point O (the first base link's origin, as rigid_detail::world_motion leaves it):
// there the weights phi(parent, k) are identities, so a subtree's composites are plain sums (part
// II Lemma 3-4, Eq. 11-17) and a column needs no transform on its way to the root.

#include "derivatives_detail.hpp"
#include "flexible_derivatives.hpp"
#include "kinematics_detail.hpp"
#include "size_checks.hpp"
#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/rigid_kernels.hpp"
#include "skograph/rigid/spatial.hpp"

namespace skograph {

using kernels::cross3;
using kernels::cross_force;
using kernels::cross_motion;
using kernels::RigidInertia;
using rigid_detail::check_size;

namespace {

// B(k) = Idot + lbar(l) for a link of world inertia I moving with V, l = I V: Idot = V x* I - I (V
// x) is the rate of I as the link carries it, and lbar(l) x = x x* l. s . (B x) is the change of s
// . (V x* I V) and I's rate when V changes by x, the second half of d f / d V.
// In RateTerm's form: with the points x of the link moving at v + w x x, the rotational inertia
// about O, J = sum m (|x|^2 1 - x x*), changes at Jdot = [w] J - J [w] + 2 (h . v) 1 - v h* - h v*
// and the first moment h at m v + w x h = f; P = Jdot - [n]: (n, f) = momentum = I V, which the
// caller has for the bias force too.
[[gnu::always_inline]] inline RateTerm rate_composite(const RigidInertia& inertia,
                                                      const Vector6d& velocity,
                                                      const Vector6d& momentum) {
  const Eigen::Vector3d w = velocity.head<3>(), v = velocity.tail<3>();
  const Eigen::Vector3d& h = inertia.first_moment;
  const Eigen::Matrix3d& J = inertia.rotational;
  Eigen::Matrix3d turn;  // [w] J, column by column; J [w] = -([w] J)* (J symmetric)
  for (int c = 0; c < 3; ++c) turn.col(c) = cross3(w, J.col(c));
  RateTerm rate;
  rate.angular = turn + turn.transpose() - v * h.transpose() - h * v.transpose();
  rate.angular.diagonal().array() += 2.0 * h.dot(v);
  // - [n], n the momentum's angular half
  const Eigen::Vector3d n = momentum.head<3>();
  Eigen::Matrix3d& P = rate.angular;
  P(0, 1) += n[2];
  P(1, 0) -= n[2];
  P(0, 2) -= n[1];
  P(2, 0) += n[1];
  P(1, 2) += n[0];
  P(2, 1) -= n[0];
  rate.force = momentum.tail<3>();
  return rate;
}

// Which half of a world column is exactly zero: a turn about an axis through O has no linear
// half, a slide no angular half. The pair loop then takes 3-long products where a 6-long one
// would add exact zeros (the same sums, up to their order).
enum class ColumnShape { kFull, kAngular, kLinear };

ColumnShape shape_of(const Vector6d& column) {
  if (column.tail<3>().isZero(0.0)) return ColumnShape::kAngular;
  if (column.head<3>().isZero(0.0)) return ColumnShape::kLinear;
  return ColumnShape::kFull;
}

// column . x for a column of the given shape, x read from 6 doubles.
template <ColumnShape Shape>
[[gnu::always_inline]] inline double column_dot(const Vector6d& column, const double* x) {
  if constexpr (Shape == ColumnShape::kAngular)
    return column[0] * x[0] + column[1] * x[1] + column[2] * x[2];
  else if constexpr (Shape == ColumnShape::kLinear)
    return column[3] * x[3] + column[4] * x[4] + column[5] * x[5];
  else
    return column.dot(Eigen::Map<const Vector6d>(x));
}

// Where fill_descendant_pairs reads the per-dof vectors (6 doubles per preorder position) and
// writes the three n x n outputs (column-major).
struct PairColumns {
  const double *s, *velocity_by_q, *acceleration_by_q, *acceleration_by_qd;  // s, dV, dA, dW
  const double *inertia_column, *rate_product, *configuration_product, *rate_column;  // t1..t4
  const int* dof_at;
  double *dtau_dq, *dtau_dqd, *mass;
  Eigen::Index n;
};

// What a pass computes: everything at a known qdd (inverse dynamics' derivatives), or in two
// halves around the solve for qdd (forward dynamics' derivatives): first what does not depend on
// qdd (M, dtau/dqd and the bias forces C = ID(q, qd, 0)), then what does (dtau/dq and tau).
enum class Part { kAll, kVelocity, kAcceleration };

// Dof a against the dofs b of its node's descendants (docs/derivatives.md, "The passes"): a's row
// at b's columns and b's rows at a's column of dtau/dq, dtau/dqd and M, five dot products per pair
// (kVelocity: the three of M and dtau/dqd; kAcceleration: the two of dtau/dq).
// Root: a's node hangs from the world, so dV_a = 0 and dA_a = (-g) x s_a has no angular half.
// InOrder: the preorder positions are the dofs themselves (dof_at[b] = b, as the model layer
// numbers them), so that the compiler walks the outputs by plain strides.
template <Part Which, ColumnShape Shape, bool Root, bool InOrder>
void fill_descendant_pairs(const PairColumns& at, int a, int begin, int end) {
  constexpr bool velocity_half = Which != Part::kAcceleration;
  constexpr bool acceleration_half = Which != Part::kVelocity;
  const Vector6d s = Eigen::Map<const Vector6d>(at.s + 6 * a);
  const Vector6d dV = Eigen::Map<const Vector6d>(at.velocity_by_q + 6 * a);
  const Vector6d dA = Eigen::Map<const Vector6d>(at.acceleration_by_q + 6 * a);
  const Vector6d dW = Eigen::Map<const Vector6d>(at.acceleration_by_qd + 6 * a);
  const Eigen::Index row = InOrder ? a : at.dof_at[a], n = at.n;
  constexpr bool linear_root = Root && Shape == ColumnShape::kLinear;  // dV = dA = 0
  for (int b = begin; b < end; ++b) {
    const Eigen::Index other = InOrder ? b : at.dof_at[b];
    const double* t1 = at.inertia_column + 6 * b;
    const double* t4 = at.rate_column + 6 * b;
    if constexpr (acceleration_half)
      at.dtau_dq[row + other * n] = column_dot<Shape>(s, at.configuration_product + 6 * b);
    if constexpr (velocity_half) {
      at.dtau_dqd[row + other * n] = column_dot<Shape>(s, at.rate_product + 6 * b);
      at.mass[row + other * n] = at.mass[other + row * n] = column_dot<Shape>(s, t1);
    }
    if constexpr (acceleration_half && !linear_root) {
      double by_q;
      if constexpr (Root)
        by_q = column_dot<ColumnShape::kLinear>(dA, t1);
      else
        by_q =
            dA.dot(Eigen::Map<const Vector6d>(t1)) + dV[0] * t4[0] + dV[1] * t4[1] + dV[2] * t4[2];
      at.dtau_dq[other + row * n] = by_q;
    }
    if constexpr (velocity_half) {
      double by_qd = dW.dot(Eigen::Map<const Vector6d>(t1));
      if constexpr (Shape != ColumnShape::kLinear)
        by_qd += s[0] * t4[0] + s[1] * t4[1] + s[2] * t4[2];
      at.dtau_dqd[other + row * n] = by_qd;
    }
  }
}

template <Part Which, ColumnShape Shape>
void fill_descendant_pairs(const PairColumns& at, bool root, bool in_order, int a, int begin,
                           int end) {
  if (root && in_order)
    fill_descendant_pairs<Which, Shape, true, true>(at, a, begin, end);
  else if (root)
    fill_descendant_pairs<Which, Shape, true, false>(at, a, begin, end);
  else if (in_order)
    fill_descendant_pairs<Which, Shape, false, true>(at, a, begin, end);
  else
    fill_descendant_pairs<Which, Shape, false, false>(at, a, begin, end);
}

template <Part Which>
void fill_descendant_pairs(const PairColumns& at, bool root, bool in_order, int a, int begin,
                           int end) {
  switch (shape_of(Eigen::Map<const Vector6d>(at.s + 6 * a))) {
    case ColumnShape::kAngular:
      return fill_descendant_pairs<Which, ColumnShape::kAngular>(at, root, in_order, a, begin, end);
    case ColumnShape::kLinear:
      return fill_descendant_pairs<Which, ColumnShape::kLinear>(at, root, in_order, a, begin, end);
    case ColumnShape::kFull:
      return fill_descendant_pairs<Which, ColumnShape::kFull>(at, root, in_order, a, begin, end);
  }
}

// Forward, parents first (docs/derivatives.md, "The passes"): A(k) = A(p) + H* qdd + a(k) with
// the world's -g at the bases; per column c the frame its tangent holds still (velocity p_c,
// acceleration ap_c) and the frame s_c is fixed in (velocity u_c), from which
// dV_c = p_c x s_c, dA_c = ap_c x s_c + p_c x dV_c, dW_c = (u_c + p_c) x s_c;
// per node Y = I(k) in world axes, B(k) and f(k) = I A + V x* I V.
// kVelocity leaves out qdd (A(k) the bias acceleration, f(k) the bias force) and dA;
// kAcceleration computes only A (into data.world_acceleration, the bias one staying in
// work.acceleration) and dA, at the qdd now known.
// These passes read the world motion already in data (world_motion's: poses, hinges, velocities
// and velocity products about one point).
template <Part Which>
[[gnu::always_inline]] inline void forward_pass(const RigidBodyModel& model, RigidBodyData& data,
                                                const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                const double* qdd, const Eigen::Vector3d& gravity,
                                                DerivativeWorkspace& work) {
  constexpr bool velocity_half = Which != Part::kAcceleration;
  constexpr bool acceleration_half = Which != Part::kVelocity;
  const std::vector<int>& order = model.parents_first();
  const std::vector<int>& parents = model.parents();
  std::vector<Vector6d>& accelerations =
      Which == Part::kAcceleration ? data.world_acceleration : work.acceleration;
  Vector6d world_acceleration;
  world_acceleration << 0.0, 0.0, 0.0, -gravity;
  auto& s = work.column;
  auto& dV = work.velocity_by_q;
  auto& dA = work.acceleration_by_q;
  auto& dW = work.acceleration_by_qd;
  for (const int k : order) {
    const int p = parents[k], dofs = model.joint_dofs(k), offset = model.joint_dof_offset(k);
    const int first = model.subtree_position(k);
    const Vector6d& velocity = data.world_velocity[k];
    const Vector6d parent_velocity = p >= 0 ? data.world_velocity[p] : Vector6d::Zero();
    const Vector6d& parent_acceleration = p >= 0 ? accelerations[p] : world_acceleration;
    const HingeMatrix& hinge = data.world_hinge[k];
    Vector6d acceleration = parent_acceleration + data.world_coriolis[k];
    if constexpr (acceleration_half)
      for (int c = 0; c < dofs; ++c) acceleration.noalias() += hinge.col(c) * qdd[offset + c];
    accelerations[k] = acceleration;
    const bool planar = model.joint_geometry(k).type == JointType::kPlanar;
    for (int c = 0; c < dofs && !planar; ++c) {
      const int at = first + c;
      const Vector6d column = hinge.col(c);
      if constexpr (velocity_half) {
        const Vector6d velocity_by_q = cross_motion(parent_velocity, column);
        s.col(at) = column;
        dV.col(at) = velocity_by_q;
        // One dof: V = V(p) + s qd and s x s = 0, so (V + V(p)) x s = 2 V(p) x s = 2 dV.
        if (dofs == 1)
          dW.col(at) = 2.0 * velocity_by_q;
        else
          dW.col(at) = cross_motion(velocity + parent_velocity, column);
      }
      if constexpr (acceleration_half)
        dA.col(at) =
            cross_motion(parent_acceleration, column) + cross_motion(parent_velocity, dV.col(at));
    }
    for (int c = 0; c < dofs && planar; ++c) {
      Vector6d held_velocity = parent_velocity, held_acceleration = parent_acceleration;
      Vector6d carrier = parent_velocity;  // x and y are fixed in the joint frame
      if (c == 2) {
        // theta turns the child about the point the x and y translations carried it to.
        const Vector6d slide = hinge.col(0) * qd[offset] + hinge.col(1) * qd[offset + 1];
        held_velocity += slide;
        if constexpr (acceleration_half)
          held_acceleration += hinge.col(0) * qdd[offset] + hinge.col(1) * qdd[offset + 1] +
                               cross_motion(parent_velocity, slide);
        carrier = velocity;
      }
      const int at = first + c;
      if constexpr (velocity_half) {
        s.col(at) = hinge.col(c);
        dV.col(at) = cross_motion(held_velocity, hinge.col(c));
        dW.col(at) = cross_motion(carrier + held_velocity, hinge.col(c));
      }
      if constexpr (acceleration_half)
        dA.col(at) =
            cross_motion(held_acceleration, hinge.col(c)) + cross_motion(held_velocity, dV.col(at));
    }
    if constexpr (velocity_half) {
      const Eigen::Isometry3d& pose = data.link_pose[k];
      const RigidInertia world_inertia =
          model.rigid_inertia(k).moved(pose.linear(), pose.translation() - data.tree_origin[k]);
      work.composite_inertia[k] = world_inertia;
      const Vector6d momentum = world_inertia.times(velocity);
      work.composite_rate[k] = rate_composite(world_inertia, velocity, momentum);
      work.force[k] = world_inertia.times(acceleration) + cross_force(velocity, momentum);
    }
  }
}

// Backward, children first, the composites Y, B, F summed over the subtree (Lemma 3 with identity
// weights), and for columns c, j on one root path with m the deeper node:
//   dtau_c/dq_j  = s_c . (Y_m dA_j + B_m dV_j)                 j moves c
//                = s_c . (Y_m dA_j + B_m dV_j + s_j x* F_m)    c strictly above j
//   dtau_c/dqd_j = s_c . (Y_m dW_j + B_m s_j),   M_cj = s_c . Y_m s_j (Algorithm 4.2)
// (Carpentier & Mansard, RSS 2018, in world axes; per-column frames cover the planar joint).
// kVelocity: the composites, M, dtau/dqd and the bias forces C = s . F into result.tau.
// kAcceleration: F at qdd, from the bias one: the subtree's forces grow by I_j (A_j - A0_j) over
// its links j, which is Y(k) (A(p) - A0(p)) plus sum over the subtree's dofs i of Y s_i qdd_i
// (t1_i qdd_i, gathered children first in data.residual_force); then dtau/dq and tau = s . F.
template <Part Which>
[[gnu::always_inline]] inline void backward_pass(const RigidBodyModel& model, RigidBodyData& data,
                                                 const double* qdd, DerivativeWorkspace& work,
                                                 InverseDynamicsDerivatives& result) {
  constexpr bool velocity_half = Which != Part::kAcceleration;
  constexpr bool acceleration_half = Which != Part::kVelocity;
  const int n = model.dof_count();
  const std::vector<int>& order = model.parents_first();
  const std::vector<int>& parents = model.parents();
  const std::vector<int>& dof_at = model.dof_in_preorder();
  const auto& s = work.column;
  const auto& dV = work.velocity_by_q;
  const auto& dA = work.acceleration_by_q;
  const auto& dW = work.acceleration_by_qd;
  auto& t1 = work.inertia_column;
  auto& t2 = work.rate_product;
  auto& t3 = work.configuration_product;
  auto& t4 = work.rate_column;  // only its angular half is written: B* s has no linear half
  const PairColumns pairs{s.data(),
                          dV.data(),
                          dA.data(),
                          dW.data(),
                          t1.data(),
                          t2.data(),
                          t3.data(),
                          t4.data(),
                          dof_at.data(),
                          result.dtau_dq.data(),
                          result.dtau_dqd.data(),
                          result.mass.data(),
                          n};
  const bool in_order = work.dofs_in_preorder;
  if constexpr (Which == Part::kAcceleration)
    for (const int k : order) data.residual_force[k].setZero();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = parents[k], dofs = model.joint_dofs(k);
    const RigidInertia& Y = work.composite_inertia[k];
    const RateTerm& B = work.composite_rate[k];
    Vector6d& F = work.force[k];
    const int first = model.subtree_position(k), end = first + model.subtree_dof_count(k);
    const JointType type = model.joint_geometry(k).type;
    if constexpr (Which == Part::kAcceleration) {
      Vector6d& gathered = data.residual_force[k];
      for (int a = first; a < first + dofs; ++a) gathered.noalias() += t1.col(a) * qdd[dof_at[a]];
      if (p >= 0) {
        F.noalias() += Y.times(data.world_acceleration[p] - work.acceleration[p]);
        data.residual_force[p] += gathered;
      }
      F += gathered;
    }
    for (int a = first; a < first + dofs; ++a) {
      if constexpr (velocity_half) {
        t1.col(a) = Y.times(s.col(a));
        t4.col(a).head<3>() = B.transposed_times(s.col(a));
        t2.col(a) = Y.times(dW.col(a)) + B.times(s.col(a));
      }
      if constexpr (acceleration_half) t3.col(a) = Y.times(dA.col(a)) + B.times(dV.col(a));
      result.tau[dof_at[a]] = s.col(a).dot(F);
    }
    // What the ancestors' rows read: their columns do not move this node's, so its force turns.
    if constexpr (acceleration_half)
      for (int a = first; a < first + dofs; ++a) t3.col(a) += cross_force(s.col(a), F);
    // A base's columns see a still parent (dV = 0), except a planar joint's turn, which the
    // slides carry.
    const bool root = p < 0 && type != JointType::kPlanar;
    for (int a = first; a < first + dofs; ++a) {
      const int row = dof_at[a];
      for (int b = first; b < first + dofs; ++b) {
        const int column = dof_at[b];
        if constexpr (acceleration_half) {
          const double turn_by_q = t4.col(a).head<3>().dot(dV.col(b).head<3>());
          result.dtau_dq(row, column) = rigid_detail::moves_within(type, b - first, a - first)
                                            ? t1.col(a).dot(dA.col(b)) + turn_by_q
                                            : s.col(a).dot(t3.col(b));
        }
        if constexpr (velocity_half) {
          const double turn_by_qd = t4.col(a).head<3>().dot(s.col(b).head<3>());
          result.dtau_dqd(row, column) = t1.col(a).dot(dW.col(b)) + turn_by_qd;
          result.mass(row, column) = s.col(a).dot(t1.col(b));
        }
      }
      // Descendants' columns (their node is the deeper one) and descendants' rows (this column
      // moves them; their own composites are in their t1 and t4).
      fill_descendant_pairs<Which>(pairs, root, in_order, a, first + dofs, end);
    }
    if (velocity_half && p >= 0) {
      work.composite_inertia[p] += Y;
      work.composite_rate[p] += B;
      work.force[p] += F;
    }
  }
}

}  // namespace

// One forward and one backward pass at the world motion already in data (derivatives_detail.hpp).
void rigid_detail::inverse_dynamics_derivatives_at_world_motion(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& qdd, const Eigen::Vector3d& gravity,
    InverseDynamicsDerivatives& result) {
  const int n = model.dof_count();
  DerivativeWorkspace& work = derivative_workspace(model, data);
  forward_pass<Part::kAll>(model, data, qd, qdd.data(), gravity, work);
  result.tau.resize(n);
  result.dtau_dq.setZero(n, n);
  result.dtau_dqd.setZero(n, n);
  result.mass.setZero(n, n);
  backward_pass<Part::kAll>(model, data, qdd.data(), work, result);
}

void rigid_detail::inverse_dynamics_derivatives_velocity_half(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Vector3d& gravity, InverseDynamicsDerivatives& result) {
  const int n = model.dof_count();
  DerivativeWorkspace& work = derivative_workspace(model, data);
  forward_pass<Part::kVelocity>(model, data, qd, nullptr, gravity, work);
  result.tau.resize(n);
  result.dtau_dq.setZero(n, n);
  result.dtau_dqd.setZero(n, n);
  result.mass.setZero(n, n);
  backward_pass<Part::kVelocity>(model, data, nullptr, work, result);
}

void rigid_detail::inverse_dynamics_derivatives_acceleration_half(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& qdd, const Eigen::Vector3d& gravity,
    InverseDynamicsDerivatives& result) {
  DerivativeWorkspace& work = derivative_workspace(model, data);
  forward_pass<Part::kAcceleration>(model, data, qd, qdd.data(), gravity, work);
  backward_pass<Part::kAcceleration>(model, data, qdd.data(), work, result);
  work.acceleration = data.world_acceleration;  // where the single pass leaves the accelerations
}

void inverse_dynamics_derivatives(const RigidBodyModel& model, RigidBodyData& data,
                                  const Eigen::Ref<const Eigen::VectorXd>& q,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd,
                                  const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                  const Eigen::Vector3d& gravity,
                                  InverseDynamicsDerivatives& result) {
  check_size(q, model.dof_count(), "q");
  check_size(qd, model.dof_count(), "qd");
  check_size(qdd, model.dof_count(), "qdd");
  if (model.has_flexible_links())
    return rigid_detail::flexible_inverse_dynamics_derivatives(model, data, q, qd, qdd, gravity,
                                                               result);
  rigid_detail::world_motion(model, q, qd, data);
  rigid_detail::inverse_dynamics_derivatives_at_world_motion(model, data, qd, qdd, gravity, result);
}

}  // namespace skograph

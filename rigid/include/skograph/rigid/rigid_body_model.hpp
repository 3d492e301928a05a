// The SKO model of a rigid multibody system (part I sections 6-8, part II section 8.1).
//
//   RigidBodyModel model(mechanism);      // validated once; immutable
//   RigidBodyData data(model);            // workspace sized once
//   const Eigen::VectorXd& qdd = forward_dynamics(model, data, q, qd, tau, gravity);
//
// One SKO node per link, numbered like the tree joints: node k is the child link of joint k, so
// the hinge layout (r_k = dofs of joint k) is the joints' file order and stacked q, qd, qdd and tau
// list the dofs joint by joint (dof_names()). Node weights are 6-dimensional; the weight of node k
// is phi(parent link, k) (rigid_body_transform of X_parent_child(q)), H(k) is the transpose of the
// joint's H*(k) (rigid/spatial.hpp) and M(k) the link's spatial inertia about its frame origin.
// A link whose parent joint connects it to the world is a base node of the SKO forest.
// Multi-dof coordinates follow rigid/mechanism.hpp (rotation vectors for spherical and floating
// joints, whose qd is the body-frame velocity, not dq/dt: configuration_rate converts).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/innovations.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/operators/operational_space.hpp"
#include "skograph/operators/sko_model.hpp"
#include "skograph/rigid/mechanism.hpp"
#include "skograph/rigid/modal_body.hpp"
#include "skograph/rigid/rigid_kernels.hpp"
#include "skograph/rigid/spatial.hpp"

namespace skograph {

class RigidBodyModel {
 public:
  // Validates the mechanism and throws std::invalid_argument naming the first problem: no links,
  // joint link indices out of range, a link without a parent joint or with two, joints forming a
  // cycle, duplicate joint names, non-finite numbers, negative mass, a non-symmetric inertia, a
  // zero-length axis on a joint that uses it. Physical consistency of inertias is the readers'
  // policy (io/: warn, or refuse with --strict). Massless links are allowed anywhere; a moving
  // joint whose whole subtree is massless moves no mass (carries_no_mass): forward dynamics leaves
  // its acceleration at zero. Loops and couplings are kept in mechanism() but not modeled here.
  explicit RigidBodyModel(Mechanism mechanism);

  const Mechanism& mechanism() const { return mechanism_; }
  const std::shared_ptr<const SkoStructure>& structure() const { return structure_; }
  const Forest& forest() const { return structure_->forest; }

  int link_count() const { return static_cast<int>(mechanism_.links.size()); }
  int joint_count() const { return static_cast<int>(mechanism_.joints.size()); }
  int node_count() const { return joint_count(); }
  // q, qd, qdd and tau all have one entry per dof (rotation vectors take 3 entries).
  int dof_count() const { return static_cast<int>(dof_names_.size()); }
  // "joint" for a 1-dof joint, "joint:0", "joint:1", ... for a multi-dof joint.
  const std::vector<std::string>& dof_names() const { return dof_names_; }
  // Node k's hinge: the dofs of joint k, then the modal coordinates of a flexible link's modes
  // (named "LINK:eta1", "LINK:eta2", ...), contiguous in q from hinge_offset(k). The fixed-size
  // joint quantities (H*(k), the articulated-body blocks) have joint_dofs(k) columns.
  int hinge_offset(int node) const { return structure_->hinge.offset(node); }
  int hinge_dofs(int node) const { return structure_->hinge.dim(node); }
  // The joint's own coordinates: the first joint_dofs(joint) of its node's hinge.
  int joint_dof_offset(int joint) const { return hinge_offset(joint); }
  int joint_dofs(int joint) const { return joint_dofs_[joint]; }

  // Flexible links (docs/flexible-bodies.md, part I section 8): node k has 6 + modes(k)
  // dimensions, its velocity [V(k); etadot(k)]. Such a model runs through the generic SKO
  // operators (the *_through_operators paths, which every dynamics function below takes for it);
  // the algorithms written for rigid nodes only throw std::invalid_argument on it.
  bool has_flexible_links() const { return flexible_; }
  int modes(int node) const { return modes_[node]; }
  // The first modal coordinate of node k in q: hinge_offset + joint_dofs.
  int modal_offset(int node) const { return hinge_offset(node) + joint_dofs(node); }
  // The link's modal data, or nullptr for a rigid link.
  const ModalBody* modal_body(int node) const {
    return mechanism_.links[link_of_node(node)].flexible.get();
  }
  // The (6 + modes)-square mass matrix M(k) of the node (the spatial inertia for a rigid link).
  const Eigen::MatrixXd& node_inertia(int node) const { return node_inertia_[node]; }
  // For a node whose parent link is flexible: the parent's 6 x modes(parent) influence at this
  // joint's node ([rotation; translation] per unit modal coordinate, parent link axes); empty
  // otherwise.
  const Eigen::MatrixXd& attachment(int node) const { return attachment_[node]; }

  // The walk of every recursion: nodes with parents before children (ascending node ids when
  // the joints are listed depth first, rigid/tree_order.hpp; otherwise a reversed post-order),
  // and each node's parent (-1 for a base) as plain arrays.
  const std::vector<int>& parents_first() const { return parents_first_; }
  const std::vector<int>& parents() const { return parent_; }
  // Per node, the constants of the fast recursions (rigid/rigid_kernels.hpp): the joint frame in
  // the parent link frame (R0, l0), the link's inertia as (m, h, J) about its frame origin, and
  // for a 1-dof joint its H* column.
  const Eigen::Matrix3d& origin_rotation(int node) const { return origin_rotation_[node]; }
  const Eigen::Vector3d& origin_translation(int node) const { return origin_translation_[node]; }
  const kernels::RigidInertia& rigid_inertia(int node) const { return rigid_inertia_[node]; }
  const Vector6d& hinge_column(int node) const { return hinge_column_[node]; }
  // A revolute joint about a coordinate axis of its frame: 1, 2, 3 for +x, +y, +z, negative for
  // -x, -y, -z; 0 for any other joint.
  int coordinate_axis(int node) const { return coordinate_axis_[node]; }
  // Such a joint whose origin has no rotation (R0 = 1, origin rpy 0): X_parent_child(q) turns
  // about that axis only, and the recursions move quantities to the parent by 2 x 2 turns
  // (rigid/axis_turn.hpp). The axis index 0, 1, 2; -1 for any other joint.
  int turn_axis(int node) const { return turn_axis_[node]; }
  // The dofs in a depth-first preorder (children in ascending order), where every subtree's dofs
  // are contiguous: node k's dofs sit at positions subtree_position(k) .. + hinge_dofs(k), its
  // subtree's up to + subtree_dof_count(k); dof_in_preorder()[p] is the dof at position p. For
  // joints listed depth first (the loading path) the positions are the dof offsets. mass_matrix
  // carries the columns of a whole subtree to the parent at once in this layout.
  int subtree_position(int node) const { return subtree_position_[node]; }
  int subtree_dof_count(int node) const { return subtree_dof_count_[node]; }
  const std::vector<int>& dof_in_preorder() const { return dof_in_preorder_; }

  int node_of_link(int link) const { return node_of_link_[link]; }
  int link_of_node(int node) const { return mechanism_.joints[node].child; }
  const JointGeometry& joint_geometry(int node) const { return geometry_[node]; }
  const Matrix6d& link_inertia(int node) const { return inertia_[node]; }
  // True when node k's link and every link below it are massless (zero spatial inertia): a
  // moving joint there moves no mass, its row and column of M are zero, and its acceleration is
  // not determined by the dynamics (forward dynamics leaves it at zero; it takes no force).
  bool carries_no_mass(int node) const { return carries_no_mass_[node] != 0; }
  // Joint j moves and moves no mass (carries_no_mass with dofs).
  bool moves_no_mass(int joint) const { return joint_dofs(joint) > 0 && carries_no_mass(joint); }
  // The top moving joint of every massless subtree (node ids = joint indices), in node order.
  std::vector<int> massless_moving_joints() const;

 private:
  Mechanism mechanism_;
  std::shared_ptr<const SkoStructure> structure_;
  std::vector<std::string> dof_names_;
  std::vector<int> joint_dofs_;
  bool flexible_ = false;
  std::vector<int> modes_;
  std::vector<Eigen::MatrixXd> node_inertia_, attachment_;
  std::vector<int> node_of_link_;
  std::vector<JointGeometry> geometry_;
  std::vector<Matrix6d> inertia_;
  std::vector<char> carries_no_mass_;
  std::vector<int> parents_first_, parent_;
  std::vector<Eigen::Matrix3d> origin_rotation_;
  std::vector<Eigen::Vector3d> origin_translation_;
  std::vector<kernels::RigidInertia> rigid_inertia_;
  std::vector<Vector6d> hinge_column_;
  std::vector<signed char> coordinate_axis_;
  std::vector<signed char> turn_axis_;
  std::vector<int> subtree_position_, subtree_dof_count_, dof_in_preorder_;
};

// The rate term B = Idot + lbar(l) of the derivatives (rigid_body_derivatives.cpp) for a link or
// a subtree. With the inertia [[J, [h]], [-[h], m]] and V = [w; v], Idot's off-diagonal blocks are
// +-[m v + w x h] = +-[f] (f the momentum's linear half): top right they cancel lbar's -[f],
// bottom left they add to it, so B = [[P, 0], [-2 [f], 0]] with P = Jdot - [n] (n the momentum's
// angular half): 12 numbers; B x reads only x's angular half, B* s has only an angular half.
struct RateTerm {
  Eigen::Matrix3d angular = Eigen::Matrix3d::Zero();  // P
  Eigen::Vector3d force = Eigen::Vector3d::Zero();    // f
  RateTerm& operator+=(const RateTerm& other) {
    angular += other.angular;
    force += other.force;
    return *this;
  }
  // B x = [P x_w; -2 f x x_w] (inlined: the derivatives' passes call it per dof).
  [[gnu::always_inline]] Vector6d times(const Vector6d& x) const {
    Vector6d out;
    out.head<3>().noalias() = angular * x.head<3>();
    out.tail<3>() = -2.0 * kernels::cross3(force, x.head<3>());
    return out;
  }
  // The angular half of B* s = [P* s_w + 2 f x s_v; 0] (its linear half is always zero).
  [[gnu::always_inline]] Eigen::Vector3d transposed_times(const Vector6d& s) const {
    Eigen::Vector3d out = 2.0 * kernels::cross3(force, s.tail<3>());
    out.noalias() += angular.transpose() * s.head<3>();
    return out;
  }
};

// What the dynamics' derivatives (rigid/derivatives.hpp) compute per dof and per node, in world
// axes about one point: per dof, in dof_in_preorder() layout, the world column s, its derivative
// vectors dV, dA, dW and the composites' products t1 = Y s, t2 = Y dW + B s,
// t3 = Y dA + B dV (+ s x* F once the node is done) and t4 = B* s; per node the composite inertia
// Y(k), the composite B(k) = Idot + lbar(l) (RateTerm), the acceleration A(k) (with the world's -g)
// and the composite force F(k). Made on first use (derivative_workspace).
struct DerivativeWorkspace {
  explicit DerivativeWorkspace(const RigidBodyModel& model);
  Eigen::Matrix<double, 6, Eigen::Dynamic> column, velocity_by_q, acceleration_by_q,
      acceleration_by_qd;
  Eigen::Matrix<double, 6, Eigen::Dynamic> inertia_column, rate_product, configuration_product,
      rate_column;
  std::vector<kernels::RigidInertia>
      composite_inertia;  // sums of rigid inertias about O stay rigid
  std::vector<RateTerm> composite_rate;
  std::vector<Vector6d> acceleration, force;
  // Forward dynamics' derivatives: per dof its parent dof (-1 at a base) and its last
  // descendant (itself when it has none), M = L* D L with L's pattern the dofs' ancestors (RBDA
  // section 6.5).
  std::vector<int> dof_parent, dof_last_descendant;
  // Per dof its ancestor dofs, parent first: ancestors[ancestor_offsets[i] ..
  // ancestor_offsets[i + 1]) (the loops over a root path read them in a row, no pointer chase);
  // lower holds L(i, j) at the same place as j in i's list.
  std::vector<int> ancestor_offsets, ancestors;
  bool parents_first = true;        // every dof_parent[i] < i
  bool dofs_in_preorder = true;     // the model's dof_in_preorder() is the identity
  Eigen::VectorXd lower, diagonal;  // diagonal: D of the factor (M's diagonal before it)
  Eigen::VectorXd inverse_pivot;    // 1 / D of the factor, multiplied rather than divided by
};

// Workspace of every rigid-body algorithm, sized once from the model; the per-configuration
// updates and dynamics functions below write only into it.
struct RigidBodyData {
  explicit RigidBodyData(const RigidBodyModel& model);

  // weights phi(parent, k) and H(k) are copied in from phi/hinge on demand by
  // synchronize_sko_model.
  SkoModel sko;                              // weights phi(parent, k), H(k), M(k)
  std::vector<Eigen::Matrix3d> rotation;     // R of X_parent_child(q) per node
  std::vector<Eigen::Vector3d> translation;  // l of X_parent_child(q) per node
  // X_world_link(q) per node, read through link_poses(): update_positions and update_kinematics
  // fill them, and forward_dynamics, which works in world axes; the other dynamics functions
  // (inverse dynamics, bias forces, the mass matrix), which do not need them, leave them to be
  // built from rotation and translation on first use (mutable: a cache of what the last
  // configuration determines; the first reader after a dynamics call writes it, so threads sharing
  // one RigidBodyData call link_poses() once first).
  mutable std::vector<Eigen::Isometry3d> link_pose;
  mutable bool poses_valid = false;
  std::vector<Matrix6d> phi;       // phi(parent, k) per node, see phi_valid
  std::vector<HingeMatrix> hinge;  // H*(k) per node (fixed-size copy)
  // Derived from the transforms of the last configuration, rebuilt on demand: phi by
  // rigid_body_transforms(), sko's weights and hinge maps by synchronize_sko_model(). Every walk
  // that moves the configuration clears both flags as it starts (rigid_body_dynamics.cpp:
  // ConfigurationWalk writes rotation and translation, and link_pose when asked; link_poses()
  // fills link_pose later; free_flying.cpp's base change writes all three).
  bool phi_valid = false;
  bool sko_synchronized = false;
  Eigen::VectorXd velocity;                // V(k) per node (node layout), body frame
  Eigen::VectorXd coriolis;                // a(k) per node
  Eigen::VectorXd gyroscopic;              // b(k) per node
  Eigen::VectorXd base_acceleration;       // -g in each base node's frame, over forest().bases()
  Eigen::VectorXd coriolis_with_gravity;   // a with -g added at the base nodes (forward dynamics)
  Eigen::VectorXd gyroscopic_with_forces;  // b - external forces
  Eigen::VectorXd zero_dofs;               // zeros, hinge layout
  // Workspaces of the generic operators/ paths (the *_through_operators functions, innovations
  // factors, operational-space inertia), made on first use (inverse_workspace(data), ...): the
  // fast paths never need them, and at 10^5 links they would hold 350 MB.
  std::unique_ptr<InverseDynamicsWorkspace> inverse;
  std::unique_ptr<ForwardDynamicsWorkspace> forward;
  std::unique_ptr<CompositeInertiaWorkspace> composite;
  std::unique_ptr<OperationalSpaceWorkspace> operational;
  std::unique_ptr<DerivativeWorkspace> derivatives;
  Eigen::MatrixXd mass;  // the last mass_matrix (sized by the first call: nothing N x N before)
  // mass_matrix's columns R(k) H*(k) on their way to the root, in dof_in_preorder() layout,
  // stored row by row (two neighbouring columns move as one SSE2 pair).
  Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::RowMajor> carried_columns;
  Eigen::VectorXd force;              // f(k) of inverse_dynamics, node layout
  Eigen::VectorXd generalized_force;  // tau of inverse_dynamics, dof order
  // Fixed-size articulated-body quantities of forward_dynamics (part II Eq. 33, 58).
  std::vector<kernels::RigidInertia> composite_inertia;  // R(k) of mass_matrix, link frame
  // P(k) and z(k) in forward_dynamics' world axes (P(k) a floating base's in its own frame
  // where base_factored).
  std::vector<Matrix6d> articulated_inertia;
  std::vector<Vector6d> residual_force;
  // Per node, what forward_dynamics keeps for its scatter: P(k) H*(k), D^-1(k) and
  // nu(k) = D^-1 (T(k) - H(k) z(k)); for a floating base whose D = P was only factorized
  // (base_factored) D's Cholesky factor L (lower triangle), epsilon(k) = T(k) - z(k), and no P H*
  // (0 columns).
  std::vector<HingeMatrix> projected_inertia;
  std::vector<HingeSquare> innovations_inverse;
  std::vector<JointVector> innovation;
  std::vector<char> base_factored;  // per node: 1 where the last forward_dynamics did that
  Eigen::VectorXd acceleration;     // alpha(k) in link frames, node layout (inverse dynamics)
  // forward_dynamics' quantities in world axes about the origin of each tree's base link (its
  // tree_origin, world coordinates): H*(k), V(k), a(k), alpha(k). The closed chains' world-axes
  // motion writes H*(k), V(k) and a(k) about one point for every tree (tree_origin: the first base
  // link's origin).
  std::vector<Eigen::Vector3d> tree_origin;
  std::vector<HingeMatrix> world_hinge;
  std::vector<Vector6d> world_velocity, world_coriolis, world_acceleration;
  // Per node: the mass of its subtree and that mass times the subtree's centre in world
  // coordinates (rigid/kinematics.hpp: center_of_mass, center_of_mass_jacobian).
  std::vector<Eigen::Vector4d> subtree_moment;
  Eigen::VectorXd generalized_acceleration;  // qdd, dof order
};

// data's generic-operator workspaces, made on first use.
InverseDynamicsWorkspace& inverse_workspace(RigidBodyData& data);
ForwardDynamicsWorkspace& forward_workspace(RigidBodyData& data);
CompositeInertiaWorkspace& composite_workspace(RigidBodyData& data);
OperationalSpaceWorkspace& operational_workspace(RigidBodyData& data);
DerivativeWorkspace& derivative_workspace(const RigidBodyModel& model, RigidBodyData& data);

// Link frames and the SKO model numbers at q: X_parent_child = origin * joint_motion(q) (data
// rotation, translation), phi(parent, k), H*(k) (data.phi, data.hinge), link poses (part I
// section 6, Eq. for phi). O(N).
void update_positions(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                      RigidBodyData& data);
// The link poses X_world_link at the last configuration any function walked (data.link_pose),
// built from data.rotation and data.translation when that walk left them out (the dynamics
// functions do; update_positions and update_kinematics do not). O(N) then, O(1) after.
const std::vector<Eigen::Isometry3d>& link_poses(const RigidBodyModel& model,
                                                 const RigidBodyData& data);
// Fills data.phi from data.rotation and data.translation when the last configuration update was
// one of the fast dynamics functions or a closed-chain update (which do not build phi). O(N).
void rigid_body_transforms(const RigidBodyModel& model, RigidBodyData& data);
// Copies phi(parent, k) and H(k) of the last update_positions into data.sko (the generic SKO
// model the operators layer reads), once per configuration. The functions below call it when they
// use the operators; call it before using data.sko directly.
void synchronize_sko_model(const RigidBodyModel& model, RigidBodyData& data);

// update_positions plus the velocities V(k) = phi*(parent, k) V(parent) + H*(k) qd(k), the
// Coriolis accelerations a(k) and the gyroscopic forces b(k) (part I section 7, serial-chain paper
// section 2; rigid/spatial.hpp for the derivation). O(N).
void update_kinematics(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& qd, RigidBodyData& data);

// What the operators layer's dynamics read at (q, qd) with gravity g (operators/*.hpp): the
// kinematics (update_kinematics), the SKO model (synchronize_sko_model), data.base_acceleration
// (-g in each base node's frame, over forest().bases()) and data.coriolis_with_gravity (a with
// that -g added at the base nodes; A* carries it to the whole forest). O(N).
void update_sko_dynamics_state(const RigidBodyModel& model,
                               const Eigen::Ref<const Eigen::VectorXd>& q,
                               const Eigen::Ref<const Eigen::VectorXd>& qd,
                               const Eigen::Vector3d& gravity, RigidBodyData& data);

// tau = M(q) qdd + C(q, qd) with gravity g entered as the base acceleration -g (conventions.md):
// part II Algorithm 3.1 (the Newton-Euler scatter and gather of operators/inverse_dynamics.hpp)
// specialized to rigid nodes (rigid/rigid_kernels.hpp) in one pass over the positions,
// velocities and accelerations and one back. Fills data.rotation, translation, velocity,
// coriolis, acceleration (alpha(k)) and force (f(k)); the link poses are left to link_poses().
// Returns data.generalized_force.
const Eigen::VectorXd& inverse_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                        const Eigen::Vector3d& gravity);
// The same with external spatial forces on the links: link_forces stacks 6 numbers per link
// (link index order), the force [N; F] acting on the link about its frame origin, in link-frame
// coordinates. They enter as b(k) -= f_ext(k).
const Eigen::VectorXd& inverse_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                        const Eigen::Vector3d& gravity,
                                        const Eigen::Ref<const Eigen::VectorXd>& link_forces);

// The mass matrix M(q) = H A M A* H* by composite body inertias (part II Algorithms 4.1-4.2)
// specialized to rigid nodes: R(k) = M(k) + sum phi R(j) phi* kept as (m, h, J)
// (rigid/rigid_kernels.hpp), then the column X = R(k) H*(k) carried to every ancestor l
// (X <- phi(parent, j) X) gives the block M(l, k) = H(l) X. Returns data.mass, N x N, allocated
// by the first call (O(N depth) block products; no allocation afterwards). Only the entries of
// dofs on one path to the root are written at each call (the others are zeroed when data.mass
// is allocated): copy the matrix before factorizing it in place.
const Eigen::MatrixXd& mass_matrix(const RigidBodyModel& model, RigidBodyData& data,
                                   const Eigen::Ref<const Eigen::VectorXd>& q);
// The same through the generic operators (operators/mass_matrix.hpp). Returns data.mass.
// inverse_dynamics through the generic operators (operators/inverse_dynamics.hpp). Returns
// data.inverse->generalized_force.
const Eigen::VectorXd& inverse_dynamics_through_operators(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
    const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Ref<const Eigen::VectorXd>& qdd,
    const Eigen::Vector3d& gravity);
const Eigen::MatrixXd& mass_matrix_through_operators(const RigidBodyModel& model,
                                                     RigidBodyData& data,
                                                     const Eigen::Ref<const Eigen::VectorXd>& q);

// The bias forces C(q, qd) including gravity: inverse dynamics at qdd = 0 (part II Eq. 3).
const Eigen::VectorXd& bias_forces(const RigidBodyModel& model, RigidBodyData& data,
                                   const Eigen::Ref<const Eigen::VectorXd>& q,
                                   const Eigen::Ref<const Eigen::VectorXd>& qd,
                                   const Eigen::Vector3d& gravity);

// qdd = M^-1 (tau - C) by the articulated-body algorithm (part II Algorithm 6.1) specialized to
// rigid nodes (part II section 8, "optimize algorithms"): the same recursions as the generic
// operators/forward_dynamics.hpp with fixed-size 6 x 6 blocks, in world axes about the origin of
// each tree's base link (data.world_* and data.articulated_inertia; data.velocity, coriolis and
// acceleration are left as they were). Gravity enters as the base acceleration -g. Returns
// data.generalized_acceleration. O(N); no allocation.
const Eigen::VectorXd& forward_dynamics(const RigidBodyModel& model, RigidBodyData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity);

// The same through the generic SKO operators (operators/forward_dynamics.hpp, Algorithm
// 6.1 on dynamic-size blocks), gravity folded into a(base). Returns
// data.forward->generalized_acceleration.
const Eigen::VectorXd& forward_dynamics_through_operators(
    const RigidBodyModel& model, RigidBodyData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
    const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Ref<const Eigen::VectorXd>& tau,
    const Eigen::Vector3d& gravity);

// The innovations factors M = [I + H A K] D [I + H A K]* and [I + H A K]^-1 = [I - H psi K]
// at q (part II Lemma 11, Eq. 49-50; operators/innovations.hpp), in the dof order.
void innovations_factors(const RigidBodyModel& model, RigidBodyData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q, InnovationsFactors& factors);

// The 6 x 6 operational-space inertia (J M^-1 J*)^-1 of a link (J: the link's body-frame spatial
// velocity per qd) at the configuration of the last update_positions/update_kinematics, by the
// extended operational-space compliance Omega = psi* H* D^-1 H psi (part II Eq. 59-60;
// operators/operational_space.hpp), M^-1 never formed. Throws std::runtime_error when fewer than 6
// independent dofs move the link (J not of full row rank). A flexible link's node is
// [V; etadot]: the result is the inverse of its compliance's rigid block.
Matrix6d operational_space_inertia(const RigidBodyModel& model, RigidBodyData& data, int link);

// Energies at the state of the last update_kinematics: T = 1/2 sum nu(k)* M(k) nu(k) and the
// potential -sum m g . c(k) (c(k): the link's center of mass in the world frame; a model with
// flexible links needs the overload taking q: std::invalid_argument).
double kinetic_energy(const RigidBodyModel& model, const RigidBodyData& data);
double potential_energy(const RigidBodyModel& model, const RigidBodyData& data,
                        const Eigen::Vector3d& gravity);
// The potential with the elastic energy and the modes' share of gravity's: that above, plus
// 1/2 eta* K eta - g . R (coupling_t eta) per flexible link (q: the configuration of the last
// update; the same as above for a rigid model). The energy whose sum with the kinetic energy
// the motion conserves.
double potential_energy(const RigidBodyModel& model, const RigidBodyData& data,
                        const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Vector3d& gravity);

// dq/dt from (q, qd): equals qd except for spherical and floating joints (rotation-vector rates
// J_r^-1 omega, position rates R v). q_rate has dof_count() entries.
void configuration_rate(const RigidBodyModel& model, const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                        Eigen::Ref<Eigen::VectorXd> q_rate);

}  // namespace skograph

// What the SIMD lane kernels (lane_kernels.hpp) read and write: plain arrays only, no Eigen and
// no standard containers, so that the translation units compiled with -mavx2 and -mavx512f share
// no inline function with the rest of the library (an inline function compiled with those flags
// and picked by the linker for a baseline caller would run AVX instructions on any CPU).
#pragma once

namespace skograph::lanes {

// The constants of a tree of rigid links (rigid/lanes.hpp: LaneTree builds them), node ids as in
// RigidBodyModel. Per node: its parent (-1 at a base), its joint's dof count (0 fixed, 1
// revolute or prismatic, 3 spherical, 6 floating) and first dof, a 1-dof joint's H* column (6
// numbers), the link's inertia (m, h = m c, J about the frame origin: 13 numbers, J column by
// column) and whether its subtree carries no mass (1 or 0). `order` lists the nodes parents first.
struct TreeView {
  int nodes = 0;
  int dof_count = 0;
  const int* order = nullptr;
  const int* parent = nullptr;
  const int* dofs = nullptr;
  const int* offset = nullptr;
  const double* hinge = nullptr;
  const double* inertia = nullptr;
  const int* massless = nullptr;
  // How the kernels make a node's joint transform from its q (joint_kind, the kJoint constants
  // below; joint_axis the coordinate axis 0, 1, 2 of a kJointTurn), from the joint's origin R0 (9
  // numbers, column by column), l0 (3) and unit axis (3, zero for ball, free and fixed joints) at
  // origin.
  const int* joint_kind = nullptr;
  const int* joint_axis = nullptr;
  const double* origin = nullptr;
  // The dofs in preorder (inverse dynamics' derivatives): node k's own dofs at positions
  // position[k] .. + dofs[k], its subtree's up to subtree_end[k]; dof_at[a] the dof at position a.
  const int* position = nullptr;
  const int* subtree_end = nullptr;
  const int* dof_at = nullptr;
  // Forward dynamics' derivatives: per dof (model order) its parent dof (-1 at a base; every
  // parent numbered before its children) and its last descendant (itself when it has none).
  const int* dof_parent = nullptr;
  const int* dof_last_descendant = nullptr;
};

// A fixed joint; a revolute one about a coordinate axis of its frame, or about another axis; a
// prismatic one; a spherical one (q a rotation vector); a floating one (q the rotation vector,
// then the translation).
inline constexpr int kJointFixed = 0, kJointTurn = 1, kJointSlide = 2, kJointTurnAbout = 3,
                     kJointBall = 4, kJointFree = 5;

// W states in lanes: entry (i, lane) of a per-lane quantity at [i * W + lane]. Per node the joint
// transform X_parent_child(q) as R (9 entries, column by column) and l (3 entries), written by
// joint_transforms from q (per dof, model dof order); per dof qd, qdd (inverse dynamics' input,
// forward dynamics' output) and tau (the other way round); the mass matrix's output M, its upper
// triangle (i <= j) at [(i * dofs + j) * W + lane] (the lower one is not written); forward
// dynamics' output `singular`, one number per lane (1 where the lane's D was singular, else 0).
// `work` holds the recursions' own quantities: V, A and f for inverse dynamics (18 entries per
// node), the world poses, composite inertias and H* columns for the mass matrix
// (mass_matrix_entries), the articulated-body quantities for forward dynamics
// (forward_dynamics_entries), the derivatives' passes (derivatives_entries).
struct Block {
  double* rotation = nullptr;
  double* translation = nullptr;
  const double* q = nullptr;
  const double* qd = nullptr;
  double* qdd = nullptr;
  const double* gravity = nullptr;  // 3 numbers, the same for every lane
  double* tau = nullptr;
  double* mass = nullptr;
  double* singular = nullptr;
  double* work = nullptr;
  // Inverse dynamics' derivatives: dtau/dq, dtau/dqd and M one after the other, each entry (i,
  // j) at [(i * dofs + j) * W + lane] (dofs^2 W numbers each, every entry); forward dynamics'
  // (lane_forward_derivatives.hpp) three more after them: dqdd/dq and dqdd/dqd transposed, and
  // dqdd/dtau.
  double* derivatives = nullptr;
};

// Lane entries of `work` per lane: inverse dynamics', forward dynamics' (lane_articulated.hpp: per
// node its pose, V, a, P packed, z and alpha; per dof its columns of H* and P H*, its row of D's
// factor and its innovation) and the mass matrix's (lane_composite.hpp: per node its pose and
// composite inertia; per dof its column of H*).
constexpr long work_entries(int nodes) {
  return 18L * nodes;
}
constexpr long forward_dynamics_entries(int nodes, int dofs) {
  return 57L * nodes + 19L * dofs;
}
constexpr long mass_matrix_entries(int nodes, int dofs) {
  return 25L * nodes + 6L * dofs;
}
// lane_derivatives.hpp: per node its pose, V, A0, V x H* qd, A, Y, B, F and gathered forces; per
// dof its columns s, dV, dA, dW, t1, t2, t3 and t4's angular half, C and the tau given back.
constexpr long derivatives_entries(int nodes, int dofs) {
  return 73L * nodes + 47L * dofs;
}

// How far the tau that forward dynamics' derivatives' qdd gives back may miss the given one,
// relative (|miss| <= this (1 + |tau|)), before the articulated-body recursion is asked instead:
// M formed about one point loses digits when small links sit far from it
// (forward_dynamics_derivatives.cpp and lane_forward_derivatives.hpp both test it).
inline constexpr double kForwardDerivativeResidual = 1e-12;

using Kernel = void (*)(const TreeView& tree, const Block& block) noexcept;

struct Kernels {
  int width;  // states per register: 4 for AVX2, 8 for AVX-512
  Kernel joint_transforms;
  Kernel inverse_dynamics;
  Kernel mass_matrix;
  Kernel forward_dynamics;
  Kernel inverse_dynamics_derivatives;
  Kernel forward_dynamics_derivatives;
};

// One table per instruction set, each defined in its own translation unit.
namespace avx2 {
extern const Kernels kernels;
}
namespace avx512 {
extern const Kernels kernels;
}

}  // namespace skograph::lanes

// Many states of one tree at once in the lanes of a SIMD register: W states per instruction
// (W = 4 on AVX2, 8 on AVX-512), the instruction set chosen at run time, so that one portable
// binary uses what the CPU has (docs/library.md, "SIMD lanes"). The lane kernels (rigid/lanes/)
// read the model's constants as plain arrays (LaneTree) and the states transposed into lanes
// (LaneWork); the joint transforms are made in the lanes from q (set_lane_configuration), the
// trigonometry included. Results agree with the single-state recursions to rounding (inverse
// dynamics, the mass matrix and inverse dynamics' derivatives 1e-13 relative, forward dynamics and
// its derivatives 1e-13 cond(M)), not bit for bit: the products are summed in another order.
//
//   LaneTree tree(model);                      // once per model
//   LaneWork work(model, Simd::kAvx2);         // once per thread
//   for (int lane = 0; lane < work.width; ++lane) {
//     set_lane_configuration(model, q[lane], lane, work);   // model dof order
//     ... qd, qdd into work.qd / work.qdd at [dof * width + lane]
//   }
//   inverse_dynamics_lanes(tree, Simd::kAvx2, gravity, work);       // tau in work.tau
//   forward_dynamics_lanes(tree, Simd::kAvx2, gravity, work);       // tau in, qdd in work.qdd
//   mass_matrix_lanes(tree, Simd::kAvx2, work);                       // M in work.mass
//   inverse_dynamics_derivatives_lanes(tree, Simd::kAvx2, gravity, work);  // work.derivatives
//   forward_dynamics_derivatives_lanes(tree, Simd::kAvx2, gravity, work);  // tau in, likewise
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

// An instruction set for the lanes. kScalar is no lanes at all: the single-state call per state.
enum class Simd { kAuto, kScalar, kAvx2, kAvx512 };

// "auto", "scalar", "avx2", "avx512".
const char* simd_name(Simd simd);
// The widest instruction set this CPU runs (its features and the operating system's saving of
// the wide registers, by the compiler's CPU check) and this build has kernels for; kScalar on
// other machines.
Simd best_simd();
// States per register: 1, 4, 8 (kAuto: best_simd()'s).
int simd_width(Simd simd);

// A tree of rigid links whose joints are fixed, 1-dof, spherical or floating: what the lane
// kernels compute. A planar joint (whose H* turns with q) or a flexible link is not; such a
// model's batches run state by state.
bool supports_lanes(const RigidBodyModel& model);
// Whether forward dynamics' derivatives run in the lanes too: supports_lanes, every dof moves mass
// and every dof's parent dof comes before it (the single call's factor along the tree).
bool supports_forward_derivative_lanes(const RigidBodyModel& model);

// The model constants the lane kernels read, as plain arrays in node order (lane_abi.hpp:
// TreeView); supported() as supports_lanes(model).
class LaneTree {
 public:
  explicit LaneTree(const RigidBodyModel& model);
  bool supported() const { return supported_; }
  int nodes() const { return static_cast<int>(parent_.size()); }
  int dof_count() const { return dof_count_; }
  const std::vector<int>& order() const { return order_; }
  const std::vector<int>& parent() const { return parent_; }
  const std::vector<int>& dofs() const { return dofs_; }
  const std::vector<int>& offset() const { return offset_; }
  const std::vector<double>& hinge() const { return hinge_; }
  const std::vector<double>& inertia() const { return inertia_; }
  // Per node 1 where its subtree carries no mass (RigidBodyModel::carries_no_mass), else 0.
  const std::vector<int>& massless() const { return massless_; }
  // Per node how its joint transform reaches the lanes, the turn's axis and the joint's origin
  // and axis (lane_abi.hpp: TreeView).
  const std::vector<int>& joint_kind() const { return joint_kind_; }
  const std::vector<int>& joint_axis() const { return joint_axis_; }
  const std::vector<double>& origin() const { return origin_; }
  // The dofs in preorder (RigidBodyModel::subtree_position): node k's at position()[k] .. +
  // dofs()[k], its subtree's up to subtree_end()[k]; dof_at()[a] the dof at position a.
  const std::vector<int>& position() const { return position_; }
  const std::vector<int>& subtree_end() const { return subtree_end_; }
  const std::vector<int>& dof_at() const { return dof_at_; }
  // Per dof its parent dof (-1 at a base) and last descendant (model order), and whether forward
  // dynamics' derivatives run in the lanes: every dof moves mass and every dof's parent comes
  // before it (the single call's factor along the tree; else rows run state by state).
  const std::vector<int>& dof_parent() const { return dof_parent_; }
  const std::vector<int>& dof_last_descendant() const { return dof_last_descendant_; }
  bool forward_derivatives_supported() const { return forward_derivatives_supported_; }
  // The entries of M that are not zero by structure: the pairs (row, column), row <= column, of
  // dofs on one path to a root (model dof order), sorted.
  struct MassEntry {
    int row, column;
  };
  const std::vector<MassEntry>& mass_entries() const { return mass_entries_; }

 private:
  bool supported_ = true;
  int dof_count_ = 0;
  std::vector<int> order_, parent_, dofs_, offset_;
  std::vector<MassEntry> mass_entries_;
  std::vector<double> hinge_, inertia_;
  std::vector<int> massless_, joint_kind_, joint_axis_;
  std::vector<double> origin_;
  std::vector<int> position_, subtree_end_, dof_at_;
  std::vector<int> dof_parent_, dof_last_descendant_;
  bool forward_derivatives_supported_ = false;
};

// The states of one block of `width` lanes and the kernels' workspace, entry (i, lane) at
// [i * width + lane]: per node the joint transform (rotation 9 entries column by column,
// translation 3, made by the kernels from q), per dof q, qd, qdd and tau
// (inverse dynamics: qdd in, tau out; forward dynamics: tau in, qdd out), M (its upper triangle,
// entry (i, j) for i <= j at [(i * dofs + j) * width + lane]; made by the first mass_matrix_lanes,
// dofs^2 width numbers), per lane whether forward dynamics found it singular, and the recursions'
// own quantities (grown by the first forward_dynamics_lanes), and inverse dynamics' derivatives
// (dtau/dq, dtau/dqd and M one after the other, each entry (i, j) at [(i * dofs + j) * width +
// lane]; made by the first inverse_dynamics_derivatives_lanes, 3 dofs^2 width numbers; six
// matrices for forward_dynamics_derivatives_lanes).
struct LaneWork {
  LaneWork(const RigidBodyModel& model, Simd simd);
  int width = 1;
  std::vector<double> rotation, translation, q, qd, qdd, tau, mass, singular, work, derivatives;
};

// The configuration q (model dof order) into lane `lane` of `work` (work.q): the kernels make every
// joint transform from it in the lanes, as the single-state walk would, to rounding
// (configuration_walk.hpp; the trigonometry by xsimd's sincos).
void set_lane_configuration(const RigidBodyModel& model, const double* q, int lane, LaneWork& work);

// Inverse dynamics (part II Algorithm 3.1) of the work.width states in `work` on `simd`'s lanes
// (kAvx2 or kAvx512, which the CPU must run: best_simd() at least): tau = M(q) qdd + C(q, qd)
// with gravity g, into work.tau. The tree must be supported().
void inverse_dynamics_lanes(const LaneTree& tree, Simd simd, const Eigen::Vector3d& gravity,
                            LaneWork& work);
// Forward dynamics (part II Algorithm 6.1, articulated-body inertias in world axes) of the
// work.width states in `work`: qdd of q, qd and tau with gravity g into work.qdd. A lane whose
// D = H P H* fails the single-state singularity test (or is not a number) has work.singular[lane]
// = 1 and a qdd to discard: recompute that state by the single-state forward_dynamics, which
// reports the joint (or takes an indefinite D). A massless subtree's joints get qdd = 0.
void forward_dynamics_lanes(const LaneTree& tree, Simd simd, const Eigen::Vector3d& gravity,
                            LaneWork& work);
// The mass matrix (part II Algorithms 4.1-4.2) of the work.width configurations in `work` into
// work.mass, exactly symmetric: the entries of tree.mass_entries() and their mirror images; the
// others, zero by structure, are left as they are (zero since work.mass was made).
void mass_matrix_lanes(const LaneTree& tree, Simd simd, LaneWork& work);
// Inverse dynamics' derivatives (rigid/derivatives.hpp: inverse_dynamics_derivatives) of the
// work.width states in `work` (q, qd, qdd with gravity g): dtau/dq (along the configuration's
// tangent), dtau/dqd and M = dtau/dqdd into work.derivatives, every entry (those of dofs on no
// common root path zero), and tau into work.tau. A lane whose results are not all finite numbers
// (an overflow) has work.singular[lane] = 1: recompute that state by the single call, which
// reports it.
void inverse_dynamics_derivatives_lanes(const LaneTree& tree, Simd simd,
                                        const Eigen::Vector3d& gravity, LaneWork& work);
// Forward dynamics' derivatives (rigid/derivatives.hpp: forward_dynamics_derivatives) of the
// work.width states in `work` (q, qd, tau with gravity g): qdd into work.qdd and dqdd/dq,
// dqdd/dqd (these two transposed: entry (i, j) at [(j * dofs + i) * width + lane]) and dqdd/dtau
// = M^-1 as the fourth to sixth dofs x dofs matrices of work.derivatives (the first three hold the
// passes' dtau/dq, dtau/dqd and M's factor). The tree must be
// forward_derivatives_supported(). A lane whose M the single call would not factor along the tree
// (a pivot that is not positive), whose qdd misses tau by more than the single call accepts, or
// whose results are not finite has work.singular[lane] = 1: recompute that state by the single
// call.
void forward_dynamics_derivatives_lanes(const LaneTree& tree, Simd simd,
                                        const Eigen::Vector3d& gravity, LaneWork& work);

}  // namespace skograph

// Internals shared by the closed-chain sources in rigid/closed_chain/ (model.cpp: the model;
// choice.cpp, constraints.cpp, selection.cpp: the choice of independent coordinates, the
// constraints, the selection; newton.cpp, assembly.cpp: the Newton closure and the assembly;
// dynamics.cpp, inverse_dynamics.cpp, embedded.cpp, forces.cpp: the dynamics and the loop forces):
// the model's aggregates and constraint rows, the data's workspaces. Not installed.
#pragma once

#include <algorithm>

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "skograph/aggregation/aggregated_model.hpp"
#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/closed_chain_model.hpp"

namespace skograph {

struct ClosedChainForwardDerivatives;
struct ClosedChainInverseDerivatives;
enum class LoopForceDerivatives;

// Up to three rows of directions (a loop's angular or linear rows): fixed capacity, so products
// with it are coefficient-based and allocate nothing.
using RowMatrix3 = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::ColMajor, 3, 3>;

// The constant row selections of one loop: the constrained directions of the relative twist
// [angular; linear] in F_p coordinates (closed_chain_model.hpp, "Constraints").
struct LoopRows {
  RowMatrix3 angular;  // rows applied to the relative angular velocity
  RowMatrix3 linear;   // rows applied to the relative linear velocity
  // The same rows padded with zero rows to 3 x 3, for fixed-size products on the hot path.
  Eigen::Matrix3d angular_padded = Eigen::Matrix3d::Zero();
  Eigen::Matrix3d linear_padded = Eigen::Matrix3d::Zero();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
  Eigen::Matrix<double, 3, 2> normals = Eigen::Matrix<double, 3, 2>::Zero();
  // The dofs of the loop's aggregate that move F_c or F_p but not both (their joint is an
  // ancestor-or-self of one end's link only), as positions in its dofs: the only nonzero columns
  // of the loop's rows of Q.
  struct MovingDof {
    int position;
    bool moves_child;  // else it moves F_p
    int dof = -1;      // the tree dof
    int column = -1;   // its column in the tree's derivative workspace (derivatives.hpp)
  };
  std::vector<MovingDof> moving;
  // moves[a * moving.size() + b]: whether moving dof a moves moving dof b's joint (the loop
  // forces' derivatives pick up s_a x s_b there), fixed by the tree.
  std::vector<char> moves;
  int rows() const { return static_cast<int>(angular.rows() + linear.rows()); }
};

struct ClosedChainModel::Impl {
  std::vector<std::vector<int>> nodes;      // per aggregate: SKO nodes, base first
  std::vector<std::vector<int>> loops;      // per aggregate: loop indices
  std::vector<std::vector<int>> couplings;  // per aggregate: coupling indices
  std::vector<std::vector<int>> dofs;       // per aggregate: tree dofs, stacked in node order
  std::vector<int> rows;                    // constraint rows per aggregate
  std::vector<LoopRows> loop_rows;          // per loop
  std::vector<int> aggregate_of_node;       // -1 for a plain node
  std::vector<int> dof_node;                // tree dof -> SKO node
  std::vector<int> dof_in_joint;            // tree dof -> index within its joint
  std::vector<int> plain_dofs;  // dofs of joints outside every aggregate and modal ones, increasing
  // Flexible links (docs/flexible-bodies.md, "In a loop"): per tree dof, whether it is a modal
  // coordinate; per aggregate, the modal coordinates that move one end of one of its loops
  // against the other (their columns of Q: ConstraintWorkspace::modal_constraint).
  std::vector<char> modal;
  std::vector<std::vector<int>> modal_dofs;
  std::vector<int> nominal_rank;  // per aggregate: generic rank of Q
  // Per aggregate: the structurally nonzero entries (i, j) of M_SS, one per symmetric pair,
  // positions in dofs[s] with i's joint an ancestor-or-self of j's (i <= j within one joint).
  struct MassEntry {
    int row, column;
  };
  std::vector<std::vector<MassEntry>> mass_entries;
  // Per aggregate: the user's independent coordinates (Mechanism::independent) as positions in
  // dofs[s], increasing; empty: the preferred, structural or rank-revealing choice.
  std::vector<std::vector<int>> chosen_independent;
  // Per aggregate: the preferred coordinates (Mechanism::preferred_independent) the constraints
  // leave free, as positions in dofs[s], increasing: kept independent, the others chosen by the
  // rank-revealing choice among themselves at each state. Empty with a user's choice. Without
  // preferred coordinates, the structural split's independent ones (structural_preference).
  std::vector<std::vector<int>> preferred_kept;
  // Per aggregate: preferred_kept is the structural split (closed_chain/choice.cpp,
  // structural_independent), not the mechanism's preference; everything else treats it as a
  // preference (the Newton closure and the assembly search hold it).
  std::vector<char> structural_preference;
  bool swallows_whole = false;
  std::vector<std::string> notes;  // ClosedChainModel::notes
};

// Workspaces of ClosedChainData beyond the public per-aggregate results.
// Where even the rank-revealing choice of an aggregate falls short of
// ClosedChainOptions::reselect_conditioning, the selection it made is kept while its conditioning
// stays above `conditioning` (half of that choice's), for at most a number of updates; the bar
// holds only for the selection it was measured on (`dependent`).
struct KeptSelectionBar {
  double conditioning = 0.0;   // the option's threshold when there is no bar
  std::vector<int> dependent;  // the selection's dependent columns
  int updates = 0;             // updates it has been kept for
};

// The constraints' update at a state (closed_chain/constraints.cpp): per aggregate the exact
// Jacobian of the position error (Newton) and the error, a revolute axis flipped by pi (the
// largest flip and its loop), a loop's relative twist Jacobian, a column of Q X_S (the embedding's
// check); the motion in world axes: every dof's hinge column, the accelerations at qdd = 0 and no
// gravity; Xdot qd_R over the tree's dofs, each dof's column of X, the independent dofs of the
// update before.
struct ConstraintWorkspace {
  std::vector<Eigen::MatrixXd> position_jacobian;
  std::vector<Eigen::VectorXd> position_error;
  std::vector<double> orientation_flip;
  std::vector<int> flipped_loop;
  std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> relative_twist;
  std::vector<Eigen::VectorXd> violation;
  Eigen::Matrix<double, 6, Eigen::Dynamic> world_column;
  Eigen::VectorXd node_acceleration;
  Eigen::VectorXd embedding_rate_full;
  std::vector<int> column_of;
  std::vector<int> independent_previous;
  // Flexible trees: per aggregate Q's columns of Impl::modal_dofs (rows x modes) and -Y1^+ of
  // them (X's rows of the dependent coordinates); the two ends' frame Jacobians over every dof;
  // the state of the last update (the flexible inverse dynamics walks q and qd again).
  std::vector<Eigen::MatrixXd> modal_constraint, modal_embedding;
  Eigen::MatrixXd end_jacobian_parent, end_jacobian_child;
  Eigen::VectorXd dependent_solution;
  Eigen::VectorXd updated_q, updated_qd;
  void resize(const ClosedChainModel& model);
};

// The selection of independent coordinates (closed_chain/selection.cpp): per aggregate Y1 of the
// current selection factorized, and the bar an ill-conditioned selection is kept to.
struct SelectionWorkspace {
  std::vector<DependentFactorization> dependent_factorization;
  std::vector<KeptSelectionBar> kept_bar;
  void resize(const ClosedChainModel& model);
};

// The closure (closed_chain/newton.cpp, closed_chain/assembly.cpp): per aggregate Newton's state,
// its accepted steps, the columns of J for the dependent coordinates and their least-squares
// solver, the step over the aggregate's dofs and its dependent part, |e| before the step and the
// halving scale; q before the trial steps; the q given to assemble and to the closure; assemble's
// held selections, the coordinates that moved, and the start selection's storage.
struct AssemblyWorkspace {
  enum class Newton { kActive, kClosed, kStalled };
  std::vector<Newton> newton_state;
  std::vector<int> newton_steps;
  std::vector<char> step_accepted;
  std::vector<Eigen::MatrixXd> dependent_jacobian;
  std::vector<Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>> least_squares;
  std::vector<Eigen::VectorXd> least_squares_rotated, least_squares_unpermuted,
      least_squares_essential;  // its solves (least_norm_solve)
  std::vector<Eigen::VectorXd> newton_step, dependent_step;
  std::vector<double> error_norm, step_scale;
  Eigen::VectorXd saved_configuration;
  Eigen::VectorXd assembly_start, closure_start;
  std::vector<CoordinateSelection> held_selection;
  std::vector<int> assembly_moved;
  struct StartChoice {
    std::vector<int> candidates;
    Eigen::MatrixXd columns;
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr;
  };
  std::vector<StartChoice> start_choice;
  void resize(const ClosedChainModel& model);
};

// The dynamics (closed_chain/dynamics.cpp, inverse_dynamics.cpp, embedded.cpp). The world-frame
// articulated-body pass, per tree node: articulated inertia P and bias force z (about
// update_world_motion's point, external children added; an aggregate's members' P become their
// composites in its step), accelerations, member subtree forces; per plain node and per aggregate
// the quantities of its step; the refinement's per-aggregate residuals and offsets, its input and
// its correction. The results (qdd, T_R, M_R and M X, the actuator forces), inverse dynamics'
// tree accelerations; the embedded model's workspaces (X_S in the structure's member order, the
// ranks the structure was built with, its Coriolis and gyroscopic terms, velocities and forces).
struct DynamicsWorkspace {
  std::vector<Matrix6d> articulated;
  std::vector<Vector6d> bias, acceleration, subtree_force;
  std::vector<int> members_seen;
  // A node outside every aggregate: what the gather keeps (articulated_step.hpp).
  struct NodeStep {
    bool massless = false;
    HingeMatrix projected;   // P H* (6 x r)
    HingeSquare inverse;     // D^-1, D = H P H*
    JointVector innovation;  // nu = D^-1 (T - H z)
  };
  std::vector<NodeStep> node_step;
  struct AggregateStep {
    bool massless = false;
    // F* = [R(b_j) H_j*] (6 x n) and M_SS X (n x r); 6-row matrices keep each column a
    // fixed-size spatial vector.
    Eigen::Matrix<double, 6, Eigen::Dynamic> force_columns;
    Eigen::MatrixXd projected;
    Eigen::MatrixXd factor;  // L of D = X* M_SS X = L L* (lower triangle)
    Eigen::Matrix<double, 6, Eigen::Dynamic> whitened_gain;  // W* = K* L^-* (6 x r)
    Eigen::VectorXd mass_values;                             // M_SS at Impl::mass_entries
    Eigen::VectorXd bias, forces, residual;
    Eigen::VectorXd whitened_innovation;  // w = L^-1 epsilon
    Eigen::VectorXd independent_acceleration, dof_acceleration;
    Matrix6d articulated = Matrix6d::Zero();
    Vector6d force = Vector6d::Zero();
  };
  std::vector<AggregateStep> aggregate_step;
  struct Refinement {
    Eigen::VectorXd dependent_force, multipliers, constraint_residual, dependent_offset, offset;
  };
  std::vector<Refinement> refinement;
  std::vector<Eigen::VectorXd> refinement_offsets;
  std::vector<Vector6d> zero_motion;
  Eigen::VectorXd refinement_force, refinement_step;
  Eigen::VectorXd accelerations, independent_forces;
  Eigen::MatrixXd reduced_mass, mass_embedding;
  Eigen::VectorXd tree_acceleration, actuated_acceleration, actuated_forces;
  std::vector<Eigen::MatrixXd> embedding_structure_order;
  std::vector<int> structure_rank;
  Eigen::VectorXd coriolis_tree;  // a with -g at the base nodes
  Eigen::VectorXd coriolis_aggregated, gyroscopic_aggregated;
  Eigen::VectorXd velocity_embedded, force_embedded;
  std::unique_ptr<AggregationWorkspace> aggregation;
  std::unique_ptr<ForwardDynamicsWorkspace> forward;
  void resize(const ClosedChainModel& model);
};

// The loop forces (closed_chain/forces.cpp), per aggregate: (M qdd + C - tau)_S, its dependent
// entries, Q_S* lambda_S, and which solve gave lambda_S (`all_equations`: the least-squares one of
// every equation, not Y1's), so that the forces' derivatives follow the same path.
struct ForceWorkspace {
  struct ForceSolve {
    Eigen::VectorXd right, dependent_right, check;
    bool all_equations = false;
  };
  std::vector<ForceSolve> force_solve;
  void resize(const ClosedChainModel& model);
};

// ClosedChainData's workspaces, one per algorithm, by name.
struct ClosedChainData::Workspaces {
  ConstraintWorkspace constraints;
  SelectionWorkspace selection;
  AssemblyWorkspace assembly;
  DynamicsWorkspace dynamics;
  ForceWorkspace forces;
  Eigen::VectorXd zero_dofs;  // zero rates and offsets, one per tree dof
};

namespace closed_chain_detail {

// Labels for messages (closed_chain/model.cpp): "loop 'close1'", "coupling 'gear'", "3.1e-01".
std::string loop_label(const Mechanism& m, int loop);
std::string coupling_label(const Mechanism& m, int coupling);
std::string format_residual(double value);
// Spherical and floating joints: rotation-vector coordinates.
bool uses_rotation_vector(JointType type);

// Constraints (closed_chain/constraints.cpp) and the selection (closed_chain/selection.cpp).
// What aggregate_constraints forms: the position error, its Jacobian and Q for the Newton
// closure (kPosition, kVelocity), Q and Qdot qd for the dynamics (kAcceleration).
enum class Level { kPosition, kVelocity, kAcceleration };
void aggregate_constraints(const ClosedChainModel& model, ClosedChainData& data, int s,
                           const Eigen::Ref<const Eigen::VectorXd>& q, Level level);
// Link poses, world velocities, velocity products, hinge columns (work.world_column) and the
// accelerations with qdd = 0 and no gravity (work.node_acceleration), in world axes about the first
// base link's origin (data.tree.tree_origin): what aggregate_constraints' kAcceleration (which
// needs them at the same q), forward and inverse dynamics read.
void update_world_motion(const RigidBodyModel& tree, const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd, ClosedChainData& data);
// max |position error| of aggregate s after aggregate_constraints (or a revolute axis flip).
double aggregate_position_residual(const ClosedChainData& data, int s);
// The loop or coupling that row `row` of aggregate s belongs to, for messages; its loop's index
// (-1 for a coupling's row), for ClosedChainError::loop; the first loop of aggregate s (-1: none).
std::string row_owner(const ClosedChainModel& model, int s, int row);
int row_loop(const ClosedChainModel& model, int s, int row);
int aggregate_loop(const ClosedChainModel& model, int s);
// The nominal rank of each aggregate's Q (ClosedChainModel::nominal_rank).
std::vector<int> generic_constraint_ranks(const ClosedChainModel& model);
// Q of aggregate s at the first of those configurations where it has the nominal rank.
Eigen::MatrixXd generic_constraint_matrix(const ClosedChainModel& model, int s);
// LoopDefinitionError when a modal coordinate moves a loop's ends in a way its joints cannot
// follow at a generic configuration: rank [Q_S q_eta] > rank Q_S.
void check_modes_are_followed(const ClosedChainModel& model);
// std::invalid_argument "WHAT: ... flexible links in a loop ..." on a closed-chain model whose
// tree has flexible links: for the calls that do not take them yet.
void require_rigid_links(const ClosedChainModel& model, const char* what);
// Flexible trees: the dense forms of X's products (data.X holds the modal columns).
bool has_flexible_links(const ClosedChainModel& model);
// The per-model choice of independent coordinates (closed_chain/choice.cpp): fills
// impl.chosen_independent, impl.preferred_kept and impl.structural_preference; needs the
// aggregates' dofs and nominal ranks.
void choose_independent(const ClosedChainModel& model, ClosedChainModel::Impl& impl);
// An ill-conditioned selection is kept while its conditioning stays above this fraction of the
// one it was made or held with (selection_serves, closed_chain/selection.cpp).
inline constexpr double kKeptFraction = 0.5;
// Keeps or re-selects aggregate s's independent coordinates; leaves Y1 factorized; sets
// data.ill_conditioned[s].
void update_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd);
// The selection made afresh from data's constraints of aggregate s at (q, qd): the preferred
// coordinates' while the others carry the constraints well, else the rank-revealing choice,
// improved by exchanges toward Y1's largest volume where it is ill-conditioned.
// SingularConfigurationError where the rank drops below the nominal rank (but for an
// over-constrained mechanism's closure rank, which becomes data's nominal rank).
CoordinateSelection remade_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                                     const Eigen::Ref<const Eigen::VectorXd>& q,
                                     const Eigen::Ref<const Eigen::VectorXd>& qd);
// The preferred coordinates' selection of aggregate s at data's constraints, the others chosen by
// the rank-revealing choice and improved by exchanges among themselves; false when the aggregate
// has no preferred coordinates or the others fall short of its rank.
bool improved_preferred_selection(const ClosedChainModel& model, const ClosedChainData& data, int s,
                                  CoordinateSelection& selection);
// sigma_max / sigma_min of Y1 = Q(:, dependent) of `selection` at data's constraints of aggregate
// s (infinite when it loses rank), by its SVD.
double selection_condition_number(const ClosedChainModel& model, const ClosedChainData& data, int s,
                                  const CoordinateSelection& selection);
// `held` as aggregate s's selection, kept by the next updates while its conditioning stays above
// kKeptFraction of 1 / condition (its condition number at data's constraints) even where that is
// below the option's threshold: assemble's held coordinates at the configuration it closed.
void hold_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                    const CoordinateSelection& held, double condition);
// "'a', 'b'": the dof names of positions of aggregate s, for messages.
std::string selection_names(const ClosedChainModel& model, int s,
                            const std::vector<int>& positions);
// The user's independent coordinates of aggregate s (Mechanism::independent) as a selection;
// false when the aggregate has none (the rank-revealing choice applies).
bool chosen_selection(const ClosedChainModel& model, int s, CoordinateSelection& selection);
// The rank-revealing choice of the dependent coordinates among the columns not in `kept`
// (positions, increasing), the kept ones independent: the selection of preferred coordinates.
CoordinateSelection preferred_selection(const Eigen::MatrixXd& constraint,
                                        const std::vector<int>& kept, double rank_tolerance);
// Whether every position of `kept` is independent in `selection`.
bool keeps(const CoordinateSelection& selection, const std::vector<int>& kept);
// True once aggregate s has a selection (an aggregate without dofs never needs one).
inline bool has_selection(const ClosedChainData& data, int s) {
  return !data.selection[s].dependent.empty() || !data.selection[s].independent.empty();
}

// What newton_closure reached: closed, or the aggregate whose residual stays largest, that
// residual, the sentence a ClosureError says of it and the loop it names (-1: a coupling).
struct NewtonOutcome {
  bool closed = true;
  int aggregate = -1;
  double residual = 0.0;
  std::string failure;
  int loop = -1;
  ClosureError error() const { return ClosureError(failure, loop); }
};
// Newton closure of every aggregate (only_aggregate < 0) or of one (closed_chain/newton.cpp). At
// most max_iterations steps (negative: ClosedChainOptions::max_newton_iterations). With `select`,
// each aggregate's dependent coordinates are the selection data carries while it serves
// (newton_selection); without, data.selection is taken as it is (assemble sets it).
NewtonOutcome newton_closure(const ClosedChainModel& model, ClosedChainData& data,
                             Eigen::Ref<Eigen::VectorXd> q, int only_aggregate,
                             int max_iterations = -1, bool select = true);
// The Newton Jacobian of aggregate s's closure with respect to the coordinates q themselves (the
// velocity Jacobian in `jacobian` turned, for rotation vectors and floating positions).
void coordinate_jacobian(const ClosedChainModel& model, int s,
                         const Eigen::Ref<const Eigen::VectorXd>& q, Eigen::MatrixXd& jacobian);
// The selection assemble holds from a start q of aggregate s (any q, closed or not; its
// constraints formed at q by the caller): the user's choice; else exactly nominal-rank dependent
// coordinates by the column-pivoted QR of Q, taken among the coordinates other than the preferred
// ones first. A function of q alone.
void start_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                     CoordinateSelection& selection);

// "aggregate 2" or the loops and couplings of aggregate s, for messages.
std::string aggregate_label(const ClosedChainModel& model, int s);
void check_vector(const Eigen::Ref<const Eigen::VectorXd>& v, int size, const char* what);
// Kinematics, constraints, selections, X and Xdot qd_R (not the embedded model). Without
// `with_embedding`, only the kinematics, Q, Qdot qd and the selections (the constraint Jacobian's
// rows: rigid/constraint_jacobian.hpp); X, Xdot qd_R and data.independent are left as they were.
void update_constraints(const ClosedChainModel& model, ClosedChainData& data,
                        const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& qd, bool with_embedding = true);
// independent = X* full (T_R = X* tau), block by block (O(N)).
void apply_embedding_transpose(const ClosedChainModel& model, const ClosedChainData& data,
                               const Eigen::Ref<const Eigen::VectorXd>& full,
                               Eigen::VectorXd& independent);
// full = X independent + offset (qdd = X qdd_R + Xdot qd_R), block by block.
void apply_embedding(const ClosedChainModel& model, const ClosedChainData& data,
                     const Eigen::Ref<const Eigen::VectorXd>& independent,
                     const Eigen::Ref<const Eigen::VectorXd>& offset,
                     Eigen::Ref<Eigen::VectorXd> full);
// fn(column, dofs, x) for every independent coordinate of every aggregate: its column of X
// (position in data.independent), the aggregate's tree dofs and X_S's column on them. The
// columns of X at plain dofs are unit vectors and are not visited.
template <class Fn>
void for_each_embedding_column(const ClosedChainModel& model, const ClosedChainData& data, Fn fn) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = impl.dofs[static_cast<std::size_t>(s)];
    const std::vector<int>& independent = data.selection[s].independent;
    for (std::size_t j = 0; j < independent.size(); ++j)
      fn(data.work->constraints
             .column_of[static_cast<std::size_t>(dofs[static_cast<std::size_t>(independent[j])])],
         dofs, data.embedding[s].col(static_cast<Eigen::Index>(j)));
  }
}

// M qdd + C (gravity included) in tree dofs at the constraints' last update, into
// data.tree.generalized_force (closed_chain/inverse_dynamics.cpp; forward dynamics' refinement
// reads it too).
const Eigen::VectorXd& tree_forces_at_update(const ClosedChainModel& model, ClosedChainData& data,
                                             const double* qdd, const Eigen::Vector3d& gravity);
// Whether the last update found any aggregate's selection ill-conditioned (forward dynamics then
// refines its solution).
inline bool any_ill_conditioned(const ClosedChainData& data) {
  return std::ranges::any_of(data.ill_conditioned, [](char c) { return c != 0; });
}
// forward_dynamics of rigid links at the constraints' last update (of this q, qd), without
// updating them again: the articulated-body pass and, where a selection is ill-conditioned, its
// refinement. The caller has checked tau's size.
const Eigen::VectorXd& forward_dynamics_at_update(const ClosedChainModel& model,
                                                  ClosedChainData& data,
                                                  const Eigen::Ref<const Eigen::VectorXd>& tau,
                                                  const Eigen::Vector3d& gravity);
// constraint_forces at the constraints' last update (of this q, qd), without updating them again:
// the selection, Q and Y1 stay those the caller's dynamics used. The caller has checked the sizes.
void constraint_forces_at_update(const ClosedChainModel& model, ClosedChainData& data,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 const Eigen::Ref<const Eigen::VectorXd>& qd,
                                 const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                 const Eigen::Ref<const Eigen::VectorXd>& tau,
                                 const Eigen::Vector3d& gravity, ConstraintForces& forces);
// The same from the tree's inverse dynamics at (q, qd, qdd) already computed (tree_force = M qdd +
// C with gravity, such as the derivative passes' tau): the multipliers' solve alone.
void constraint_forces_from_tree_force(const ClosedChainModel& model, ClosedChainData& data,
                                       const Eigen::VectorXd& tree_force,
                                       const Eigen::Ref<const Eigen::VectorXd>& tau,
                                       ConstraintForces& forces);
// The SingularMassMatrixError message of an aggregate whose minimal-coordinate D is singular.
std::string singular_aggregate_message(const ClosedChainModel& model, int s);

// The derivatives of closed chains with flexible links in a loop (closed_chain/
// flexible_derivatives.cpp): Richardson-extrapolated differences on the constraint manifold.
void flexible_forward_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q,
                                           const Eigen::Ref<const Eigen::VectorXd>& qd,
                                           const Eigen::Ref<const Eigen::VectorXd>& tau,
                                           const Eigen::Vector3d& gravity,
                                           ClosedChainForwardDerivatives& result,
                                           LoopForceDerivatives forces);
void flexible_inverse_dynamics_derivatives(const ClosedChainModel& model, ClosedChainData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q,
                                           const Eigen::Ref<const Eigen::VectorXd>& qd,
                                           const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                           const Eigen::Vector3d& gravity,
                                           ClosedChainInverseDerivatives& result);

// The aggregated structure for the current selection ranks (rebuilt when a rank changes).
void ensure_structure(const ClosedChainModel& model, ClosedChainData& data);

}  // namespace closed_chain_detail

}  // namespace skograph

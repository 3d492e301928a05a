// Closed-chain mechanisms as SKO models by constraint embedding (constraint-embedding §4-7;
// conventions.md "Constraint embedding").
//
//   ClosedChainModel model(mechanism);      // aggregates, constraint rows; immutable
//   ClosedChainData data(model);            // workspace sized once
//   assemble(model, data, q);               // q closed from any start (see below)
//   close_velocities(model, data, q, qd);   // dependent qd from the independent ones
//   const Eigen::VectorXd& qdd = forward_dynamics(model, data, q, qd, tau, gravity);
//
// The tree is the mechanism's joint tree (RigidBodyModel). Each loop closure is a cut edge between
// its two links and each gear coupling one between its two joints; their aggregation sub-graphs
// (graph/aggregation_subgraphs.hpp, merged where they share a node) become single nodes of the
// embedded SKO model (H_Ra, A_a, M) (aggregation/). Vectors q, qd, qdd and tau are always full:
// every tree dof in the tree's dof order (RigidBodyModel::dof_names), consistent with the loops.
//
// Constraints, per aggregate S (rows stacked over its loops and couplings):
//   loop      the relative spatial velocity of F_c with respect to F_p, in F_p coordinates, in the
//             directions the loop joint does not allow: revolute 5 rows (2 angular normal to the
//             axis, 3 linear), prismatic 5 (3 angular, 2 linear normal to the axis), spherical 3
//             (linear), weld 6. F_p = parent link frame * origin, F_c = child link frame *
//             child_origin; "world" (-1) is the inertial frame. Closed: F_c moves relative to F_p
//             only as the loop joint allows (the frames coincide at the joint's zero).
//   gear      thetadot_a - ratio thetadot_b = 0 (q[motor] = ratio q[link] + offset), per dof; a
//             differential thetadot_a - sum_i r_i thetadot_i = 0 (q_a = r_b q_b + r_c q_c + ...).
// Position level, in the same directions: the position of O_c in F_p (R_p^T (x_c - x_p)); the
// orientation error a x (R_rel a) for a revolute (a its axis, R_rel = R_p^T R_c; a flipped axis
// counts as open), the rotation vector log(R_rel) for prismatic and weld; q_a - ratio q_b - offset
// for gears (the weighted sum for differentials). A configuration is closed when every such
// residual is at most kClosureTolerance (1e-10), the one test everywhere.
//
// Closure (closed_chain/newton.cpp, closed_chain/assembly.cpp), with the exact Jacobian with
// respect to q (rotation vectors through the right Jacobian of the exponential map), steps added to
// q so that held entries stay exactly as given: close_positions keeps the independent coordinates:
// Newton over the dependent entries of every aggregate at once (at most 10 steps), then, for each
// aggregate still open, Levenberg-Marquardt (damped least squares, adaptive damping) from the given
// values and from deterministic restarts around them. assemble does the same and, where no closure
// keeps the independent coordinates, searches again with every coordinate of the aggregate free,
// wraps revolute angles to within pi of the start and steps along the closure toward the start (a
// closed configuration near it in the least-squares sense), reporting the independent coordinates
// that moved (AssemblyReport). Both throw ClosureError naming the loop with the largest residual
// when nothing closes. The simulation's projection is Newton alone (a global search could jump to
// another branch).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "skograph/aggregation/aggregated_model.hpp"
#include "skograph/aggregation/constraint_embedding.hpp"
#include "skograph/operators/innovations.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

// An error about a closed chain (graph/error.hpp), one sentence fit for the CLI's one line, and
// the loop it is about: an index into the model's mechanism().loops (the one its message names
// first), -1 where it names none (a coupling, the state). Loading charges an error about a loop
// to the file that declared it (LoopClosure::source_file and source_line).
class ClosedChainError : public Error {
 public:
  explicit ClosedChainError(const std::string& message, int loop = -1)
      : Error(message), loop_(loop) {}
  int loop() const { return loop_; }

 private:
  int loop_;
};
// The loops cannot be closed from the given state: naming the loop or coupling with the largest
// residual.
class ClosureError : public ClosedChainError {
 public:
  using ClosedChainError::ClosedChainError;
};
// The rank of an aggregate's constraints drops at the state: a singular configuration of the
// mechanism itself, where the embedding is undefined (not a numerical failure that a smaller step
// could avoid), naming the loop and the rank.
class SingularConfigurationError : public ClosedChainError {
 public:
  using ClosedChainError::ClosedChainError;
};
// What ClosedChainModel refuses in a mechanism's loop (a link out of range, a zero axis, ...):
// std::invalid_argument with the loop's index in the mechanism's loops.
class LoopDefinitionError : public std::invalid_argument {
 public:
  LoopDefinitionError(const std::string& message, int loop)
      : std::invalid_argument(message), loop_(loop) {}
  int loop() const { return loop_; }

 private:
  int loop_;
};

// The closure tolerance: a configuration is closed when every loop and coupling residual (the
// position errors of the constraint rows, in m and rad) is at most this. The one test of
// "closed" everywhere: assembly, the closed states the commands accept, the simulation's
// projection. The iterations go on below it while they can (ClosedChainOptions).
inline constexpr double kClosureTolerance = 1e-10;

// The largest condition number of a selection's Y1 (the constraints on the dependent coordinates)
// taken as well conditioned: above it the independent coordinates are selected again where
// another choice does better, a user's own choice is used with a warning, and forward dynamics
// refines its solution (ClosedChainData::ill_conditioned). The command line's
// --conditioning-limit, Python's conditioning_limit=.
inline constexpr double kConditioningLimit = 1e3;

struct ClosedChainOptions {
  // Newton and Levenberg-Marquardt go on while the residual falls and is above this (a polish
  // below kClosureTolerance, which decides whether a configuration is closed).
  double position_tolerance = 1e-12;
  int max_newton_iterations = 50;
  double rank_tolerance = 1e-9;  // select_coordinates
  // Re-select the independent coordinates of an aggregate when the conditioning of its Y1 falls
  // below this; report a singular configuration when the rank of Q drops below the aggregate's
  // nominal rank (ClosedChainModel::nominal_rank).
  double reselect_conditioning = 1.0 / kConditioningLimit;
};

// The largest aggregate (member links) constraint embedding takes: each aggregate is one dense
// node of dimension 6 |S| whose blocks grow as |S|^2 (1000 links: blocks of 288 MB).
inline constexpr int kMaxAggregateLinks = 1000;

class ClosedChainModel {
 public:
  // Throws std::invalid_argument naming the problem: what RigidBodyModel rejects, a loop naming a
  // link out of range, a coupling of joints with different dof counts, a coupling of a fixed joint,
  // an aggregate of more than kMaxAggregateLinks links.
  explicit ClosedChainModel(Mechanism mechanism, ClosedChainOptions options = {});

  const RigidBodyModel& tree() const { return *tree_; }
  const Mechanism& mechanism() const { return tree_->mechanism(); }
  const ClosedChainOptions& options() const { return options_; }
  int dof_count() const { return tree_->dof_count(); }  // full tree dofs

  // Aggregates (SKO nodes = tree joints, base first), their loops and couplings.
  int aggregate_count() const;
  const std::vector<int>& aggregate_nodes(int s) const;
  const std::vector<int>& aggregate_loops(int s) const;      // indices into mechanism().loops
  const std::vector<int>& aggregate_couplings(int s) const;  // indices into mechanism().couplings
  // Tree dofs of aggregate s in its stacked hinge order (members base first).
  const std::vector<int>& aggregate_dofs(int s) const;
  // True when one aggregate holds every joint (e.g. a parallel platform): still works, the
  // embedded model has a single node; the CLI says so.
  bool swallows_whole_mechanism() const;
  int constraint_rows(int s) const;
  // The nominal (generic) rank of aggregate s's Q: the largest rank of Q over a few deterministic
  // pseudo-random configurations of the tree (Q is defined at unclosed q too), taken once here so
  // that a state already at a singular configuration on the first update is reported. Rows that
  // are redundant for every tree configuration (a planar loop closed by a 3-D revolute: its
  // out-of-plane rows vanish identically) do not count. Over-constrained mechanisms, whose rows
  // become dependent only on the closure (a spherical four-bar closed by a revolute, a Bennett
  // linkage), have a closed rank below this one: the first time the rank falls below it,
  // update_closed_chain moves the independent coordinates a little, closes the loop there and
  // compares the rank; if the closure keeps the lower rank it becomes the data's nominal rank
  // (ClosedChainData::nominal_rank), otherwise the configuration is reported as singular.
  int nominal_rank(int s) const;
  // Joint j (a moving joint) moves no mass in the closed chain: it and every link below it are
  // massless (RigidBodyModel::carries_no_mass) and, inside an aggregate, so is every member of
  // the aggregate. Its acceleration is left at zero by forward_dynamics; a loop through massive
  // links, on the other hand, gives a massless link the motion of its aggregate.
  bool moves_no_mass(int joint) const;
  // The top such joints (no ancestor joint moves no mass), in joint order.
  std::vector<int> massless_moving_joints() const;
  // What the model decided that a user should know: preferred independent coordinates
  // (Mechanism::preferred_independent) it could not keep, one line each.
  const std::vector<std::string>& notes() const;

  struct Impl;  // aggregates and constraint rows (closed_chain/internal.hpp, model.cpp)

 private:
  std::shared_ptr<const RigidBodyModel> tree_;
  ClosedChainOptions options_;
  std::shared_ptr<const Impl> impl_;
  friend struct ClosedChainData;
  friend const Impl& closed_chain_impl(const ClosedChainModel&);
};

struct ClosedChainData {
  explicit ClosedChainData(const ClosedChainModel& model);
  // The tree's kinematics and SKO model. The closed-chain constraints and dynamics fill its link
  // poses and its world-axes motion (world_velocity, world_coriolis, world_hinge, about
  // tree_origin: one point for every tree); its link-frame velocity, coriolis, gyroscopic, force
  // and acceleration are left as they were (update_kinematics fills them).
  RigidBodyData tree;
  // Per aggregate at the last update: Q, Qdot qd, the selection and X_S, Xdot_S qd_R.
  std::vector<Eigen::MatrixXd> constraint_matrix;
  std::vector<Eigen::VectorXd> constraint_velocity_product;
  std::vector<CoordinateSelection> selection;
  std::vector<Eigen::MatrixXd> embedding;
  std::vector<Eigen::VectorXd> embedding_rate;
  // Per aggregate: ClosedChainModel::nominal_rank, or the closure's own lower rank of an
  // over-constrained mechanism once found.
  std::vector<int> nominal_rank;
  // Per aggregate at the last update: 1 where the selection's Y1 has conditioning below
  // ClosedChainOptions::reselect_conditioning (a condition number above its inverse, 10^3):
  // the user's choice there, or the best choice found when none reaches it. Forward dynamics
  // then refines its solution on the constraint equations (closed_chain/dynamics.cpp).
  std::vector<char> ill_conditioned;
  // The full X (dofs x independent) and the independent dofs (tree dof indices, increasing) at the
  // last update; plain tree dofs outside every aggregate are independent.
  Eigen::MatrixXd X;
  std::vector<int> independent;
  // Embedded hinge entry -> column of X (position in `independent`) at the last update: plain
  // nodes keep their joint's dofs, reduced nodes their selection's independent coordinates in
  // increasing order. Maps the embedded model's hinge vectors to the minimal coordinates.
  std::vector<int> embedded_to_independent;
  // The embedded SKO model and its workspaces (aggregation/ + operators/).
  std::unique_ptr<AggregatedStructure> structure;
  std::unique_ptr<SkoModel> embedded;
  // ... further workspaces as the implementation needs
  struct Workspaces;
  std::shared_ptr<Workspaces> work;
};

// What data carries from one update to the next along a motion: each aggregate's selection of
// independent coordinates, kept while it stays well conditioned (so that a simulation's minimal
// coordinates do not switch at every step), and an over-constrained aggregate's closure rank.
// forget_selections drops them: the next update selects afresh at its q, so that what it returns
// depends on its arguments alone. assemble starts with it; the model's calls (model/model.hpp)
// start every call with it.
void forget_selections(const ClosedChainModel& model, ClosedChainData& data);

// What a user should know about the independent coordinates of data's last update, per
// aggregate that has something to say: its selection is ill-conditioned (the condition number of
// Y1 above 1 / ClosedChainOptions::reselect_conditioning), or it leaves preferred coordinates
// (Mechanism::preferred_independent: a loop file's motors) dependent.
struct SelectionCondition {
  int aggregate = 0;
  std::string label;             // "loop 'close1'", "loop 'a', coupling 'g'"
  bool chosen = false;           // the user's choice (Mechanism::independent)
  std::vector<int> independent;  // tree dofs, increasing
  // Y1's condition number where ill-conditioned (0 otherwise), and for an automatic choice the
  // best found at this state (the rank-revealing choice improved by exchanges; <= condition).
  double condition = 0.0, best = 0.0;
  // The preferred coordinates left dependent (tree dofs), and the condition number with them
  // kept (infinite where the others cannot carry the constraints: rank lost).
  std::vector<int> preferred_dependent;
  double preferred_condition = 0.0;
};
std::vector<SelectionCondition> selection_conditions(const ClosedChainModel& model,
                                                     const ClosedChainData& data);

// Keeps the independent coordinates of q and solves the dependent ones on the position-level
// closure equations, starting from the given values: Newton, all aggregates together (O(N) per
// iteration), then for an aggregate Newton does not close a globalized Levenberg-Marquardt over
// its dependent coordinates (damped least squares with an adaptive trust region) and
// deterministic restarts around the given values. The independent coordinates are the chosen ones
// (Mechanism::independent, or the preferred ones) or the rank-revealing selection at the given q.
// Throws ClosureError naming the loop or coupling with the largest residual: "loop 'close1'
// cannot be closed from the given state with its independent coordinates kept: residual 3.1e-01
// (the least reached over 12 starts)".
void close_positions(const ClosedChainModel& model, ClosedChainData& data,
                     Eigen::Ref<Eigen::VectorXd> q);

// What assemble() did: the tree dofs among the independent coordinates that had to move (empty
// when close_positions closed the chain with them kept), by how much, and the final residual.
struct AssemblyReport {
  std::vector<int> moved;            // tree dofs, increasing
  std::vector<double> displacement;  // q - q0 at each of them
  double residual = 0.0;
};
// A closed configuration from any start: close_positions, and when the independent coordinates
// cannot be kept, the same search with every coordinate of the aggregate free from the given
// values, which ends at a closed configuration near them (the minimal-norm steps of the damped
// least squares), reported in the AssemblyReport. ClosureError when no start closes: the loop
// with the largest residual and that residual.
AssemblyReport assemble(const ClosedChainModel& model, ClosedChainData& data,
                        Eigen::Ref<Eigen::VectorXd> q);
// At a closed q: keeps the independent entries of qd, sets the dependent ones (qd = X qd_R).
void close_velocities(const ClosedChainModel& model, ClosedChainData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q, Eigen::Ref<Eigen::VectorXd> qd);
// max |position closure residual| and max |Q qd| at (q, qd).
double position_residual(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q);
double velocity_residual(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd);

// Kinematics, constraints, selection (re-selected when its conditioning degrades; ClosureError
// "singular configuration: loop 'close1' loses rank (2 -> 1)" when the rank drops), X, Xdot qd_R
// and the embedded SKO model at a consistent (q, qd). Of the functions below only
// innovations_factors and forward_dynamics_through_embedded_model call it: forward and inverse
// dynamics, M_R and constraint_forces update the constraints and X only, so data.embedded,
// data.structure and data.embedded_to_independent may be those of an earlier state.
void update_closed_chain(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd);

// The full Xdot qd_R (tree dofs) of the last update: each aggregate's Xdot_S qd_R at its dofs,
// zero at the dofs outside every aggregate (constraint-embedding Eq. 13: qdd = X qdd_R + this).
const Eigen::VectorXd& embedding_rate(const ClosedChainModel& model, const ClosedChainData& data);
// The consistent tree qdd = X qdd_R + Xdot qd_R (constraint-embedding Eq. 13) of the last update,
// qdd_R taken from `qdd`'s entries at the independent dofs (the others are not read).
Eigen::VectorXd consistent_accelerations(const ClosedChainModel& model, const ClosedChainData& data,
                                         const Eigen::Ref<const Eigen::VectorXd>& qdd);

// Full qdd = X qdd_R + Xdot qd_R with qdd_R from AB forward dynamics on the embedded model
// (constraint-embedding §7; part II Algorithm 6.1) in world coordinates, each aggregate through
// its member tree (closed_chain/dynamics.cpp); tau acts on all tree joints and enters as X* tau.
// Gravity as the base acceleration -g.
const Eigen::VectorXd& forward_dynamics(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity);
// The same by AB forward dynamics on the embedded SKO model itself (aggregation/ and
// operators/forward_dynamics.hpp, dense 6|S| blocks per aggregate): the reference the tests hold
// forward_dynamics to.
const Eigen::VectorXd& forward_dynamics_through_embedded_model(
    const ClosedChainModel& model, ClosedChainData& data,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity);
// Minimal-coordinate inverse dynamics: T_R = X* (M qdd + C) for qdd_R (independent accelerations,
// in the order of data.independent): Newton-Euler on the tree (part II Alg. 3.1) at
// qdd = X qdd_R + Xdot qd_R, then X*; the embedded model is not built. No allocation after the
// first call.
const Eigen::VectorXd& inverse_dynamics(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& qdd_independent,
                                        const Eigen::Vector3d& gravity);
// The actuator forces of the independent joints for the independent entries of qdd (tree dofs;
// the dependent entries are ignored): tau zero at the dependent dofs and T_R (inverse_dynamics
// above) at the independent ones. The rows of X at the independent dofs are unit rows, so
// X* tau = T_R: forward_dynamics of this tau gives back qdd_R, with the passive joints free.
// In data's workspace (valid until its next use); no allocation after the first call.
const Eigen::VectorXd& actuator_forces(const ClosedChainModel& model, ClosedChainData& data,
                                       const Eigen::Ref<const Eigen::VectorXd>& q,
                                       const Eigen::Ref<const Eigen::VectorXd>& qd,
                                       const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                       const Eigen::Vector3d& gravity);
// M_R = X* M_tree X, the tree's M by composite inertias (part II Alg. 4.1-4.2), then M X and
// X* (M X) through the blocks of X (one dense product where a single aggregate holds every dof),
// in the order of data.independent; the embedded model is not built. No allocation after the
// first call.
const Eigen::MatrixXd& reduced_mass_matrix(const ClosedChainModel& model, ClosedChainData& data,
                                           const Eigen::Ref<const Eigen::VectorXd>& q);
// Innovations factors of M_R (part II Lemma 11 on the embedded model).
void innovations_factors(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q, InnovationsFactors& factors);

}  // namespace skograph

// Wall time per call of a model's algorithms (model/timing.hpp).
#include "skograph/model/timing.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/forward_dynamics_alternatives.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/free_flying.hpp"
#include "skograph/rigid/multiplier_dynamics.hpp"
#include "state_internal.hpp"

namespace skograph {

namespace {

// A dense mass matrix above this many dofs is refused (a 200 MB matrix), as `skograph dynamics`
// refuses it.
constexpr int kDenseLimit = 5000;

const std::vector<std::string>& family_algorithms() {
  static const std::vector<std::string> names = {
      "id-sko",    "id-composite", "mass-sko",          "mass-direct",        "mass-symmetry",
      "fd-direct", "fd-symmetry",  "fd-sko-crba",       "fd-innovations",     "fd-cg",
      "fd-pcg",    "fd-sko",       "fd-base-invariant", "fd-base-invariant-2"};
  return names;
}

bool family_builds_dense_matrix(const std::string& algo) {
  return algo.starts_with("mass-") || algo == "fd-direct" || algo == "fd-symmetry" ||
         algo == "fd-sko-crba" || algo == "fd-innovations";
}

// Median wall time per call of `call`: batches of calls long enough (>= 0.2 ms) for the clock,
// `reps` batches, the median batch divided by its size.
template <class Call>
double median_ns_per_call(int reps, Call call) {
  using Clock = std::chrono::steady_clock;
  auto batch_seconds = [&](long calls) {
    const auto start = Clock::now();
    for (long i = 0; i < calls; ++i) call();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  long calls = 1;
  while (batch_seconds(calls) < 2e-4 && calls < (1L << 30)) calls *= 2;
  std::vector<double> per_call(static_cast<size_t>(reps));
  for (double& t : per_call) t = batch_seconds(calls) * 1e9 / static_cast<double>(calls);
  std::nth_element(per_call.begin(), per_call.begin() + reps / 2, per_call.end());
  return per_call[static_cast<size_t>(reps / 2)];
}

double bench_family(const RigidBodyModel& model, RigidBodyData& data, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                    const Eigen::VectorXd& tau, const Eigen::Vector3d& gravity,
                    const std::string& algo, int reps, double& sink) {
  // The free-flying paper's Algorithm 3.3 on one or two threads (rigid/free_flying.hpp): its own
  // kinematics each call.
  if (algo.starts_with("fd-base-invariant")) {
    std::optional<FreeFlyingData> free_flying;
    try {
      free_flying.emplace(model);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--algo " + algo + " needs a free-flying tree: " + e.what());
    }
    const int threads = algo == "fd-base-invariant-2" ? 2 : 1;
    return median_ns_per_call(reps, [&] {
      sink += base_invariant_forward_dynamics(model, data, *free_flying, q, qd, tau, gravity,
                                              threads)(0);
    });
  }
  // Each call from (q, qd): the kinematics, the SKO model, -g at the bases
  // (rigid_body_model.hpp: update_sko_dynamics_state).
  const auto update = [&] { update_sko_dynamics_state(model, q, qd, gravity, data); };
  update();  // sizes every workspace below
  const SkoModel& sko = data.sko;
  const SkoStructure& structure = sko.structure();
  if (algo == "id-sko") {
    InverseDynamicsWorkspace work(structure);
    return median_ns_per_call(reps, [&] {
      update();
      sink += inverse_dynamics(sko, qd, qdd, data.coriolis, data.gyroscopic, data.base_acceleration,
                               work)(0);
    });
  }
  if (algo == "id-composite") {
    CompositeInverseDynamicsWorkspace work(structure);
    return median_ns_per_call(reps, [&] {
      update();
      sink += inverse_dynamics_by_composite_inertias(sko, qdd, data.coriolis, data.gyroscopic,
                                                     data.base_acceleration, work)(0);
    });
  }
  Eigen::MatrixXd mass(model.dof_count(), model.dof_count());
  if (algo == "mass-sko") {
    CompositeInertiaWorkspace work(structure);
    return median_ns_per_call(reps, [&] {
      update();
      mass_matrix(sko, work, mass);
      sink += mass(0, 0);
    });
  }
  MassMatrixMethodsWorkspace methods(structure);
  InverseDynamicsWorkspace bias_work(structure);
  Eigen::LLT<Eigen::MatrixXd> cholesky(model.dof_count());
  Eigen::VectorXd solution(model.dof_count());
  for (const bool symmetric : {false, true}) {
    const std::string name = symmetric ? "symmetry" : "direct";
    const auto build = [&] {
      if (symmetric)
        mass_matrix_symmetry(sko, methods, mass);
      else
        mass_matrix_direct(sko, methods, mass);
    };
    if (algo == "mass-" + name)
      return median_ns_per_call(reps, [&] {
        update();
        build();
        sink += mass(0, 0);
      });
    if (algo == "fd-" + name)
      return median_ns_per_call(reps, [&] {
        update();
        build();
        cholesky.compute(mass);
        solution =
            tau - generalized_bias(sko, data.coriolis_with_gravity, data.gyroscopic, bias_work);
        cholesky.solveInPlace(solution);
        sink += solution(0);
      });
  }
  AlternativeForwardDynamicsWorkspace alternatives(sko.structure_ptr());
  if (algo == "fd-sko-crba")
    return median_ns_per_call(reps, [&] {
      update();
      sink += forward_dynamics_cholesky(sko, qd, tau, data.coriolis_with_gravity, data.gyroscopic,
                                        alternatives)(0);
    });
  if (algo == "fd-innovations")
    return median_ns_per_call(reps, [&] {
      update();
      sink += forward_dynamics_innovations(sko, qd, tau, data.coriolis_with_gravity,
                                           data.gyroscopic, alternatives)(0);
    });
  if (algo == "fd-cg" || algo == "fd-pcg") {
    ConjugateGradientOptions options;
    if (algo == "fd-pcg")
      options.preconditioner = ConjugateGradientPreconditioner::kCompositeBodyInertia;
    return median_ns_per_call(reps, [&] {
      update();
      forward_dynamics_conjugate_gradient(sko, qd, tau, data.coriolis_with_gravity, data.gyroscopic,
                                          options, alternatives);
      sink += alternatives.generalized_acceleration(0);
    });
  }
  ForwardDynamicsWorkspace articulated(sko.structure_ptr());  // fd-sko
  return median_ns_per_call(reps, [&] {
    update();
    sink +=
        forward_dynamics(sko, qd, tau, data.coriolis_with_gravity, data.gyroscopic, articulated)(0);
  });
}

// A generic state: every coordinate, rate and input nonzero and distinct.
struct BenchState {
  explicit BenchState(int n) : q(n), qd(n), qdd(n), tau(n), solution(n) {
    for (int i = 0; i < n; ++i) {
      q(i) = 0.3 * std::sin(1.0 + i);
      qd(i) = 0.5 * std::cos(2.0 + i);
      qdd(i) = 0.2 * std::sin(3.0 + i);
      tau(i) = std::cos(4.0 + i);
    }
  }
  // Closed chains: the generic q assembled (rigid/closed_chain_model.hpp), the dependent qd from
  // the independent ones.
  void close(const ClosedChainModel& model, ClosedChainData& data, const std::string& file) {
    try {
      assemble(model, data, q);
      close_velocities(model, data, q, qd);
    } catch (const Error& e) {
      throw UsageError(naming_file(file, e.what()) + " (bench state)");
    }
  }
  Eigen::VectorXd q, qd, qdd, tau, solution;
  const Eigen::Vector3d gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
};

double bench_tree(const RigidBodyModel& model, RigidBodyData& data, BenchState& s,
                  const std::string& algo, int reps, double& sink) {
  if (algo == "id")
    return median_ns_per_call(
        reps, [&] { sink += inverse_dynamics(model, data, s.q, s.qd, s.qdd, s.gravity)(0); });
  if (algo == "fd")
    return median_ns_per_call(
        reps, [&] { sink += forward_dynamics(model, data, s.q, s.qd, s.tau, s.gravity)(0); });
  if (algo == "mass")
    return median_ns_per_call(reps, [&] { sink += mass_matrix(model, data, s.q)(0, 0); });
  // The derivatives (rigid/derivatives.hpp) into results sized by a first call.
  if (algo == "id-derivatives") {
    InverseDynamicsDerivatives result;
    return median_ns_per_call(reps, [&] {
      inverse_dynamics_derivatives(model, data, s.q, s.qd, s.qdd, s.gravity, result);
      sink += result.dtau_dq(0, 0);
    });
  }
  if (algo == "fd-derivatives") {
    ForwardDynamicsDerivatives result;
    return median_ns_per_call(reps, [&] {
      forward_dynamics_derivatives(model, data, s.q, s.qd, s.tau, s.gravity, result);
      sink += result.dqdd_dq(0, 0);
    });
  }
  // Forward dynamics by composite body inertias: M and C by the recursions, then a dense
  // Cholesky solve of M qdd = tau - C (O(N^3)).
  Eigen::LLT<Eigen::MatrixXd> cholesky(model.dof_count());
  return median_ns_per_call(reps, [&] {
    cholesky.compute(mass_matrix(model, data, s.q));
    s.solution = s.tau - bias_forces(model, data, s.q, s.qd, s.gravity);
    cholesky.solveInPlace(s.solution);
    sink += s.solution(0);
  });
}

// The same algorithms in minimal coordinates (rigid/closed_chain_model.hpp): id = X* (M qdd + C)
// for the independent qdd (Newton-Euler on the tree), fd = the articulated-body forward dynamics
// through each aggregate's member tree, mass = M_R = X* M X from the tree's composite inertias,
// fd-crba = M_R, the minimal bias X* (M Xdot qd_R + C)
// and a dense Cholesky solve of M_R qdd_R = X* tau - bias_R.
double bench_closed_chain(const ClosedChainModel& model, ClosedChainData& data, BenchState& s,
                          const std::string& algo, ClosedChainSolver solver, int reps,
                          double& sink) {
  const auto n_independent = static_cast<Eigen::Index>(data.independent.size());
  const Eigen::VectorXd qdd_independent = s.qdd.head(n_independent);
  const Eigen::VectorXd zero_independent = Eigen::VectorXd::Zero(n_independent);
  Eigen::VectorXd reduced(n_independent);
  if (algo == "id")
    return median_ns_per_call(reps, [&] {
      sink += inverse_dynamics(model, data, s.q, s.qd, qdd_independent, s.gravity)(0);
    });
  if (algo == "fd" && solver == ClosedChainSolver::kMultipliers) {
    MultiplierWorkspace work(model);  // the augmented system (rigid/multiplier_dynamics.hpp)
    return median_ns_per_call(reps, [&] {
      sink += forward_dynamics_by_multipliers(model, data, work, s.q, s.qd, s.tau, s.gravity)(0);
    });
  }
  if (algo == "fd")
    return median_ns_per_call(
        reps, [&] { sink += forward_dynamics(model, data, s.q, s.qd, s.tau, s.gravity)(0); });
  if (algo == "mass")
    return median_ns_per_call(reps, [&] { sink += reduced_mass_matrix(model, data, s.q)(0, 0); });
  // The derivatives in the independent coordinates (rigid/closed_chain_derivatives.hpp).
  if (algo == "id-derivatives") {
    ClosedChainInverseDerivatives result;
    return median_ns_per_call(reps, [&] {
      inverse_dynamics_derivatives(model, data, s.q, s.qd, s.qdd, s.gravity, result);
      sink += result.dtau_dq(0, 0);
    });
  }
  if (algo == "fd-derivatives") {
    ClosedChainForwardDerivatives result;  // dqdd's derivatives, as finite differences give
    return median_ns_per_call(reps, [&] {
      forward_dynamics_derivatives(model, data, s.q, s.qd, s.tau, s.gravity, result,
                                   LoopForceDerivatives::kWithout);
      sink += result.dqdd_dq(0, 0);
    });
  }
  Eigen::LLT<Eigen::MatrixXd> cholesky(n_independent);
  return median_ns_per_call(reps, [&] {
    cholesky.compute(reduced_mass_matrix(model, data, s.q));
    reduced = -inverse_dynamics(model, data, s.q, s.qd, zero_independent, s.gravity);
    reduced.noalias() += data.X.transpose() * s.tau;
    cholesky.solveInPlace(reduced);
    sink += reduced(0);
  });
}

}  // namespace

const std::vector<std::string>& timed_algorithms() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = {
        "id", "fd", "mass", "fd-crba", "id-derivatives", "fd-derivatives"};
    for (const std::string& name : family_algorithms()) all.push_back(name);
    return all;
  }();
  return names;
}

Timing time_algorithm(const Model& loaded, const std::string& algo, ClosedChainSolver solver,
                      int reps) {
  const std::string& file = loaded.file();
  const std::vector<std::string>& family = family_algorithms();
  const bool in_family = std::ranges::find(family, algo) != family.end();
  const bool derivatives = algo == "id-derivatives" || algo == "fd-derivatives";
  if (algo != "id" && algo != "fd" && algo != "mass" && algo != "fd-crba" && !derivatives &&
      !in_family) {
    std::string expected = "id, fd, mass, fd-crba, id-derivatives, fd-derivatives";
    for (const std::string& name : family) expected += ", " + name;
    throw UsageError(
        (algo.empty() ? std::string("no algorithm given") : "unknown algorithm '" + algo + "'") +
        " (expected " + expected + ")");
  }
  const bool closed = loaded.is_closed_chain();
  double ns = 0.0, sink = 0.0;  // sink keeps the calls observable
  int n = 0, independent_count = 0;
  if (closed && in_family)
    throw UsageError(file + ": --algo " + algo +
                     " runs on trees (the SKO model of the spanning tree is not the closed "
                     "chain's); closed chains take id, fd, mass or fd-crba");
  if (closed) {
    const ClosedChainModel& model = *loaded.closed_chain();
    if (solver == ClosedChainSolver::kMultipliers)
      model_detail::require_rigid_loops(loaded, "the dynamics by multipliers");
    ClosedChainData data(model);
    n = model.dof_count();
    if (n == 0) throw UsageError(file + ": the model has no dofs to time");
    BenchState state(n);
    state.close(model, data, file);
    independent_count = static_cast<int>(data.independent.size());
    if (independent_count == 0)
      throw UsageError(file + ": the loops lock the mechanism: no independent coordinate to time");
    try {
      ns = bench_closed_chain(model, data, state, algo, solver, reps, sink);
    } catch (const Error& e) {  // the multiplier method on a model whose M is singular
      throw UsageError(naming_file(file, e.what()));
    }
  } else {
    const RigidBodyModel& model = loaded.tree();
    if ((algo == "mass" || algo == "fd-crba" || derivatives || family_builds_dense_matrix(algo)) &&
        model.dof_count() > kDenseLimit)
      throw UsageError(file + ": --algo " + algo + " builds a dense mass matrix, and " +
                       std::to_string(model.dof_count()) + " dofs are too many for it (at most " +
                       std::to_string(kDenseLimit) + "; id and fd are O(N))");
    if (model.dof_count() == 0) throw UsageError(file + ": the model has no dofs to time");
    // The SKO family's forward dynamics solve with M, which a joint moving no mass leaves
    // singular (the world-frame fd prescribes zero acceleration there instead).
    if (in_family && algo.starts_with("fd-") && !loaded.massless_joints().empty())
      throw UsageError(file + ": --algo " + algo + " solves with M, which is singular (joint '" +
                       loaded.mechanism().joints[loaded.massless_joints().front()].name +
                       "' moves no mass)");
    if (algo.starts_with("fd-base-invariant"))
      for (const int k : model.forest().bases())
        if (model.joint_geometry(k).type != JointType::kFloating)
          throw UsageError(file + ": --algo " + algo + " needs a free-flying tree (joint '" +
                           loaded.mechanism().joints[static_cast<std::size_t>(k)].name +
                           "' attaches a base link to the world and is not floating)");
    RigidBodyData data(model);
    n = model.dof_count();
    BenchState state(n);
    independent_count = n;
    ns = in_family ? bench_family(model, data, state.q, state.qd, state.qdd, state.tau,
                                  state.gravity, algo, reps, sink)
                   : bench_tree(model, data, state, algo, reps, sink);
  }
  if (!std::isfinite(sink))
    throw UsageError(file + ": the dynamics are not finite (singular mass matrix?)");
  return {ns, n, independent_count};
}

}  // namespace skograph

#include "bench_algorithms.hpp"

#include <Eigen/Cholesky>
#include <optional>
#include <stdexcept>

#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/forward_dynamics_alternatives.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/rigid/free_flying.hpp"
#include "usage.hpp"

namespace skograph::cli {

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

}  // namespace skograph::cli

// `skograph bench --algo`: the timer, and the tree algorithms of the serial-chain paper's three
// families on the SKO model (bench_algorithms.cpp), beside the world-frame recursions that
// model_commands.cpp times (id, fd, mass, fd-crba).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph::cli {

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

// The algorithms bench_family times, in the order the usage lists them, and whether one builds
// a dense mass matrix (refused above the dense limit).
const std::vector<std::string>& family_algorithms();
bool family_builds_dense_matrix(const std::string& algo);

// One of family_algorithms() on a tree at the state, each call from q and qd: the kinematics and
// the SKO model (rigid_body_model.hpp: update_kinematics, synchronize_sko_model), then
//   id-sko        Newton-Euler on the SKO model (part II Algorithm 3.1)
//   id-composite  composite-body inverse dynamics (serial-chain paper Lemma 3.2)
//   mass-sko, mass-direct, mass-symmetry   M by Algorithm 4.2, the direct and the symmetry-based
//                 methods (serial-chain paper section 3)
//   fd-direct, fd-symmetry  O(N^3): that M, C by Newton-Euler, a dense Cholesky solve
//   fd-sko-crba   O(N^3): forward_dynamics_cholesky (Algorithm 4.2's M)
//   fd-innovations  O(N^2): the innovations factors and triangular solves (section 4)
//   fd-cg, fd-pcg   O(N^2): conjugate gradients on M p by Newton-Euler, plain and preconditioned
//   fd-sko        O(N): the articulated-body algorithm on the SKO model (Algorithm 6.1)
double bench_family(const RigidBodyModel& model, RigidBodyData& data, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                    const Eigen::VectorXd& tau, const Eigen::Vector3d& gravity,
                    const std::string& algo, int reps, double& sink);

}  // namespace skograph::cli

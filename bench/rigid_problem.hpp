// A rigid-body model with its data and a random state (q, qd, qdd, tau), built outside the timed
// loops of the rigid-body benchmarks (rigid_bench.cpp, scaling_bench.cpp).
#pragma once

#include <random>
#include <utility>

#include "skograph/rigid/rigid_body_model.hpp"
#include "tests/support/rigid_support.hpp"

namespace skograph::bench {

struct RigidProblem {
  RigidProblem(Mechanism mechanism, unsigned seed) : model(std::move(mechanism)), data(model) {
    std::mt19937 rng(seed);
    const int n = model.dof_count();
    q = testing_support::rigid_random_state(n, rng);
    qd = testing_support::rigid_random_state(n, rng);
    qdd = testing_support::rigid_random_state(n, rng);
    tau = testing_support::rigid_random_state(n, rng);
  }
  RigidBodyModel model;
  RigidBodyData data;
  Eigen::VectorXd q, qd, qdd, tau;
};

}  // namespace skograph::bench

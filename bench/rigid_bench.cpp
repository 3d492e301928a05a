// Rigid-body dynamics benchmarks: inverse dynamics (id), articulated-body forward dynamics (fd),
// mass matrix (mass) and forward dynamics via mass matrix + Cholesky (fd-crba), on a 7-dof arm
// with realistic parameters and on random trees (tests/support/rigid_support.hpp). Each call
// includes the kinematics update at (q, qd). Models are built outside the timed loops.
#include <benchmark/benchmark.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <memory>
#include <random>

#include "bench/rigid_problem.hpp"
#include "skograph/rigid/free_flying.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "tests/support/rigid_support.hpp"

namespace {

using namespace skograph;

// A 7-dof serial arm with the proportions and inertias of a typical collaborative arm (~1.3 m
// reach, 22 kg): alternating z / y axes, link masses 4.0 .. 0.3 kg.
Mechanism seven_dof_arm() {
  Mechanism m;
  m.name = "arm7";
  const double masses[8] = {5.0, 4.0, 4.0, 3.0, 2.7, 1.7, 1.8, 0.3};
  const double lengths[8] = {0.15, 0.19, 0.21, 0.19, 0.21, 0.19, 0.081, 0.045};
  for (int i = 0; i < 8; ++i) {
    Link link;
    link.name = "link" + std::to_string(i);
    link.mass = masses[i];
    link.center_of_mass = Eigen::Vector3d(0.0, -0.01 * (i % 2), 0.5 * lengths[i]);
    const double r = 0.06, l = lengths[i];  // a cylinder of radius r and length l
    const double transverse = masses[i] * (3 * r * r + l * l) / 12, axial = masses[i] * r * r / 2;
    link.inertia = Eigen::Vector3d(transverse, transverse, axial).asDiagonal();
    m.links.push_back(link);
  }
  Joint base;
  base.name = "mount";
  base.type = JointType::kFixed;
  base.child = 0;
  m.joints.push_back(base);
  for (int i = 1; i < 8; ++i) {
    Joint joint;
    joint.name = "joint" + std::to_string(i);
    joint.type = JointType::kRevolute;
    joint.parent = i - 1;
    joint.child = i;
    joint.origin.translation() = Eigen::Vector3d(0, 0, lengths[i - 1]);
    // Alternate the joint axis between the link axis (z) and a transverse axis (y).
    joint.origin.linear() =
        Eigen::AngleAxisd(i % 2 == 0 ? M_PI / 2 : -M_PI / 2, Eigen::Vector3d::UnitX())
            .toRotationMatrix();
    joint.axis = Eigen::Vector3d::UnitZ();
    m.joints.push_back(joint);
  }
  return m;
}

struct Problem : bench::RigidProblem {
  explicit Problem(Mechanism mechanism) : RigidProblem(std::move(mechanism), 42) {}
  Eigen::LLT<Eigen::MatrixXd> cholesky;
  Eigen::VectorXd solution;
};

const Eigen::Vector3d kGravity(0, 0, -9.81);

// links = 7: the arm; otherwise a random tree with |links| links whose joints come in a shuffled
// file order (random node numbering) or, for negative values, in a canonical order (each joint
// after those of its descendants: the depth-first post-order of the tree).
std::unique_ptr<Problem> make_problem(int links) {
  if (links == 7) return std::make_unique<Problem>(seven_dof_arm());
  testing_support::RandomMechanismOptions options;
  options.links = links < 0 ? -links : links;
  std::mt19937 rng(7);
  Mechanism mechanism = testing_support::random_mechanism(options, rng);
  if (links < 0) {
    std::vector<int> parent_link(mechanism.links.size(), Forest::kNone);
    for (const Joint& joint : mechanism.joints) parent_link[joint.child] = joint.parent;
    const Forest tree(parent_link);
    std::sort(mechanism.joints.begin(), mechanism.joints.end(),
              [&](const Joint& a, const Joint& b) {
                return tree.post_index(a.child) < tree.post_index(b.child);
              });
  }
  return std::make_unique<Problem>(std::move(mechanism));
}

void report(benchmark::State& state, const Problem& p) {
  state.counters["dofs"] = p.model.dof_count();
  state.counters["ns_per_link"] = benchmark::Counter(
      static_cast<double>(p.model.link_count()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_InverseDynamics(benchmark::State& state) {
  auto p = make_problem(static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(inverse_dynamics(p->model, p->data, p->q, p->qd, p->qdd, kGravity));
  report(state, *p);
}

void BM_ForwardDynamicsArticulated(benchmark::State& state) {
  auto p = make_problem(static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(forward_dynamics(p->model, p->data, p->q, p->qd, p->tau, kGravity));
  report(state, *p);
}

void BM_MassMatrix(benchmark::State& state) {
  auto p = make_problem(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(mass_matrix(p->model, p->data, p->q).data());
  report(state, *p);
}

// qdd = M^-1 (tau - C): composite-inertia mass matrix, bias by inverse dynamics, dense Cholesky.
void BM_ForwardDynamicsCompositeCholesky(benchmark::State& state) {
  auto p = make_problem(static_cast<int>(state.range(0)));
  p->solution.resize(p->model.dof_count());
  for (auto _ : state) {
    p->solution = p->tau - bias_forces(p->model, p->data, p->q, p->qd, kGravity);
    p->cholesky.compute(mass_matrix(p->model, p->data, p->q));
    p->cholesky.solveInPlace(p->solution);
    benchmark::DoNotOptimize(p->solution.data());
  }
  report(state, *p);
}

void BM_UpdateKinematics(benchmark::State& state) {
  auto p = make_problem(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    update_kinematics(p->model, p->q, p->qd, p->data);
    benchmark::DoNotOptimize(p->data.velocity.data());
  }
  report(state, *p);
}

// The same Algorithm 6.1 through the generic dynamic-size SKO operators (ops2).
void BM_ForwardDynamicsThroughOperators(benchmark::State& state) {
  auto p = make_problem(static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(
        forward_dynamics_through_operators(p->model, p->data, p->q, p->qd, p->tau, kGravity));
  report(state, *p);
}

// Base-invariant forward dynamics (free-flying-base-invariance.txt Algorithm 3.3); random trees
// only (the arm is grounded).
void BM_ForwardDynamicsBaseInvariant(benchmark::State& state) {
  auto p = make_problem(static_cast<int>(state.range(0)));
  FreeFlyingData free_flying(p->model);
  for (auto _ : state)
    benchmark::DoNotOptimize(base_invariant_forward_dynamics(p->model, p->data, free_flying, p->q,
                                                             p->qd, p->tau, kGravity));
  report(state, *p);
}

// The same with the dual sweep on a second thread (started per call).
void BM_ForwardDynamicsBaseInvariantTwoThreads(benchmark::State& state) {
  auto p = make_problem(static_cast<int>(state.range(0)));
  FreeFlyingData free_flying(p->model);
  for (auto _ : state)
    benchmark::DoNotOptimize(base_invariant_forward_dynamics(p->model, p->data, free_flying, p->q,
                                                             p->qd, p->tau, kGravity, 2));
  report(state, *p);
}

// Algorithm 3.3 on a free-flying serial chain of state.range(0) links with state.range(1)
// threads: there the dual sweep never waits for the regular one (the paper's case).
void BM_ForwardDynamicsBaseInvariantChain(benchmark::State& state) {
  testing_support::RandomMechanismOptions options;
  options.links = static_cast<int>(state.range(0));
  options.planar = false;
  std::mt19937 rng(7);
  Mechanism chain = testing_support::random_mechanism(options, rng);
  for (Joint& joint : chain.joints)
    if (joint.child > 0) joint.parent = joint.child - 1;
  Problem p(std::move(chain));
  FreeFlyingData free_flying(p.model);
  const int threads = static_cast<int>(state.range(1));
  for (auto _ : state)
    benchmark::DoNotOptimize(base_invariant_forward_dynamics(p.model, p.data, free_flying, p.q,
                                                             p.qd, p.tau, kGravity, threads));
  report(state, p);
}

// 7 = the arm; others: random trees (floating base, mixed joints). Dense-matrix algorithms stop at
// 10^3 links (a 10^4-link tree has ~1.4e4 dofs: a 1.6 GB mass matrix).
BENCHMARK(BM_UpdateKinematics)->Arg(7)->Arg(10000)->Arg(-10000);
BENCHMARK(BM_InverseDynamics)->Arg(7)->Arg(100)->Arg(1000)->Arg(10000)->Arg(-10000);
BENCHMARK(BM_ForwardDynamicsArticulated)->Arg(7)->Arg(100)->Arg(1000)->Arg(10000)->Arg(-10000);
BENCHMARK(BM_ForwardDynamicsThroughOperators)->Arg(7)->Arg(100)->Arg(1000)->Arg(10000);
BENCHMARK(BM_ForwardDynamicsBaseInvariant)->Arg(100)->Arg(1000)->Arg(10000)->Arg(-10000);
BENCHMARK(BM_ForwardDynamicsBaseInvariantChain)
    ->Args({100, 1})
    ->Args({100, 2})
    ->Args({1000, 1})
    ->Args({1000, 2})
    ->Args({10000, 1})
    ->Args({10000, 2})
    ->UseRealTime();
BENCHMARK(BM_ForwardDynamicsBaseInvariantTwoThreads)->Arg(100)->Arg(1000)->Arg(10000)->Arg(-10000);
BENCHMARK(BM_MassMatrix)->Arg(7)->Arg(100)->Arg(1000);
BENCHMARK(BM_ForwardDynamicsCompositeCholesky)->Arg(7)->Arg(100)->Arg(1000);

}  // namespace

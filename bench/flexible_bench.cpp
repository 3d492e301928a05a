// Forward and inverse dynamics of a chain of flexible beams (docs/flexible-bodies.md) beside the
// same chain made rigid: N uniform beams, each on a revolute joint at its parent's tip, each with
// two bending modes per plane (4 modal coordinates per body), N = 10 .. 1000. The counter
// ns_per_link shows whether the cost grows linearly in the number of bodies and what the modes
// add per body.
#include <benchmark/benchmark.h>

#include <memory>

#include "bench/rigid_problem.hpp"

#include "skograph/rigid/beam_modes.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace {

using namespace skograph;

// N beams of length 0.5 along x, alternating hinge axes z and y; with `flexible`, their modes
// (clamped at the hinge, a node at the tip where the next joint sits).
Mechanism beam_chain(int links, bool flexible) {
  const BeamSpec spec{.length = 0.5,
                      .stiffness_y = 40.0,
                      .stiffness_z = 60.0,
                      .mass_per_length = 1.2,
                      .modes = 2,
                      .radius = 0.01};
  const BeamModes beam = clamped_free_beam(spec, {spec.length});
  Mechanism mechanism;
  for (int k = 0; k < links; ++k) {
    Link link;
    link.name = "beam" + std::to_string(k + 1);
    link.mass = beam.mass;
    link.center_of_mass = beam.center_of_mass;
    link.inertia = beam.inertia_about_center;
    Joint joint;
    joint.name = "hinge" + std::to_string(k + 1);
    joint.type = JointType::kRevolute;
    joint.parent = k - 1;
    joint.child = k;
    joint.axis = k % 2 == 0 ? Eigen::Vector3d::UnitZ() : Eigen::Vector3d::UnitY();
    joint.origin = Eigen::Isometry3d::Identity();
    if (k > 0) joint.origin.translation() = Eigen::Vector3d(spec.length, 0.0, 0.0);
    if (flexible) {
      auto body = std::make_shared<ModalBody>();
      body->modal_mass = beam.modal_mass;
      body->modal_stiffness = beam.modal_stiffness;
      body->modal_damping = Eigen::MatrixXd::Zero(beam.modal_mass.rows(), beam.modal_mass.cols());
      body->coupling = beam.coupling;
      if (k + 1 < links)
        body->nodes.push_back({"hinge" + std::to_string(k + 2), beam.influence[0]});
      link.flexible = body;
    }
    mechanism.links.push_back(link);
    mechanism.joints.push_back(joint);
  }
  return mechanism;
}

// The chain with a random state (seed 7), built outside the timed loops.
struct ChainProblem : bench::RigidProblem {
  ChainProblem(int links, bool flexible) : RigidProblem(beam_chain(links, flexible), 7) {}
};

const Eigen::Vector3d kGravity(0, 0, -9.81);

void per_link(benchmark::State& state, int links) {
  state.counters["ns_per_link"] =
      benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

template <bool Flexible>
void BM_BeamChainForwardDynamics(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  ChainProblem p(links, Flexible);
  forward_dynamics(p.model, p.data, p.q, p.qd, p.tau, kGravity);  // first touch outside the timing
  for (auto _ : state)
    benchmark::DoNotOptimize(forward_dynamics(p.model, p.data, p.q, p.qd, p.tau, kGravity).data());
  per_link(state, links);
}

template <bool Flexible>
void BM_BeamChainInverseDynamics(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  ChainProblem p(links, Flexible);
  inverse_dynamics(p.model, p.data, p.q, p.qd, p.qdd, kGravity);
  for (auto _ : state)
    benchmark::DoNotOptimize(inverse_dynamics(p.model, p.data, p.q, p.qd, p.qdd, kGravity).data());
  per_link(state, links);
}

BENCHMARK(BM_BeamChainForwardDynamics<true>)
    ->Name("BM_FlexibleChainForwardDynamics")
    ->RangeMultiplier(10)
    ->Range(10, 1000);
BENCHMARK(BM_BeamChainForwardDynamics<false>)
    ->Name("BM_RigidChainForwardDynamics")
    ->RangeMultiplier(10)
    ->Range(10, 1000);
BENCHMARK(BM_BeamChainInverseDynamics<true>)
    ->Name("BM_FlexibleChainInverseDynamics")
    ->RangeMultiplier(10)
    ->Range(10, 1000);
BENCHMARK(BM_BeamChainInverseDynamics<false>)
    ->Name("BM_RigidChainInverseDynamics")
    ->RangeMultiplier(10)
    ->Range(10, 1000);

}  // namespace

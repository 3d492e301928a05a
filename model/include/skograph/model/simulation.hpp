// A model's motion from a state, in the file's dof order: the closed-chain integrator of
// rigid/closed_chain_simulation.hpp (a tree is a closed chain without loops) behind the model's
// one way in, with the assembly of the start and what a user should know about it.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "skograph/model/state.hpp"
#include "skograph/rigid/closed_chain_simulation.hpp"

namespace skograph {

// What a run reports: the closed start (assembled as close_state does, with its messages and the
// independent coordinates that moved), the integrator's summary, the state at the end and the
// independent coordinates (names, file order).
struct Simulation {
  ClosedState start;
  std::vector<ModelData::Moved> moved;
  StateMessages messages;
  SimulationSummary summary;
  Eigen::VectorXd q, qd;
  std::vector<std::string> independent;
};

// A sample with q and qd in the file's dof order (valid during the callback).
using FileOrderCallback = std::function<void(const SimulationSample&)>;

// Integrates from (q, qd) (file order) for options (options.tau in the file's order; empty means
// zero): the start assembled first (close_state), then rigid/closed_chain_simulation.hpp's run.
// `callback` sees every sample with q and qd in the file's order. Throws as close_state and
// simulate do.
Simulation simulate(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& qd, SimulationOptions options,
                    const FileOrderCallback& callback = {});

// The names of the constraint forces constraint_forces gives, in its order: per loop
// NAME_mx NAME_my NAME_mz NAME_fx NAME_fy NAME_fz; per coupling NAME_tau (NAME:k_tau for each of
// several dofs). Trees: none.
std::vector<std::string> constraint_force_names(const Model& model);

}  // namespace skograph

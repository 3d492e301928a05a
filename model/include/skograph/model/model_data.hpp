// The workspace of the calls on a model (model/state.hpp, model/dynamics.hpp, ...): one per thread,
// sized once from the model; it holds no input of any call (each call overwrites what it uses).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "skograph/model/model.hpp"
#include "skograph/rigid/closed_chain_derivatives.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/lanes.hpp"
#include "skograph/rigid/multiplier_dynamics.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph {

// The workspace of the functions below (one per thread).
class ModelData {
 public:
  explicit ModelData(const Model& model);
  ~ModelData();
  ModelData(ModelData&&) noexcept;
  ModelData& operator=(ModelData&&) noexcept;
  RigidBodyData& tree();            // the tree's (for a closed chain: of its spanning tree)
  ClosedChainData* closed_chain();  // null for trees
  const ClosedChainData* closed_chain_view() const { return closed_chain_.get(); }
  // Closed chains: the workspace of the multiplier method (rigid/multiplier_dynamics.hpp), made
  // on first use.
  MultiplierWorkspace& multiplier_workspace(const Model& model);
  // Trees: the batches' lanes on `simd` (rigid/lanes.hpp), the model's constants and a block's
  // workspace, made on first use (again when another instruction set is asked for).
  struct Lanes {
    Lanes(const RigidBodyModel& tree, const DofOrder& order, Simd simd);
    LaneTree tree;
    LaneWork work;
    Simd simd;
    // Where each entry of tree.mass_entries() goes: from work.mass (lane 0's entry) to a row of
    // n^2 entries in the file's dof order, at (row, column) and its mirror image (column, row).
    struct MassPlacement {
      long from, to, mirror;
    };
    std::vector<MassPlacement> mass_placement;
  };
  Lanes& lanes(const Model& model, Simd simd);
  // Independent dof names (file order) of the last closed-chain call; every dof for a tree.
  std::vector<std::string> independent;
  // Closed chains: the independent coordinates the last call had to move to close the loops
  // (rigid/closed_chain_model.hpp: assemble), file order, with how far; empty when the state's
  // were kept. assembly_warning() words it.
  struct Moved {
    std::string dof;
    double by = 0.0;
  };
  std::vector<Moved> moved;
  // The workspace of the calls below (the state in the model's order, closed; an input in the
  // model's order; zero rates for the mass matrix), kept between calls so that the calls with an
  // output argument allocate nothing once they have seen a state. Not an input of those calls:
  // they overwrite it first.
  struct State {
    Eigen::VectorXd q, qd, input, zero_rates;
    Eigen::MatrixXd matrix;
    std::vector<int> independent_dofs;  // the model dofs data.independent names
    // The tree's derivatives in the model's order (model/derivatives.hpp).
    ForwardDynamicsDerivatives forward_derivatives;
    InverseDynamicsDerivatives inverse_derivatives;
    // A closed chain's, in its independent coordinates.
    ClosedChainForwardDerivatives closed_forward_derivatives;
    ClosedChainInverseDerivatives closed_inverse_derivatives;
    std::vector<int> independent_shown;  // positions in the closed chain's independent list
  } state;

 private:
  std::unique_ptr<RigidBodyData> tree_;
  std::unique_ptr<ClosedChainData> closed_chain_;
  std::unique_ptr<MultiplierWorkspace> multipliers_;
  std::unique_ptr<Lanes> lanes_;
};

}  // namespace skograph

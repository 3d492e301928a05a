// The dynamics of a model in the file's dof order: forward and inverse dynamics, the mass matrix
// and the bias forces; for closed chains the embedding X, M_R, the SKO model behind the sparse
// matrices and the forces through the loops. Every call prepares its state as model/state.hpp
// says (closed chains assembled first).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "skograph/model/state.hpp"
#include "skograph/operators/sko_model.hpp"
#include "skograph/rigid/closed_chain_forces.hpp"

namespace skograph {

// All in the file's dof order. Closed chains at the closed state (close_state):
// forward_dynamics: qdd for tau acting on every joint (X* tau in the minimal coordinates);
// inverse_dynamics: the actuator forces for qdd's independent entries (qdd_R): nonzero only at
// the independent dofs, X* tau = T_R (rigid/closed_chain_model.hpp: actuator_forces), so that
// forward_dynamics of that tau gives back qdd_R; mass_matrix and bias_forces: the spanning tree's
// M(q) and C(q, qd) (gravity included), as `skograph dynamics --json` reports them.
Eigen::VectorXd forward_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                 const Eigen::Vector3d& gravity = kStandardGravity);
Eigen::VectorXd inverse_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                                 const Eigen::Vector3d& gravity = kStandardGravity);
Eigen::MatrixXd mass_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q);
// The same into `qdd`, `tau` (dofs) and `mass` (dofs x dofs): no allocation once `data` has
// seen a state, for closed chains at closed states (one that must be assembled runs the closure
// search); the Python module's batch rows; tests/model/allocation_test.cpp. The inputs must
// not be data.state's vectors.
void forward_dynamics(const Model& model, ModelData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd,
                      const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity,
                      Eigen::Ref<Eigen::VectorXd> qdd);
void inverse_dynamics(const Model& model, ModelData& data,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd,
                      const Eigen::Ref<const Eigen::VectorXd>& qdd, const Eigen::Vector3d& gravity,
                      Eigen::Ref<Eigen::VectorXd> tau);
void mass_matrix(const Model& model, ModelData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
                 Eigen::Ref<Eigen::MatrixXd> mass);
Eigen::VectorXd bias_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& qd,
                            const Eigen::Vector3d& gravity = kStandardGravity);
// Closed chains: X (dofs in file order x independent dofs in file order) and M_R = X* M X at the
// closed q, with the independent names in data.independent.
Eigen::MatrixXd embedding_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q);
Eigen::MatrixXd reduced_mass_matrix(const Model& model, ModelData& data, const Eigen::VectorXd& q);

// The SKO model behind the sparse matrices of `model` at q (file order; closed first), in `data`
// (valid until its next use), and where its entries go in the file's order (for
// sparse/sparse_export.hpp): the tree's model (its M), or for a closed chain with `embedded` the
// constraint-embedded model (its M is M_R = X* M X, hinge entries in the order of the independent
// dofs as the file lists them, nodes the aggregated forest's); without `embedded` a closed
// chain's spanning tree. `skograph export` and the Python module both take their matrices here.
struct ModelSko {
  const SkoModel* sko = nullptr;
  std::vector<int> hinge_rows;         // hinge entry -> row (empty: the model's own order)
  std::vector<int> node_rows;          // scalar node row (node layout) -> row (empty: own order)
  std::vector<std::string> row_names;  // the dof names of M's rows, in row order
};
ModelSko model_sko(const Model& model, ModelData& data, const Eigen::VectorXd& q, bool embedded);

// Closed chains: what goes through the loops and couplings while the chain moves under tau
// (forward_dynamics above; rigid/closed_chain_forces.hpp): per loop of mechanism().loops the
// spatial force [moment; force] on its child link from its parent, about the joint, in F_p
// coordinates; per coupling the force on its first joint (per dof; the second joint gets -ratio
// times it); `skograph dynamics --json`'s "loop_forces" and "coupling_forces". Trees: empty.
ConstraintForces constraint_forces(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                   const Eigen::Vector3d& gravity = kStandardGravity);

}  // namespace skograph

#include "skograph/operators/operational_space.hpp"

#include <Eigen/Cholesky>
#include <stdexcept>
#include <vector>

namespace skograph {

OperationalSpaceWorkspace::OperationalSpaceWorkspace(std::shared_ptr<const SkoStructure> structure)
    : articulated(structure), hinge_compliance(structure->node), lyapunov(*structure) {}

// Part II Eq. 60 with Lemma 5, Eq. 23-24 (backward Lyapunov scatter over E_psi).
const BlockDiagonal& operational_space_compliance_diagonal(const SkoModel& model,
                                                           OperationalSpaceWorkspace& workspace) {
  ArticulatedBodyWorkspace& articulated = workspace.articulated;
  articulated_body_inertias(model, articulated);
  require_no_massless_nodes(articulated, "operational_space_compliance");
  for (int k = 0; k < model.size(); ++k) {
    // X(k) = H*(k) D^-1(k) H(k): D^-1 H by the Cholesky factor of D(k) (in the row scratch).
    const int r = model.hinge_dim(k), m = model.node_dim(k);
    Eigen::Map<Eigen::MatrixXd> solved(articulated.row_scratch.data(), r, m);
    solved = model.hinge_map(k);
    solve_innovations_inertia(articulated, k, solved);
    workspace.hinge_compliance.block(k).noalias() = model.hinge_map(k).transpose() * solved;
  }
  // Omega = psi* X psi: backward Lyapunov with A = B = psi (part II Lemma 5, Eq. 60).
  return backward_lyapunov_diagonal(articulated.psi_kernel, workspace.hinge_compliance,
                                    articulated.psi_kernel, workspace.lyapunov);
}

// Part II Eq. 25 / Algorithm 4.3 over E_psi.
Eigen::MatrixXd operational_space_compliance_block(const OperationalSpaceWorkspace& workspace,
                                                   int i, int j) {
  const BwaMatrix& psi = workspace.articulated.psi_kernel;
  return backward_lyapunov_element(psi, psi, workspace.lyapunov.diagonal, i, j);
}

// Part II Eq. 59-60: J M^-1 J* = B* Omega B.
void operational_space_compliance(const SkoModel& model, std::span<const int> nodes,
                                  OperationalSpaceWorkspace& workspace,
                                  Eigen::MatrixXd& compliance) {
  operational_space_compliance_diagonal(model, workspace);
  std::vector<int> offset(nodes.size() + 1, 0);
  for (std::size_t n = 0; n < nodes.size(); ++n)
    offset[n + 1] = offset[n] + model.node_dim(nodes[n]);
  compliance.resize(offset.back(), offset.back());
  for (std::size_t a = 0; a < nodes.size(); ++a)
    for (std::size_t b = a; b < nodes.size(); ++b) {
      const int i = nodes[a], j = nodes[b];
      auto block = compliance.block(offset[a], offset[b], model.node_dim(i), model.node_dim(j));
      block = operational_space_compliance_block(workspace, i, j);
      if (b != a) {
        compliance.block(offset[b], offset[a], model.node_dim(j), model.node_dim(i)) =
            block.transpose();
      }
    }
}

// Part II section 6.2: the operational-space inertia (B* Omega B)^-1.
void operational_space_inertia(const SkoModel& model, std::span<const int> nodes,
                               OperationalSpaceWorkspace& workspace, Eigen::MatrixXd& inertia) {
  Eigen::MatrixXd compliance;
  operational_space_compliance(model, nodes, workspace, compliance);
  if (compliance.size() == 0) {
    inertia.resize(0, 0);
    return;
  }
  const Eigen::LLT<Eigen::MatrixXd> cholesky(compliance);
  // Positive definiteness alone is not enough numerically: a rank-deficient J gives a tiny pivot.
  const double scale = compliance.diagonal().cwiseAbs().maxCoeff();
  bool singular = cholesky.info() != Eigen::Success;
  if (!singular) {
    const double smallest = cholesky.matrixLLT().diagonal().cwiseAbs().minCoeff();
    singular = smallest * smallest <= 1e-13 * scale;
  }
  if (singular)
    throw std::runtime_error(
        "operational_space_inertia: J M^-1 J* is singular (the nodes' Jacobian lacks full row "
        "rank)");
  inertia = cholesky.solve(Eigen::MatrixXd::Identity(compliance.rows(), compliance.cols()));
}

}  // namespace skograph

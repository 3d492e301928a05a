// Closed chains as other solvers take them, in the file's dof order at the closed
// state (close_state, as every call of model/model.hpp): the constraint Jacobian G with its row
// labels and Gdot qd (rigid/constraint_jacobian.hpp), and forward dynamics by Lagrange
// multipliers beside constraint embedding (rigid/multiplier_dynamics.hpp). What `skograph export
// --constraints`, `skograph dynamics --solver multipliers` and the Python module use.
//
//   const ConstraintSystem g = constraint_system(model, data, q, qd);   // g.jacobian: rows x dofs
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "skograph/model/dynamics.hpp"

namespace skograph {

struct ConstraintSystem {
  Eigen::SparseMatrix<double> jacobian;  // G: independent rows x dofs (file order)
  Eigen::VectorXd bias;                  // Gdot qd per row
  std::vector<std::string> labels;       // per row: "loop 'close1' angular n1"
  int stacked_rows = 0;                  // every row of every loop and coupling, redundant included
};
// Trees: no rows. `independent_rows_only` false keeps the redundant rows too.
ConstraintSystem constraint_system(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, bool independent_rows_only = true);

// How forward dynamics solves a closed chain: constraint embedding (minimal coordinates, the
// default) or the multiplier method (the augmented system on all tree dofs).
enum class ClosedChainSolver { kEmbedding, kMultipliers };
const char* solver_name(ClosedChainSolver solver);  // "embedding", "multipliers"
std::optional<ClosedChainSolver> parse_solver(std::string_view name);

// qdd (file order) and, for the multiplier method, the multipliers of G's rows with their labels
// (none for embedding or a tree).
struct ClosedDynamics {
  Eigen::VectorXd acceleration;
  Eigen::VectorXd multipliers;
  std::vector<std::string> labels;
};
ClosedDynamics forward_dynamics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                const Eigen::Vector3d& gravity, ClosedChainSolver solver);

// Closed chains, per aggregate at the closed q (rigid/closed_chain_forces.hpp:
// aggregate_constraint_status): the loops and couplings it closes, its constraint rows and their
// rank (the dependent dofs), its dependent and independent dofs (names, file order) and the
// condition number of the constraints on the dependent dofs. Trees: none.
struct AggregateStatus {
  std::vector<std::string> loops, couplings;
  int rows = 0;
  int rank = 0;
  std::vector<std::string> dependent, independent;
  double condition_number = 1.0;
};
std::vector<AggregateStatus> aggregate_status(const Model& model, ModelData& data,
                                              const Eigen::VectorXd& q);

// Closed chains: qdd's independent entries kept and the dependent ones made consistent with the
// loops (qdd = X qdd_R + Xdot qd_R) at the closed (q, qd), file order. Trees: qdd.
Eigen::VectorXd consistent_accelerations(const Model& model, ModelData& data,
                                         const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                         const Eigen::VectorXd& qdd);

}  // namespace skograph

// Which closed-chain solver suits each aggregate (issue 26): the modelled cost, in flops (so that
// reports stay deterministic), of constraint embedding against the multiplier method, each beyond
// what the spanning tree's own sparse factorization of M costs for the aggregate's dofs.
//
//   embedding    the rank-revealing QR of Q_S (r rows, n dofs, t = min(r, n): 2 r n t - 2/3 t^3),
//                X_S from it (k dependent, m = n - k independent: 2 r k m + k^2 m), the dense
//                aggregated node's M_R block X* M_S X (2 n^2 m + 2 n m^2), its Cholesky factor
//                and solve (m^3 / 3 + 2 m^2)
//   multipliers  the KKT system's LDL* (sparse/kkt_system.hpp) over the aggregate's columns (its
//                dofs and its independent constraint rows), each column of c off-diagonal
//                entries costing c^2 + 4 c + 1 (elimination, and the two triangular solves)
// minus, for both, the same column cost of the aggregate's dofs in M's own fill-free factor.
// The cheaper one is recommended. The model ignores constants the implementation adds
// (kinematics, the constraint rows themselves), common to both.
#pragma once

#include <string>
#include <vector>

#include "skograph/rigid/closed_chain_model.hpp"

namespace skograph::report {

struct AggregateCost {
  int dofs = 0, rows = 0, rank = 0, multiplier_rows = 0;
  double embedding_flops = 0.0, multiplier_flops = 0.0;
  const char* recommended = "embedding";  // or "multipliers"
};

// Per aggregate at the last update of `data` (update_closed_chain at a closed q).
std::vector<AggregateCost> solver_costs(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::VectorXd& q);

}  // namespace skograph::report

// Which closed-chain solver suits each aggregate: the modelled cost, in flops (so that
// reports stay deterministic), of constraint embedding against the multiplier method for the
// aggregate's unknowns: embedding replaces its dofs by one dense node, the multiplier method keeps
// them and adds its constraint rows to the sparse factor.
//
//   embedding    the rank-revealing QR of Q_S (r rows, n dofs, t = min(r, n): 2 r n t - 2/3 t^3),
//                X_S from it (k dependent, m = n - k independent: 2 r k m + k^2 m), the dense
//                aggregated node's M_R block X* M_S X (2 n^2 m + 2 n m^2), its Cholesky factor
//                and solve (m^3 / 3 + 2 m^2)
//   multipliers  the KKT system's LDL* (sparse/kkt_system.hpp) over the aggregate's columns (its
//                dofs and its independent constraint rows), each column of c off-diagonal
//                entries costing c^2 + 4 c + 1 (elimination, and the two triangular solves)
// The cheaper one is recommended. The model leaves out what both do per call (kinematics, the
// constraint rows) and the embedded node's coupling to its ancestors in M_R.
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

// Per aggregate at the closed q (G and the selections are updated in `data`).
std::vector<AggregateCost> solver_costs(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::VectorXd& q);

}  // namespace skograph::report

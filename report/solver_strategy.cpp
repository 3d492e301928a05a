// The modelled costs of embedding and the multiplier method (report/solver_strategy.hpp).
#include "skograph/report/solver_strategy.hpp"

#include <algorithm>

#include "skograph/rigid/constraint_jacobian.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/kkt_system.hpp"
#include "skograph/sparse/sparse_assembly.hpp"

namespace skograph::report {

namespace {

// Eliminating a column with c off-diagonal entries and solving with it.
double column_flops(long count) {
  const double c = static_cast<double>(count - 1);
  return c * c + 4.0 * c + 1.0;
}

}  // namespace

std::vector<AggregateCost> solver_costs(const ClosedChainModel& model, ClosedChainData& data,
                                        const Eigen::VectorXd& q) {
  const int n = model.dof_count();
  std::vector<int> aggregate_of_dof(static_cast<std::size_t>(n), -1);
  for (int s = 0; s < model.aggregate_count(); ++s)
    for (const int dof : model.aggregate_dofs(s))
      aggregate_of_dof[static_cast<std::size_t>(dof)] = s;
  ConstraintJacobian constraints;
  constraint_jacobian(model, data, q, Eigen::VectorXd::Zero(n), constraints);

  // K in the KKT order (M's structural pattern, G's).
  const SkoStructure& structure = *model.tree().structure();
  const KktSystem kkt(pattern_matrix(mass_matrix_pattern(structure)),
                      canonical_dof_order(structure), constraints.jacobian);
  const std::vector<long> kkt_counts = symbolic_column_counts(sparsity_pattern(kkt.matrix()));

  std::vector<AggregateCost> costs(static_cast<std::size_t>(model.aggregate_count()));
  for (int s = 0; s < model.aggregate_count(); ++s) {
    AggregateCost& cost = costs[static_cast<std::size_t>(s)];
    const CoordinateSelection& selection = data.selection[static_cast<std::size_t>(s)];
    cost.dofs = static_cast<int>(model.aggregate_dofs(s).size());
    cost.rows = model.constraint_rows(s);
    cost.rank = selection.rank;
    const double r = cost.rows, nd = cost.dofs, k = cost.rank, m = nd - k;
    const double t = std::min(r, nd);
    cost.embedding_flops = 2 * r * nd * t - 2.0 / 3.0 * t * t * t + 2 * r * k * m + k * k * m +
                           2 * nd * nd * m + 2 * nd * m * m + m * m * m / 3 + 2 * m * m;
  }
  for (std::size_t j = 0; j < kkt.order().size(); ++j) {
    const int unknown = kkt.order()[j];
    const int s = unknown < n ? aggregate_of_dof[static_cast<std::size_t>(unknown)]
                              : constraints.rows[static_cast<std::size_t>(unknown - n)].aggregate;
    if (s < 0) continue;
    costs[static_cast<std::size_t>(s)].multiplier_flops += column_flops(kkt_counts[j]);
    if (unknown >= n) ++costs[static_cast<std::size_t>(s)].multiplier_rows;
  }
  for (AggregateCost& cost : costs)
    cost.recommended = cost.multiplier_flops < cost.embedding_flops ? "multipliers" : "embedding";
  return costs;
}

}  // namespace skograph::report

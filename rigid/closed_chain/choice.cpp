// The independent coordinates of a closed chain's aggregates, chosen once per model
// (closed_chain/internal.hpp: choose_independent): the user's (Mechanism::independent), else the
// preferred ones as far as the loops leave them free (Mechanism::preferred_independent), else the
// structural split where the constraints split; the per-state choice among the others is
// update_selection's (closed_chain/selection.cpp).
#include <Eigen/Dense>
#include <algorithm>
#include <string>
#include <vector>

#include "closed_chain/internal.hpp"
#include "skograph/rigid/closed_chain_model.hpp"

namespace skograph {

using closed_chain_detail::aggregate_label;
using closed_chain_detail::generic_constraint_matrix;

namespace {

// The positions in dofs[s] of the preferred coordinates (Mechanism::preferred_independent) that
// fall in aggregate s, most wanted first; names that are not moving joints or dofs are skipped
// with a note.
std::vector<std::vector<int>> preferred_positions(const ClosedChainModel& model,
                                                  ClosedChainModel::Impl& impl) {
  const Mechanism& m = model.mechanism();
  std::vector<std::vector<int>> preferred(impl.dofs.size());
  for (const std::string& name : m.preferred_independent) {
    std::vector<int> dofs;
    try {
      dofs = named_dofs(m, {name});
    } catch (const std::invalid_argument&) {
      impl.notes.push_back("'" + name +
                           "' is not a moving joint of the model (fixed, or fused into its "
                           "parent): not an independent coordinate");
      continue;
    }
    for (const int d : dofs) {
      const int s = impl.aggregate_of_node[static_cast<std::size_t>(
          impl.dof_node[static_cast<std::size_t>(d)])];
      if (s < 0) continue;  // outside every aggregate: independent anyway
      const std::vector<int>& members = impl.dofs[static_cast<std::size_t>(s)];
      const int position =
          static_cast<int>(std::find(members.begin(), members.end(), d) - members.begin());
      std::vector<int>& list = preferred[static_cast<std::size_t>(s)];
      if (std::find(list.begin(), list.end(), position) == list.end()) list.push_back(position);
    }
  }
  return preferred;
}

// Greedy over the columns of a constraint matrix in the given order: a column is dependent when
// it raises the rank of the dependent columns so far, until `rank` are. Positions, in order tried.
std::vector<int> greedy_dependent(const Eigen::MatrixXd& constraint, const std::vector<int>& order,
                                  int rank, double rank_tolerance) {
  std::vector<int> dependent;
  Eigen::MatrixXd basis(constraint.rows(), 0);
  const double tolerance = rank_tolerance * std::max(1.0, constraint.norm());
  for (const int i : order) {
    if (static_cast<int>(dependent.size()) == rank) break;
    Eigen::VectorXd column = constraint.col(i);
    if (basis.cols() > 0) column -= basis * (basis.transpose() * column);
    if (basis.cols() > 0) column -= basis * (basis.transpose() * column);  // once more: stable
    if (column.norm() <= tolerance) continue;
    basis.conservativeResize(Eigen::NoChange, basis.cols() + 1);
    basis.col(basis.cols() - 1) = column.normalized();
    dependent.push_back(i);
  }
  return dependent;
}

// The structural preference of aggregate s when nothing else is preferred: the coordinates that
// enter the fewest constraint rows are tried as dependent first (a Stewart platform's legs 2..6,
// each in its own loop's rows only, before leg 1 and the platform joint, which enter every loop),
// so that Y1 splits into one small block per loop (aggregation/dependent_factorization.hpp). Kept
// only when Y1 then has at least two blocks and is well conditioned at the generic
// configuration; returns the independent positions, or nothing.
std::vector<int> structural_independent(const ClosedChainModel& model,
                                        const ClosedChainModel::Impl& impl, int s) {
  const int n = static_cast<int>(impl.dofs[static_cast<std::size_t>(s)].size());
  const int rank = impl.nominal_rank[static_cast<std::size_t>(s)];
  if (rank == 0 || rank == n) return {};
  const Eigen::MatrixXd constraint = generic_constraint_matrix(model, s);
  std::vector<int> order(static_cast<std::size_t>(n)), rows_of(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    order[static_cast<std::size_t>(i)] = i;
    rows_of[static_cast<std::size_t>(i)] =
        static_cast<int>((constraint.col(i).array() != 0.0).count());
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return rows_of[static_cast<std::size_t>(a)] < rows_of[static_cast<std::size_t>(b)];
  });
  CoordinateSelection selection;
  selection.dependent = greedy_dependent(constraint, order, rank, model.options().rank_tolerance);
  if (static_cast<int>(selection.dependent.size()) != rank) return {};
  std::sort(selection.dependent.begin(), selection.dependent.end());
  for (int i = 0; i < n; ++i)
    if (!std::binary_search(selection.dependent.begin(), selection.dependent.end(), i))
      selection.independent.push_back(i);
  selection.rank = rank;
  DependentFactorization y1;
  y1.compute(constraint, selection.dependent);
  if (y1.block_count() < 2 || !selection_conditioning_at_least(
                                  constraint, selection, model.options().reselect_conditioning, y1))
    return {};
  return selection.independent;
}

// The independent coordinates of aggregate s that keep the preferred ones (most wanted first) as
// far as the constraints allow: the dependent coordinates are taken first among the others, by
// the column-pivoted QR of Q at a generic configuration (the one of the nominal rank), then, if
// the others do not reach that rank, among the preferred ones from the least wanted; the
// preferred ones taken as dependent are named in a note. Returns the positions, increasing.
std::vector<int> keep_preferred(const ClosedChainModel& model, ClosedChainModel::Impl& impl, int s,
                                const std::vector<int>& preferred) {
  const std::vector<int>& dofs = impl.dofs[static_cast<std::size_t>(s)];
  const int n = static_cast<int>(dofs.size());
  const int rank = impl.nominal_rank[static_cast<std::size_t>(s)];
  const Eigen::MatrixXd constraint = generic_constraint_matrix(model, s);
  std::vector<int> order;  // candidates for dependent, in the order they are tried
  for (int i = 0; i < n; ++i)
    if (std::find(preferred.begin(), preferred.end(), i) == preferred.end()) order.push_back(i);
  order.insert(order.end(), preferred.rbegin(), preferred.rend());
  const std::vector<int> dependent =
      greedy_dependent(constraint, order, rank, model.options().rank_tolerance);
  std::vector<int> independent;
  for (int i = 0; i < n; ++i)
    if (std::find(dependent.begin(), dependent.end(), i) == dependent.end())
      independent.push_back(i);
  for (const int i : preferred)
    if (std::find(dependent.begin(), dependent.end(), i) != dependent.end())
      impl.notes.push_back(
          "'" +
          model.tree().dof_names()[static_cast<std::size_t>(dofs[static_cast<std::size_t>(i)])] +
          "' is not kept as an independent coordinate: the loops of " + aggregate_label(model, s) +
          " leave it no freedom of its own with the others kept");
  return independent;
}

}  // namespace

namespace closed_chain_detail {

// Without Mechanism::independent: per aggregate the preferred coordinates kept (keep_preferred),
// else the structural split. With it: a dof outside every aggregate is independent
// anyway; an aggregate with named dofs must have exactly as many as it has independent
// coordinates at a generic configuration (n_S minus the nominal rank of its constraints).
void choose_independent(const ClosedChainModel& model, ClosedChainModel::Impl& impl) {
  impl.preferred_kept.assign(impl.dofs.size(), {});
  impl.structural_preference.assign(impl.dofs.size(), 0);
  if (model.mechanism().independent.empty()) {
    const std::vector<std::vector<int>> preferred = preferred_positions(model, impl);
    impl.chosen_independent.assign(impl.dofs.size(), {});
    for (std::size_t s = 0; s < impl.dofs.size(); ++s) {
      if (preferred[s].empty()) {
        impl.preferred_kept[s] = structural_independent(model, impl, static_cast<int>(s));
        impl.structural_preference[s] = !impl.preferred_kept[s].empty();
        continue;
      }
      const std::vector<int> independent =
          keep_preferred(model, impl, static_cast<int>(s), preferred[s]);
      for (const int i : preferred[s])
        if (std::binary_search(independent.begin(), independent.end(), i))
          impl.preferred_kept[s].push_back(i);
      std::sort(impl.preferred_kept[s].begin(), impl.preferred_kept[s].end());
    }
    return;
  }
  const std::vector<int> dofs = named_dofs(model.mechanism(), model.mechanism().independent);
  impl.chosen_independent.assign(impl.dofs.size(), {});
  for (const int d : dofs) {
    const int s = impl.aggregate_of_node[static_cast<std::size_t>(
        impl.dof_node[static_cast<std::size_t>(d)])];
    if (s < 0) continue;
    const std::vector<int>& members = impl.dofs[static_cast<std::size_t>(s)];
    impl.chosen_independent[static_cast<std::size_t>(s)].push_back(
        static_cast<int>(std::find(members.begin(), members.end(), d) - members.begin()));
  }
  for (std::size_t s = 0; s < impl.dofs.size(); ++s) {
    std::vector<int>& chosen = impl.chosen_independent[s];
    if (chosen.empty()) continue;
    std::sort(chosen.begin(), chosen.end());
    const int wanted = static_cast<int>(impl.dofs[s].size()) - impl.nominal_rank[s];
    if (static_cast<int>(chosen.size()) == wanted) continue;
    // The user's names that fall in this aggregate, as given.
    std::string named, links;
    for (const std::string& name : model.mechanism().independent) {
      const std::vector<int> of_name = named_dofs(model.mechanism(), {name});
      if (std::any_of(of_name.begin(), of_name.end(), [&](int d) {
            return std::find(impl.dofs[s].begin(), impl.dofs[s].end(), d) != impl.dofs[s].end();
          }))
        named += (named.empty() ? "'" : ", '") + name + "'";
    }
    for (const int k : impl.nodes[s])
      links += (links.empty() ? "" : ", ") +
               model.mechanism().links[static_cast<std::size_t>(model.tree().link_of_node(k))].name;
    throw std::invalid_argument("independent: the aggregate {" + links + "} has " +
                                std::to_string(wanted) + " independent coordinate(s), and " +
                                std::to_string(chosen.size()) + " of its dofs are named (" + named +
                                ")");
  }
}

}  // namespace closed_chain_detail

}  // namespace skograph

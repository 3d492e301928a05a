// The selection of independent coordinates of closed chains along a motion
// (rigid/closed_chain_model.hpp, constraint-embedding section 7): each aggregate's nominal rank,
// the user's chosen coordinates, the preferred ones (loop files' name_mot, the structural split)
// and the rank-revealing choice, kept while Y1 = Q(:, dependent) stays well conditioned.
#include <Eigen/Dense>
#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "closed_chain_internal.hpp"

namespace skograph {

using Impl = ClosedChainModel::Impl;

namespace closed_chain_detail {

// The nominal rank of each aggregate's Q (ClosedChainModel::nominal_rank): the largest rank of Q
// (constraint-embedding Eq. 58) over a few configurations of the tree with every coordinate drawn
// uniformly from [-1.5, 1.5] (rad or m) by a fixed-seed generator, so the rank is reproducible. A
// configuration where Q happens to lose rank is outvoted by the others.
namespace {

constexpr int kGenericSamples = 4;

// Sample `sample` of the generic configurations (fixed seed: reproducible).
Eigen::VectorXd generic_configuration(const ClosedChainModel& model, int sample) {
  std::mt19937 generator(20260522u);
  Eigen::VectorXd q(model.dof_count());
  for (int k = 0; k <= sample; ++k)
    for (Eigen::Index i = 0; i < q.size(); ++i)
      q[i] = 3.0 * (static_cast<double>(generator()) / 4294967295.0) - 1.5;
  return q;
}

}  // namespace

Eigen::MatrixXd generic_constraint_matrix(const ClosedChainModel& model, int s) {
  ClosedChainData data(model);
  Eigen::MatrixXd best;
  int best_rank = -1;
  for (int sample = 0; sample < kGenericSamples; ++sample) {
    const Eigen::VectorXd q = generic_configuration(model, sample);
    update_positions(model.tree(), q, data.tree);
    aggregate_constraints(model, data, s, q, Level::kVelocity);
    const int rank =
        select_coordinates(data.constraint_matrix[s], model.options().rank_tolerance, false).rank;
    if (rank > best_rank) {
      best_rank = rank;
      best = data.constraint_matrix[s];
    }
    if (rank == model.nominal_rank(s)) break;
  }
  return best;
}

std::vector<int> generic_constraint_ranks(const ClosedChainModel& model) {
  ClosedChainData data(model);
  std::vector<int> ranks(model.aggregate_count(), 0);
  if (ranks.empty()) return ranks;
  for (int sample = 0; sample < kGenericSamples; ++sample) {
    const Eigen::VectorXd q = generic_configuration(model, sample);
    update_positions(model.tree(), q, data.tree);
    for (int s = 0; s < model.aggregate_count(); ++s) {
      aggregate_constraints(model, data, s, q, Level::kVelocity);
      ranks[s] = std::max(ranks[s], select_coordinates(data.constraint_matrix[s],
                                                       model.options().rank_tolerance, false)
                                        .rank);
    }
  }
  return ranks;
}

// Whether aggregate s, closed at q with Q of rank selection.rank below the generic rank, keeps
// that rank on its closure near q (a mechanism over-constrained by its geometry, e.g. a spherical
// four-bar closed by a revolute: its rows are dependent on every closed configuration) rather
// than sitting at a singular configuration. Moves the selection's independent coordinates by a
// few milliradians/millimetres, closes the dependent ones by Newton and takes the rank there: at
// a singular configuration the closure does not follow the move or the rank rises. Leaves
// data.tree and aggregate s's constraints at the probe (the caller updates them again).
bool closure_keeps_rank(const ClosedChainModel& model, ClosedChainData& data, int s,
                        const CoordinateSelection& selection,
                        const Eigen::Ref<const Eigen::VectorXd>& q) {
  const Impl& impl = closed_chain_impl(model);
  CoordinateSelection kept = data.selection[s];
  data.selection[s] = selection;
  Eigen::VectorXd probe = q;  // a rare path: only when a rank drops below nominal
  for (std::size_t j = 0; j < selection.independent.size(); ++j)
    probe[impl.dofs[s][selection.independent[j]]] +=
        (j % 2 ? -1e-3 : 1e-3) * (1.0 + 0.37 * static_cast<double>(j));
  bool follows = true;
  try {
    newton_closure(model, data, probe, s);
  } catch (const ClosureError&) {
    follows = false;
  }
  int probe_rank = -1;
  if (follows) {
    update_positions(model.tree(), probe, data.tree);
    aggregate_constraints(model, data, s, probe, Level::kVelocity);
    probe_rank =
        select_coordinates(data.constraint_matrix[s], model.options().rank_tolerance, false).rank;
  }
  data.selection[s] = std::move(kept);
  return follows && probe_rank == selection.rank;
}

// Keeps the stored selection of aggregate s while its Y1 stays well conditioned, otherwise
// selects again from data.constraint_matrix[s]. A rank below the nominal rank is a singular
// configuration (ClosureError, also on the first update), unless the first such drop is the
// closure's own rank (closure_keeps_rank): that rank becomes this data's nominal rank.
bool chosen_selection(const ClosedChainModel& model, int s, CoordinateSelection& selection) {
  const Impl& impl = closed_chain_impl(model);
  const std::vector<int>& chosen = impl.chosen_independent[static_cast<std::size_t>(s)];
  if (chosen.empty()) return false;
  selection.independent = chosen;
  selection.dependent.clear();
  for (int i = 0; i < static_cast<int>(impl.dofs[static_cast<std::size_t>(s)].size()); ++i)
    if (!std::binary_search(chosen.begin(), chosen.end(), i)) selection.dependent.push_back(i);
  selection.rank = static_cast<int>(selection.dependent.size());
  selection.conditioning = 1.0;
  return true;
}

namespace {

// The user's selection of aggregate s is singular or badly conditioned at this state: a singular
// configuration of the mechanism for that actuation. The rank and condition number of
// Y1 = Q(:, dependent), the constraints restricted to the other coordinates.
[[noreturn]] void chosen_selection_singular(const ClosedChainModel& model,
                                            const ClosedChainData& data, int s,
                                            const CoordinateSelection& selection,
                                            const std::vector<int>& named) {
  const Eigen::MatrixXd& constraint = data.constraint_matrix[static_cast<std::size_t>(s)];
  Eigen::MatrixXd y1(constraint.rows(), static_cast<Eigen::Index>(selection.dependent.size()));
  for (std::size_t j = 0; j < selection.dependent.size(); ++j)
    y1.col(static_cast<Eigen::Index>(j)) = constraint.col(selection.dependent[j]);
  const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(y1).singularValues();
  int rank = 0;
  for (Eigen::Index i = 0; i < sigma.size(); ++i)
    rank += sigma(i) > model.options().rank_tolerance * std::max(1.0, sigma(0)) ? 1 : 0;
  const double smallest = sigma.size() ? sigma(sigma.size() - 1) : 0.0;
  char condition[32];
  std::snprintf(condition, sizeof condition, "%.1e", smallest > 0 ? sigma(0) / smallest : HUGE_VAL);
  const Impl& impl = closed_chain_impl(model);
  std::string names;
  for (const int i : named)
    names += (names.empty() ? "'" : ", '") +
             model.tree().dof_names()[static_cast<std::size_t>(
                 impl.dofs[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)])] +
             "'";
  throw SingularConfigurationError(
      "singular configuration for the chosen independent coordinates " + names + " of " +
      aggregate_label(model, s) + ": the constraints on the other coordinates have rank " +
      std::to_string(rank) + " of " + std::to_string(selection.dependent.size()) +
      " (condition number " + condition + ")");
}

}  // namespace

bool keeps(const CoordinateSelection& selection, const std::vector<int>& kept) {
  return std::ranges::all_of(kept, [&](int i) {
    return std::binary_search(selection.independent.begin(), selection.independent.end(), i);
  });
}

CoordinateSelection preferred_selection(const Eigen::MatrixXd& constraint,
                                        const std::vector<int>& kept, double rank_tolerance) {
  std::vector<int> others;
  for (int i = 0; i < static_cast<int>(constraint.cols()); ++i)
    if (!std::binary_search(kept.begin(), kept.end(), i)) others.push_back(i);
  Eigen::MatrixXd columns(constraint.rows(), static_cast<Eigen::Index>(others.size()));
  for (std::size_t j = 0; j < others.size(); ++j)
    columns.col(static_cast<Eigen::Index>(j)) = constraint.col(others[j]);
  const CoordinateSelection among = select_coordinates(columns, rank_tolerance, false);
  CoordinateSelection selection;
  for (const int j : among.dependent)
    selection.dependent.push_back(others[static_cast<std::size_t>(j)]);
  for (int i = 0; i < static_cast<int>(constraint.cols()); ++i)
    if (!std::binary_search(selection.dependent.begin(), selection.dependent.end(), i))
      selection.independent.push_back(i);
  selection.rank = static_cast<int>(selection.dependent.size());
  selection.conditioning = among.conditioning;
  return selection;
}

// Whether the current selection of an aggregate still serves. Where its conditioning is at least
// ClosedChainOptions::reselect_conditioning, yes. Below that, where even the rank-revealing choice
// fell short of it when this selection was made (near a singular configuration, or on a
// mechanism whose Y1 is always ill-conditioned, as robot_delta's), the selection is kept while its
// conditioning stays above kKeptFraction of that choice's, for at most kKeptUpdates updates
// (KeptSelectionBar): re-making it at every update, two rank-revealing QRs and four
// factorizations, cost that robot three quarters of its forward dynamics, and re-making it every
// kKeptUpdates-th update finds the preferred or a better choice once there is one again. A half
// leaves the check clear of its bar, where the Frobenius and power-iteration bounds settle it
// without an SVD.
constexpr double kKeptFraction = 0.5;
constexpr int kKeptUpdates = 64;
bool selection_serves(const Eigen::MatrixXd& constraint, const CoordinateSelection& selection,
                      double threshold, DependentFactorization& y1, KeptSelectionBar& bar) {
  if (selection_conditioning_at_least(constraint, selection, threshold, y1)) return true;
  if (!(bar.conditioning < threshold) || bar.updates >= kKeptUpdates ||
      selection.dependent != bar.dependent)
    return false;  // no bar, or one measured for another selection
  if (!selection_conditioning_at_least(constraint, selection, bar.conditioning, y1)) return false;
  ++bar.updates;
  return true;
}

void update_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd) {
  const ClosedChainOptions& options = model.options();
  const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
  DependentFactorization& y1 = data.work->dependent_factorization[s];
  // The user's choice is kept wherever it is valid, and a singular configuration where it is not.
  // (Written into data.selection[s] in place: its vectors keep their storage.)
  if (chosen_selection(model, s, data.selection[s])) {
    const CoordinateSelection& chosen = data.selection[s];
    factorize_dependent(constraint, chosen, y1);
    if (!selection_conditioning_at_least(constraint, chosen, options.reselect_conditioning, y1))
      chosen_selection_singular(model, data, s, chosen, chosen.independent);
    return;
  }
  // Preferred coordinates (Mechanism::preferred_independent): kept independent while the others
  // carry the constraints; the others chosen by the rank-revealing choice among themselves.
  const std::vector<int>& kept =
      closed_chain_impl(model).preferred_kept[static_cast<std::size_t>(s)];
  char& rejected = data.work->preferred_rejected[static_cast<std::size_t>(s)];
  KeptSelectionBar& bar = data.work->kept_bar[static_cast<std::size_t>(s)];
  bool current_failed = false;  // the current selection was checked and does not serve
  if (!kept.empty() && rejected && has_selection(data, s) &&
      data.selection[s].rank >= data.nominal_rank[s]) {
    // The automatic selection that replaced the preferred one, kept while it serves.
    factorize_dependent(constraint, data.selection[s], y1);
    if (selection_serves(constraint, data.selection[s], options.reselect_conditioning, y1, bar))
      return;
    current_failed = true;
  }
  if (!kept.empty()) {
    rejected = 0;
    if (!current_failed && has_selection(data, s) &&
        data.selection[s].rank >= data.nominal_rank[s] && keeps(data.selection[s], kept)) {
      factorize_dependent(constraint, data.selection[s], y1);
      if (selection_conditioning_at_least(constraint, data.selection[s],
                                          options.reselect_conditioning, y1))
        return;
      current_failed = true;
    }
    CoordinateSelection preferred = preferred_selection(constraint, kept, options.rank_tolerance);
    factorize_dependent(constraint, preferred, y1);
    if (preferred.rank >= data.nominal_rank[s] &&
        selection_conditioning_at_least(constraint, preferred, options.reselect_conditioning, y1)) {
      data.selection[s] = std::move(preferred);
      return;
    }
    // A preference, not a choice: where the others cannot carry the constraints well (near a
    // singular configuration of this actuation) the rank-revealing choice below takes over.
    rejected = 1;
  }
  if (!current_failed && has_selection(data, s) && data.selection[s].rank >= data.nominal_rank[s]) {
    factorize_dependent(constraint, data.selection[s], y1);
    if (selection_serves(constraint, data.selection[s], options.reselect_conditioning, y1, bar))
      return;
  }
  CoordinateSelection selection = select_coordinates(constraint, options.rank_tolerance, false);
  if (selection.rank < data.nominal_rank[s]) {
    if (data.nominal_rank[s] != model.nominal_rank(s) ||
        !closure_keeps_rank(model, data, s, selection, q))
      throw SingularConfigurationError("singular configuration: " + aggregate_label(model, s) +
                                       " loses rank (" + std::to_string(data.nominal_rank[s]) +
                                       " -> " + std::to_string(selection.rank) + ")");
    data.nominal_rank[s] = selection.rank;
    update_world_motion(model.tree(), q, qd, data);  // back from the probe
    aggregate_constraints(model, data, s, q, Level::kAcceleration);
  }
  data.selection[s] = std::move(selection);
  factorize_dependent(constraint, data.selection[s], y1);
  // The bar the next updates hold this selection to (selection_serves), where the best choice
  // falls short of the option's threshold (its SVD, only then).
  bar.updates = 0;
  bar.conditioning = options.reselect_conditioning;
  if (!selection_conditioning_at_least(constraint, data.selection[s], bar.conditioning, y1)) {
    bar.conditioning = kKeptFraction * selection_conditioning(constraint, data.selection[s]);
    bar.dependent = data.selection[s].dependent;
  }
}

}  // namespace closed_chain_detail
}  // namespace skograph

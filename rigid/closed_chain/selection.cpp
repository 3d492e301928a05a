// The selection of independent coordinates of closed chains along a motion
// (rigid/closed_chain_model.hpp, constraint-embedding section 7): each aggregate's nominal rank,
// the user's chosen coordinates, the preferred ones (loop files' name_mot, the structural split)
// and the rank-revealing choice, kept while Y1 = Q(:, dependent) stays well conditioned.
#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "closed_chain/internal.hpp"

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

// A modal coordinate whose column of Q lies outside the range of the joints' columns moves a loop's
// ends in a direction no joint of the loop follows (a planar four-bar's coupler bending out of its
// plane): the loop could not stay closed as the mode moves. Checked at the generic configurations
// of the nominal rank, column by column: rank [Q_S q_eta] > rank Q_S.
void check_modes_are_followed(const ClosedChainModel& model) {
  const Impl& impl = closed_chain_impl(model);
  const double tolerance = model.options().rank_tolerance;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& modal = impl.modal_dofs[static_cast<std::size_t>(s)];
    if (modal.empty()) continue;
    ClosedChainData data(model);
    for (int sample = 0; sample < kGenericSamples; ++sample) {
      const Eigen::VectorXd q = generic_configuration(model, sample);
      update_positions(model.tree(), q, data.tree);
      aggregate_constraints(model, data, s, q, Level::kVelocity);
      const Eigen::MatrixXd& joints = data.constraint_matrix[s];
      const int rank = select_coordinates(joints, tolerance, false).rank;
      if (rank < model.nominal_rank(s) && sample + 1 < kGenericSamples) continue;
      Eigen::MatrixXd widened(joints.rows(), joints.cols() + 1);
      widened.leftCols(joints.cols()) = joints;
      for (std::size_t j = 0; j < modal.size(); ++j) {
        widened.rightCols(1) =
            data.work->constraints.modal_constraint[static_cast<std::size_t>(s)].col(
                static_cast<Eigen::Index>(j));
        if (select_coordinates(widened, tolerance, false).rank > rank) {
          const int loop = aggregate_loop(model, s);
          throw LoopDefinitionError(
              aggregate_label(model, s) + " cannot follow modal coordinate '" +
                  model.tree().dof_names()[static_cast<std::size_t>(modal[j])] +
                  "': the mode moves the loop's ends in a direction its joints do not allow "
                  "(give the link no modes in that direction, as a beam's EI: rigid does)",
              loop);
        }
      }
      break;
    }
  }
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
  const bool follows = newton_closure(model, data, probe, s).closed;
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
void start_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                     CoordinateSelection& selection) {
  if (chosen_selection(model, s, selection)) return;
  const Impl& impl = closed_chain_impl(model);
  const std::vector<int>& kept = impl.preferred_kept[static_cast<std::size_t>(s)];
  const Eigen::MatrixXd& constraint = data.constraint_matrix[static_cast<std::size_t>(s)];
  AssemblyWorkspace::StartChoice& choice =
      data.work->assembly.start_choice[static_cast<std::size_t>(s)];
  const int n = static_cast<int>(constraint.cols());
  // The candidates for dependent: the coordinates other than the preferred ones, then those.
  std::vector<int>& candidates = choice.candidates;
  candidates.clear();
  for (int i = 0; i < n; ++i)
    if (!std::binary_search(kept.begin(), kept.end(), i)) candidates.push_back(i);
  const int others = static_cast<int>(candidates.size());
  candidates.insert(candidates.end(), kept.begin(), kept.end());
  const int rank = std::min(
      {data.nominal_rank[static_cast<std::size_t>(s)], static_cast<int>(constraint.rows()), n});
  selection.dependent.clear();
  // Column-pivoted QR of the other coordinates' columns (kept storage: no allocation once seen),
  // then, where they fall short of the rank, of the preferred ones' columns projected off the
  // chosen ones (a rare path): exactly `rank` pivots.
  if (rank > 0 && others > 0) {
    choice.columns.resize(constraint.rows(), others);
    for (int j = 0; j < others; ++j) choice.columns.col(j) = constraint.col(candidates[j]);
    choice.qr.compute(choice.columns);
    for (int i = 0; i < std::min(rank, others); ++i)
      selection.dependent.push_back(candidates[choice.qr.colsPermutation().indices()(i)]);
  }
  const int missing = rank - static_cast<int>(selection.dependent.size());
  if (missing > 0 && n > others) {
    Eigen::MatrixXd columns(constraint.rows(), n - others);
    for (int j = others; j < n; ++j) columns.col(j - others) = constraint.col(candidates[j]);
    if (!selection.dependent.empty()) {  // off the span of the dependent ones so far
      Eigen::MatrixXd taken(constraint.rows(),
                            static_cast<Eigen::Index>(selection.dependent.size()));
      for (std::size_t j = 0; j < selection.dependent.size(); ++j)
        taken.col(static_cast<Eigen::Index>(j)) = constraint.col(selection.dependent[j]);
      const Eigen::HouseholderQR<Eigen::MatrixXd> basis(taken);
      const Eigen::MatrixXd q =
          basis.householderQ() * Eigen::MatrixXd::Identity(taken.rows(), taken.cols());
      columns -= q * (q.transpose() * columns);
    }
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(columns);
    for (int i = 0; i < std::min(missing, n - others); ++i)
      selection.dependent.push_back(candidates[others + qr.colsPermutation().indices()(i)]);
  }
  std::sort(selection.dependent.begin(), selection.dependent.end());
  selection.independent.clear();
  for (int i = 0; i < n; ++i)
    if (!std::binary_search(selection.dependent.begin(), selection.dependent.end(), i))
      selection.independent.push_back(i);
  selection.rank = static_cast<int>(selection.dependent.size());
  selection.conditioning = std::numeric_limits<double>::quiet_NaN();
}

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

// The rank of Y1 = Q(:, dependent) and its condition number sigma_max / sigma_min (infinite when
// singular), by its SVD.
struct DependentRank {
  int rank = 0;
  double condition = 0.0;
};
DependentRank dependent_rank(const Eigen::MatrixXd& constraint,
                             const CoordinateSelection& selection, double rank_tolerance) {
  Eigen::MatrixXd y1(constraint.rows(), static_cast<Eigen::Index>(selection.dependent.size()));
  for (std::size_t j = 0; j < selection.dependent.size(); ++j)
    y1.col(static_cast<Eigen::Index>(j)) = constraint.col(selection.dependent[j]);
  DependentRank result;
  if (y1.cols() == 0) return {0, 1.0};
  const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(y1).singularValues();
  for (Eigen::Index i = 0; i < sigma.size(); ++i)
    result.rank += sigma(i) > rank_tolerance * std::max(1.0, sigma(0)) ? 1 : 0;
  const double smallest =
      sigma.size() == y1.cols() ? sigma(sigma.size() - 1) : 0.0;  // fewer rows than columns
  result.condition = smallest > 0.0 ? sigma(0) / smallest : std::numeric_limits<double>::infinity();
  return result;
}

// The user's selection of aggregate s loses rank at this state: a singular configuration of the
// mechanism for that actuation. The rank and condition number of Y1 = Q(:, dependent), the
// constraints restricted to the other coordinates.
[[noreturn]] void chosen_selection_singular(const ClosedChainModel& model, int s,
                                            const CoordinateSelection& selection,
                                            const DependentRank& rank) {
  char condition[32];
  std::snprintf(condition, sizeof condition, "%.1e", rank.condition);
  throw SingularConfigurationError(
      "singular configuration for the chosen independent coordinates " +
          selection_names(model, s, selection.independent) + " of " + aggregate_label(model, s) +
          ": the constraints on the other coordinates have rank " + std::to_string(rank.rank) +
          " of " + std::to_string(selection.dependent.size()) + " (condition number " + condition +
          ")",
      aggregate_loop(model, s));
}

// Swaps toward the largest volume of Y1: X_u = -Y1^+ Y2, and |X_u(i, j)| is the factor by which
// exchanging dependent column i for independent column j scales Y1's volume (the determinant of
// Y1 when it is square; Cramer's rule), so exchanging at the largest entry while it exceeds
// kVolumeGain increases the volume geometrically and stops; at the end no entry of X_u exceeds
// it, the choice whose embedding's entries are bounded, a near-best conditioning (Goreinov and
// Tyrtyshnikov's maximal-volume submatrices). Positions in `fixed` stay independent. Kept when
// its condition number is lower than the given selection's.
constexpr double kVolumeGain = 1.5;
void improve_selection(const Eigen::MatrixXd& constraint, const std::vector<int>& fixed,
                       double rank_tolerance, CoordinateSelection& selection) {
  const auto r = static_cast<Eigen::Index>(selection.dependent.size());
  const auto m = static_cast<Eigen::Index>(selection.independent.size());
  if (r == 0 || m == 0 || constraint.rows() == 0) return;
  CoordinateSelection trial = selection;
  Eigen::MatrixXd y1(constraint.rows(), r), y2(constraint.rows(), m);
  for (int swap = 0; swap < 4 * static_cast<int>(r + m); ++swap) {
    for (Eigen::Index j = 0; j < r; ++j) y1.col(j) = constraint.col(trial.dependent[j]);
    for (Eigen::Index j = 0; j < m; ++j) y2.col(j) = constraint.col(trial.independent[j]);
    const Eigen::MatrixXd x = y1.colPivHouseholderQr().solve(y2);
    double largest = kVolumeGain;
    Eigen::Index row = -1, column = -1;
    for (Eigen::Index j = 0; j < m; ++j) {
      if (std::binary_search(fixed.begin(), fixed.end(), trial.independent[j])) continue;
      for (Eigen::Index i = 0; i < r; ++i)
        if (std::abs(x(i, j)) > largest) {
          largest = std::abs(x(i, j));
          row = i;
          column = j;
        }
    }
    if (row < 0) break;
    std::swap(trial.dependent[row], trial.independent[column]);
    std::sort(trial.dependent.begin(), trial.dependent.end());
    std::sort(trial.independent.begin(), trial.independent.end());
  }
  if (trial.dependent == selection.dependent) return;
  const DependentRank before = dependent_rank(constraint, selection, rank_tolerance);
  const DependentRank after = dependent_rank(constraint, trial, rank_tolerance);
  if (after.rank == r && after.condition < before.condition) selection = std::move(trial);
}

}  // namespace

std::string selection_names(const ClosedChainModel& model, int s,
                            const std::vector<int>& positions) {
  const Impl& impl = closed_chain_impl(model);
  std::string names;
  for (const int i : positions)
    names += (names.empty() ? "'" : ", '") +
             model.tree().dof_names()[static_cast<std::size_t>(
                 impl.dofs[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)])] +
             "'";
  return names;
}

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
// ClosedChainOptions::reselect_conditioning, yes. Below that, where even the best choice fell
// short of it when this selection was made (near a singular configuration, or on a mechanism
// whose Y1 is always ill-conditioned, as robot_delta's), the selection is kept while its
// conditioning stays above kKeptFraction of that choice's, for at most kKeptUpdates updates
// (KeptSelectionBar): re-making it at every update, rank-revealing QRs, the swaps and SVDs, cost
// that robot most of its forward dynamics, and re-making it every kKeptUpdates-th update finds
// the preferred or a better choice once there is one again. A half leaves the check clear of its
// bar, where the Frobenius and power-iteration bounds settle it without an SVD.
constexpr int kKeptUpdates = 64;
bool selection_serves(const Eigen::MatrixXd& constraint, const CoordinateSelection& selection,
                      double threshold, DependentFactorization& y1, KeptSelectionBar& bar,
                      char& ill_conditioned) {
  ill_conditioned = 0;
  if (selection_conditioning_at_least(constraint, selection, threshold, y1)) return true;
  ill_conditioned = 1;
  if (!(bar.conditioning < threshold) || bar.updates >= kKeptUpdates ||
      selection.dependent != bar.dependent)
    return false;  // no bar, or one measured for another selection
  if (!selection_conditioning_at_least(constraint, selection, bar.conditioning, y1)) return false;
  ++bar.updates;
  return true;
}

double selection_condition_number(const ClosedChainModel& model, const ClosedChainData& data, int s,
                                  const CoordinateSelection& selection) {
  return dependent_rank(data.constraint_matrix[static_cast<std::size_t>(s)], selection,
                        model.options().rank_tolerance)
      .condition;
}

void hold_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                    const CoordinateSelection& held, double condition) {
  data.selection[static_cast<std::size_t>(s)] = held;
  KeptSelectionBar& bar = data.work->selection.kept_bar[static_cast<std::size_t>(s)];
  bar.updates = 0;
  bar.dependent = held.dependent;
  bar.conditioning = std::min(model.options().reselect_conditioning, kKeptFraction / condition);
}

CoordinateSelection remade_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                                     const Eigen::Ref<const Eigen::VectorXd>& q,
                                     const Eigen::Ref<const Eigen::VectorXd>& qd) {
  const ClosedChainOptions& options = model.options();
  const Eigen::MatrixXd& constraint = data.constraint_matrix[static_cast<std::size_t>(s)];
  DependentFactorization& y1 =
      data.work->selection.dependent_factorization[static_cast<std::size_t>(s)];
  // Preferred coordinates (Mechanism::preferred_independent): kept independent while the others
  // carry the constraints; the others chosen by the rank-revealing choice among themselves.
  const std::vector<int>& kept =
      closed_chain_impl(model).preferred_kept[static_cast<std::size_t>(s)];
  if (!kept.empty()) {
    CoordinateSelection preferred = preferred_selection(constraint, kept, options.rank_tolerance);
    factorize_dependent(constraint, preferred, y1);
    if (preferred.rank >= data.nominal_rank[static_cast<std::size_t>(s)] &&
        selection_conditioning_at_least(constraint, preferred, options.reselect_conditioning, y1))
      return preferred;
    // A preference, not a choice: where the others cannot carry the constraints well (near a
    // singular configuration of this actuation) the rank-revealing choice below takes over.
  }
  CoordinateSelection selection = select_coordinates(constraint, options.rank_tolerance, false);
  if (selection.rank < data.nominal_rank[static_cast<std::size_t>(s)]) {
    if (data.nominal_rank[static_cast<std::size_t>(s)] != model.nominal_rank(s) ||
        !closure_keeps_rank(model, data, s, selection, q))
      throw SingularConfigurationError(
          "singular configuration: " + aggregate_label(model, s) + " loses rank (" +
              std::to_string(data.nominal_rank[static_cast<std::size_t>(s)]) + " -> " +
              std::to_string(selection.rank) + ")",
          aggregate_loop(model, s));
    data.nominal_rank[static_cast<std::size_t>(s)] = selection.rank;
    update_world_motion(model.tree(), q, qd, data);  // back from the probe
    aggregate_constraints(model, data, s, q, Level::kAcceleration);
  }
  factorize_dependent(constraint, selection, y1);
  if (selection_conditioning_at_least(constraint, selection, options.reselect_conditioning, y1))
    return selection;
  improve_selection(constraint, {}, options.rank_tolerance, selection);
  return selection;
}

bool improved_preferred_selection(const ClosedChainModel& model, const ClosedChainData& data, int s,
                                  CoordinateSelection& selection) {
  const std::vector<int>& kept =
      closed_chain_impl(model).preferred_kept[static_cast<std::size_t>(s)];
  if (kept.empty()) return false;
  const Eigen::MatrixXd& constraint = data.constraint_matrix[static_cast<std::size_t>(s)];
  selection = preferred_selection(constraint, kept, model.options().rank_tolerance);
  if (selection.rank < data.nominal_rank[static_cast<std::size_t>(s)]) return false;
  improve_selection(constraint, kept, model.options().rank_tolerance, selection);
  return true;
}

void update_selection(const ClosedChainModel& model, ClosedChainData& data, int s,
                      const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Eigen::Ref<const Eigen::VectorXd>& qd) {
  const ClosedChainOptions& options = model.options();
  const Eigen::MatrixXd& constraint = data.constraint_matrix[s];
  DependentFactorization& y1 = data.work->selection.dependent_factorization[s];
  char& ill_conditioned = data.ill_conditioned[static_cast<std::size_t>(s)];
  // The user's choice is used wherever it has the constraints' rank, with data.ill_conditioned
  // set where its conditioning is below the option's; a singular configuration where it loses
  // rank. (Written into data.selection[s] in place: its vectors keep their storage.)
  if (chosen_selection(model, s, data.selection[s])) {
    const CoordinateSelection& chosen = data.selection[s];
    factorize_dependent(constraint, chosen, y1);
    ill_conditioned = 0;
    if (selection_conditioning_at_least(constraint, chosen, options.reselect_conditioning, y1))
      return;
    const DependentRank rank = dependent_rank(constraint, chosen, options.rank_tolerance);
    if (rank.rank < static_cast<int>(chosen.dependent.size()))
      chosen_selection_singular(model, s, chosen, rank);
    ill_conditioned = 1;
    return;
  }
  KeptSelectionBar& bar = data.work->selection.kept_bar[static_cast<std::size_t>(s)];
  // The selection carried from the last update, while it serves.
  if (has_selection(data, s) && data.selection[s].rank >= data.nominal_rank[s]) {
    factorize_dependent(constraint, data.selection[s], y1);
    if (selection_serves(constraint, data.selection[s], options.reselect_conditioning, y1, bar,
                         ill_conditioned))
      return;
  }
  data.selection[s] = remade_selection(model, data, s, q, qd);
  factorize_dependent(constraint, data.selection[s], y1);
  // The bar the next updates hold this selection to (selection_serves), where the best choice
  // falls short of the option's threshold (its SVD, only then).
  bar.updates = 0;
  bar.conditioning = options.reselect_conditioning;
  bar.dependent.clear();
  ill_conditioned = 0;
  if (!selection_conditioning_at_least(constraint, data.selection[s], bar.conditioning, y1)) {
    bar.conditioning = kKeptFraction * selection_conditioning(constraint, data.selection[s]);
    bar.dependent = data.selection[s].dependent;
    ill_conditioned = 1;
  }
}

}  // namespace closed_chain_detail

std::vector<SelectionCondition> selection_conditions(const ClosedChainModel& model,
                                                     const ClosedChainData& data) {
  using namespace closed_chain_detail;
  const Impl& impl = closed_chain_impl(model);
  const double tolerance = model.options().rank_tolerance;
  std::vector<SelectionCondition> result;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const auto a = static_cast<std::size_t>(s);
    const CoordinateSelection& selection = data.selection[a];
    const Eigen::MatrixXd& constraint = data.constraint_matrix[a];
    const std::vector<int>& kept = impl.preferred_kept[a];
    SelectionCondition condition;
    condition.aggregate = s;
    condition.label = aggregate_label(model, s);
    condition.chosen = !impl.chosen_independent[a].empty();
    for (const int i : selection.independent)
      condition.independent.push_back(impl.dofs[a][static_cast<std::size_t>(i)]);
    if (data.ill_conditioned[a]) {
      condition.condition = dependent_rank(constraint, selection, tolerance).condition;
      condition.best = condition.condition;
      if (!condition.chosen) {
        CoordinateSelection automatic = select_coordinates(constraint, tolerance, false);
        if (automatic.rank == selection.rank) {
          improve_selection(constraint, {}, tolerance, automatic);
          condition.best =
              std::min(condition.best, dependent_rank(constraint, automatic, tolerance).condition);
        }
      }
    }
    if (!condition.chosen && !impl.structural_preference[a] && !keeps(selection, kept)) {
      for (const int i : kept)
        if (!std::binary_search(selection.independent.begin(), selection.independent.end(), i))
          condition.preferred_dependent.push_back(impl.dofs[a][static_cast<std::size_t>(i)]);
      const CoordinateSelection preferred = preferred_selection(constraint, kept, tolerance);
      condition.preferred_condition =
          preferred.rank < data.nominal_rank[a]
              ? std::numeric_limits<double>::infinity()
              : dependent_rank(constraint, preferred, tolerance).condition;
    }
    if (data.ill_conditioned[a] || !condition.preferred_dependent.empty())
      result.push_back(std::move(condition));
  }
  return result;
}

void forget_selections(const ClosedChainModel& model, ClosedChainData& data) {
  ClosedChainData::Workspaces& work = *data.work;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    CoordinateSelection& selection = data.selection[static_cast<std::size_t>(s)];
    selection.dependent.clear();  // in place: the vectors keep their storage
    selection.independent.clear();
    selection.rank = 0;
    selection.conditioning = 1.0;
    data.nominal_rank[static_cast<std::size_t>(s)] = model.nominal_rank(s);
    data.ill_conditioned[static_cast<std::size_t>(s)] = 0;
    KeptSelectionBar& bar = work.selection.kept_bar[static_cast<std::size_t>(s)];
    bar.conditioning = model.options().reselect_conditioning;
    bar.dependent.clear();
    bar.updates = 0;
  }
}

}  // namespace skograph

#include "skograph/aggregation/constraint_embedding.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace skograph {
namespace {

Eigen::MatrixXd selected_columns(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                 const std::vector<int>& columns) {
  Eigen::MatrixXd result(Q.rows(), static_cast<Eigen::Index>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i)
    result.col(static_cast<Eigen::Index>(i)) = Q.col(columns[i]);
  return result;
}

void check_selection(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                     const CoordinateSelection& selection, const char* who) {
  const auto columns = static_cast<size_t>(Q.cols());
  bool valid = selection.dependent.size() + selection.independent.size() == columns;
  std::vector<char> seen(columns, 0);
  for (const std::vector<int>* part : {&selection.dependent, &selection.independent})
    for (const int c : *part) {
      if (c < 0 || static_cast<size_t>(c) >= columns || seen[c]) {
        valid = false;
        break;
      }
      seen[c] = 1;
    }
  if (!valid)
    throw std::invalid_argument(std::string(who) + ": the selection does not split the " +
                                std::to_string(columns) + " columns of Q");
}

}  // namespace

// constraint-embedding §4.3 (choice of the independent coordinates of Lemma 5): column-pivoted
// Householder QR, Q P = Q_f R; the first `rank` pivot columns span range(Q) and become the
// dependent coordinates u, so Y1 = Q(:, u) has full column rank.
CoordinateSelection select_coordinates(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                       double rank_tolerance, bool with_conditioning) {
  CoordinateSelection selection;
  const int columns = static_cast<int>(Q.cols());
  std::vector<char> dependent(columns, 0);
  if (Q.rows() > 0 && columns > 0) {
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Q);
    const Eigen::MatrixXd& r = qr.matrixQR();
    const int diagonal = static_cast<int>(std::min(Q.rows(), Q.cols()));
    const double threshold = rank_tolerance * std::max(1.0, std::abs(r(0, 0)));
    const auto& pivots = qr.colsPermutation().indices();
    for (int i = 0; i < diagonal && std::abs(r(i, i)) > threshold; ++i) dependent[pivots(i)] = 1;
  }
  for (int c = 0; c < columns; ++c)
    (dependent[c] ? selection.dependent : selection.independent).push_back(c);
  selection.rank = static_cast<int>(selection.dependent.size());
  selection.conditioning = with_conditioning ? selection_conditioning(Q, selection)
                                             : std::numeric_limits<double>::quiet_NaN();
  return selection;
}

// sigma_min / sigma_max of Y1 (JacobiSVD): how far the selection is from a singular
// configuration of the embedding (constraint-embedding §4.3, §8).
double selection_conditioning(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                              const CoordinateSelection& selection) {
  check_selection(Q, selection, "selection_conditioning");
  if (selection.dependent.empty()) return 1.0;
  // More dependent columns than rows: Y1 cannot have full column rank (and JacobiSVD of a matrix
  // without rows fails).
  if (static_cast<Eigen::Index>(selection.dependent.size()) > Q.rows()) return 0.0;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(selected_columns(Q, selection.dependent));
  const Eigen::VectorXd& sigma = svd.singularValues();
  if (sigma.size() < static_cast<Eigen::Index>(selection.dependent.size()) || sigma(0) == 0.0)
    return 0.0;  // more dependent columns than rows: Y1 cannot have full column rank
  return sigma(sigma.size() - 1) / sigma(0);
}

// With Y1 = Q_f R (R square, sigma(R) = sigma(Y1)): sigma_max <= |Y1|_F <= sqrt(r) sigma_max and
// 1/sigma_min <= |R^-1|_F <= sqrt(r)/sigma_min, so the estimate e = 1 / (|Y1|_F |R^-1|_F) brackets
// c = sigma_min / sigma_max as e <= c <= r e. Only a bracket around the threshold needs the SVD.
bool selection_conditioning_at_least(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                     const CoordinateSelection& selection, double threshold) {
  check_selection(Q, selection, "selection_conditioning_at_least");
  DependentFactorization y1;
  factorize_dependent(Q, selection, y1);
  return selection_conditioning_at_least(Q, selection, threshold, y1);
}

void factorize_dependent(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                         const CoordinateSelection& selection, DependentFactorization& y1) {
  y1.compute(Q, selection.dependent);
}

bool selection_conditioning_at_least(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                     const CoordinateSelection& selection, double threshold,
                                     DependentFactorization& y1) {
  const auto r = static_cast<Eigen::Index>(selection.dependent.size());
  if (r == 0) return 1.0 >= threshold;
  if (r > Q.rows()) return 0.0 >= threshold;
  // A certificate from an earlier check that still holds after Y1's change since then.
  if (y1.certified_at_least(threshold)) return true;
  if (y1.certified_below(threshold)) return false;
  // |Y1|_F and |R^-1|_F = |Y1^+|_F over the blocks of Y1 (block diagonal up to permutations):
  // sigma_max <= |Y1|_F and sigma_min >= 1 / |R^-1|_F.
  const double y1_norm = std::sqrt(y1.frobenius_squared());
  const double inverse_norm = std::sqrt(y1.inverse_frobenius_squared());
  if (!(y1_norm > 0.0)) return 0.0 >= threshold;
  if (!std::isfinite(inverse_norm)) return selection_conditioning(Q, selection) >= threshold;
  const double estimate = 1.0 / (y1_norm * inverse_norm);
  if (estimate >= threshold) {
    // |R^-1|_F^2 <= r / sigma_min^2 and |Y1|_F^2 <= r sigma_max^2 bound the other sides.
    DependentFactorization::SingularValueBounds bounds;
    bounds.min_at_least = 1.0 / inverse_norm;
    bounds.max_at_most = y1_norm;
    bounds.min_at_most = std::sqrt(static_cast<double>(r)) / inverse_norm;
    bounds.max_at_least = y1_norm / std::sqrt(static_cast<double>(r));
    y1.certify(bounds);
    return true;
  }
  if (static_cast<double>(r) * estimate < threshold) return false;
  // Between the bounds: power iterations on the R of each block of Y1 give lower bounds on
  // sigma_max and on 1/sigma_min that rise toward them: with them c is at most
  // 1 / (lower * lower), so below the threshold is decided. Once they have converged and leave c
  // clear of the threshold (a factor 1.5 above it), the selection is kept; only what stays close
  // needs the SVD of Y1, which at every update dominated the forward dynamics of aggregates of
  // 30 rows (wl16_like, digit_like_2legs_6D).
  switch (y1.conditioning_against(threshold)) {
    case DependentFactorization::Conditioning::kBelow:
      return false;
    case DependentFactorization::Conditioning::kAbove:
      return true;
    case DependentFactorization::Conditioning::kUndecided:
      break;
  }
  return selection_conditioning(Q, selection) >= threshold;
}

// X_S and Xdot_S thetadot_R of constraint-embedding Lemma 5 (conventions.md "Constraint
// embedding"): Y1 u + Y2 R = 0 gives u = -Y1^+ Y2 R; differentiating Q thetadot = 0 gives
// Y1 uddot + Y2 Rddot + Qdot thetadot = 0, so uddot = -Y1^+ Y2 Rddot - Y1^+ (Qdot thetadot).
// Y1^+ is the least-squares solve of a Householder QR of Y1 (full column rank), exact because
// Y2's columns and Qdot thetadot lie in range(Q) = range(Y1).
void embedding_matrices(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                        const Eigen::Ref<const Eigen::VectorXd>& Qdot_thetadot,
                        const CoordinateSelection& selection, Eigen::MatrixXd& X,
                        Eigen::VectorXd& Xdot_thetadot) {
  check_selection(Q, selection, "embedding_matrices");
  DependentFactorization y1;
  factorize_dependent(Q, selection, y1);
  embedding_matrices(Q, Qdot_thetadot, selection, y1, X, Xdot_thetadot);
}

void embedding_matrices(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                        const Eigen::Ref<const Eigen::VectorXd>& Qdot_thetadot,
                        const CoordinateSelection& selection, DependentFactorization& y1,
                        Eigen::MatrixXd& X, Eigen::VectorXd& Xdot_thetadot) {
  if (Qdot_thetadot.size() != Q.rows())
    throw std::invalid_argument("embedding_matrices: Qdot thetadot has " +
                                std::to_string(Qdot_thetadot.size()) + " entries, Q has " +
                                std::to_string(Q.rows()) + " rows");
  const int n = static_cast<int>(Q.cols());
  const int independent = static_cast<int>(selection.independent.size());
  X.setZero(n, independent);
  Xdot_thetadot.setZero(n);
  if (selection.dependent.empty()) {
    for (int j = 0; j < independent; ++j) X(selection.independent[j], j) = 1.0;
    return;
  }
  if (y1.rows() != Q.rows() || y1.columns() != static_cast<int>(selection.dependent.size()))
    throw std::invalid_argument(
        "embedding_matrices: the factorization of Y1 is not this selection's");
  // Solved into the rows of X and the entries of Xdot thetadot that the independent coordinates
  // leave free (the last |dependent| ones, moved into place below), negated there.
  const auto r = static_cast<Eigen::Index>(selection.dependent.size());
  // No independent coordinates (a weld holds the whole aggregate): X has no columns to fill, and
  // a 0-column block would index a null pointer (UBSan). Otherwise X's rows and Xdot thetadot's
  // entries in one pass over Y1's reflections.
  if (independent > 0)
    y1.solve_columns(Q, selection.independent, X.bottomRows(r), Qdot_thetadot,
                     Xdot_thetadot.tail(r));
  else
    y1.solve(Qdot_thetadot, Xdot_thetadot.tail(r));
  // Scatter the solved rows to the dependent coordinates in increasing order: with dependent
  // increasing, dependent[i] <= n - r + i < n - r + j for every later j, so no row is overwritten
  // before it is read. (A selection listed out of order is copied first.)
  if (!std::is_sorted(selection.dependent.begin(), selection.dependent.end())) {
    const Eigen::MatrixXd rows = X.bottomRows(r);
    const Eigen::VectorXd rates = Xdot_thetadot.tail(r);
    X.setZero();
    Xdot_thetadot.setZero();
    for (Eigen::Index i = 0; i < r; ++i) {
      const int d = selection.dependent[static_cast<std::size_t>(i)];
      Xdot_thetadot(d) = -rates(i);
      X.row(d) = -rows.row(i);
    }
  } else {
    for (Eigen::Index i = 0; i < r; ++i) {
      const int d = selection.dependent[static_cast<std::size_t>(i)];
      const Eigen::Index from = n - r + i;
      Xdot_thetadot(d) = -Xdot_thetadot(from);
      if (d != from) Xdot_thetadot(from) = 0.0;
      if (independent > 0) {
        X.row(d) = -X.row(from);
        if (d != from) X.row(from).setZero();
      }
    }
  }
  for (int j = 0; j < independent; ++j) X(selection.independent[j], j) = 1.0;
}

}  // namespace skograph

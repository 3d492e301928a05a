#include "aggregation/constraint_embedding.hpp"

#include <Eigen/Dense>
#include <algorithm>
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
                                       double rank_tolerance) {
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
  selection.conditioning = selection_conditioning(Q, selection);
  return selection;
}

// sigma_min / sigma_max of Y1 (JacobiSVD): how far the selection is from a singular
// configuration of the embedding (constraint-embedding §4.3, §8).
double selection_conditioning(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                              const CoordinateSelection& selection) {
  check_selection(Q, selection, "selection_conditioning");
  if (selection.dependent.empty()) return 1.0;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(selected_columns(Q, selection.dependent));
  const Eigen::VectorXd& sigma = svd.singularValues();
  if (sigma.size() < static_cast<Eigen::Index>(selection.dependent.size()) || sigma(0) == 0.0)
    return 0.0;  // more dependent columns than rows: Y1 cannot have full column rank
  return sigma(sigma.size() - 1) / sigma(0);
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
  if (Qdot_thetadot.size() != Q.rows())
    throw std::invalid_argument("embedding_matrices: Qdot thetadot has " +
                                std::to_string(Qdot_thetadot.size()) + " entries, Q has " +
                                std::to_string(Q.rows()) + " rows");
  const int n = static_cast<int>(Q.cols());
  const int independent = static_cast<int>(selection.independent.size());
  X.setZero(n, independent);
  Xdot_thetadot.setZero(n);
  for (int j = 0; j < independent; ++j) X(selection.independent[j], j) = 1.0;
  if (selection.dependent.empty()) return;
  const Eigen::HouseholderQR<Eigen::MatrixXd> y1(selected_columns(Q, selection.dependent));
  const Eigen::MatrixXd dependent_rows = -y1.solve(selected_columns(Q, selection.independent));
  const Eigen::VectorXd dependent_acceleration = -y1.solve(Qdot_thetadot);
  for (size_t i = 0; i < selection.dependent.size(); ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    X.row(selection.dependent[i]) = dependent_rows.row(row);
    Xdot_thetadot(selection.dependent[i]) = dependent_acceleration(row);
  }
}

}  // namespace skograph

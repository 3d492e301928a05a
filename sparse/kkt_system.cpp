// The KKT system in a fill-controlled order and its symbolic factorization
// (sparse/kkt_system.hpp).
#include "skograph/sparse/kkt_system.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "skograph/operators/elimination_order.hpp"
#include "skograph/sparse/sparse_assembly.hpp"

namespace skograph {

long symbolic_factor_nonzeros(const SparsityPattern& pattern) {
  long total = 0;
  for (const long count : symbolic_column_counts(pattern)) total += count;
  return total;
}

std::vector<long> symbolic_column_counts(const SparsityPattern& pattern) {
  const SparsityPattern factor = symbolic_factor_pattern(pattern);
  std::vector<long> counts(static_cast<std::size_t>(factor.cols), 0);
  for (int j = 0; j < factor.cols; ++j)
    counts[static_cast<std::size_t>(j)] = factor.column_start[static_cast<std::size_t>(j) + 1] -
                                          factor.column_start[static_cast<std::size_t>(j)];
  return counts;
}

// The symbolic factorization by the elimination tree: the pattern of L(:, j) is A's lower column j
// united with the patterns of the columns whose parent in the elimination tree is j (each minus
// its own diagonal); the parent of j is the first off-diagonal row of L(:, j).
SparsityPattern symbolic_factor_pattern(const SparsityPattern& pattern) {
  const int n = pattern.cols;
  SparsityPattern factor;
  factor.rows = factor.cols = n;
  factor.column_start.assign(1, 0);
  std::vector<std::vector<int>> children(static_cast<std::size_t>(n));
  std::vector<std::vector<int>> column(static_cast<std::size_t>(n));
  std::vector<int> mark(static_cast<std::size_t>(n), -1);
  for (int j = 0; j < n; ++j) {
    std::vector<int>& rows = column[static_cast<std::size_t>(j)];
    auto add = [&](int row) {
      if (row < j || mark[static_cast<std::size_t>(row)] == j) return;
      mark[static_cast<std::size_t>(row)] = j;
      rows.push_back(row);
    };
    add(j);
    for (int p = pattern.column_start[static_cast<std::size_t>(j)];
         p < pattern.column_start[static_cast<std::size_t>(j) + 1]; ++p)
      add(pattern.row_index[static_cast<std::size_t>(p)]);
    // A symmetric pattern stored as both triangles: the upper entries (row < j) of column j are
    // the lower entries of the rows' columns, which those columns added already.
    for (const int child : children[static_cast<std::size_t>(j)]) {
      for (const int row : column[static_cast<std::size_t>(child)]) add(row);
      std::vector<int>().swap(column[static_cast<std::size_t>(child)]);  // no longer needed
    }
    std::sort(rows.begin(), rows.end());
    factor.row_index.insert(factor.row_index.end(), rows.begin(), rows.end());
    factor.column_start.push_back(static_cast<int>(factor.row_index.size()));
    if (rows.size() > 1) children[static_cast<std::size_t>(rows[1])].push_back(j);
  }
  return factor;
}

KktSystem::KktSystem(const Eigen::SparseMatrix<double>& mass,
                     const std::vector<int>& mass_canonical_order,
                     const Eigen::SparseMatrix<double>& constraints, double epsilon)
    : dofs_(static_cast<int>(mass.rows())), multipliers_(static_cast<int>(constraints.rows())) {
  if (mass.cols() != dofs_ || constraints.cols() != dofs_ ||
      static_cast<int>(mass_canonical_order.size()) != dofs_)
    throw std::invalid_argument("KktSystem: M is " + std::to_string(mass.rows()) + " x " +
                                std::to_string(mass.cols()) + ", G has " +
                                std::to_string(constraints.cols()) + " columns, the order " +
                                std::to_string(mass_canonical_order.size()) + " entries");
  order_ = kkt_elimination_order(mass_canonical_order, constraints);

  // K in that order: new_index[unknown] = its row.
  std::vector<int> new_index(order_.size());
  for (std::size_t i = 0; i < order_.size(); ++i)
    new_index[static_cast<std::size_t>(order_[i])] = static_cast<int>(i);
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(
      static_cast<std::size_t>(mass.nonZeros() + 2 * constraints.nonZeros() + multipliers_));
  for (int c = 0; c < mass.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(mass, c); it; ++it)
      entries.emplace_back(new_index[static_cast<std::size_t>(it.row())],
                           new_index[static_cast<std::size_t>(c)], it.value());
  for (int c = 0; c < constraints.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(constraints, c); it; ++it) {
      const int row = new_index[static_cast<std::size_t>(dofs_ + it.row())];
      const int column = new_index[static_cast<std::size_t>(c)];
      entries.emplace_back(row, column, it.value());
      entries.emplace_back(column, row, it.value());
    }
  // The (2,2) block's diagonal is stored even when e = 0: the pivots of the multiplier rows live
  // there, and CHOLMOD's analysis wants the diagonal in the pattern.
  for (int r = 0; r < multipliers_; ++r) {
    const int row = new_index[static_cast<std::size_t>(dofs_ + r)];
    entries.emplace_back(row, row, -epsilon);
  }
  const int size = dofs_ + multipliers_;
  matrix_.resize(size, size);
  matrix_.setFromTriplets(entries.begin(), entries.end());
  matrix_.makeCompressed();

  // The M block alone in its canonical order.
  std::vector<int> mass_index(static_cast<std::size_t>(dofs_));
  for (int i = 0; i < dofs_; ++i)
    mass_index[static_cast<std::size_t>(mass_canonical_order[static_cast<std::size_t>(i)])] = i;
  mass_factor_nonzeros_ =
      symbolic_factor_nonzeros(sparsity_pattern(renumber_symmetric(mass, mass_index)));
}

Eigen::VectorXd KktSystem::right_side(const Eigen::VectorXd& generalized_force,
                                      const Eigen::VectorXd& constraint_bias) const {
  if (generalized_force.size() != dofs_ || constraint_bias.size() != multipliers_)
    throw std::invalid_argument("KktSystem::right_side: expected " + std::to_string(dofs_) +
                                " forces and " + std::to_string(multipliers_) + " biases");
  Eigen::VectorXd right(dofs_ + multipliers_);
  for (std::size_t i = 0; i < order_.size(); ++i) {
    const int unknown = order_[i];
    right(static_cast<Eigen::Index>(i)) =
        unknown < dofs_ ? generalized_force(unknown) : -constraint_bias(unknown - dofs_);
  }
  return right;
}

Eigen::VectorXd KktSystem::unpermute(const Eigen::VectorXd& solution) const {
  if (solution.size() != static_cast<Eigen::Index>(order_.size()))
    throw std::invalid_argument("KktSystem::unpermute: expected " + std::to_string(order_.size()) +
                                " entries");
  Eigen::VectorXd result(solution.size());
  for (std::size_t i = 0; i < order_.size(); ++i)
    result(order_[i]) = solution(static_cast<Eigen::Index>(i));
  return result;
}

long KktSystem::lower_nonzeros() const {
  long lower = 0;
  for (int c = 0; c < matrix_.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(matrix_, c); it; ++it)
      lower += it.row() >= c;
  return lower;
}

long KktSystem::factor_nonzeros() const {
  return symbolic_factor_nonzeros(sparsity_pattern(matrix_));
}

}  // namespace skograph

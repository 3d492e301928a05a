// M = L* D L in the tree's sparsity (operators/tree_factorization.hpp).
#include "skograph/operators/tree_factorization.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "skograph/operators/articulated_body.hpp"

namespace skograph {

TreeMassFactorization::TreeMassFactorization(const SkoStructure& structure) {
  const int n = structure.hinge.total();
  parent_.assign(static_cast<std::size_t>(n), -1);
  node_of_dof_.assign(static_cast<std::size_t>(n), -1);
  const Forest& forest = structure.forest;
  for (int k = 0; k < forest.size(); ++k) {
    const int offset = structure.hinge.offset(k), dims = structure.hinge.dim(k);
    // The nearest ancestor node that has dofs gives the first dof its parent.
    int above = -1;
    for (int p = forest.parent(k); p != Forest::kNone && above < 0; p = forest.parent(p))
      if (structure.hinge.dim(p) > 0)
        above = structure.hinge.offset(p) + structure.hinge.dim(p) - 1;
    for (int j = 0; j < dims; ++j) {
      parent_[static_cast<std::size_t>(offset + j)] = j == 0 ? above : offset + j - 1;
      node_of_dof_[static_cast<std::size_t>(offset + j)] = k;
    }
  }
  // Children before parents: the forest's post-order, each hinge's dofs last first.
  order_.reserve(static_cast<std::size_t>(n));
  for (const int k : forest.post_order())
    for (int j = structure.hinge.dim(k) - 1; j >= 0; --j)
      order_.push_back(structure.hinge.offset(k) + j);
  factor_.setZero(n, n);
}

// Featherstone's L^T D L of the joint-space inertia (Rigid Body Dynamics Algorithms, section 6.5):
// the elimination of part II section 7.4 in the canonical order. Each dof k, once its descendants
// are done, divides its ancestor entries by its pivot and updates the ancestors' block.
void TreeMassFactorization::factorize(const Eigen::Ref<const Eigen::MatrixXd>& mass) {
  factor_ = mass;
  double largest = 0.0;
  for (Eigen::Index k = 0; k < factor_.rows(); ++k) largest = std::max(largest, factor_(k, k));
  for (const int k : order_) {
    const double pivot = factor_(k, k);
    if (!(pivot > 1e-13 * largest))
      throw SingularMassMatrixError(node_of_dof_[static_cast<std::size_t>(k)],
                                    "the mass matrix is singular at dof " + std::to_string(k + 1) +
                                        ": the joint and the links below it move no mass");
    for (int i = parent_[static_cast<std::size_t>(k)]; i >= 0;
         i = parent_[static_cast<std::size_t>(i)]) {
      const double ratio = factor_(k, i) / pivot;
      for (int j = i; j >= 0; j = parent_[static_cast<std::size_t>(j)])
        factor_(i, j) -= ratio * factor_(k, j);
      factor_(k, i) = ratio;
    }
  }
}

void TreeMassFactorization::solve(Eigen::Ref<Eigen::VectorXd> x) const {
  // L* y = x: descendants first.
  for (const int k : order_)
    for (int i = parent_[static_cast<std::size_t>(k)]; i >= 0;
         i = parent_[static_cast<std::size_t>(i)])
      x(i) -= factor_(k, i) * x(k);
  for (const int k : order_) x(k) /= factor_(k, k);
  // L x = z: ancestors first.
  for (auto position = order_.rbegin(); position != order_.rend(); ++position) {
    const int k = *position;
    for (int i = parent_[static_cast<std::size_t>(k)]; i >= 0;
         i = parent_[static_cast<std::size_t>(i)])
      x(k) -= factor_(k, i) * x(i);
  }
}

std::vector<int> kkt_elimination_order(const std::vector<int>& mass_order,
                                       const Eigen::SparseMatrix<double>& constraints) {
  const int dofs = static_cast<int>(mass_order.size());
  const int rows = static_cast<int>(constraints.rows());
  std::vector<int> position(static_cast<std::size_t>(dofs));
  for (int i = 0; i < dofs; ++i)
    position[static_cast<std::size_t>(mass_order[static_cast<std::size_t>(i)])] = i;
  std::vector<int> last(static_cast<std::size_t>(rows), -1);
  for (int c = 0; c < constraints.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(constraints, c); it; ++it)
      last[static_cast<std::size_t>(it.row())] =
          std::max(last[static_cast<std::size_t>(it.row())], position[static_cast<std::size_t>(c)]);
  std::vector<std::vector<int>> after(static_cast<std::size_t>(dofs) + 1);
  for (int r = 0; r < rows; ++r)
    after[static_cast<std::size_t>(last[static_cast<std::size_t>(r)] + 1)].push_back(dofs + r);
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(dofs + rows));
  for (const int r : after[0]) order.push_back(r);
  for (int i = 0; i < dofs; ++i) {
    order.push_back(mass_order[static_cast<std::size_t>(i)]);
    for (const int r : after[static_cast<std::size_t>(i) + 1]) order.push_back(r);
  }
  return order;
}

}  // namespace skograph

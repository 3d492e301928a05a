// Elimination orders of the tree's dofs (operators/elimination_order.hpp).
#include "skograph/operators/elimination_order.hpp"

#include <algorithm>

namespace skograph {

std::vector<int> canonical_dof_order(const SkoStructure& structure) {
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(structure.hinge.total()));
  for (const int k : structure.forest.post_order())
    for (int d = 0; d < structure.hinge.dim(k); ++d) order.push_back(structure.hinge.offset(k) + d);
  return order;
}

std::vector<int> dof_parents(const SkoStructure& structure) {
  std::vector<int> parent(static_cast<std::size_t>(structure.hinge.total()), -1);
  const Forest& forest = structure.forest;
  for (int k = 0; k < forest.size(); ++k) {
    int above = -1;  // the last dof of the nearest ancestor node with dofs
    for (int p = forest.parent(k); p != Forest::kNone && above < 0; p = forest.parent(p))
      if (structure.hinge.dim(p) > 0)
        above = structure.hinge.offset(p) + structure.hinge.dim(p) - 1;
    const int offset = structure.hinge.offset(k);
    for (int j = 0; j < structure.hinge.dim(k); ++j)
      parent[static_cast<std::size_t>(offset + j)] = j == 0 ? above : offset + j - 1;
  }
  return parent;
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

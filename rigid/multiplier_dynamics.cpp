// Closed-chain forward dynamics by Lagrange multipliers (rigid/multiplier_dynamics.hpp).
#include "skograph/rigid/multiplier_dynamics.hpp"

#include <algorithm>
#include <string>

#include "closed_chain_internal.hpp"

namespace skograph {

MultiplierWorkspace::MultiplierWorkspace(const ClosedChainModel& model)
    : tree_order(*model.tree().structure()) {}

namespace {

// The elimination order of sparse/kkt_system.hpp for G's current pattern, the lower triangle of K
// with its structural entries, and where every M and G entry goes; analysed once per pattern.
void analyse(MultiplierWorkspace& work, int dofs) {
  const Eigen::SparseMatrix<double>& g = work.constraints.jacobian;
  const int rows = static_cast<int>(g.rows());
  const std::vector<int>& parent = work.tree_order.dof_parents();
  work.order = kkt_elimination_order(work.tree_order.elimination_order(), g);
  work.row_of_unknown.assign(work.order.size(), 0);
  for (std::size_t i = 0; i < work.order.size(); ++i)
    work.row_of_unknown[static_cast<std::size_t>(work.order[i])] = static_cast<int>(i);

  // Lower-triangle entries: M's (dof, ancestor-or-self) pairs, G's entries, the multipliers'
  // diagonal; each remembered by a running index, then mapped to its slot in K's values.
  std::vector<Eigen::Triplet<double>> entries;
  auto lower = [&](int a, int b, int id) {
    const int ra = work.row_of_unknown[static_cast<std::size_t>(a)];
    const int rb = work.row_of_unknown[static_cast<std::size_t>(b)];
    entries.emplace_back(std::max(ra, rb), std::min(ra, rb), static_cast<double>(id));
  };
  int id = 0;
  for (int k = 0; k < dofs; ++k)
    for (int i = k; i >= 0; i = parent[static_cast<std::size_t>(i)]) lower(k, i, id++);
  const int mass_entries = id;
  for (int c = 0; c < g.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(g, c); it; ++it)
      lower(dofs + static_cast<int>(it.row()), c, id++);
  const int constraint_entries = id - mass_entries;
  for (int r = 0; r < rows; ++r) lower(dofs + r, dofs + r, id++);
  const int size = dofs + rows;
  work.kkt.resize(size, size);
  work.kkt.setFromTriplets(entries.begin(), entries.end());  // distinct positions: no sums
  work.kkt.makeCompressed();
  work.mass_slot.assign(static_cast<std::size_t>(mass_entries), 0);
  work.constraint_slot.assign(static_cast<std::size_t>(constraint_entries), 0);
  double* values = work.kkt.valuePtr();
  for (Eigen::Index p = 0; p < work.kkt.nonZeros(); ++p) {
    const int entry = static_cast<int>(values[p]);
    if (entry < mass_entries)
      work.mass_slot[static_cast<std::size_t>(entry)] = static_cast<int>(p);
    else if (entry < mass_entries + constraint_entries)
      work.constraint_slot[static_cast<std::size_t>(entry - mass_entries)] = static_cast<int>(p);
  }
  std::fill(values, values + work.kkt.nonZeros(), 0.0);  // the multipliers' diagonal stays 0
  work.factor.analyzePattern(work.kkt);
  work.analysed_rows.clear();
  for (const ConstraintRow& row : work.constraints.rows) work.analysed_rows.push_back(row.stacked);
  work.analysed_pattern.assign(g.innerIndexPtr(), g.innerIndexPtr() + g.nonZeros());
  work.analysed_pattern.insert(work.analysed_pattern.end(), g.outerIndexPtr(),
                               g.outerIndexPtr() + g.outerSize() + 1);
}

// Whether G has the rows and the pattern the KKT matrix was analysed for.
bool same_pattern(const MultiplierWorkspace& work) {
  const Eigen::SparseMatrix<double>& g = work.constraints.jacobian;
  if (work.analysed_rows.size() != work.constraints.rows.size() ||
      work.analysed_pattern.size() != static_cast<std::size_t>(g.nonZeros() + g.outerSize() + 1))
    return false;
  for (std::size_t i = 0; i < work.analysed_rows.size(); ++i)
    if (work.analysed_rows[i] != work.constraints.rows[i].stacked) return false;
  return std::equal(g.innerIndexPtr(), g.innerIndexPtr() + g.nonZeros(),
                    work.analysed_pattern.begin()) &&
         std::equal(g.outerIndexPtr(), g.outerIndexPtr() + g.outerSize() + 1,
                    work.analysed_pattern.begin() + g.nonZeros());
}

}  // namespace

// Constraint-embedding Eq. 1 with the acceleration-level constraints as one sparse symmetric
// indefinite system (part II section 7.4 for the M block's fill).
const Eigen::VectorXd& forward_dynamics_by_multipliers(
    const ClosedChainModel& model, ClosedChainData& data, MultiplierWorkspace& work,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity) {
  closed_chain_detail::check_vector(tau, model.dof_count(), "tau");
  constraint_jacobian(model, data, q, qd, work.constraints);
  const RigidBodyModel& tree = model.tree();
  const int n = model.dof_count();
  if (!same_pattern(work)) analyse(work, n);
  // C first: mass_matrix then reads the positions it leaves.
  const Eigen::VectorXd& bias = bias_forces(tree, data.tree, q, qd, gravity);
  const Eigen::Index rows = work.constraints.jacobian.rows();
  work.right_side.resize(n + rows);
  for (int i = 0; i < n; ++i)
    work.right_side(work.row_of_unknown[static_cast<std::size_t>(i)]) = tau(i) - bias(i);
  for (Eigen::Index r = 0; r < rows; ++r)
    work.right_side(work.row_of_unknown[static_cast<std::size_t>(n + r)]) =
        -work.constraints.bias(r);
  const Eigen::MatrixXd& mass = mass_matrix(tree, data.tree, q);
  double* values = work.kkt.valuePtr();
  const std::vector<int>& parent = work.tree_order.dof_parents();
  std::size_t entry = 0;
  for (int k = 0; k < n; ++k)
    for (int i = k; i >= 0; i = parent[static_cast<std::size_t>(i)])
      values[work.mass_slot[entry++]] = mass(k, i);
  const double* constraint_values = work.constraints.jacobian.valuePtr();
  for (std::size_t e = 0; e < work.constraint_slot.size(); ++e)
    values[work.constraint_slot[e]] = constraint_values[e];

  work.factor.factorize(work.kkt);
  if (work.factor.info() != Eigen::Success)
    throw SingularMassMatrixError(
        -1,
        "the augmented system has a zero pivot: a moving joint moves no mass or the "
        "constraint rows are dependent here (constraint embedding does not need M's inverse)");
  work.solution = work.factor.solve(work.right_side);
  work.acceleration.resize(n);
  work.multipliers.resize(rows);
  for (int i = 0; i < n; ++i)
    work.acceleration(i) = work.solution(work.row_of_unknown[static_cast<std::size_t>(i)]);
  for (Eigen::Index r = 0; r < rows; ++r)
    work.multipliers(r) = -work.solution(work.row_of_unknown[static_cast<std::size_t>(n + r)]);
  return work.acceleration;
}

}  // namespace skograph

// Closed-chain forward dynamics by Lagrange multipliers (rigid/multiplier_dynamics.hpp).
#include "skograph/rigid/multiplier_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "closed_chain/internal.hpp"

namespace skograph {

MultiplierWorkspace::MultiplierWorkspace(const ClosedChainModel& model)
    : dof_parent(dof_parents(*model.tree().structure())),
      mass_order(canonical_dof_order(*model.tree().structure())) {}

namespace {

// The elimination order of operators/elimination_order.hpp for G's pattern, the lower triangle
// of K with its structural entries, and where every M and G entry goes; once per pattern.
void analyse(MultiplierWorkspace& work, int dofs) {
  const Eigen::SparseMatrix<double>& g = work.constraints.jacobian;
  const int rows = static_cast<int>(g.rows());
  const std::vector<int> order = kkt_elimination_order(work.mass_order, g);
  work.row_of_unknown.assign(order.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i)
    work.row_of_unknown[static_cast<std::size_t>(order[i])] = static_cast<int>(i);

  // Lower-triangle entries: M's (dof, ancestor-or-self) pairs, G's entries, the multipliers'
  // diagonal, each tagged with a running index (distinct positions: nothing is summed), then
  // mapped to its slot in K's values.
  std::vector<Eigen::Triplet<double>> entries;
  auto lower = [&](int a, int b, int id) {
    const int ra = work.row_of_unknown[static_cast<std::size_t>(a)];
    const int rb = work.row_of_unknown[static_cast<std::size_t>(b)];
    entries.emplace_back(std::max(ra, rb), std::min(ra, rb), static_cast<double>(id));
  };
  int id = 0;
  for (int k = 0; k < dofs; ++k)
    for (int i = k; i >= 0; i = work.dof_parent[static_cast<std::size_t>(i)]) lower(k, i, id++);
  const int mass_entries = id;
  for (int c = 0; c < g.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(g, c); it; ++it)
      lower(dofs + static_cast<int>(it.row()), c, id++);
  const int constraint_entries = id - mass_entries;
  for (int r = 0; r < rows; ++r) lower(dofs + r, dofs + r, id++);
  const int size = dofs + rows;
  work.kkt.resize(size, size);
  work.kkt.setFromTriplets(entries.begin(), entries.end());
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
  work.analysed_pattern.assign(g.outerIndexPtr(), g.outerIndexPtr() + g.outerSize() + 1);
  work.analysed_pattern.insert(work.analysed_pattern.end(), g.innerIndexPtr(),
                               g.innerIndexPtr() + g.nonZeros());
}

// Whether G has the (structural) pattern the KKT matrix was analysed for.
bool same_pattern(const MultiplierWorkspace& work) {
  const Eigen::SparseMatrix<double>& g = work.constraints.jacobian;
  const std::size_t starts = static_cast<std::size_t>(g.outerSize()) + 1;
  return work.analysed_pattern.size() == starts + static_cast<std::size_t>(g.nonZeros()) &&
         std::equal(g.outerIndexPtr(), g.outerIndexPtr() + starts, work.analysed_pattern.begin()) &&
         std::equal(g.innerIndexPtr(), g.innerIndexPtr() + g.nonZeros(),
                    work.analysed_pattern.begin() + static_cast<std::ptrdiff_t>(starts));
}

// The pivots of the LDL*: every dof's positive and every multiplier row's negative, none tiny
// against the largest of its kind (a massless subtree, dependent rows).
void check_pivots(const ClosedChainModel& model, const MultiplierWorkspace& work, int dofs) {
  const Eigen::VectorXd& pivots = work.factor.vectorD();
  double largest_dof = 0.0, largest_row = 0.0;
  for (std::size_t u = 0; u < work.row_of_unknown.size(); ++u) {
    const double d = pivots(work.row_of_unknown[u]);
    (static_cast<int>(u) < dofs ? largest_dof : largest_row) =
        std::max(static_cast<int>(u) < dofs ? largest_dof : largest_row, std::abs(d));
  }
  constexpr double kRelative = 1e-13;
  for (int u = 0; u < static_cast<int>(work.row_of_unknown.size()); ++u) {
    const double d = pivots(work.row_of_unknown[static_cast<std::size_t>(u)]);
    if (u < dofs && !(d > kRelative * largest_dof)) {
      const BlockLayout& hinge = model.tree().structure()->hinge;
      int joint = 0;
      while (hinge.offset(joint) + hinge.dim(joint) <= u) ++joint;  // the joint of dof u
      throw SingularMassMatrixError(
          joint, "the multiplier method needs a positive definite tree mass matrix, but joint '" +
                     model.mechanism().joints[static_cast<std::size_t>(joint)].name +
                     "' and the links below it move no mass (constraint embedding does not "
                     "need M's inverse)");
    }
    if (u >= dofs && !(d < -kRelative * largest_row))
      throw SingularConfigurationError(
          "the multiplier method met dependent constraint rows at this configuration (" +
          work.constraints.rows[static_cast<std::size_t>(u - dofs)].label + ")");
  }
}

}  // namespace

// Constraint-embedding Eq. 1 with the acceleration-level constraints as one sparse symmetric
// indefinite system (part II section 7.4 for the M block's fill).
const Eigen::VectorXd& forward_dynamics_by_multipliers(
    const ClosedChainModel& model, ClosedChainData& data, MultiplierWorkspace& work,
    const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& qd,
    const Eigen::Ref<const Eigen::VectorXd>& tau, const Eigen::Vector3d& gravity) {
  closed_chain_detail::require_rigid_links(model, "the dynamics by multipliers");
  const int n = model.dof_count();
  closed_chain_detail::check_vector(tau, n, "tau");
  if (static_cast<int>(work.mass_order.size()) != n)
    throw std::invalid_argument("MultiplierWorkspace: made for another model");
  constraint_jacobian(model, data, q, qd, work.constraints);
  const RigidBodyModel& tree = model.tree();
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
  std::size_t entry = 0;
  for (int k = 0; k < n; ++k)
    for (int i = k; i >= 0; i = work.dof_parent[static_cast<std::size_t>(i)])
      values[work.mass_slot[entry++]] = mass(k, i);
  const double* constraint_values = work.constraints.jacobian.valuePtr();
  for (std::size_t e = 0; e < work.constraint_slot.size(); ++e)
    values[work.constraint_slot[e]] = constraint_values[e];

  work.factor.factorize(work.kkt);
  if (work.factor.info() == Eigen::Success) check_pivots(model, work, n);
  if (work.factor.info() != Eigen::Success)
    throw SingularMassMatrixError(
        -1,
        "the augmented system [M G*; G 0] has a zero pivot: a moving joint moves no mass or "
        "the constraint rows are dependent here (constraint embedding needs neither)");
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

// G, Gdot qd and e(q) of a closed chain on every tree dof (rigid/constraint_jacobian.hpp).
#include "skograph/rigid/constraint_jacobian.hpp"

#include <Eigen/QR>
#include <algorithm>

#include "closed_chain/internal.hpp"

namespace skograph {

using closed_chain_detail::check_vector;

namespace {

// The labels of aggregate s's stacked rows: loops in order, then couplings
// (closed_chain_model.hpp).
void label_rows(const ClosedChainModel& model, int s, int first_stacked,
                std::vector<ConstraintRow>& rows) {
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  const Mechanism& m = model.mechanism();
  int stacked = first_stacked;
  auto add_loop_rows = [&](int l, const RowMatrix3& directions, bool angular) {
    static const char* const kAxes[] = {"x", "y", "z"};
    static const char* const kNormals[] = {"n1", "n2"};
    for (Eigen::Index i = 0; i < directions.rows(); ++i) {
      ConstraintRow row;
      row.aggregate = s;
      row.loop = l;
      row.stacked = stacked++;
      row.angular = angular;
      row.direction = directions.row(i).transpose();
      row.label = closed_chain_detail::loop_label(m, l) + (angular ? " angular " : " linear ") +
                  (directions.rows() == 2 ? kNormals[i] : kAxes[i]);
      rows.push_back(std::move(row));
    }
  };
  for (const int l : impl.loops[static_cast<std::size_t>(s)]) {
    const LoopRows& loop_rows = impl.loop_rows[static_cast<std::size_t>(l)];
    add_loop_rows(l, loop_rows.angular, true);
    add_loop_rows(l, loop_rows.linear, false);
  }
  for (const int c : impl.couplings[static_cast<std::size_t>(s)]) {
    const int count = model.tree().joint_dofs(m.couplings[static_cast<std::size_t>(c)].joint_a);
    for (int j = 0; j < count; ++j) {
      ConstraintRow row;
      row.aggregate = s;
      row.coupling = c;
      row.stacked = stacked++;
      row.label = closed_chain_detail::coupling_label(m, c) +
                  (count > 1 ? ":" + std::to_string(j + 1) : std::string());
      rows.push_back(std::move(row));
    }
  }
}

// Whether tree dof `dof` moves exactly one of loop l's frames (F_p on its parent link, F_c on its
// child link; the world moves with none): only then can it change the loop's relative twist.
bool moves_one_frame(const ClosedChainModel& model, int l, int dof) {
  const RigidBodyModel& tree = model.tree();
  const LoopClosure& loop = model.mechanism().loops[static_cast<std::size_t>(l)];
  const int node = closed_chain_impl(model).dof_node[static_cast<std::size_t>(dof)];
  auto moves = [&](int link) {
    return link >= 0 && tree.forest().is_ancestor_or_self(node, tree.node_of_link(link));
  };
  return moves(loop.parent) != moves(loop.child);
}

// The rows of Q_S that G keeps: r independent rows of Y1 = Q_S(:, dependent) by column-pivoted QR
// of Y1* (rigid/constraint_jacobian.hpp), increasing.
std::vector<int> independent_rows(const Eigen::MatrixXd& constraint,
                                  const CoordinateSelection& selection) {
  const int rank = selection.rank;
  if (rank == 0) return {};
  Eigen::MatrixXd dependent_columns_transposed(rank, constraint.rows());
  for (int j = 0; j < rank; ++j)
    dependent_columns_transposed.row(j) =
        constraint.col(selection.dependent[static_cast<std::size_t>(j)]).transpose();
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(dependent_columns_transposed);
  std::vector<int> rows(static_cast<std::size_t>(rank));
  for (int j = 0; j < rank; ++j)
    rows[static_cast<std::size_t>(j)] = qr.colsPermutation().indices()(j);
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

// Q_S and Qdot_S qd of constraint-embedding Eq. 58 and 61 (Corollary 8.1) per aggregate, their
// columns scattered to the tree dofs of the aggregate.
void constraint_jacobian(const ClosedChainModel& model, ClosedChainData& data,
                         const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& qd, ConstraintJacobian& result,
                         bool independent_rows_only) {
  closed_chain_detail::require_rigid_links(model, "the constraint Jacobian");
  closed_chain_detail::update_constraints(model, data, q, qd, false);
  const ClosedChainModel::Impl& impl = closed_chain_impl(model);
  int stacked = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) stacked += model.constraint_rows(s);
  if (static_cast<int>(result.stacked.size()) != stacked) {
    result.stacked.clear();
    for (int s = 0, first = 0; s < model.aggregate_count(); first += model.constraint_rows(s), ++s)
      label_rows(model, s, first, result.stacked);
  }
  result.stacked_rows = stacked;
  std::vector<Eigen::Triplet<double>> entries;
  std::vector<double> bias;
  std::vector<int> kept_stacked;
  for (int s = 0, first = 0; s < model.aggregate_count(); first += model.constraint_rows(s), ++s) {
    const std::size_t index = static_cast<std::size_t>(s);
    const Eigen::MatrixXd& constraint = data.constraint_matrix[index];
    std::vector<int> kept;
    if (independent_rows_only) {
      kept = independent_rows(constraint, data.selection[index]);
    } else {
      kept.resize(static_cast<std::size_t>(constraint.rows()));
      for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = static_cast<int>(i);
    }
    const std::vector<int>& dofs = impl.dofs[index];
    for (const int r : kept) {
      const int row = static_cast<int>(kept_stacked.size());
      const ConstraintRow& description = result.stacked[static_cast<std::size_t>(first + r)];
      for (std::size_t i = 0; i < dofs.size(); ++i) {
        const double value = constraint(r, static_cast<Eigen::Index>(i));
        // The structural pattern, the same at every configuration: a loop row depends on the
        // dofs that move one of its two frames but not both; a coupling row on its joints.
        const bool structural = description.loop >= 0
                                    ? moves_one_frame(model, description.loop, dofs[i])
                                    : value != 0.0;
        if (structural) entries.emplace_back(row, dofs[i], value);
      }
      bias.push_back(data.constraint_velocity_product[index](r));
      kept_stacked.push_back(first + r);
    }
  }
  // The rows' descriptions change only with the choice of rows.
  bool same_rows = result.rows.size() == kept_stacked.size();
  for (std::size_t i = 0; same_rows && i < kept_stacked.size(); ++i)
    same_rows = result.rows[i].stacked == kept_stacked[i];
  if (!same_rows) {
    result.rows.clear();
    for (const int r : kept_stacked)
      result.rows.push_back(result.stacked[static_cast<std::size_t>(r)]);
  }
  result.jacobian.resize(static_cast<Eigen::Index>(kept_stacked.size()), model.dof_count());
  result.jacobian.setFromTriplets(entries.begin(), entries.end());
  result.bias =
      Eigen::Map<const Eigen::VectorXd>(bias.data(), static_cast<Eigen::Index>(bias.size()));
}

Eigen::VectorXd constraint_position_error(const ClosedChainModel& model, ClosedChainData& data,
                                          const Eigen::Ref<const Eigen::VectorXd>& q) {
  check_vector(q, model.dof_count(), "q");
  update_positions(model.tree(), q, data.tree);
  Eigen::Index rows = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) rows += model.constraint_rows(s);
  Eigen::VectorXd error(rows);
  rows = 0;
  for (int s = 0; s < model.aggregate_count(); ++s) {
    closed_chain_detail::aggregate_constraints(model, data, s, q,
                                               closed_chain_detail::Level::kPosition);
    const Eigen::VectorXd& aggregate_error =
        data.work->constraints.position_error[static_cast<std::size_t>(s)];
    error.segment(rows, aggregate_error.size()) = aggregate_error;
    rows += aggregate_error.size();
  }
  return error;
}

}  // namespace skograph

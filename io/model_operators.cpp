#include "skograph/io/model_operators.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <numeric>

#include "skograph/io/model_kinematics.hpp"
#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/innovations.hpp"

namespace skograph {

namespace {

// The row of each hinge entry of the exported SKO model (identity when model_sko left it empty).
std::vector<int> hinge_rows_of(const ModelSko& exported) {
  if (!exported.hinge_rows.empty()) return exported.hinge_rows;
  std::vector<int> rows(static_cast<std::size_t>(exported.sko->structure().hinge.total()));
  std::iota(rows.begin(), rows.end(), 0);
  return rows;
}

// A hinge-layout matrix with its rows and columns moved to `rows`.
Eigen::MatrixXd in_rows(const Eigen::MatrixXd& hinge_layout, const std::vector<int>& rows) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd result(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i)
      result(rows[static_cast<std::size_t>(i)], rows[static_cast<std::size_t>(j)]) =
          hinge_layout(i, j);
  return result;
}

// M^-1 of the exported model in its rows, by Eq. 51 (operators/innovations.hpp).
Eigen::MatrixXd mass_inverse_in_rows(const ModelSko& exported) {
  ForwardDynamicsWorkspace workspace(exported.sko->structure_ptr());
  Eigen::MatrixXd inverse;
  mass_matrix_inverse(*exported.sko, workspace, inverse);
  return in_rows(inverse, hinge_rows_of(exported));
}

// M^-1 and the innovations factors need every D(k) invertible: a joint that moves no mass (every
// link below it massless) leaves M singular.
void require_invertible_mass(const Model& model) {
  if (model.massless_joints().empty()) return;
  throw SingularMassMatrixError(-1,
                                "the mass matrix is singular (joint '" +
                                    model.mechanism().joints[model.massless_joints().front()].name +
                                    "' moves no mass: every link below it is massless)");
}

}  // namespace

// Part II section 6: Lemma 11 (Eq. 49-51) and Corollary 6.1 (Eq. 53) on the model's SKO model.
ModelOperators model_operators(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  require_invertible_mass(model);
  const ModelSko exported = model_sko(model, data, q, true);
  const SkoModel& sko = *exported.sko;
  const std::vector<int> rows = hinge_rows_of(exported);
  ModelOperators result;
  result.dofs = exported.row_names;
  ArticulatedBodyWorkspace workspace(sko.structure_ptr());
  InnovationsFactors factors;
  innovations_factors(sko, workspace, factors);
  result.innovations_factor = in_rows(factors.newton_euler_factor, rows);
  result.innovations_inverse = in_rows(factors.inverse_factor, rows);
  result.innovations_inertia = in_rows(factors.innovations_inertia, rows);
  result.log_det_mass = mass_matrix_log_determinant(sko, workspace);
  result.mass_inverse = mass_inverse_in_rows(exported);
  // D(k) per node with hinge entries, ordered by the first row its entries take.
  const SkoStructure& structure = sko.structure();
  std::vector<int> nodes;
  for (int k = 0; k < sko.size(); ++k)
    if (structure.hinge.dim(k) > 0) nodes.push_back(k);
  const auto first_row = [&](int k) {
    int first = rows[static_cast<std::size_t>(structure.hinge.offset(k))];
    for (int d = 1; d < structure.hinge.dim(k); ++d)
      first = std::min(first, rows[static_cast<std::size_t>(structure.hinge.offset(k) + d)]);
    return first;
  };
  std::ranges::sort(nodes, {}, first_row);
  for (const int k : nodes) {
    // The block in the rows' order: its entries sorted by row.
    std::vector<int> entries(static_cast<std::size_t>(structure.hinge.dim(k)));
    std::iota(entries.begin(), entries.end(), 0);
    std::ranges::sort(entries, {}, [&](int d) {
      return rows[static_cast<std::size_t>(structure.hinge.offset(k) + d)];
    });
    const auto block = workspace.innovations_inertia[k];
    const auto size = static_cast<Eigen::Index>(entries.size());
    Eigen::MatrixXd sorted(size, size);
    std::vector<std::string> names;
    for (Eigen::Index i = 0; i < size; ++i) {
      for (Eigen::Index j = 0; j < size; ++j)
        sorted(i, j) =
            block(entries[static_cast<std::size_t>(i)], entries[static_cast<std::size_t>(j)]);
      names.push_back(result.dofs[static_cast<std::size_t>(rows[static_cast<std::size_t>(
          structure.hinge.offset(k) + entries[static_cast<std::size_t>(i)])])]);
    }
    result.joint_blocks.push_back(std::move(sorted));
    result.joint_block_dofs.push_back(std::move(names));
  }
  return result;
}

// Part II Eq. 59-60: B* Omega B = J M^-1 J*, here with the frame's Jacobian J (a frame need not
// sit at a node's origin) and M^-1 by Eq. 51.
std::vector<OperationalSpace> operational_space(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q,
                                                const std::vector<std::string>& frames) {
  std::vector<Eigen::MatrixXd> jacobians =
      frame_jacobians(model, data, q, frames, FrameAxes::kWorld);
  if (model.is_closed_chain()) {
    const Eigen::MatrixXd X = embedding_matrix(model, data, q);
    for (Eigen::MatrixXd& jacobian : jacobians) jacobian = jacobian * X;
  }
  require_invertible_mass(model);
  const Eigen::MatrixXd inverse = mass_inverse_in_rows(model_sko(model, data, q, true));
  std::vector<OperationalSpace> result;
  for (const Eigen::MatrixXd& jacobian : jacobians) {
    OperationalSpace space;
    space.compliance = jacobian * inverse * jacobian.transpose();
    space.compliance = 0.5 * (space.compliance + space.compliance.transpose());
    // Full row rank of J <=> the compliance is positive definite; a relative bound on its
    // eigenvalues tells a rank-deficient J from roundoff.
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(space.compliance);
    const Eigen::VectorXd& values = eigen.eigenvalues();
    space.has_inertia = values(5) > 0.0 && values(0) > 1e-12 * values(5);
    if (space.has_inertia) {
      space.inertia = eigen.eigenvectors() * values.cwiseInverse().asDiagonal() *
                      eigen.eigenvectors().transpose();
      space.inertia = 0.5 * (space.inertia + space.inertia.transpose());  // exactly symmetric
    }
    result.push_back(std::move(space));
  }
  return result;
}

}  // namespace skograph

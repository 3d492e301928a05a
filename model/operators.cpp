#include "skograph/model/operators.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "skograph/model/kinematics.hpp"
#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/forward_dynamics_alternatives.hpp"
#include "skograph/operators/innovations.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/operators/operational_space.hpp"
#include "skograph/rigid/free_flying.hpp"

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

// M^-1 and the innovations factors need every D(k) invertible: a joint that moves no mass (every
// link below it massless) leaves M singular at every configuration.
void require_invertible_mass(const Model& model) {
  if (model.massless_joints().empty()) return;
  throw SingularMassMatrixError(-1,
                                "the mass matrix is singular (joint '" +
                                    model.mechanism().joints[model.massless_joints().front()].name +
                                    "' moves no mass: every link below it is massless)");
}

void require_dense_size(const Model& model) {
  if (model.dof_count() <= kOperatorsDofLimit) return;
  throw Error("M^-1 and the innovations factors are dense " + std::to_string(model.dof_count()) +
              " x " + std::to_string(model.dof_count()) + " matrices; at most " +
              std::to_string(kOperatorsDofLimit) + " dofs");
}

// The SKO model at q, checked; a singular D(k) of node k named by its joint (trees: the tree's
// node k is the mechanism's joint k; closed chains: the first member of the embedded node).
template <class Compute>
auto on_exported_model(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                       Compute compute) {
  require_invertible_mass(model);
  const ModelSko exported = model_sko(model, data, q, true);
  try {
    return compute(exported);
  } catch (const SingularMassMatrixError& e) {
    int joint = e.node();
    if (joint >= 0 && model.is_closed_chain())
      joint = data.closed_chain()->structure->members(joint).front();
    if (joint < 0) throw;
    throw SingularMassMatrixError(
        joint, "the mass matrix is singular at this configuration (joint '" +
                   model.mechanism().joints[static_cast<std::size_t>(joint)].name +
                   "': its D = H P H* is singular)");
  }
}

Eigen::MatrixXd mass_inverse_in_rows(const ModelSko& exported) {
  ForwardDynamicsWorkspace workspace(exported.sko->structure_ptr());
  Eigen::MatrixXd inverse;
  mass_matrix_inverse(*exported.sko, workspace, inverse);
  return in_rows(inverse, hinge_rows_of(exported));
}

}  // namespace

// Part II section 6: Lemma 11 (Eq. 49-51) and Corollary 6.1 (Eq. 53) on the model's SKO model.
ModelOperators model_operators(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  require_dense_size(model);
  return on_exported_model(model, data, q, [&](const ModelSko& exported) {
    const SkoModel& sko = *exported.sko;
    const std::vector<int> rows = hinge_rows_of(exported);
    ModelOperators result;
    result.dofs = exported.row_names;
    ForwardDynamicsWorkspace forward(sko.structure_ptr());
    ArticulatedBodyWorkspace& workspace = forward.articulated;
    InnovationsFactors factors;
    innovations_factors(sko, workspace, factors);  // the Riccati quantities first
    result.innovations_factor = in_rows(factors.newton_euler_factor, rows);
    result.innovations_inverse = in_rows(factors.inverse_factor, rows);
    result.innovations_inertia = in_rows(factors.innovations_inertia, rows);
    double log_det = 0.0;
    for (int k = 0; k < sko.size(); ++k) log_det += innovations_log_determinant(workspace, k);
    result.log_det_mass = log_det;
    Eigen::MatrixXd inverse;
    mass_matrix_inverse(sko, forward, inverse);
    result.mass_inverse = in_rows(inverse, rows);
    // D(k) per node with hinge entries, ordered by the first row its entries take.
    const SkoStructure& structure = sko.structure();
    std::vector<int> nodes;
    for (int k = 0; k < sko.size(); ++k)
      if (structure.hinge.dim(k) > 0) nodes.push_back(k);
    const auto row_of = [&](int k, int d) {
      return rows[static_cast<std::size_t>(structure.hinge.offset(k) + d)];
    };
    const auto first_row = [&](int k) {
      int first = row_of(k, 0);
      for (int d = 1; d < structure.hinge.dim(k); ++d) first = std::min(first, row_of(k, d));
      return first;
    };
    std::ranges::sort(nodes, {}, first_row);
    for (const int k : nodes) {
      // The block in the rows' order: its entries sorted by row.
      std::vector<int> entries(static_cast<std::size_t>(structure.hinge.dim(k)));
      std::iota(entries.begin(), entries.end(), 0);
      std::ranges::sort(entries, {}, [&](int d) { return row_of(k, d); });
      const auto block = workspace.innovations_inertia[k];
      const auto size = static_cast<Eigen::Index>(entries.size());
      Eigen::MatrixXd sorted(size, size);
      std::vector<std::string> names;
      for (Eigen::Index i = 0; i < size; ++i) {
        const int di = entries[static_cast<std::size_t>(i)];
        for (Eigen::Index j = 0; j < size; ++j)
          sorted(i, j) = block(di, entries[static_cast<std::size_t>(j)]);
        names.push_back(result.dofs[static_cast<std::size_t>(row_of(k, di))]);
      }
      result.joint_blocks.push_back(std::move(sorted));
      result.joint_block_dofs.push_back(std::move(names));
    }
    return result;
  });
}

// Part II Corollary 6.1, Eq. 53.
double mass_log_determinant(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  return on_exported_model(model, data, q, [](const ModelSko& exported) {
    ArticulatedBodyWorkspace workspace(exported.sko->structure_ptr());
    return mass_matrix_log_determinant(*exported.sko, workspace);
  });
}

// Part II Lemma 11, Eq. 51.
Eigen::MatrixXd mass_matrix_inverse(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  require_dense_size(model);
  return on_exported_model(model, data, q, mass_inverse_in_rows);
}

// Part II Eq. 59 with the frame's Jacobian J (a frame need not sit at a node's origin).
std::vector<OperationalSpace> operational_space(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q,
                                                const std::vector<std::string>& frames,
                                                const Eigen::MatrixXd& mass_inverse) {
  std::vector<OperationalSpace> result;
  if (frames.empty()) return result;
  std::vector<Eigen::MatrixXd> jacobians =
      frame_jacobians(model, data, q, frames, FrameAxes::kWorld);
  if (model.is_closed_chain()) {
    const Eigen::MatrixXd X = embedding_matrix(model, data, q);
    for (Eigen::MatrixXd& jacobian : jacobians) jacobian = jacobian * X;
  }
  for (const Eigen::MatrixXd& jacobian : jacobians) {
    OperationalSpace space;
    space.compliance = jacobian * mass_inverse * jacobian.transpose();
    space.compliance = 0.5 * (space.compliance + space.compliance.transpose());
    // Full row rank of J <=> the compliance is positive definite. Scaled to a unit diagonal
    // (S C S, S = diag(C)^-1/2), its eigenvalues no longer mix radians and metres: a relative
    // bound on them tells a rank-deficient J from roundoff.
    const Eigen::VectorXd diagonal = space.compliance.diagonal();
    if ((diagonal.array() > 0.0).all()) {
      const Eigen::VectorXd scale = diagonal.cwiseSqrt().cwiseInverse();
      const Eigen::MatrixXd scaled = scale.asDiagonal() * space.compliance * scale.asDiagonal();
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(scaled);
      const Eigen::VectorXd& values = eigen.eigenvalues();
      space.has_inertia = values(0) > 1e-10 * values(5);
      if (space.has_inertia) {
        // (S C S)^-1 = S^-1 C^-1 S^-1, so C^-1 = S (S C S)^-1 S.
        space.inertia = scale.asDiagonal() * eigen.eigenvectors() *
                        values.cwiseInverse().asDiagonal() * eigen.eigenvectors().transpose() *
                        scale.asDiagonal();
        space.inertia = 0.5 * (space.inertia + space.inertia.transpose());  // exactly symmetric
      }
    }
    result.push_back(std::move(space));
  }
  return result;
}

std::vector<OperationalSpace> operational_space(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q,
                                                const std::vector<std::string>& frames) {
  if (frames.empty()) return {};
  for (const std::string& name : frames) model_frame(model, name);  // unknown: InputError first
  return operational_space(model, data, q, frames, mass_matrix_inverse(model, data, q));
}

// Part II Lemmas 4-8 and Lemma 5 (Eq. 23-24) per node of the exported SKO model.
NodeQuantities node_quantities(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  return on_exported_model(model, data, q, [&](const ModelSko& exported) {
    const SkoModel& sko = *exported.sko;
    const DofOrder& order = model.dof_order();
    // Each node's joints (tree nodes are the model's joints).
    std::vector<std::vector<int>> joints(static_cast<std::size_t>(sko.size()));
    for (int k = 0; k < sko.size(); ++k)
      joints[static_cast<std::size_t>(k)] = model.is_closed_chain()
                                                ? data.closed_chain()->structure->members(k)
                                                : std::vector<int>{k};
    const auto first_joint = [&](int k) {
      int first = order.file_joint(joints[static_cast<std::size_t>(k)].front());
      for (const int j : joints[static_cast<std::size_t>(k)])
        first = std::min(first, order.file_joint(j));
      return first;
    };
    std::vector<int> nodes(static_cast<std::size_t>(sko.size()));
    std::iota(nodes.begin(), nodes.end(), 0);
    std::ranges::sort(nodes, {}, first_joint);
    CompositeInertiaWorkspace composite(sko.structure());
    composite_body_inertias(sko, composite);
    OperationalSpaceWorkspace space(sko.structure_ptr());
    const BlockDiagonal& omega = operational_space_compliance_diagonal(sko, space);
    const ArticulatedBodyWorkspace& riccati = space.articulated;  // filled by the call above
    NodeQuantities result;
    for (const int k : nodes) {
      std::string name;
      for (const int j : joints[static_cast<std::size_t>(k)])
        name +=
            (name.empty() ? "" : "+") + model.mechanism().joints[static_cast<std::size_t>(j)].name;
      result.nodes.push_back(name);
      result.composite_inertia.emplace_back(composite.composite_inertia[k]);
      result.articulated_inertia.emplace_back(riccati.articulated_inertia[k]);
      result.articulated_inertia_plus.emplace_back(riccati.articulated_inertia_plus[k]);
      result.innovations_inertia.emplace_back(riccati.innovations_inertia[k]);
      result.kalman_gain.emplace_back(riccati.kalman_gain[k]);
      result.compliance.emplace_back(omega.block(k));
    }
    std::vector<int> position(static_cast<std::size_t>(sko.size()));
    for (std::size_t i = 0; i < nodes.size(); ++i)
      position[static_cast<std::size_t>(nodes[i])] = static_cast<int>(i);
    for (const int k : nodes) {
      const int p = sko.forest().parent(k);
      if (p == Forest::kNone) {
        result.parent.emplace_back();
        result.transform.emplace_back();
        result.gain_to_parent.emplace_back();
        result.projected_transform.emplace_back();
        continue;
      }
      const Eigen::MatrixXd phi = sko.weight(k);
      result.parent.push_back(
          result.nodes[static_cast<std::size_t>(position[static_cast<std::size_t>(p)])]);
      result.transform.push_back(phi);
      result.gain_to_parent.emplace_back(phi * riccati.kalman_gain[k]);
      result.projected_transform.emplace_back(phi * riccati.complement_projector[k]);
    }
    return result;
  });
}

std::optional<ForwardDynamicsMethod> parse_forward_dynamics_method(const std::string& name) {
  if (name == "articulated-body") return ForwardDynamicsMethod::kArticulatedBody;
  if (name == "cholesky") return ForwardDynamicsMethod::kCholesky;
  if (name == "innovations") return ForwardDynamicsMethod::kInnovations;
  if (name == "conjugate-gradient") return ForwardDynamicsMethod::kConjugateGradient;
  if (name == "preconditioned-conjugate-gradient")
    return ForwardDynamicsMethod::kPreconditionedConjugateGradient;
  if (name == "base-invariant") return ForwardDynamicsMethod::kBaseInvariant;
  return std::nullopt;
}

// Serial-chain paper sections 3-5 on the tree's SKO model, a with the world's -g at the base
// nodes (update_sko_dynamics_state).
Eigen::VectorXd forward_dynamics_by(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                    const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                    const Eigen::Vector3d& gravity, ForwardDynamicsMethod method) {
  if (model.is_closed_chain())
    throw Error(
        "the serial-chain paper's forward-dynamics methods run on trees; a closed chain's "
        "forward dynamics is constraint embedding or the multiplier method");
  if (method != ForwardDynamicsMethod::kArticulatedBody &&
      method != ForwardDynamicsMethod::kBaseInvariant)
    require_dense_size(model);  // the O(N) methods need no dense matrix
  require_invertible_mass(model);
  const DofOrder& order = model.dof_order();
  for (const auto& [vector, name] :
       {std::pair{&q, "q"}, std::pair{&qd, "qd"}, std::pair{&tau, "tau"}})
    if (vector->size() != model.dof_count())
      throw std::invalid_argument(std::string(name) + " has " + std::to_string(vector->size()) +
                                  " entries, the model " + std::to_string(model.dof_count()) +
                                  " dofs");
  const RigidBodyModel& tree = model.tree();
  RigidBodyData& rigid = data.tree();
  const Eigen::VectorXd rates = order.model_vector(qd);
  if (method == ForwardDynamicsMethod::kBaseInvariant) {
    std::optional<FreeFlyingData> free_flying;
    try {
      free_flying.emplace(tree);
    } catch (const std::invalid_argument& e) {
      throw Error(std::string("the base-invariant algorithm needs a free-flying tree: ") +
                  e.what());
    }
    return order.vector(base_invariant_forward_dynamics(
        tree, rigid, *free_flying, order.model_vector(q), rates, order.model_vector(tau), gravity));
  }
  update_sko_dynamics_state(tree, order.model_vector(q), rates, gravity, rigid);
  const Eigen::VectorXd& coriolis = rigid.coriolis_with_gravity;
  const Eigen::VectorXd force = order.model_vector(tau);
  const SkoModel& sko = rigid.sko;
  Eigen::VectorXd qdd;
  try {
    if (method == ForwardDynamicsMethod::kArticulatedBody) {
      ForwardDynamicsWorkspace workspace(sko.structure_ptr());
      qdd = forward_dynamics(sko, rates, force, coriolis, rigid.gyroscopic, workspace);
    } else {
      AlternativeForwardDynamicsWorkspace workspace(sko.structure_ptr());
      if (method == ForwardDynamicsMethod::kCholesky) {
        qdd = forward_dynamics_cholesky(sko, rates, force, coriolis, rigid.gyroscopic, workspace);
      } else if (method == ForwardDynamicsMethod::kInnovations) {
        qdd =
            forward_dynamics_innovations(sko, rates, force, coriolis, rigid.gyroscopic, workspace);
      } else {
        ConjugateGradientOptions options;
        if (method == ForwardDynamicsMethod::kPreconditionedConjugateGradient)
          options.preconditioner = ConjugateGradientPreconditioner::kCompositeBodyInertia;
        const ConjugateGradientReport report = forward_dynamics_conjugate_gradient(
            sko, rates, force, coriolis, rigid.gyroscopic, options, workspace);
        if (!report.converged)
          throw Error("conjugate gradients did not converge in " +
                      std::to_string(report.iterations) + " iterations (relative residual " +
                      std::to_string(report.relative_residual) + ")");
        qdd = workspace.generalized_acceleration;
      }
    }
  } catch (const SingularMassMatrixError& e) {
    // A singular D(k) of the articulated-body sweep: tree node k is the model's joint k.
    if (e.node() < 0) throw;
    throw SingularMassMatrixError(
        e.node(), "the mass matrix is singular at this configuration (joint '" +
                      model.mechanism().joints[static_cast<std::size_t>(e.node())].name +
                      "': its D = H P H* is singular)");
  } catch (const Error&) {
    throw;
  } catch (const std::runtime_error&) {
    // The dense Cholesky, the innovations factors or the preconditioner met a pivot <= 0.
    throw SingularMassMatrixError(-1,
                                  "the mass matrix is not positive definite at this configuration");
  }
  return order.vector(qdd);
}

}  // namespace skograph

// The KKT system of a loaded model (report/kkt_export.hpp).
#include "skograph/report/kkt_export.hpp"

#include <sstream>
#include <stdexcept>
#include <string>

#include "skograph/model/constraints.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "skograph/sparse/sparse_export.hpp"

namespace skograph::report {

ModelKkt model_kkt(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                   const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                   const Eigen::Vector3d& gravity, double epsilon) {
  if (tau.size() != model.dof_count())
    throw std::invalid_argument("tau has " + std::to_string(tau.size()) + " entries, expected " +
                                std::to_string(model.dof_count()));
  const ClosedState state = close_state(model, data, q, qd);
  const ConstraintSystem constraints = constraint_system(model, data, state.q, state.qd);
  const Eigen::VectorXd force = tau - bias_forces(model, data, state.q, state.qd, gravity);
  // The spanning tree's M in the file's dof order, with its canonical order.
  const ModelSko tree = model_sko(model, data, state.q, false);
  const SparseExport mass(*tree.sko, {tree.hinge_rows, tree.node_rows});
  ModelKkt kkt;
  kkt.system = std::make_unique<KktSystem>(mass.mass(), mass.canonical_order(),
                                           constraints.jacobian, epsilon);
  kkt.right_side = kkt.system->right_side(force, constraints.bias);
  kkt.stacked_rows = constraints.stacked_rows;
  for (const int unknown : kkt.system->order())
    kkt.labels.push_back(
        unknown < model.dof_count()
            ? model.dof_names()[static_cast<std::size_t>(unknown)]
            : "mu " + constraints.labels[static_cast<std::size_t>(unknown - model.dof_count())]);
  if (kkt.system->matrix().rows() > 0)
    kkt.amd_factor_nonzeros = CholmodFactorization(sparsity_pattern(kkt.system->matrix()),
                                                   MassOrdering::kAmd, {}, FactorKind::kLdl)
                                  .factor_nonzeros();
  return kkt;
}

std::string kkt_summary(const ModelKkt& kkt) {
  const KktSystem& system = *kkt.system;
  const long lower = system.lower_nonzeros(), factor = system.factor_nonzeros();
  std::ostringstream text;
  text << "K " << system.matrix().rows() << " x " << system.matrix().cols() << " ("
       << system.dof_count() << " dofs, " << system.multiplier_count()
       << " multipliers), nnz(tril K) " << lower << ", KKT order nnz(L) " << factor << " (fill "
       << factor - lower << ", none in the M block), AMD nnz(L) " << kkt.amd_factor_nonzeros;
  return text.str();
}

}  // namespace skograph::report

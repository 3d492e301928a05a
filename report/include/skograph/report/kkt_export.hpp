// The KKT system of a loaded model at its closed state, what `skograph export --kkt`
// writes and Python's kkt_system returns: the spanning tree's M (the file's dof order), G's
// independent rows (model/constraints.hpp) and [tau - C; -Gdot qd], in the fill-controlled
// order of sparse/kkt_system.hpp, with its predicted fill beside CHOLMOD's AMD ordering.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "skograph/model/dynamics.hpp"
#include "skograph/sparse/kkt_system.hpp"

namespace skograph::report {

struct ModelKkt {
  std::unique_ptr<KktSystem> system;
  Eigen::VectorXd right_side;       // in system->order()
  std::vector<std::string> labels;  // per row of K: the dof name, or "mu " + constraint label
  long amd_factor_nonzeros = 0;     // nnz(L) of K's LDL* in CHOLMOD's AMD order
  int stacked_rows = 0;             // constraint rows before the redundant ones were dropped
};

// q, qd, tau in the file's dof order; gravity the base acceleration -g; epsilon >= 0 the
// regularization (-epsilon I in the multiplier block). Closed as every io call (close_state).
ModelKkt model_kkt(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                   const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                   const Eigen::Vector3d& gravity, double epsilon = 0.0);

// "K 7 x 7 (4 dofs, 3 multipliers), nnz(tril K) 15, KKT order nnz(L) 17 (fill 2, none in the
// M block), AMD nnz(L) 18": the line export prints.
std::string kkt_summary(const ModelKkt& kkt);

}  // namespace skograph::report

// Model.forward_dynamics, inverse_dynamics, mass_matrix, bias and multiplier_dynamics: the
// dynamics in the file's dof order (model/model.hpp, model/constraints.hpp), one state or a batch.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <string>

#include "arguments.hpp"
#include "calls.hpp"
#include "fast_calls.hpp"
#include "skograph/graph/error.hpp"
#include "skograph/model/constraints.hpp"

namespace skograph::python {
namespace {

ClosedChainSolver solver_of(const std::string& name) {
  const std::optional<ClosedChainSolver> solver = parse_solver(name);
  if (!solver)
    throw UsageError("unknown solver '" + name + "' (expected embedding or multipliers)");
  return *solver;
}

// One state's forward dynamics, inverse dynamics and mass matrix into `out` (row-major): the
// general calls' rows and the fast paths' calls (fast_calls.hpp: standard gravity, the embedding).
void forward_dynamics_row(const Model& model, ModelData& data, const RowState<3>& s,
                          const Eigen::Vector3d& g, double* out) {
  forward_dynamics(model, data, s.vector(0), s.vector(1), s.vector(2), g,
                   Eigen::Map<Eigen::VectorXd>(out, s.size));
}
void inverse_dynamics_row(const Model& model, ModelData& data, const RowState<3>& s,
                          const Eigen::Vector3d& g, double* out) {
  inverse_dynamics(model, data, s.vector(0), s.vector(1), s.vector(2), g,
                   Eigen::Map<Eigen::VectorXd>(out, s.size));
}
void mass_matrix_row(const Model& model, ModelData& data, const RowState<1>& s, double* out) {
  // Through the workspace's matrix, then row-major into NumPy.
  Eigen::MatrixXd& mass = data.state.matrix;
  mass.resize(s.size, s.size);
  mass_matrix(model, data, s.vector(0), mass);
  write_row_major(mass, out);
}
void forward_dynamics_in_standard_gravity(const Model& model, ModelData& data, const RowState<3>& s,
                                          double* out) {
  forward_dynamics_row(model, data, s, kStandardGravity, out);
}
void inverse_dynamics_in_standard_gravity(const Model& model, ModelData& data, const RowState<3>& s,
                                          double* out) {
  inverse_dynamics_row(model, data, s, kStandardGravity, out);
}

}  // namespace

void bind_dynamics(ModelClass& model_class) {
  model_class
      .def(
          "forward_dynamics",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& tau, const OptionalArrayArgument& gravity,
             const ThreadsArgument& threads, const std::string& solver, const OutArgument& out) {
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const ClosedChainSolver method = solver_of(solver);
            const StateShape shape{self.model.dof_count()};
            return per_state_in_lanes<3>(
                self, {{{"q", q}, {"qd", qd}, {"tau", tau}}}, threads, shape,
                [&](const Model& model, ModelData& data, const RowState<3>& s, double* row_out) {
                  if (method == ClosedChainSolver::kEmbedding)
                    return forward_dynamics_row(model, data, s, g, row_out);
                  Eigen::Map<Eigen::VectorXd>(row_out, s.size) =
                      forward_dynamics(model, data, s.vector(0), s.vector(1), s.vector(2), g,
                                       method)
                          .acceleration;
                },
                [&](const Model& model, WorkspacePool& workspaces, const auto& rows,
                    Eigen::Ref<StateRows> result,
                    int parts) {  // a tree: both solvers are its articulated-body recursion
                  forward_dynamics_batch(model, workspaces, rows[0], rows[1], rows[2], result,
                                         {.threads = parts, .gravity = g, .check_finite = false});
                },
                out.value);
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          py::arg("threads") = py::none(), py::arg("solver") = "embedding",
          py::arg("out") = py::none(),
          "The accelerations qdd, of the shape of q, for the forces tau acting on every joint. For "
          "closed chains, solver is 'embedding' (minimal coordinates) or 'multipliers' (the "
          "augmented system M qdd + C = tau + G* lambda, G qdd + Gdot qd "
          "= 0); the two agree." SKOGRAPH_DOC_GRAVITY SKOGRAPH_DOC_STATES
          " Raises skograph.Error for a singular mass matrix or a loop that cannot "
          "close." SKOGRAPH_DOC_OUT)
      .def(
          "multiplier_dynamics",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& tau, const OptionalArrayArgument& gravity) {
            const Model& model = self.model;
            const Eigen::VectorXd q0 = state_vector(q.value, "q", model),
                                  qd0 = state_vector(qd.value, "qd", model),
                                  tau0 = state_vector(tau.value, "tau", model);
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const ClosedDynamics result = compute(self, [&](ModelData& data) {
              return forward_dynamics(model, data, q0, qd0, tau0, g,
                                      ClosedChainSolver::kMultipliers);
            });
            py::dict out;
            out["qdd"] = result.acceleration;
            out["multipliers"] = result.multipliers;
            out["labels"] = result.labels;
            return out;
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          "The forward dynamics by the multiplier method, M qdd + C = tau + G* lambda, as {'qdd', "
          "'multipliers' (lambda, one per row of constraint_jacobian), 'labels'}. The rows and "
          "labels are those of constraint_system(q, qd). q, qd, tau: (dofs,); gravity: (3,), "
          "default (0, 0, -9.81). Raises skograph.Error for a tree (it has no constraint rows).")
      .def(
          "inverse_dynamics",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& qdd, const OptionalArrayArgument& gravity,
             const ThreadsArgument& threads, const OutArgument& out) {
            const Eigen::Vector3d g = gravity_of(gravity.value);
            return per_state_in_lanes<3>(
                self, {{{"q", q}, {"qd", qd}, {"qdd", qdd}}}, threads, {self.model.dof_count()},
                [&](const Model& model, ModelData& data, const RowState<3>& s, double* row_out) {
                  inverse_dynamics_row(model, data, s, g, row_out);
                },
                [&](const Model& model, WorkspacePool& workspaces, const auto& rows,
                    Eigen::Ref<StateRows> result, int parts) {
                  inverse_dynamics_batch(model, workspaces, rows[0], rows[1], rows[2], result,
                                         {.threads = parts, .gravity = g, .check_finite = false});
                },
                out.value);
          },
          py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("gravity") = py::none(),
          py::arg("threads") = py::none(), py::arg("out") = py::none(),
          "The forces tau, of the shape of q, that give the accelerations qdd at (q, qd). For "
          "closed chains, these are the actuator forces for qdd's independent entries, nonzero at "
          "the independent dofs only (forward_dynamics of them gives qdd "
          "back)." SKOGRAPH_DOC_GRAVITY SKOGRAPH_DOC_STATES SKOGRAPH_DOC_OUT)
      .def(
          "mass_matrix",
          [](PyModel& self, const ArrayArgument& q, const ThreadsArgument& threads,
             const OutArgument& out) {
            const py::ssize_t n = self.model.dof_count();
            return per_state_in_lanes<1>(
                self, {{{"q", q}}}, threads, {n, n}, mass_matrix_row,
                [](const Model& model, WorkspacePool& workspaces, const auto& rows,
                   Eigen::Ref<StateRows> result, int parts) {
                  mass_matrix_batch(model, workspaces, rows[0], result,
                                    {.threads = parts, .check_finite = false});
                },
                out.value);
          },
          py::arg("q"), py::arg("threads") = py::none(), py::arg("out") = py::none(),
          "The mass matrix M(q) by composite inertias: (dofs, dofs), symmetric positive definite, "
          "in the file's dof order, or (rows, dofs, dofs) for a 2-D q. A closed chain's M is its "
          "spanning tree's (reduced_mass_matrix gives M_R)." SKOGRAPH_DOC_STATES SKOGRAPH_DOC_OUT)
      .def(
          "bias",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const OptionalArrayArgument& gravity, const ThreadsArgument& threads) {
            const Eigen::Vector3d g = gravity_of(gravity.value);
            return per_state<2>(
                self, {{{"q", q}, {"qd", qd}}}, threads, {self.model.dof_count()},
                [&](const Model& model, ModelData& data, const RowState<2>& s, double* out) {
                  Eigen::Map<Eigen::VectorXd>(out, s.size) =
                      bias_forces(model, data, s.vector(0), s.vector(1), g);
                });
          },
          py::arg("q"), py::arg("qd"), py::arg("gravity") = py::none(),
          py::arg("threads") = py::none(),
          "The bias forces C(q, qd), of the shape of q: the Coriolis, centrifugal and gravity "
          "forces, so that M qdd + C = tau. A closed chain's C is its spanning tree's at the "
          "closed state." SKOGRAPH_DOC_GRAVITY SKOGRAPH_DOC_STATES);
  add_fast_path<3, forward_dynamics_in_standard_gravity, 1>(model_class, "forward_dynamics");
  add_fast_path<3, inverse_dynamics_in_standard_gravity, 1>(model_class, "inverse_dynamics");
  add_fast_path<1, mass_matrix_row, 2>(model_class, "mass_matrix");
}

}  // namespace skograph::python

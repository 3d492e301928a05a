// Model.assemble, close, embedding_matrix, reduced_mass_matrix, constraint_forces and the
// constraints for other solvers (constraint_jacobian, constraint_system, kkt_system): closed
// chains in the file's dof order (model/model.hpp, model/constraints.hpp, report/kkt_export.hpp).
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cmath>
#include <string>

#include "arguments.hpp"
#include "calls.hpp"
#include "scipy_matrices.hpp"
#include "skograph/graph/error.hpp"
#include "skograph/model/constraints.hpp"
#include "skograph/report/kkt_export.hpp"

namespace skograph::python {
namespace {

// A closed state with what a user should know about it (issued as Python warnings).
struct Closed {
  ClosedState state;
  std::vector<std::string> independent;
  std::vector<ModelData::Moved> moved;
  StateMessages messages;
  double residual = 0.0;
};

Closed closed_state(PyModel& self, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  return compute(self, [&](ModelData& data) {
    Closed closed;
    closed.state = close_state(self.model, data, q, qd);
    closed.independent = data.independent;
    closed.moved = data.moved;
    closed.messages = state_messages(self.model, data);
    closed.residual = closed.state.residual;
    return closed;
  });
}

// The closed state's warnings and notes as Python UserWarnings.
void warn(const StateMessages& messages) {
  for (const std::string& line : messages.warnings)
    PyErr_WarnEx(PyExc_UserWarning, ("warning: " + line).c_str(), 2);
  for (const std::string& line : messages.notes)
    PyErr_WarnEx(PyExc_UserWarning, ("note: " + line).c_str(), 2);
}

}  // namespace

void bind_closed_chains(ModelClass& model_class) {
  model_class
      .def(
          "assemble",
          [](PyModel& self, const ArrayArgument& q, const OptionalArrayArgument& qd) {
            const Closed closed = closed_state(self, state_vector(q.value, "q", self.model),
                                               state_or_zero(qd.value, "qd", self.model));
            warn(closed.messages);
            py::dict moved;
            for (const ModelData::Moved& coordinate : closed.moved)
              moved[py::str(coordinate.dof)] = coordinate.by;
            py::dict result;
            result["q"] = closed.state.q;
            result["qd"] = closed.state.qd;
            result["independent"] = closed.independent;
            result["moved"] = moved;
            result["residual"] = closed.residual;
            return result;
          },
          py::arg("q"), py::arg("qd") = py::none(),
          "A closed configuration assembled from q (the file's dof order), as {'q', 'qd' (qd "
          "projected onto the constraints, zeros by default), 'independent', 'moved' ({dof: how "
          "far}: every independent coordinate that had to move by more than the closure tolerance "
          "1e-10, with a warning), 'residual'}. The notes on the independent coordinates come as "
          "warnings. Raises skograph.Error when no closed configuration is found.")
      .def(
          "close",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd) {
            const Closed closed = closed_state(self, state_vector(q.value, "q", self.model),
                                               state_vector(qd.value, "qd", self.model));
            warn(closed.messages);
            return py::make_tuple(closed.state.q, closed.state.qd, closed.independent);
          },
          py::arg("q"), py::arg("qd"),
          "The closed state as (q, qd, independent names): the independent coordinates are kept "
          "where the loops allow and the dependent ones are solved. q, qd: (dofs,) in the file's "
          "dof order. Trees give them back unchanged. Raises skograph.Error when no closed "
          "configuration is found.")
      .def(
          "embedding_matrix",
          [](PyModel& self, const ArrayArgument& q) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
            return compute(self,
                           [&](ModelData& data) { return embedding_matrix(self.model, data, at); });
          },
          py::arg("q"),
          "The embedding matrix X (dofs x independent) at the closed q, with qd = X qd_R for the "
          "independent rates qd_R (columns in the order of the independent dofs as the file lists "
          "them). For a tree, X is the identity.")
      .def(
          "reduced_mass_matrix",
          [](PyModel& self, const ArrayArgument& q) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
            return compute(
                self, [&](ModelData& data) { return reduced_mass_matrix(self.model, data, at); });
          },
          py::arg("q"),
          "The mass matrix in the independent coordinates (constraint embedding) at the closed q: "
          "M_R = X* M X (independent x independent). For a tree, it is M.")
      .def(
          "constraint_forces",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& tau, const OptionalArrayArgument& gravity) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model),
                                  rates = state_vector(qd.value, "qd", self.model),
                                  forces_in = state_vector(tau.value, "tau", self.model);
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const ConstraintForces forces = compute(self, [&](ModelData& data) {
              return constraint_forces(self.model, data, at, rates, forces_in, g);
            });
            const Mechanism& mechanism = self.model.mechanism();
            py::dict loops, couplings;
            for (std::size_t l = 0; l < forces.loop.size(); ++l)
              loops[py::str(mechanism.loops[l].name)] = Eigen::VectorXd(forces.loop[l]);
            for (std::size_t c = 0; c < forces.coupling.size(); ++c)
              couplings[py::str(mechanism.couplings[c].name)] = forces.coupling[c];
            py::dict result;
            result["loop_forces"] = loops;
            result["coupling_forces"] = couplings;
            return result;
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          "The forces through the loops and couplings while the closed chain moves under tau, as "
          "`skograph dynamics --json` gives them: {'loop_forces': {loop: [mx, my, mz, fx, fy, "
          "fz]}, 'coupling_forces': {coupling: [...]}}. Loop forces are in N and N m, on the child "
          "link from the parent, about the joint, in the joint frame F_p. q, qd, tau: (dofs,) in "
          "the file's dof order; gravity: (3,), default (0, 0, -9.81).")
      .def(
          "constraint_jacobian",
          [](PyModel& self, const ArrayArgument& q, const OptionalArrayArgument& qd,
             bool all_rows) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model),
                                  rates = state_or_zero(qd.value, "qd", self.model);
            return to_scipy(compute(self, [&](ModelData& data) {
                              return constraint_system(self.model, data, at, rates, !all_rows);
                            }).jacobian);
          },
          py::arg("q"), py::arg("qd") = py::none(), py::arg("all_rows") = false,
          "The constraint Jacobian G(q) at the closed q as a scipy.sparse.csc_matrix (rows x dofs, "
          "the file's dof order), with G qd = 0 for every motion of the closed chain. Its rows are "
          "the independent rows the embedding keeps, or every loop and coupling row with "
          "all_rows=True; a tree has no rows.")
      .def(
          "kkt_system",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& tau, const OptionalArrayArgument& gravity, double epsilon) {
            if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
              throw UsageError("epsilon must be a number >= 0");
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model),
                                  rates = state_vector(qd.value, "qd", self.model),
                                  forces = state_vector(tau.value, "tau", self.model);
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const report::ModelKkt kkt = compute(self, [&](ModelData& data) {
              return report::model_kkt(self.model, data, at, rates, forces, g, epsilon);
            });
            py::dict out;
            out["K"] = to_scipy(kkt.system->matrix());
            out["rhs"] = kkt.right_side;
            out["order"] = kkt.system->order();
            out["labels"] = kkt.labels;
            out["factor_nonzeros"] = kkt.system->factor_nonzeros();
            out["amd_factor_nonzeros"] = kkt.amd_factor_nonzeros;
            return out;
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          py::arg("epsilon") = 0.0,
          "The KKT system `skograph export --kkt` writes, at the closed state: {'K' = [M G*; G "
          "-epsilon I] (scipy.sparse, rows already in the fill-controlled elimination order), "
          "'rhs' = [tau - C; -Gdot qd] in that order, 'order' (per row: the dof index, or dofs + "
          "the constraint row), 'labels' (the dof name, or 'mu ' + the constraint; mu = -lambda), "
          "'factor_nonzeros' (nnz(L) of LDL* in this order), 'amd_factor_nonzeros'}.")
      .def(
          "constraint_system",
          [](PyModel& self, const ArrayArgument& q, const OptionalArrayArgument& qd,
             bool all_rows) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model),
                                  rates = state_or_zero(qd.value, "qd", self.model);
            const ConstraintSystem system = compute(self, [&](ModelData& data) {
              return constraint_system(self.model, data, at, rates, !all_rows);
            });
            py::dict out;
            out["G"] = to_scipy(system.jacobian);
            out["bias"] = system.bias;
            out["labels"] = system.labels;
            out["stacked_rows"] = system.stacked_rows;
            return out;
          },
          py::arg("q"), py::arg("qd") = py::none(), py::arg("all_rows") = false,
          "The constraints at the closed (q, qd) for another solver: {'G' (scipy.sparse, rows x "
          "dofs), 'bias' (Gdot qd: G qdd + bias = 0), 'labels' (the loop or coupling and the "
          "direction of each row), 'stacked_rows' (rows before the redundant ones were dropped)}. "
          "q: (dofs,); qd: (dofs,), zeros by default; all_rows: keep the redundant rows too.");
}

}  // namespace skograph::python

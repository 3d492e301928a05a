// Model.forward_dynamics_derivatives, inverse_dynamics_derivatives, constraint_force_derivatives,
// linearize, hold, rest, integrate and difference: the derivatives of the dynamics, the
// linearization and the configuration's tangent in the file's dof order (model/derivatives.hpp,
// model/linearization.hpp), one state or a batch.
#include <pybind11/complex.h>
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>

#include "arguments.hpp"
#include "calls.hpp"
#include "skograph/graph/error.hpp"
#include "skograph/model/batch.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/linearization.hpp"
#include "skograph/model/state.hpp"

namespace skograph::python {
namespace {

// Three dofs x dofs matrices written one after the other (a (3, dofs, dofs) block).
void write_three(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const Eigen::MatrixXd& c,
                 double* out) {
  const Eigen::Index size = a.size();
  write_row_major(a, out);
  write_row_major(b, out + size);
  write_row_major(c, out + 2 * size);
}

// The (3, dofs, dofs) or (rows, 3, dofs, dofs) result as three arrays (views of it).
py::tuple split_three(const py::array& all) {
  const py::slice every{py::none(), py::none(), py::none()};
  py::tuple parts(3);
  for (int k = 0; k < 3; ++k)
    parts[static_cast<std::size_t>(k)] =
        all.ndim() == 3 ? all[py::int_(k)] : all[py::make_tuple(every, k)];
  return parts;
}

// UsageError when a batch's state has other independent coordinates than its first: the rows of
// one result would mean other dofs than another's.
void require_same(const Model& model, const std::vector<std::string>& found,
                  const std::vector<std::string>& first) {
  if (found == first) return;
  const auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
  };
  throw UsageError(model.file() + ": the independent coordinates of the batch's states differ (" +
                   join(found) + " against " + join(first) +
                   " at the first): call the states one at a time");
}

double optional_step(const std::optional<double>& dt) {
  if (!dt) return 0.0;
  if (!std::isfinite(*dt) || *dt <= 0.0)
    throw UsageError("dt must be a positive number of seconds, not " + std::to_string(*dt));
  return *dt;
}

py::object stability_object(Stability stability) {
  if (stability == Stability::kMarginal) return py::str("marginal");
  return py::bool_(stability == Stability::kStable);
}

py::dict linearization_dict(const Model& model, const Linearization& lin) {
  py::dict out;
  out["states"] = lin.states;
  out["inputs"] = lin.inputs;
  out["A"] = lin.A;
  out["B"] = lin.B;
  out["eigenvalues"] = lin.eigenvalues;
  py::list modes;
  for (const OscillatoryMode& mode : lin.modes) {
    py::dict shape;
    for (int i = 0; i < model.dof_count(); ++i)
      shape[py::str(model.dof_names()[static_cast<std::size_t>(i)])] = mode.shape[i];
    py::dict entry;
    entry["frequency_hz"] = mode.frequency_hz;
    entry["damping_ratio"] = mode.damping_ratio;
    entry["shape"] = shape;
    modes.append(entry);
  }
  out["modes"] = modes;
  if (lin.A_d.size() > 0) {
    out["A_d"] = lin.A_d;
    out["B_d"] = lin.B_d;
  }
  return out;
}

}  // namespace

void bind_derivatives(ModelClass& model_class) {
  model_class
      .def(
          "forward_dynamics_derivatives",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& tau, const OptionalArrayArgument& gravity,
             const ThreadsArgument& threads) {
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const py::ssize_t n = self.model.dof_count();
            if (!self.model.is_closed_chain())  // in SIMD lanes where the tree allows
              return split_three(per_state_in_lanes<3>(
                  self, {{{"q", q}, {"qd", qd}, {"tau", tau}}}, threads, {3, n, n},
                  [&](const Model& model, ModelData& data, const RowState<3>& s, double* out) {
                    ForwardDerivatives result;
                    forward_dynamics_derivatives(model, data, s.vector(0), s.vector(1), s.vector(2),
                                                 g, result);
                    write_three(result.dqdd_dq, result.dqdd_dqd, result.dqdd_dtau, out);
                  },
                  [&](const Model& model, WorkspacePool& workspaces, const auto& rows,
                      Eigen::Ref<StateRows> result, int parts) {
                    forward_dynamics_derivatives_batch(
                        model, workspaces, rows[0], rows[1], rows[2], result,
                        {.threads = parts, .gravity = g, .check_finite = false});
                  }));
            // A closed chain's (r, r), (r, r), (r, dofs) side by side in one (r, 2 r + dofs), r
            // the first state's independent coordinates.
            py::ssize_t r = 0;
            const py::array all = per_state_shaped_by_first<3>(
                self, {{{"q", q}, {"qd", qd}, {"tau", tau}}}, threads,
                [&](const Model& model, ModelData& data, const RowState<3>& s) {
                  ForwardDerivatives result;
                  forward_dynamics_derivatives(model, data, s.vector(0), s.vector(1), s.vector(2),
                                               g, result, LoopForceDerivatives::kWithout);
                  return result;
                },
                [&](const ForwardDerivatives& first) {
                  r = static_cast<py::ssize_t>(first.independent.size());
                  return std::vector<py::ssize_t>{r, 2 * r + n};
                },
                [&](const ForwardDerivatives& result, const ForwardDerivatives& first,
                    double* out) {
                  require_same(self.model, result.independent, first.independent);
                  const auto columns = static_cast<Eigen::Index>(r);
                  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
                      side_by_side(out, columns, 2 * columns + n);
                  side_by_side << result.dqdd_dq, result.dqdd_dqd, result.dqdd_dtau;
                });
            const py::slice every{py::none(), py::none(), py::none()};
            const py::slice parts[3] = {py::slice(0, r, 1), py::slice(r, 2 * r, 1),
                                        py::slice(2 * r, 2 * r + n, 1)};
            py::tuple out(3);
            for (std::size_t k = 0; k < 3; ++k)
              out[k] = all.ndim() == 2 ? all[py::make_tuple(every, parts[k])]
                                       : all[py::make_tuple(every, every, parts[k])];
            return out;
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          py::arg("threads") = py::none(),
          "The derivatives of forward dynamics at qdd = forward_dynamics(q, qd, tau): "
          "(dqdd_dq, dqdd_dqd, dqdd_dtau), each (dofs, dofs) (or (rows, dofs, dofs) for a "
          "batch), dqdd_dtau = M^-1. Analytic; d/dq along the configuration's tangent (integrate: "
          "column j moves q as qd's entry j would). A closed chain's in its independent "
          "coordinates q_R (Model.embedding_matrix's columns): (r, r), (r, r) and (r, dofs), "
          "total derivatives on the constraint manifold at the closed state." SKOGRAPH_DOC_GRAVITY
              SKOGRAPH_DOC_STATES)
      .def(
          "inverse_dynamics_derivatives",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& qdd, const OptionalArrayArgument& gravity,
             const ThreadsArgument& threads) {
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const auto compute_one = [&](const Model& model, ModelData& data,
                                         const RowState<3>& s) {
              InverseDerivatives result;
              inverse_dynamics_derivatives(model, data, s.vector(0), s.vector(1), s.vector(2), g,
                                           result);
              return result;
            };
            if (!self.model.is_closed_chain()) {
              // A tree's batch in SIMD lanes where the model allows (model/batch.hpp).
              const py::ssize_t n = self.model.dof_count();
              return split_three(per_state_in_lanes<3>(
                  self, {{{"q", q}, {"qd", qd}, {"qdd", qdd}}}, threads, {3, n, n},
                  [&](const Model& model, ModelData& data, const RowState<3>& s, double* out) {
                    const InverseDerivatives result = compute_one(model, data, s);
                    write_three(result.dtau_dq, result.dtau_dqd, result.mass, out);
                  },
                  [&](const Model& model, WorkspacePool& workspaces, const auto& rows,
                      Eigen::Ref<StateRows> result, int parts) {
                    inverse_dynamics_derivatives_batch(
                        model, workspaces, rows[0], rows[1], rows[2], result,
                        {.threads = parts, .gravity = g, .check_finite = false});
                  }));
            }
            return split_three(per_state_shaped_by_first<3>(
                self, {{{"q", q}, {"qd", qd}, {"qdd", qdd}}}, threads, compute_one,
                [&](const InverseDerivatives& first) {
                  const py::ssize_t r = self.model.is_closed_chain()
                                            ? static_cast<py::ssize_t>(first.mass.rows())
                                            : self.model.dof_count();
                  return std::vector<py::ssize_t>{3, r, r};
                },
                [&](const InverseDerivatives& result, const InverseDerivatives& first,
                    double* out) {
                  require_same(self.model, result.independent, first.independent);
                  write_three(result.dtau_dq, result.dtau_dqd, result.mass, out);
                }));
          },
          py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("gravity") = py::none(),
          py::arg("threads") = py::none(),
          "The derivatives of inverse dynamics at (q, qd, qdd): (dtau_dq, dtau_dqd, M), each "
          "(dofs, dofs) (or (rows, dofs, dofs) for a batch), M = dtau/dqdd. Analytic; d/dq along "
          "the configuration's tangent. A closed chain's in its independent coordinates q_R "
          "(qdd's independent entries taken): (dtau_R/dq_R, dtau_R/dqd_R, M_R), each (r, r), "
          "total derivatives on the constraint manifold at the closed state." SKOGRAPH_DOC_GRAVITY
              SKOGRAPH_DOC_STATES)
      .def(
          "constraint_force_derivatives",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& tau, const OptionalArrayArgument& gravity) {
            const Model& model = self.model;
            const Eigen::VectorXd q0 = state_vector(q.value, "q", model),
                                  qd0 = state_vector(qd.value, "qd", model),
                                  tau0 = state_vector(tau.value, "tau", model);
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const ForwardDerivatives d = compute(self, [&](ModelData& data) {
              return forward_dynamics_derivatives(model, data, q0, qd0, tau0, g);
            });
            py::dict out;  // a tree has no loop or coupling forces
            if (!model.is_closed_chain()) return out;
            const Mechanism& mechanism = model.closed_chain()->mechanism();
            const auto entry = [](const Eigen::MatrixXd& dq, const Eigen::MatrixXd& dqd,
                                  const Eigen::MatrixXd& dtau) {
              py::dict e;
              e["dq"] = dq;
              e["dqd"] = dqd;
              e["dtau"] = dtau;
              return e;
            };
            for (std::size_t l = 0; l < mechanism.loops.size(); ++l)
              out[py::str(mechanism.loops[l].name)] =
                  entry(d.loop_by_q[l], d.loop_by_qd[l], d.loop_by_tau[l]);
            for (std::size_t c = 0; c < mechanism.couplings.size(); ++c)
              out[py::str(mechanism.couplings[c].name)] =
                  entry(d.coupling_by_q[c], d.coupling_by_qd[c], d.coupling_by_tau[c]);
            return out;
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("gravity") = py::none(),
          "The derivatives of the forces through the loops and couplings at qdd = "
          "forward_dynamics(q, qd, tau), {name: {'dq': (6, r), 'dqd': (6, r), 'dtau': (6, "
          "dofs)}} (a coupling's rows its first joint's dofs) along the independent coordinates "
          "q_R, qd_R and tau; each loop's force as Model.constraint_forces gives it (on the child "
          "link, about the joint, in F_p). Empty for a tree (it has none). q, qd, tau: "
          "(dofs,)." SKOGRAPH_DOC_GRAVITY)
      .def(
          "linearize",
          [](PyModel& self, const ArrayArgument& q, const OptionalArrayArgument& qd,
             const OptionalArrayArgument& tau, const NamesArgument& inputs,
             const std::optional<double>& dt, const OptionalArrayArgument& gravity) {
            const Model& model = self.model;
            const Eigen::VectorXd q0 = state_vector(q.value, "q", model),
                                  qd0 = state_or_zero(qd.value, "qd", model),
                                  tau0 = state_or_zero(tau.value, "tau", model);
            const std::vector<std::string> names =
                optional_names(inputs.value, "inputs").value_or(std::vector<std::string>{});
            const double step = optional_step(dt);
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const Linearization lin = compute(self, [&](ModelData& data) {
              return linearize(model, data, q0, qd0, tau0, names, step, g);
            });
            return linearization_dict(model, lin);
          },
          py::arg("q"), py::arg("qd") = py::none(), py::arg("tau") = py::none(),
          py::arg("inputs") = py::none(), py::arg("dt") = py::none(),
          py::arg("gravity") = py::none(),
          "The model linearized at (q, qd) under the forces tau (None: zero): a dict with "
          "'states' (the dofs, then the same with '_qd'), 'inputs', 'A' (2 dofs, 2 dofs), 'B' "
          "(2 dofs, inputs), 'eigenvalues' (complex, by ascending modulus), 'modes' (per "
          "oscillatory pair: 'frequency_hz', 'damping_ratio', 'shape' {dof: value} over every "
          "dof, largest 1), and with dt 'A_d', 'B_d' by zero-order hold. x = (q, qd) in tangent "
          "coordinates; a closed chain's x = (q_R, qd_R) at the closed state, the dofs of "
          "'states' its independent ones. inputs: joint or dof names (None: every dof except "
          "floating joints'; a closed chain's independent dofs). Raises skograph.Error for an "
          "unknown input. q, qd, tau: (dofs,)." SKOGRAPH_DOC_GRAVITY)
      .def(
          "hold",
          [](PyModel& self, const ArrayArgument& q, const NamesArgument& inputs,
             const OptionalArrayArgument& gravity) {
            const Model& model = self.model;
            const Eigen::VectorXd q0 = state_vector(q.value, "q", model);
            const std::vector<std::string> names =
                optional_names(inputs.value, "inputs").value_or(std::vector<std::string>{});
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const Hold held =
                compute(self, [&](ModelData& data) { return hold(model, data, q0, names, g); });
            py::dict forces;
            for (std::size_t a = 0; a < held.inputs.size(); ++a)
              forces[py::str(held.inputs[a])] = held.input_forces[static_cast<Eigen::Index>(a)];
            py::dict out;
            out["tau_hold"] = forces;
            out["hold_residual"] = held.residual;
            out["tau"] = held.tau;
            return out;
          },
          py::arg("q"), py::arg("inputs") = py::none(), py::arg("gravity") = py::none(),
          "The input forces that hold q at rest: {'tau_hold': {input: force}, 'hold_residual': "
          "the acceleration left (0 when the inputs hold q; otherwise the least-squares forces "
          "leave the smallest |qdd|), 'tau': the forces over every dof}. inputs as for "
          "linearize. q: (dofs,)." SKOGRAPH_DOC_GRAVITY)
      .def(
          "rest",
          [](PyModel& self, const ArrayArgument& q, const OptionalArrayArgument& gravity) {
            const Model& model = self.model;
            const Eigen::VectorXd q0 = state_vector(q.value, "q", model);
            const Eigen::Vector3d g = gravity_of(gravity.value);
            const Rest found =
                compute(self, [&](ModelData& data) { return rest(model, data, q0, g); });
            py::dict out;
            out["q_rest"] = found.q;
            out["stable"] = stability_object(found.stability);
            return out;
          },
          py::arg("q"), py::arg("gravity") = py::none(),
          "The nearest rest configuration of the unactuated model under gravity from q (the "
          "potential's minimum): {'q_rest': (dofs,), 'stable': True, False or 'marginal' "
          "(neutral directions)}. Raises skograph.Error when there is none (something falls "
          "away). q: (dofs,)." SKOGRAPH_DOC_GRAVITY)
      .def(
          "integrate",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& v, double dt,
             const ThreadsArgument& threads) {
            if (!std::isfinite(dt)) throw UsageError("dt is not a finite number");
            return per_state<2>(
                self, {{{"q", q}, {"v", v}}}, threads, {self.model.dof_count()},
                [&](const Model& model, ModelData&, const RowState<2>& s, double* out) {
                  Eigen::Map<Eigen::VectorXd>(out, s.size) =
                      integrate(model, s.vector(0), s.vector(1), dt);
                });
          },
          py::arg("q"), py::arg("v"), py::arg("dt") = 1.0, py::arg("threads") = py::none(),
          "q moved along the rates v for dt: revolute, prismatic and planar dofs q + v dt, "
          "spherical joints R exp(dt [w]) (child frame), floating joints the SE(3) exponential "
          "of the body twist [w; v] (rotation vectors of norm <= pi). Over every dof, nothing "
          "assembled." SKOGRAPH_DOC_STATES)
      .def(
          "difference",
          [](PyModel& self, const ArrayArgument& q0, const ArrayArgument& q1,
             const ThreadsArgument& threads) {
            return per_state<2>(
                self, {{{"q0", q0}, {"q1", q1}}}, threads, {self.model.dof_count()},
                [&](const Model& model, ModelData&, const RowState<2>& s, double* out) {
                  Eigen::Map<Eigen::VectorXd>(out, s.size) =
                      difference(model, s.vector(0), s.vector(1));
                });
          },
          py::arg("q0"), py::arg("q1"), py::arg("threads") = py::none(),
          "The rates v that take q0 to q1 in unit time, so that integrate(q0, v) gives q1 back "
          "(rotations as rotations)." SKOGRAPH_DOC_STATES);
}

}  // namespace skograph::python

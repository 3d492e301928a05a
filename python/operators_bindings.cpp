// Model.operators, mass_inverse, log_det_mass, innovations_factors and operational_space: the
// operators of part II at one configuration (model/operators.hpp), as `skograph operators`.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "arguments.hpp"
#include "calls.hpp"
#include "py_model.hpp"
#include "skograph/graph/error.hpp"
#include "skograph/model/operators.hpp"

namespace py = pybind11;

namespace skograph::python {

namespace {

ModelOperators operators_at(PyModel& self, const ArrayArgument& q) {
  const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
  return compute(self, [&](ModelData& data) { return model_operators(self.model, data, at); });
}

}  // namespace

void bind_operators(ModelClass& model_class) {
  model_class
      .def(
          "operators",
          [](PyModel& self, const ArrayArgument& q) {
            const ModelOperators ops = operators_at(self, q);
            py::dict result;
            result["dofs"] = ops.dofs;
            result["log_det_M"] = ops.log_det_mass;
            result["M_inverse"] = ops.mass_inverse;
            result["innovations_factor"] = ops.innovations_factor;
            result["innovations_inverse"] = ops.innovations_inverse;
            result["innovations_inertia"] = ops.innovations_inertia;
            result["D"] = ops.joint_blocks;
            result["D_dofs"] = ops.joint_block_dofs;
            return result;
          },
          py::arg("q"),
          "Part II's operators at q (1-D, dofs; closed chains are closed first) as {'dofs': the "
          "rows and columns (for a closed chain, its independent dofs: the operators are those of "
          "M_R = X* M X), 'log_det_M': float (Eq. 53), 'M_inverse': (n, n) by the innovations "
          "factorization (Eq. 51, M never inverted), 'innovations_factor': F = [I + H A K] with M "
          "= F D F* (Eq. 49), 'innovations_inverse': F^-1 = [I - H psi K] (Eq. 50), "
          "'innovations_inertia': D (n, n), 'D': [D(k) per joint in dof order], 'D_dofs': [the dof "
          "names of each block]}: the keys of `skograph operators --json` other than the frames' "
          "(Model.operational_space gives those), plus innovations_inertia. Raises skograph.Error "
          "when M is singular at q.")
      .def(
          "mass_inverse",
          [](PyModel& self, const ArrayArgument& q) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
            return compute(
                self, [&](ModelData& data) { return mass_matrix_inverse(self.model, data, at); });
          },
          py::arg("q"),
          "The inverse mass matrix M^-1 (n, n) at q by the innovations factorization (part II Eq. "
          "51), never inverting M; for closed chains, M_R^-1 over the independent dofs.")
      .def(
          "log_det_mass",
          [](PyModel& self, const ArrayArgument& q) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
            return compute(
                self, [&](ModelData& data) { return mass_log_determinant(self.model, data, at); });
          },
          py::arg("q"),
          "The log-determinant log det M at q as a float: the sum of log det D(k) (part II Eq. "
          "53); for closed chains, log det M_R. q: (dofs,), closed first for a closed chain. "
          "Raises skograph.Error above 5000 dofs or for a singular M.")
      .def(
          "innovations_factors",
          [](PyModel& self, const ArrayArgument& q) {
            const ModelOperators ops = operators_at(self, q);
            return py::make_tuple(ops.innovations_factor, ops.innovations_inertia,
                                  ops.innovations_inverse);
          },
          py::arg("q"),
          "The innovations factors (F, D, F_inverse), each (n, n), with M = F D F*: F = [I + H A "
          "K] (identity diagonal blocks; F(i, k) nonzero only where joint i is an ancestor of "
          "joint k, so triangular when the file lists parents first) and D block diagonal (part II "
          "Lemma 11, Eq. 49-50). They are not CHOLMOD's L L* (Model.factor), which has F's pattern "
          "but other values.")
      .def(
          "operational_space",
          [](PyModel& self, const ArrayArgument& q, const NamesArgument& frame_names) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
            const std::vector<std::string> frames = names_of(frame_names.value, "frames");
            const std::vector<OperationalSpace> spaces = compute(self, [&](ModelData& data) {
              return operational_space(self.model, data, at, frames);
            });
            py::dict result;
            for (std::size_t f = 0; f < frames.size(); ++f) {
              py::dict entry;
              entry["compliance"] = spaces[f].compliance;
              entry["inertia"] =
                  spaces[f].has_inertia ? py::cast(spaces[f].inertia) : py::object(py::none());
              result[py::str(frames[f])] = entry;
            }
            return result;
          },
          py::arg("q"), py::arg("frames"),
          "The operational-space compliance and inertia of each frame at q (part II Eq. 59): "
          "{frame: {'compliance': J M^-1 J* (6, 6), 'inertia': its inverse (6, 6), or None where "
          "the frame has fewer than six independent directions of motion}}. J is the frame's "
          "Jacobian in world axes about its origin ([angular; linear] rows, as Model.jacobian); "
          "closed chains use J X with M_R.")
      .def(
          "node_quantities",
          [](PyModel& self, const ArrayArgument& q) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
            const NodeQuantities nodes = compute(
                self, [&](ModelData& data) { return node_quantities(self.model, data, at); });
            py::dict result;
            result["nodes"] = nodes.nodes;
            result["R"] = nodes.composite_inertia;
            result["P"] = nodes.articulated_inertia;
            result["P_plus"] = nodes.articulated_inertia_plus;
            result["D"] = nodes.innovations_inertia;
            result["G"] = nodes.kalman_gain;
            result["Omega"] = nodes.compliance;
            result["parent"] = nodes.parent;
            result["phi"] = nodes.transform;
            result["K"] = nodes.gain_to_parent;
            result["psi"] = nodes.projected_transform;
            return result;
          },
          py::arg("q"),
          "Part II's Lyapunov and Riccati quantities per node of the SKO model at q: {'nodes': "
          "names (a tree's joints in file order; a closed chain's embedded nodes, aggregates named "
          "'a+b+...'), 'R': composite inertias (Lemma 4), 'P', 'P_plus', 'D', 'G': the Riccati "
          "P(k), P+(k), D(k) = H P H*, G(k) = P H* D^-1 (Lemma 7, Eq. 32), 'Omega': the "
          "operational-space compliance Omega(k, k) at the node (Lemma 5, Eq. 23-24), 'parent': "
          "the parent node's name ('' at a base), 'phi', 'K', 'psi': phi(p, k), K(p, k) = phi G "
          "and psi(p, k) = phi (I - G H) towards the parent (Eq. 32-33; empty at a base)}. Each "
          "value but 'nodes' and 'parent' is a list of matrices, one per node, in the node's own "
          "frame ([angular; linear]): R, P, P_plus and Omega 6 x 6 for a link, D r x r and G 6 x r "
          "for its r dofs, phi and psi parent rows x node columns.")
      .def(
          "forward_dynamics_by",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& tau, const std::string& method,
             const OptionalArrayArgument& gravity) {
            const std::optional<ForwardDynamicsMethod> chosen =
                parse_forward_dynamics_method(method);
            if (!chosen)
              throw UsageError("unknown method '" + method +
                               "' (articulated-body, cholesky, innovations, conjugate-gradient, "
                               "preconditioned-conjugate-gradient or base-invariant)");
            const Model& model = self.model;
            const Eigen::VectorXd at = state_vector(q.value, "q", model),
                                  rates = state_vector(qd.value, "qd", model),
                                  forces = state_vector(tau.value, "tau", model);
            const Eigen::Vector3d g = gravity_of(gravity.value);
            return compute(self, [&](ModelData& data) {
              return forward_dynamics_by(model, data, at, rates, forces, g, *chosen);
            });
          },
          py::arg("q"), py::arg("qd"), py::arg("tau"), py::arg("method"),
          py::arg("gravity") = py::none(),
          "A tree's accelerations qdd (dofs) by one of the serial-chain paper's families on its "
          "SKO model, chosen by method: 'articulated-body' (O(N), part II Algorithm 6.1), "
          "'cholesky' (O(N^3): M by composite bodies, a dense Cholesky solve), 'innovations' "
          "(O(N^2): the innovations factors), 'conjugate-gradient' and "
          "'preconditioned-conjugate-gradient' (M p by Newton-Euler; preconditioner H R H*), and "
          "for free-flying trees 'base-invariant' (the free-flying paper's Algorithm 3.3: regular "
          "and dual sweeps, every link's acceleration by Lemma 3.2). They give the same qdd as "
          "forward_dynamics to roundoff. Raises skograph.Error for a closed chain.");
}

}  // namespace skograph::python

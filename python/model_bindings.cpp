// skograph.load_model and what a Model says of itself: its dofs, warnings and notes, its base
// body and the change of it, state files, pickling (model/model.hpp, model/base_change.hpp).
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "calls.hpp"
#include "model_pickle.hpp"
#include "skograph/graph/error.hpp"
#include "skograph/model/base_change.hpp"
#include "skograph/model/dynamics.hpp"

namespace skograph::python {
namespace {

std::shared_ptr<PyModel> load(const PathArgument& path, bool strict,
                              const NamesArgument& independent, const OptionalPathArgument& loops,
                              const std::optional<std::string>& base,
                              const std::optional<double>& conditioning_limit) {
  ReadOptions options;
  options.strict = strict;
  if (const auto names = optional_names(independent.value, "independent"))
    options.independent = *names;
  options.loops_file = optional_path(loops.value, "loops");
  if (base) {
    if (base->empty()) throw UsageError("base needs a link name");
    options.base = *base;
  }
  if (conditioning_limit) {
    if (!std::isfinite(*conditioning_limit) || *conditioning_limit < 1.0)
      throw UsageError("conditioning_limit must be a number of at least 1");
    options.conditioning_limit = *conditioning_limit;
  }
  const std::string file = path_of(path.value, "path");
  Model model = [&] {
    const py::gil_scoped_release release;
    return load_model(file, options);
  }();
  return std::make_shared<PyModel>(std::move(model), options);
}

// The closed state of the zero configuration (what Model.independent and Model.notes report), or
// nothing where it does not close.
std::optional<StateMessages> zero_state(PyModel& self, std::vector<std::string>& independent) {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(self.model.dof_count());
  try {
    return compute(self, [&](ModelData& data) {
      close_state(self.model, data, zero, zero);
      independent = data.independent;
      return state_messages(self.model, data);
    });
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

void bind_model(py::module_& module, ModelClass& model_class) {
  model_class
      .def_property_readonly(
          "file", [](const PyModel& self) { return self.model.file(); },
          "The model file's path as given to load_model.")
      .def_property_readonly(
          "dofs", [](const PyModel& self) { return self.model.dof_names(); },
          "Dof names in the file's order (list of str): a 1-dof joint's name, 'joint:0', "
          "'joint:1', ... for multi-dof joints. Every vector argument and result uses this order.")
      .def_property_readonly(
          "dof_count", [](const PyModel& self) { return self.model.dof_count(); },
          "Number of dofs (int): the length of q, qd, qdd and tau.")
      .def_property_readonly(
          "is_closed_chain", [](const PyModel& self) { return self.model.is_closed_chain(); },
          "True when the model has loops or gear couplings (constraint embedding applies).")
      .def_property_readonly(
          "warnings", [](const PyModel& self) { return self.model.warnings(); },
          "What the reader and the model accepted but a user should know about (list of str, one "
          "line each), such as inconsistent inertias or joints moving only massless links. "
          "load_model also issues them as Python warnings.")
      .def_property_readonly(
          "independent",
          [](PyModel& self) {
            // Where the zero configuration does not close, the model's chosen or preferred
            // coordinates, never an exception.
            std::vector<std::string> independent;
            if (zero_state(self, independent)) return independent;
            return self.model.mechanism().independent.empty()
                       ? self.model.mechanism().preferred_independent
                       : self.model.mechanism().independent;
          },
          "The independent dof names of the assembled zero configuration (every dof for a tree).")
      .def_property_readonly(
          "notes",
          [](PyModel& self) {
            std::vector<std::string> notes = self.model.notes();
            std::vector<std::string> independent;
            if (const auto messages = zero_state(self, independent))
              notes.insert(notes.end(), messages->notes.begin(), messages->notes.end());
            return notes;
          },
          "What loading decided that is not a warning (list of str, one line each): a loop cut, a "
          "base body changed, a preferred independent coordinate that the loops leave no freedom. "
          "For a closed chain, they also include the notes on the independent coordinates of the "
          "assembled zero configuration: where no choice keeps the constraints' condition number "
          "within the conditioning limit, and which preferred coordinates were left dependent.")
      .def(
          "read_state",
          [](PyModel& self, const PathArgument& path) {
            const ModelState state = read_model_state(path_of(path.value, "path"), self.model);
            py::dict result;
            result["q"] = state.q;
            result["qd"] = state.qd;
            result["tau"] = state.tau;
            result["qdd"] = state.qdd;
            result["gravity"] = state.gravity;
            return result;
          },
          py::arg("path"),
          "The contents of a state file (STATE.json, docs/mechanisms.md) as {'q', 'qd', 'tau', "
          "'qdd' (dofs, file order; zeros where the file is silent), 'gravity' (3)}. A model with "
          "another base body (with_base) converts the file's coordinates to its own.")
      .def(
          "with_base",
          [](const PyModel& self, const std::string& link) {
            ReadOptions options = self.options;
            options.base = link;
            return std::make_shared<PyModel>(with_base(self.model, link), options);
          },
          py::arg("link"),
          "The same free-flying model with `link` as its base body (free-flying paper, Appendix "
          "A). A floating joint '<link>_floating' replaces the base's, and the joints between the "
          "two bases are reversed (a 1-dof joint keeps its coordinate, a spherical one's changes "
          "sign). The operational-space inertias of the links are the same, and convert_state "
          "carries states over. Raises skograph.Error for a fixed-base model, an unknown link or a "
          "planar joint on the way.")
      .def_property_readonly(
          "base", [](const PyModel& self) { return self.model.base(); },
          "The base body that with_base (or load_model's base) gave the model, or '' for the "
          "file's own.")
      .def(
          "convert_state",
          [](const PyModel& self, const PyModel& target, const ArrayArgument& q,
             const ArrayArgument& qd, const OptionalArrayArgument& qdd,
             const OptionalArrayArgument& tau) {
            const Model& from = self.model;
            const ModelState converted = convert_state(
                from, target.model,
                {state_vector(q.value, "q", from), state_vector(qd.value, "qd", from),
                 qdd.is_none() ? Eigen::VectorXd() : state_vector(qdd.value, "qdd", from),
                 tau.is_none() ? Eigen::VectorXd() : state_vector(tau.value, "tau", from)});
            py::dict result;
            result["q"] = converted.q;
            result["qd"] = converted.qd;
            if (!qdd.is_none()) result["qdd"] = converted.qdd;
            if (!tau.is_none()) result["tau"] = converted.tau;
            return result;
          },
          py::arg("target"), py::arg("q"), py::arg("qd"), py::arg("qdd") = py::none(),
          py::arg("tau") = py::none(),
          "This model's state (q, qd and optionally qdd, tau; file dof order) in the coordinates "
          "of `target`, the same mechanism with another base body (with_base), as {'q', 'qd' [, "
          "'qdd', 'tau']}. Every link keeps its pose, velocity and acceleration, and tau does the "
          "same work (tau_k = T_{n,k}* tau_n, the paper's Eq. 44).")
      // Pickling by __reduce__ (a module function rebuilds the model) works with every pickle
      // protocol; __setstate__ still reads pickles of earlier versions.
      .def(py::pickle([](const PyModel& self) { return pickle_model(self); },
                      [](const py::tuple& state) { return unpickle_model(state); }))
      .def("__reduce__",
           [](const PyModel& self) {
             return py::make_tuple(py::module_::import("skograph").attr("_model_from_state"),
                                   py::make_tuple(pickle_model(self)));
           })
      .def("__repr__", [](const PyModel& self) {
        return "<skograph.Model '" + self.model.file() +
               "': " + std::to_string(self.model.dof_count()) + " dofs" +
               (self.model.base().empty() ? "" : ", base " + self.model.base()) +
               (self.model.is_closed_chain() ? ", closed chain>" : ">");
      });
  module.def("_model_from_state", &unpickle_model, py::arg("state"),
             "A Model from the state a pickle holds (Model.__reduce__).");
  module.def("load_model", &load, py::arg("path"), py::arg("strict") = false,
             py::arg("independent") = py::none(), py::arg("loops") = py::none(),
             py::arg("base") = py::none(), py::arg("conditioning_limit") = py::none(),
             "The ready model of a URDF, YAML, MJCF or SDF file (a tree or a closed chain). path "
             "and loops: str or os.PathLike. independent: a list of the joints (or dofs) a closed "
             "chain keeps as its independent coordinates. loops: a loop file closing the model's "
             "loops. base: a link of a free-flying model to serve as its base body "
             "(Model.with_base). conditioning_limit: the largest condition number of the "
             "constraints on the dependent coordinates that counts as well conditioned (default "
             "1000; --conditioning-limit).");
}

}  // namespace skograph::python

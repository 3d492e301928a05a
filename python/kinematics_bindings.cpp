// Model.frames and the kinematics of frames and of the centre of mass, the energies, the
// singularity measures and inverse kinematics (model/kinematics.hpp), one state or a batch.
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>

#include "arguments.hpp"
#include "calls.hpp"
#include "skograph/model/kinematics.hpp"

namespace skograph::python {
namespace {

std::string subtree_of(const std::optional<std::string>& subtree) {
  return subtree ? *subtree : "";
}

// The binding of a frame's 6-vector at (q, qd) (frame_velocity, frame_jacobian_bias): one state
// or a batch, `frame` 'world' or 'local'.
template <class Quantity>
auto frame_rate_binding(Quantity quantity) {
  return [quantity](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
                    const std::string& name, const std::string& frame,
                    const ThreadsArgument& threads) {
    const FrameAxes axes = axes_of(frame);
    return per_state_value<2>(self, {{{"q", q}, {"qd", qd}}}, threads, {6},
                              [&](const Model& model, ModelData& data, const auto& s) {
                                return quantity(model, data, s.vector(0), s.vector(1), name, axes);
                              });
  };
}

}  // namespace

void bind_kinematics(ModelClass& model_class) {
  model_class
      .def_property_readonly(
          "frames", [](const PyModel& self) { return frame_names(self.model); },
          "Every frame name (links, then fused links, sites and SDF frames). Joint names also "
          "name their child link's frame.")
      .def_property_readonly(
          "mass", [](const PyModel& self) -> double { return total_mass(self.model); },
          "Total mass (kg) of every link, links fused into the world included.")
      .def(
          "frame_pose",
          [](PyModel& self, const ArrayArgument& q, const std::string& name,
             const ThreadsArgument& threads) {
            return per_state_value<1>(self, {{{"q", q}}}, threads, {4, 4},
                                      [&](const Model& model, ModelData& data, const auto& s) {
                                        return frame_pose(model, data, s.vector(0), name).matrix();
                                      });
          },
          py::arg("q"), py::arg("name"), py::arg("threads") = py::none(),
          "The frame's pose in the world: a 4 x 4 homogeneous matrix [[R, p], [0, 1]], or "
          "(rows, 4, 4) for a 2-D q. Closed chains are assembled at q "
          "first." SKOGRAPH_DOC_NAME SKOGRAPH_DOC_STATES)
      .def("frame_velocity",
           frame_rate_binding(
               [](const Model& model, ModelData& data, const Eigen::VectorXd& q,
                  const Eigen::VectorXd& qd, const std::string& name,
                  FrameAxes axes) { return frame_velocity(model, data, q, qd, name, axes); }),
           py::arg("q"), py::arg("qd"), py::arg("name"), py::arg("frame") = "world",
           py::arg("threads") = py::none(),
           "The [angular; linear] velocity of the frame's origin, (6,) or (rows, 6). Raises "
           "skograph.Error for an unknown frame." SKOGRAPH_DOC_FRAME SKOGRAPH_DOC_STATES)
      .def(
          "frame_acceleration",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ArrayArgument& qdd, const std::string& name, const std::string& frame,
             const ThreadsArgument& threads) {
            const FrameAxes axes = axes_of(frame);
            return per_state_value<3>(self, {{{"q", q}, {"qd", qd}, {"qdd", qdd}}}, threads, {6},
                                      [&](const Model& model, ModelData& data, const auto& s) {
                                        return frame_acceleration(model, data, s.vector(0),
                                                                  s.vector(1), s.vector(2), name,
                                                                  axes);
                                      });
          },
          py::arg("q"), py::arg("qd"), py::arg("qdd"), py::arg("name"), py::arg("frame") = "world",
          py::arg("threads") = py::none(),
          "The frame's classical acceleration: the angular acceleration and the acceleration of "
          "the frame's origin, J qdd + Jdot qd, (6,) or (rows, 6). Closed chains take qdd's "
          "independent entries." SKOGRAPH_DOC_FRAME SKOGRAPH_DOC_STATES)
      .def(
          "jacobian",
          [](PyModel& self, const ArrayArgument& q, const std::string& name,
             const std::string& frame, const ThreadsArgument& threads) {
            const FrameAxes axes = axes_of(frame);
            return per_state_value<1>(self, {{{"q", q}}}, threads, {6, self.model.dof_count()},
                                      [&](const Model& model, ModelData& data, const auto& s) {
                                        return frame_jacobian(model, data, s.vector(0), name, axes);
                                      });
          },
          py::arg("q"), py::arg("name"), py::arg("frame") = "world",
          py::arg("threads") = py::none(),
          "The frame's 6 x dofs geometric Jacobian [angular; linear], with frame='world' (world "
          "axes about the frame's origin, Pinocchio's LOCAL_WORLD_ALIGNED) or 'local' (the frame's "
          "axes). J qd is frame_velocity." SKOGRAPH_DOC_FRAME SKOGRAPH_DOC_STATES)
      .def("jacobian_bias",
           frame_rate_binding(
               [](const Model& model, ModelData& data, const Eigen::VectorXd& q,
                  const Eigen::VectorXd& qd, const std::string& name,
                  FrameAxes axes) { return frame_jacobian_bias(model, data, q, qd, name, axes); }),
           py::arg("q"), py::arg("qd"), py::arg("name"), py::arg("frame") = "world",
           py::arg("threads") = py::none(),
           "Jdot qd: the frame's acceleration at qdd = 0, (6,) or (rows, "
           "6)." SKOGRAPH_DOC_FRAME SKOGRAPH_DOC_STATES)
      .def(
          "reduced_jacobian",
          [](PyModel& self, const ArrayArgument& q, const std::string& name,
             const std::string& frame) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
            const FrameAxes axes = axes_of(frame);
            return compute(self, [&](ModelData& data) {
              return reduced_frame_jacobian(self.model, data, at, name, axes);
            });
          },
          py::arg("q"), py::arg("name"), py::arg("frame") = "world",
          "The end-effector Jacobian in the actuated coordinates: for a closed chain, J_R = J X (6 "
          "x independent, columns in the order of model.close's independent names); for a tree, "
          "J. q: (dofs,), file order." SKOGRAPH_DOC_FRAME
          " Raises skograph.Error for an unknown frame or a state that cannot close.")
      .def(
          "reduced_jacobian_bias",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const std::string& name, const std::string& frame) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model),
                                  rates = state_vector(qd.value, "qd", self.model);
            const FrameAxes axes = axes_of(frame);
            return compute(self, [&](ModelData& data) {
              return Eigen::VectorXd(
                  reduced_jacobian_bias(self.model, data, at, rates, name, axes));
            });
          },
          py::arg("q"), py::arg("qd"), py::arg("name"), py::arg("frame") = "world",
          "The bias Jdot qd + J Xdot qd_R (6,) of the reduced Jacobian: the frame's acceleration "
          "is J_R qdd_R plus this (for a tree, Jdot qd). q, qd: (dofs,), file "
          "order." SKOGRAPH_DOC_FRAME
          " Raises skograph.Error for an unknown frame or a state that cannot close.")
      .def(
          "center_of_mass",
          [](PyModel& self, const ArrayArgument& q, const std::optional<std::string>& subtree,
             const ThreadsArgument& threads) {
            const std::string top = subtree_of(subtree);
            return per_state_value<1>(self, {{{"q", q}}}, threads, {3},
                                      [&](const Model& model, ModelData& data, const auto& s) {
                                        return center_of_mass(model, data, s.vector(0), top);
                                      });
          },
          py::arg("q"), py::arg("subtree") = py::none(), py::arg("threads") = py::none(),
          "The centre of mass in the world (m), (3,) or (rows, 3), of the model or of the subtree "
          "below the link `subtree` (None: the whole model). Raises skograph.Error for an unknown "
          "link." SKOGRAPH_DOC_STATES)
      .def(
          "center_of_mass_velocity",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const std::optional<std::string>& subtree, const ThreadsArgument& threads) {
            const std::string top = subtree_of(subtree);
            return per_state_value<2>(self, {{{"q", q}, {"qd", qd}}}, threads, {3},
                                      [&](const Model& model, ModelData& data, const auto& s) {
                                        return center_of_mass_velocity(model, data, s.vector(0),
                                                                       s.vector(1), top);
                                      });
          },
          py::arg("q"), py::arg("qd"), py::arg("subtree") = py::none(),
          py::arg("threads") = py::none(),
          "The velocity of the centre of mass in the world (m/s), (3,) or (rows, 3), of the model "
          "or of the subtree below the link `subtree`." SKOGRAPH_DOC_STATES)
      .def(
          "com_jacobian",
          [](PyModel& self, const ArrayArgument& q, const std::optional<std::string>& subtree,
             const ThreadsArgument& threads) {
            const std::string top = subtree_of(subtree);
            return per_state_value<1>(self, {{{"q", q}}}, threads, {3, self.model.dof_count()},
                                      [&](const Model& model, ModelData& data, const auto& s) {
                                        return center_of_mass_jacobian(model, data, s.vector(0),
                                                                       top);
                                      });
          },
          py::arg("q"), py::arg("subtree") = py::none(), py::arg("threads") = py::none(),
          "The 3 x dofs matrix J with which the centre of mass moves at J @ qd, or "
          "(rows, 3, dofs)." SKOGRAPH_DOC_STATES)
      .def(
          "kinetic_energy",
          [](PyModel& self, const ArrayArgument& q, const ArrayArgument& qd,
             const ThreadsArgument& threads) {
            return per_state_value<2>(self, {{{"q", q}, {"qd", qd}}}, threads, {},
                                      [&](const Model& model, ModelData& data, const auto& s) {
                                        return kinetic_energy(model, data, s.vector(0),
                                                              s.vector(1));
                                      });
          },
          py::arg("q"), py::arg("qd"), py::arg("threads") = py::none(),
          "The kinetic energy 1/2 qd* M qd (J) at (q, qd) by the recursion's velocities: a float "
          "array of shape () or (rows,)." SKOGRAPH_DOC_STATES)
      .def(
          "potential_energy",
          [](PyModel& self, const ArrayArgument& q, const OptionalArrayArgument& gravity,
             const ThreadsArgument& threads) {
            const Eigen::Vector3d g = gravity_of(gravity.value);
            return per_state_value<1>(self, {{{"q", q}}}, threads, {},
                                      [&](const Model& model, ModelData& data, const auto& s) {
                                        return potential_energy(model, data, s.vector(0), g);
                                      });
          },
          py::arg("q"), py::arg("gravity") = py::none(), py::arg("threads") = py::none(),
          "The potential energy -sum m g . c (J) of the links' weights at q: a float array of "
          "shape () or (rows,)." SKOGRAPH_DOC_GRAVITY SKOGRAPH_DOC_STATES)
      .def(
          "singularity",
          [](PyModel& self, const ArrayArgument& q, const NamesArgument& frames) {
            const Eigen::VectorXd at = state_vector(q.value, "q", self.model);
            const std::vector<std::string> names =
                optional_names(frames.value, "frames").value_or(std::vector<std::string>{});
            const SingularityMeasures measures = compute(self, [&](ModelData& data) {
              return singularity_measures(self.model, data, at, names);
            });
            py::dict condition, smallest;
            for (std::size_t i = 0; i < names.size(); ++i) {
              condition[py::str(names[i])] = measures.jacobian_condition[i];
              smallest[py::str(names[i])] = measures.jacobian_smallest_value[i];
            }
            py::dict result;
            result["constraint_condition"] = measures.constraint_condition;
            result["constraint_smallest_singular_value"] = measures.constraint_smallest_value;
            result["jacobian_condition"] = condition;
            result["jacobian_smallest_singular_value"] = smallest;
            return result;
          },
          py::arg("q"), py::arg("frames") = py::none(),
          "The distance from singular configurations at the closed q: {'constraint_condition': "
          "[the condition number of each aggregate's constraints on its dependent coordinates], "
          "'constraint_smallest_singular_value': [their smallest singular value], "
          "'jacobian_condition': {frame: cond(J_R)}, 'jacobian_smallest_singular_value': {frame: "
          "sigma_min(J_R)}}. An infinite condition number marks a singular configuration: type II "
          "for the constraints, type I for J_R. frames: a list of frame names.")
      .def(
          "inverse_kinematics",
          [](PyModel& self, const std::string& name, const ArrayArgument& pose,
             const OptionalArrayArgument& q0) {
            Eigen::Isometry3d target;
            target.matrix() = fixed_matrix(pose.value, "pose", 4, 4);
            const Eigen::VectorXd start = state_or_zero(q0.value, "q0", self.model);
            std::vector<std::string> independent;
            const Eigen::VectorXd q = compute(self, [&](ModelData& data) {
              Eigen::VectorXd solved = inverse_kinematics(self.model, data, name, target, start);
              independent = data.independent;
              return solved;
            });
            py::dict values;
            const std::vector<std::string>& names = self.model.dof_names();
            for (const std::string& dof : independent)
              values[py::str(dof)] = q(std::find(names.begin(), names.end(), dof) - names.begin());
            py::dict result;
            result["q"] = q;
            result["independent"] = values;
            return result;
          },
          py::arg("name"), py::arg("pose"), py::arg("q0") = py::none(),
          "The closed configuration nearest q0 (default zeros) in which the frame `name` has the 4 "
          "x 4 pose `pose`, as {'q', 'independent': {dof: value}} (for a Stewart platform, the "
          "independent values are its leg lengths). Raises skograph.Error when the pose is "
          "unreachable.");
}

}  // namespace skograph::python

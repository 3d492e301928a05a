#include "skograph/model/kinematics.hpp"

#include <Eigen/SVD>
#include <limits>
#include <stdexcept>

#include "skograph/graph/error.hpp"
#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/flexible_kinematics.hpp"
#include "skograph/rigid/frames.hpp"
#include "skograph/rigid/inverse_kinematics.hpp"
#include "state_internal.hpp"

namespace skograph {

namespace {

// The closed state in the model's order, with the tree's kinematics updated at it.
struct ModelOrderState {
  Eigen::VectorXd q, qd;
};

ModelOrderState closed_kinematics(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                  const Eigen::VectorXd& qd) {
  const ClosedState closed = close_state(model, data, q, qd);
  const DofOrder& order = model.dof_order();
  ModelOrderState state{order.model_vector(closed.q), order.model_vector(closed.qd)};
  update_kinematics(model.tree(), state.q, state.qd, data.tree());
  return state;
}

ModelOrderState closed_positions(const Model& model, ModelData& data, const Eigen::VectorXd& q) {
  return closed_kinematics(model, data, q, Eigen::VectorXd::Zero(q.size()));
}

// Columns in the model's dof order, in the file's.
Eigen::MatrixXd dense_file_columns(const Model& model, const Eigen::MatrixXd& in_model_order) {
  const DofOrder& order = model.dof_order();
  if (order.identity()) return in_model_order;
  Eigen::MatrixXd out(in_model_order.rows(), in_model_order.cols());
  for (Eigen::Index i = 0; i < in_model_order.cols(); ++i)
    out.col(order.file_dof(static_cast<int>(i))) = in_model_order.col(i);
  return out;
}

int subtree_link(const Model& model, const std::string& subtree) {
  if (subtree.empty()) return -1;
  const int link = model.mechanism().find_link(subtree);
  if (link < 0)
    throw InputError(model.file(), 0,
                     "no link is named '" + subtree + "' (a subtree starts at a link)");
  return link;
}

// sigma_max / sigma_min over the min(rows, columns) singular values (infinite at 0).
double condition_of(const Eigen::VectorXd& sigma) {
  if (sigma.size() == 0) return 1.0;
  const double smallest = sigma(sigma.size() - 1);
  return smallest > 0.0 ? sigma(0) / smallest : std::numeric_limits<double>::infinity();
}

}  // namespace

std::vector<std::string> frame_names(const Model& model) {
  std::vector<std::string> names;
  for (const Link& link : model.mechanism().links) names.push_back(link.name);
  for (const Frame& frame : model.mechanism().frames)
    if (!frame.joint_alias) names.push_back(frame.name);
  return names;
}

// A vector the kinematics calls take beside the state (qdd, q0): the model's problem when its
// size is wrong, said with the model's file, as it was before these calls shared frame_motions.
namespace {
void check_entries(const Model& model, const Eigen::VectorXd& v, const char* name) {
  if (v.size() != model.dof_count())
    throw InputError(model.file(), 0,
                     std::string(name) + " has " + std::to_string(v.size()) +
                         " entries; the model has " + std::to_string(model.dof_count()) + " dofs");
}
}  // namespace

FrameRef model_frame(const Model& model, const std::string& name) {
  try {
    return find_frame(model.mechanism(), name);
  } catch (const std::invalid_argument&) {  // URDF joint names count here (their child link)
    throw InputError(model.file(), 0, "no link, joint or frame is named '" + name + "'");
  }
}

namespace {

// A flexible link's frame is its floating frame; a point fixed elsewhere on it would not follow
// the modes (a rigid link on a fixed joint rides on a node that does).
void require_frame_following_the_modes(const Model& model, const FrameRef& ref,
                                       const std::string& frame) {
  if (ref.link >= 0 && model.mechanism().links[static_cast<std::size_t>(ref.link)].flexible &&
      !ref.pose.isApprox(Eigen::Isometry3d::Identity(), 0.0))
    throw UsageError(model.file() + ": frame '" + frame + "' is fixed on flexible link '" +
                     model.mechanism().links[static_cast<std::size_t>(ref.link)].name +
                     "' away from its frame: its pose would not follow the modes (attach it "
                     "as a link on a fixed joint, which the link's nodes move)");
}

}  // namespace

std::vector<FrameMotion> frame_motions(const Model& model, ModelData& data,
                                       const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                       const Eigen::VectorXd& qdd,
                                       const std::vector<std::string>& frames, FrameAxes axes) {
  std::vector<FrameRef> refs;
  for (const std::string& name : frames) {
    refs.push_back(model_frame(model, name));
    require_frame_following_the_modes(model, refs.back(), name);
  }
  check_entries(model, qdd, "qdd");
  closed_kinematics(model, data, q, qd);
  Eigen::VectorXd acceleration = model.dof_order().model_vector(qdd);
  if (model.is_closed_chain())
    acceleration =
        consistent_accelerations(*model.closed_chain(), *data.closed_chain(), acceleration);
  update_accelerations(model.tree(), data.tree(), acceleration);
  std::vector<FrameMotion> motions;
  for (const FrameRef& ref : refs)
    motions.push_back({frame_pose(model.tree(), data.tree(), ref),
                       frame_velocity(model.tree(), data.tree(), ref, axes),
                       frame_acceleration(model.tree(), data.tree(), ref, axes)});
  return motions;
}

std::vector<Eigen::MatrixXd> frame_jacobians(const Model& model, ModelData& data,
                                             const Eigen::VectorXd& q,
                                             const std::vector<std::string>& frames,
                                             FrameAxes axes) {
  std::vector<FrameRef> refs;
  for (const std::string& name : frames) {
    refs.push_back(model_frame(model, name));
    require_frame_following_the_modes(model, refs.back(), name);
  }
  closed_positions(model, data, q);
  std::vector<Eigen::MatrixXd> jacobians;
  Eigen::MatrixXd jacobian(6, model.dof_count());
  for (const FrameRef& ref : refs) {
    frame_jacobian(model.tree(), data.tree(), ref, axes, jacobian);
    jacobians.push_back(dense_file_columns(model, jacobian));
  }
  return jacobians;
}

Eigen::Isometry3d frame_pose(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                             const std::string& frame) {
  const FrameRef ref = model_frame(model, frame);
  require_frame_following_the_modes(model, ref, frame);
  closed_positions(model, data, q);
  return frame_pose(model.tree(), data.tree(), ref);
}

Vector6d frame_velocity(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd, const std::string& frame, FrameAxes axes) {
  const FrameRef ref = model_frame(model, frame);
  require_frame_following_the_modes(model, ref, frame);
  closed_kinematics(model, data, q, qd);
  return frame_velocity(model.tree(), data.tree(), ref, axes);
}

Vector6d frame_acceleration(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                            const std::string& frame, FrameAxes axes) {
  return frame_motions(model, data, q, qd, qdd, {frame}, axes).front().acceleration;
}

Eigen::MatrixXd frame_jacobian(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                               const std::string& frame, FrameAxes axes) {
  return frame_jacobians(model, data, q, {frame}, axes).front();
}

Vector6d frame_jacobian_bias(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& qd, const std::string& frame, FrameAxes axes) {
  const FrameRef ref = model_frame(model, frame);
  require_frame_following_the_modes(model, ref, frame);
  closed_kinematics(model, data, q, qd);
  return frame_jacobian_bias(model.tree(), data.tree(), ref, axes);
}

Eigen::MatrixXd reduced_frame_jacobian(const Model& model, ModelData& data,
                                       const Eigen::VectorXd& q, const std::string& frame,
                                       FrameAxes axes) {
  const Eigen::MatrixXd jacobian = frame_jacobian(model, data, q, frame, axes);
  if (!model.is_closed_chain()) return jacobian;
  return jacobian * embedding_matrix(model, data, q);
}

Vector6d reduced_jacobian_bias(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd, const std::string& frame,
                               FrameAxes axes) {
  const FrameRef ref = model_frame(model, frame);
  require_frame_following_the_modes(model, ref, frame);
  closed_kinematics(model, data, q, qd);
  Vector6d bias = frame_jacobian_bias(model.tree(), data.tree(), ref, axes);
  if (!model.is_closed_chain()) return bias;
  Eigen::MatrixXd jacobian(6, model.dof_count());
  frame_jacobian(model.tree(), data.tree(), ref, axes, jacobian);
  bias.noalias() += jacobian * embedding_rate(*model.closed_chain(), *data.closed_chain());
  return bias;
}

Eigen::Vector3d center_of_mass(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                               const std::string& subtree) {
  const int link = subtree_link(model, subtree);
  const ModelOrderState state = closed_positions(model, data, q);
  if (model.tree().has_flexible_links())
    return flexible_center_of_mass(model.tree(), data.tree(), state.q, link);
  return center_of_mass(model.tree(), data.tree(), link);
}

Eigen::Vector3d center_of_mass_velocity(const Model& model, ModelData& data,
                                        const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                        const std::string& subtree) {
  const int link = subtree_link(model, subtree);
  const ModelOrderState state = closed_kinematics(model, data, q, qd);
  if (model.tree().has_flexible_links()) {  // c' = J qd: the modes move the first moments
    Eigen::MatrixXd jacobian(3, model.dof_count());
    flexible_center_of_mass_jacobian(model.tree(), data.tree(), state.q, jacobian, link);
    return jacobian * state.qd;
  }
  return center_of_mass_velocity(model.tree(), data.tree(), link);
}

Eigen::MatrixXd center_of_mass_jacobian(const Model& model, ModelData& data,
                                        const Eigen::VectorXd& q, const std::string& subtree) {
  const int link = subtree_link(model, subtree);
  const ModelOrderState state = closed_positions(model, data, q);
  Eigen::MatrixXd jacobian(3, model.dof_count());
  if (model.tree().has_flexible_links())
    flexible_center_of_mass_jacobian(model.tree(), data.tree(), state.q, jacobian, link);
  else
    center_of_mass_jacobian(model.tree(), data.tree(), jacobian, link);
  return dense_file_columns(model, jacobian);
}

double total_mass(const Model& model, const std::string& subtree) {
  return subtree_mass(model.tree(), subtree_link(model, subtree));
}

double kinetic_energy(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& qd) {
  closed_kinematics(model, data, q, qd);
  return kinetic_energy(model.tree(), data.tree());
}

double potential_energy(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::Vector3d& gravity) {
  const ModelOrderState state = closed_positions(model, data, q);
  return potential_energy(model.tree(), data.tree(), state.q, gravity);
}

SingularityMeasures singularity_measures(const Model& model, ModelData& data,
                                         const Eigen::VectorXd& q,
                                         const std::vector<std::string>& frames) {
  SingularityMeasures measures;
  for (const std::string& frame : frames) {
    const Eigen::MatrixXd reduced =
        reduced_frame_jacobian(model, data, q, frame, FrameAxes::kWorld);
    const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(reduced).singularValues();
    measures.jacobian_condition.push_back(condition_of(sigma));
    measures.jacobian_smallest_value.push_back(sigma.size() ? sigma(sigma.size() - 1) : 0.0);
  }
  if (model.is_closed_chain()) {
    closed_positions(model, data, q);
    for (int s = 0; s < model.closed_chain()->aggregate_count(); ++s) {
      const AggregateConstraintStatus status =
          aggregate_constraint_status(*model.closed_chain(), *data.closed_chain(), s);
      measures.constraint_condition.push_back(status.condition_number);
      measures.constraint_smallest_value.push_back(status.smallest_singular_value);
    }
  }
  return measures;
}

Eigen::VectorXd inverse_kinematics(const Model& model, ModelData& data, const std::string& frame,
                                   const Eigen::Isometry3d& pose, const Eigen::VectorXd& q0) {
  model_frame(model, frame);  // an unknown name is the model's problem, said with its file
  model_detail::require_rigid_links(model, "inverse kinematics");
  check_entries(model, q0, "q0");
  const DofOrder& order = model.dof_order();
  Eigen::VectorXd q;
  try {
    q = order.vector(inverse_kinematics(model.mechanism(), frame, pose, order.model_vector(q0)));
  } catch (const std::invalid_argument& e) {
    throw InputError(model.file(), 0, e.what());
  } catch (const Error& e) {
    throw InputError(model.file(), 0, e.what());
  }
  close_state(model, data, q, Eigen::VectorXd::Zero(q.size()));  // data.independent at q
  return q;
}

}  // namespace skograph

#include "skograph/model/base_change.hpp"

#include <algorithm>
#include <stdexcept>

#include "skograph/model/kinematics.hpp"
#include "skograph/rigid/base_change.hpp"
#include "skograph/rigid/spatial.hpp"
#include "state_internal.hpp"

namespace skograph {

Model with_base(const Model& model, const std::string& link) {
  const Model& file = model.file_model() ? *model.file_model() : model;
  // The state conversion and the frames it compares walk joints and rigid nodes only.
  if (file.tree().has_flexible_links())
    throw InputError(
        file.file(), 0,
        "base body '" + link +
            "': base changes do not take flexible links yet (docs/flexible-bodies.md)");
  BaseChange change;
  Mechanism changed;
  try {
    changed = change_base(file.source_mechanism(), link, &change);
  } catch (const std::invalid_argument& e) {
    throw InputError(file.file(), 0, "base body '" + link + "': " + e.what());
  }
  if (change.removed_joint.empty()) return file;
  // A closed chain keeps the file model's independent coordinates (at its closed zero state)
  // where the file names none: the choice would otherwise follow the new tree's numbering.
  if (file.is_closed_chain() && changed.independent.empty()) {
    try {
      ModelData data(file);
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(file.dof_count());
      close_state(file, data, zero, zero);
      std::vector<std::string> chosen = data.independent;
      for (std::string& name : chosen)
        if (name.rfind(change.removed_joint + ":", 0) == 0)
          name = change.new_joint + name.substr(change.removed_joint.size());
      chosen.insert(chosen.end(), changed.preferred_independent.begin(),
                    changed.preferred_independent.end());
      changed.preferred_independent = chosen;
    } catch (const Error&) {  // no closed zero state: the new model chooses its own
    }
  }
  Model rebased = build_model(std::move(changed), file.file(), file.build_options());
  rebased.file_model_ = std::make_shared<const Model>(file);
  rebased.base_ = link;
  rebased.reversed_ = change.reversed;
  return rebased;
}

namespace {

bool is_free_joint(const Joint& joint) {
  return joint.type == JointType::kFloating && joint.parent < 0;
}

// Whether `joint` of `model` is in `other` with the same coordinates: a joint of the same name
// that is not a floating joint from the world (the path's joints keep their coordinates when
// reversed), or the floating joint of the same name and child link.
bool shared_joint(const Mechanism& model, const Joint& joint, const Mechanism& other) {
  const int j = other.find_joint(joint.name);
  if (j < 0) return false;
  const Joint& twin = other.joints[static_cast<std::size_t>(j)];
  if (!is_free_joint(joint) && !is_free_joint(twin)) return true;
  return is_free_joint(joint) && is_free_joint(twin) &&
         model.links[static_cast<std::size_t>(joint.child)].name ==
             other.links[static_cast<std::size_t>(twin.child)].name;
}

// The floating joints from the world of `model` that `other` lacks.
std::vector<int> unshared_free_joints(const Mechanism& model, const Mechanism& other) {
  std::vector<int> joints;
  for (std::size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& joint = model.joints[j];
    if (shared_joint(model, joint, other)) continue;
    if (!is_free_joint(joint))
      throw std::invalid_argument("joint '" + joint.name +
                                  "' is not in the other model: the two models are not one "
                                  "mechanism with two base bodies");
    joints.push_back(static_cast<int>(j));
  }
  return joints;
}

// Whether the joint is reversed between the two models (each reversed or not against the file).
bool reversed_between(const Model& a, const Model& b, const std::string& joint) {
  auto in = [&](const Model& model) {
    const std::vector<std::string>& names = model.reversed_joints();
    return std::find(names.begin(), names.end(), joint) != names.end();
  };
  return in(a) != in(b);
}

// The file-order positions of the dofs of the model's joint j (its tree node j): DofOrder's map.
std::vector<int> dof_positions(const Model& model, int j) {
  const int offset = model.tree().joint_dof_offset(j);
  std::vector<int> positions;
  for (int d = 0; d < model.tree().joint_dofs(j); ++d)
    positions.push_back(model.dof_order().file_dof(offset + d));
  return positions;
}

// The link frame of a floating joint's child from the motion of its declared frame (the frame
// the other model knows by the link's name): declared = X_link_declared.
struct LinkFrame {
  Eigen::Matrix3d rotation;  // R_link_declared
  Eigen::Vector3d offset;    // the link frame's origin in the declared frame
  Matrix6d velocity_map;     // [omega; v] of the link frame from the declared frame's
};
LinkFrame link_frame(const Eigen::Isometry3d& declared) {
  LinkFrame frame;
  frame.rotation = declared.linear();
  frame.offset = declared.inverse().translation();
  frame.velocity_map.setZero();
  frame.velocity_map.topLeftCorner<3, 3>() = frame.rotation;
  frame.velocity_map.bottomRightCorner<3, 3>() = frame.rotation;
  frame.velocity_map.bottomLeftCorner<3, 3>() = -frame.rotation * cross_matrix(frame.offset);
  return frame;
}

}  // namespace

// Lemma A.1 (beta_k = T_{k,n} beta_n) by kinematics, and tau_k = T_{n,k}* tau_n (Eq. 44).
ModelState convert_state(const Model& from, const Model& to, const ModelState& state) {
  model_detail::check_input(from, state.q, "q");
  model_detail::check_input(from, state.qd, "qd");
  if (state.qdd.size() > 0) model_detail::check_input(from, state.qdd, "qdd");
  if (state.tau.size() > 0) model_detail::check_input(from, state.tau, "tau");
  const Mechanism& source = from.mechanism();
  const Mechanism& target = to.mechanism();
  const std::vector<int> computed = unshared_free_joints(target, source);
  const std::vector<int> dropped = unshared_free_joints(source, target);
  ModelData data(from);
  const ClosedState closed = close_state(from, data, state.q, state.qd);
  const bool accelerations = state.qdd.size() > 0;
  // A closed chain's qdd counts through its independent entries (X qdd_R + Xdot qd_R), as the
  // kinematics take it: the dependent entries of the converted qdd follow from those.
  Eigen::VectorXd qdd = state.qdd;
  if (accelerations && from.is_closed_chain())
    qdd = from.dof_order().vector(consistent_accelerations(
        *from.closed_chain(), *data.closed_chain(), from.dof_order().model_vector(state.qdd)));
  ModelState converted;
  converted.gravity = state.gravity;
  converted.has_qdd = state.has_qdd;
  converted.q.setZero(to.dof_count());
  converted.qd.setZero(to.dof_count());
  if (accelerations) converted.qdd.setZero(to.dof_count());
  if (state.tau.size() > 0) converted.tau.setZero(to.dof_count());

  // The shared joints' coordinates.
  for (std::size_t j = 0; j < target.joints.size(); ++j) {
    const Joint& joint = target.joints[j];
    if (!shared_joint(target, joint, source)) continue;
    const std::vector<int> positions = dof_positions(to, static_cast<int>(j));
    const std::vector<int> sources = dof_positions(from, source.find_joint(joint.name));
    if (joint.type == JointType::kSpherical && reversed_between(from, to, joint.name)) {
      // r' = -r, and w, wdot, tau turned by -R(r) (rigid/base_change.hpp).
      auto part = [&](const Eigen::VectorXd& v) {
        return Eigen::Vector3d(v[sources[0]], v[sources[1]], v[sources[2]]);
      };
      const Eigen::Vector3d r = part(closed.q);
      const Eigen::Matrix3d turn = -rotation_from_vector(r);
      const Eigen::Vector3d rates = turn * part(closed.qd);
      const Eigen::Vector3d rate_derivatives =
          accelerations ? Eigen::Vector3d(turn * part(qdd)) : Eigen::Vector3d::Zero();
      const Eigen::Vector3d torque =
          state.tau.size() > 0 ? Eigen::Vector3d(turn * part(state.tau)) : Eigen::Vector3d::Zero();
      for (int d = 0; d < 3; ++d) {
        const int at = positions[static_cast<std::size_t>(d)];
        converted.q[at] = -r[d];
        converted.qd[at] = rates[d];
        if (accelerations) converted.qdd[at] = rate_derivatives[d];
        if (state.tau.size() > 0) converted.tau[at] = torque[d];
      }
      continue;
    }
    for (std::size_t d = 0; d < positions.size(); ++d) {
      converted.q[positions[d]] = closed.q[sources[d]];
      converted.qd[positions[d]] = closed.qd[sources[d]];
      if (accelerations) converted.qdd[positions[d]] = qdd[sources[d]];
      if (state.tau.size() > 0) converted.tau[positions[d]] = state.tau[sources[d]];
    }
  }

  // The new floating joints: their child's pose, body velocity and its derivative in `from`.
  std::vector<std::string> frames;
  for (const int j : computed)
    frames.push_back(target.links[static_cast<std::size_t>(target.joints[j].child)].name);
  const std::vector<FrameMotion> motions = frame_motions(
      from, data, closed.q, closed.qd,
      accelerations ? qdd : Eigen::VectorXd::Zero(from.dof_count()), frames, FrameAxes::kLocal);
  for (std::size_t f = 0; f < computed.size(); ++f) {
    const Joint& joint = target.joints[static_cast<std::size_t>(computed[f])];
    const LinkFrame frame =
        link_frame(target.links[static_cast<std::size_t>(joint.child)].declared_frame);
    const Eigen::Isometry3d pose =
        joint.origin.inverse() * motions[f].pose *
        target.links[static_cast<std::size_t>(joint.child)].declared_frame.inverse();
    const Eigen::AngleAxisd rotation(pose.linear());
    const std::vector<int> positions = dof_positions(to, computed[f]);
    Vector6d q, velocity = frame.velocity_map * motions[f].velocity;
    q << rotation.angle() * rotation.axis(), pose.translation();
    for (int d = 0; d < 6; ++d) {
      converted.q[positions[static_cast<std::size_t>(d)]] = q[d];
      converted.qd[positions[static_cast<std::size_t>(d)]] = velocity[d];
    }
    if (!accelerations) continue;
    // The classical accelerations of the link's origin, then the derivative of [omega; v] in
    // the link's axes: v_dot = a - omega x v.
    const Eigen::Vector3d omega = motions[f].velocity.head<3>();
    const Eigen::Vector3d omega_dot = motions[f].acceleration.head<3>();
    const Eigen::Vector3d origin_acceleration =
        frame.rotation * (motions[f].acceleration.tail<3>() + omega_dot.cross(frame.offset) +
                          omega.cross(omega.cross(frame.offset)));
    Vector6d derivative;
    derivative << frame.rotation * omega_dot,
        origin_acceleration - velocity.head<3>().cross(velocity.tail<3>());
    for (int d = 0; d < 6; ++d)
      converted.qdd[positions[static_cast<std::size_t>(d)]] = derivative[d];
  }

  // The dropped floating joints' forces: tau_to += (A J)* tau, with A J the rows of T_{from,to}
  // that give their body velocity from the new coordinates.
  if (state.tau.size() > 0 && !dropped.empty()) {
    ModelData target_data(to);
    for (const int j : dropped) {
      const Joint& joint = source.joints[static_cast<std::size_t>(j)];
      const std::string& link = source.links[static_cast<std::size_t>(joint.child)].name;
      const LinkFrame frame =
          link_frame(source.links[static_cast<std::size_t>(joint.child)].declared_frame);
      const Eigen::MatrixXd rows = frame.velocity_map * frame_jacobian(to, target_data, converted.q,
                                                                       link, FrameAxes::kLocal);
      const std::vector<int> sources = dof_positions(from, j);
      Vector6d force;
      for (int d = 0; d < 6; ++d) force[d] = state.tau[sources[static_cast<std::size_t>(d)]];
      converted.tau += rows.transpose() * force;
    }
  }
  return converted;
}

}  // namespace skograph

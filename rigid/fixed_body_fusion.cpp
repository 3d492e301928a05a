#include "skograph/rigid/fixed_body_fusion.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>
#include <vector>

namespace skograph {

namespace {

// Mass properties of a rigid union, accumulated in the body frame: first the mass and the first
// moment (for the center of mass), then the inertias about that center, so that no large
// parallel-axis terms are added and subtracted again.
struct FusedBody {
  std::vector<int> parts;  // links fused into the body (the body itself first)
  double mass = 0.0;
  Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();
};

Eigen::Matrix3d parallel_axis(double mass, const Eigen::Vector3d& offset) {
  return mass * (offset.squaredNorm() * Eigen::Matrix3d::Identity() - offset * offset.transpose());
}

// Whether the frames of a loop fixed on one body satisfy it: F_c relative to F_p moves only as the
// loop joint allows (to 1e-9).
bool loop_frames_coincide(const LoopClosure& loop) {
  const Eigen::Isometry3d relative = loop.parent_origin.inverse() * loop.child_origin;
  const Eigen::Vector3d offset = relative.translation();
  const Eigen::Matrix3d rotation = relative.linear();
  const Eigen::Vector3d axis = loop.axis.normalized();
  constexpr double kTolerance = 1e-9;
  switch (loop.type) {
    case LoopType::kWeld:
      return offset.norm() < kTolerance && rotation.isIdentity(kTolerance);
    case LoopType::kSpherical:
      return offset.norm() < kTolerance;
    case LoopType::kRevolute:
      return offset.norm() < kTolerance && (rotation * axis - axis).norm() < kTolerance;
    case LoopType::kPrismatic:
      return rotation.isIdentity(kTolerance) && offset.cross(axis).norm() < kTolerance;
  }
  return false;
}

}  // namespace

Mechanism fuse_fixed_bodies(const Mechanism& mechanism) {
  const int n = static_cast<int>(mechanism.links.size());
  const int joint_count = static_cast<int>(mechanism.joints.size());
  std::vector<int> parent_joint(n, -1);
  for (int j = 0; j < joint_count; ++j) {
    const int child = mechanism.joints[j].child;
    if (child < 0 || child >= n || parent_joint[child] >= 0) return mechanism;  // the model reports
    parent_joint[child] = j;
  }
  std::vector<char> fused(n, 0);
  // A flexible link is never fused (its modal data describe it alone), nor is a link welded to one:
  // it rides on the node of its fixed joint, which the flexible link's modes move.
  for (int k = 0; k < n; ++k) {
    if (parent_joint[k] < 0) continue;
    const Joint& joint = mechanism.joints[parent_joint[k]];
    const bool flexible_parent =
        joint.parent >= 0 && joint.parent < n && mechanism.links[joint.parent].flexible;
    fused[k] = joint.type == JointType::kFixed && !mechanism.links[k].flexible && !flexible_parent;
  }
  for (const Coupling& coupling : mechanism.couplings) {
    std::vector<int> coupled = {coupling.joint_a, coupling.joint_b};
    coupled.insert(coupled.end(), coupling.further_joints.begin(), coupling.further_joints.end());
    for (const int j : coupled)
      if (j >= 0 && j < joint_count) fused[mechanism.joints[j].child] = 0;
  }
  // A mechanism without a moving joint (a quadrotor's URDF, all welded) keeps the links welded
  // directly to the world as static bodies, so that its model is not empty.
  if (std::all_of(fused.begin(), fused.end(), [](char f) { return f != 0; }))
    for (int k = 0; k < n; ++k)
      if (parent_joint[k] >= 0 && mechanism.joints[parent_joint[k]].parent < 0) fused[k] = 0;

  // Body of every link (itself when kept, -1 for the world) and the link's pose in the body frame,
  // by walking up through fixed joints (memoized: O(n) overall; a cycle of fixed joints, which the
  // model rejects, stops the walk).
  std::vector<int> body(n, -2);
  std::vector<Eigen::Isometry3d> pose_in_body(n, Eigen::Isometry3d::Identity());
  for (int k = 0; k < n; ++k) {
    std::vector<int> walk;
    int link = k;
    while (link >= 0 && body[link] == -2 && fused[link] && walk.size() <= static_cast<size_t>(n)) {
      walk.push_back(link);
      link = mechanism.joints[parent_joint[link]].parent;
    }
    if (walk.size() > static_cast<size_t>(n)) return mechanism;  // a cycle: the model reports it
    int top = -1;
    Eigen::Isometry3d top_pose = Eigen::Isometry3d::Identity();
    if (link >= 0 && body[link] != -2) {
      top = body[link];
      top_pose = pose_in_body[link];
    } else if (link >= 0) {
      top = link;  // a kept link
      body[link] = link;
    }
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) {
      top_pose = top_pose * mechanism.joints[parent_joint[*it]].origin;
      body[*it] = top;
      pose_in_body[*it] = top_pose;
    }
  }
  // A frame given on `link` at `frame`: the body it is fixed on and its pose there.
  auto on_body = [&](int link, const Eigen::Isometry3d& frame, Eigen::Isometry3d& result) {
    if (link < 0) {
      result = frame;
      return -1;
    }
    result = pose_in_body[link] * frame;
    return body[link];
  };

  // A fixed joint has no coordinate to choose; moving joints are checked by the models.
  for (const std::string& name : mechanism.independent) {
    const int j = mechanism.find_joint(name);
    if (j >= 0 && mechanism.joints[static_cast<std::size_t>(j)].type == JointType::kFixed)
      throw std::invalid_argument("independent: joint '" + name +
                                  "' is fixed: it has no coordinate to choose");
  }
  Mechanism result = mechanism;
  result.links.clear();
  result.joints.clear();
  result.frames.clear();
  std::vector<int> new_index(n, -1);
  std::vector<FusedBody> bodies;
  for (int k = 0; k < n; ++k) {
    if (body[k] != k) continue;
    new_index[k] = static_cast<int>(result.links.size());
    result.links.push_back(mechanism.links[k]);
    bodies.emplace_back();
  }
  for (int k = 0; k < n; ++k) {
    if (body[k] < 0) {  // fused into the world: static, no dynamics; its mass still counts
      const Link& link = mechanism.links[k];
      result.static_mass += link.mass;
      result.static_first_moment += link.mass * (pose_in_body[k] * link.center_of_mass);
      continue;
    }
    FusedBody& b = bodies[new_index[body[k]]];
    const Link& link = mechanism.links[k];
    b.parts.push_back(k);
    if (body[k] != k)  // a fused link's visuals move onto its body
      for (Visual visual : link.visuals) {
        visual.origin = pose_in_body[k] * visual.origin;
        result.links[new_index[body[k]]].visuals.push_back(std::move(visual));
      }
    b.mass += link.mass;
    b.first_moment += link.mass * (pose_in_body[k] * link.center_of_mass);
  }
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const FusedBody& b = bodies[i];
    if (b.parts.size() < 2) continue;  // nothing fused: keep the numbers exactly as given
    Link& fused_link = result.links[i];
    const Eigen::Vector3d center =
        b.mass > 0.0 ? Eigen::Vector3d(b.first_moment / b.mass) : Eigen::Vector3d::Zero();
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
    for (const int k : b.parts) {
      const Link& part = mechanism.links[k];
      const Eigen::Matrix3d rotation = pose_in_body[k].linear();
      inertia += rotation * part.inertia * rotation.transpose() +
                 parallel_axis(part.mass, pose_in_body[k] * part.center_of_mass - center);
    }
    fused_link.mass = b.mass;
    fused_link.center_of_mass = center;
    fused_link.inertia = 0.5 * (inertia + inertia.transpose());
  }

  std::vector<int> new_joint(joint_count, -1);
  for (int j = 0; j < joint_count; ++j) {
    const Joint& joint = mechanism.joints[j];
    if (fused[joint.child]) continue;
    Joint moved = joint;
    Eigen::Isometry3d origin;
    const int parent_body = on_body(joint.parent, joint.origin, origin);
    moved.parent = parent_body < 0 ? -1 : new_index[parent_body];
    moved.origin = origin;
    moved.child = new_index[joint.child];
    new_joint[j] = static_cast<int>(result.joints.size());
    result.joints.push_back(moved);
  }
  std::vector<LoopClosure> loops;
  for (LoopClosure loop : result.loops) {
    Eigen::Isometry3d parent_origin, child_origin;
    const int parent_body = on_body(loop.parent, loop.parent_origin, parent_origin);
    const int child_body = on_body(loop.child, loop.child_origin, child_origin);
    const bool was_apart = loop.parent != loop.child;
    loop.parent = parent_body < 0 ? -1 : new_index[parent_body];
    loop.child = child_body < 0 ? -1 : new_index[child_body];
    loop.parent_origin = parent_origin;
    loop.child_origin = child_origin;
    // Fusion put both frames on one body: satisfied for good when they coincide as the loop
    // joint wants (dropped, as the loaders of published files drop them), otherwise left for the
    // model to refuse.
    if (was_apart && loop.parent == loop.child && loop_frames_coincide(loop)) {
      result.notes.push_back("loop '" + loop.name +
                             "' joins two frames that fixed joints weld into one body, where they "
                             "coincide: it constrains nothing and is left out");
      continue;
    }
    loops.push_back(loop);
  }
  result.loops = std::move(loops);
  for (Coupling& coupling : result.couplings) {
    if (coupling.joint_a >= 0 && coupling.joint_a < joint_count)
      coupling.joint_a = new_joint[coupling.joint_a];
    if (coupling.joint_b >= 0 && coupling.joint_b < joint_count)
      coupling.joint_b = new_joint[coupling.joint_b];
    for (int& j : coupling.further_joints)
      if (j >= 0 && j < joint_count) j = new_joint[j];
  }
  std::unordered_set<std::string> named_frames;
  for (const Frame& frame : mechanism.frames) named_frames.insert(frame.name);
  for (int k = 0; k < n; ++k) {
    if (body[k] == k) continue;
    const int b = body[k];
    result.frames.push_back({mechanism.links[k].name, b < 0 ? -1 : new_index[b],
                             pose_in_body[k] * mechanism.links[k].declared_frame});
    // The fused joint's name still names its child link's frame (Mechanism::locate_frame),
    // unless a frame of that name says otherwise (a reversed joint names its file child).
    if (const int joint = mechanism.parent_joint(k);
        joint >= 0 && !named_frames.count(mechanism.joints[static_cast<std::size_t>(joint)].name))
      result.frames.push_back({mechanism.joints[static_cast<std::size_t>(joint)].name,
                               b < 0 ? -1 : new_index[b], pose_in_body[k], true});
  }
  for (const Frame& frame : mechanism.frames) {
    Eigen::Isometry3d pose;
    const int b = on_body(frame.link, frame.pose, pose);
    result.frames.push_back({frame.name, b < 0 ? -1 : new_index[b], pose, frame.joint_alias});
  }
  return result;
}

}  // namespace skograph

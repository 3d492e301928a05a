#include "skograph/rigid/mechanism.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <stdexcept>

namespace skograph {

int joint_dof_count(JointType type) {
  switch (type) {
    case JointType::kFixed:
      return 0;
    case JointType::kRevolute:
    case JointType::kContinuous:
    case JointType::kPrismatic:
      return 1;
    case JointType::kPlanar:
    case JointType::kSpherical:
      return 3;
    case JointType::kFloating:
      return 6;
  }
  return 0;
}

const char* joint_type_name(JointType type) {
  switch (type) {
    case JointType::kFixed:
      return "fixed";
    case JointType::kRevolute:
      return "revolute";
    case JointType::kContinuous:
      return "continuous";
    case JointType::kPrismatic:
      return "prismatic";
    case JointType::kPlanar:
      return "planar";
    case JointType::kSpherical:
      return "spherical";
    case JointType::kFloating:
      return "floating";
  }
  return "fixed";
}

const char* visual_shape_name(VisualShape shape) {
  switch (shape) {
    case VisualShape::kBox:
      return "box";
    case VisualShape::kCylinder:
      return "cylinder";
    case VisualShape::kSphere:
      return "sphere";
    case VisualShape::kCapsule:
      return "capsule";
    case VisualShape::kMesh:
      return "mesh";
  }
  return "box";
}

const char* loop_type_name(LoopType type) {
  switch (type) {
    case LoopType::kRevolute:
      return "revolute";
    case LoopType::kPrismatic:
      return "prismatic";
    case LoopType::kSpherical:
      return "spherical";
    case LoopType::kWeld:
      return "weld";
  }
  return "weld";
}

int Mechanism::find_link(const std::string& link_name) const {
  for (size_t i = 0; i < links.size(); ++i)
    if (links[i].name == link_name) return static_cast<int>(i);
  return -1;
}

int Mechanism::find_joint(const std::string& joint_name) const {
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].name == joint_name) return static_cast<int>(i);
  return -1;
}

bool Mechanism::locate_frame(const std::string& frame_name, int& link,
                             Eigen::Isometry3d& pose) const {
  if (frame_name == "world") {
    link = -1;
    pose = Eigen::Isometry3d::Identity();
    return true;
  }
  const int index = find_link(frame_name);
  if (index >= 0) {
    link = index;
    pose = links[static_cast<std::size_t>(index)].declared_frame;
    return true;
  }
  for (const Frame& frame : frames)
    if (frame.name == frame_name) {
      link = frame.link;
      pose = frame.pose;
      return true;
    }
  if (const int joint = find_joint(frame_name); joint >= 0) {
    link = joints[static_cast<std::size_t>(joint)].child;
    pose = Eigen::Isometry3d::Identity();
    return true;
  }
  return false;
}

InertiaConsistency inertia_consistency(double mass, const Eigen::Matrix3d& inertia) {
  const Eigen::Vector3d moments =
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertia, Eigen::EigenvaluesOnly)
          .eigenvalues();  // ascending
  const double scale = moments.cwiseAbs().maxCoeff();
  if (scale == 0.0) return InertiaConsistency::kConsistent;  // a frame or a point mass
  if (mass == 0.0) return InertiaConsistency::kRotationalInertiaNoMass;
  // Below -1e-14 of the largest moment: more than the eigensolver's rounding of a zero moment.
  if (moments(0) < -1e-14 * scale) return InertiaConsistency::kNotPositiveSemidefinite;
  if (moments(2) > (moments(0) + moments(1)) * (1.0 + 1e-9) + 1e-12 * scale)
    return InertiaConsistency::kViolatesTriangle;
  return InertiaConsistency::kConsistent;
}

const char* inertia_consistency_text(InertiaConsistency consistency) {
  switch (consistency) {
    case InertiaConsistency::kConsistent:
      return "";
    case InertiaConsistency::kNotPositiveSemidefinite:
      return "not positive semi-definite";
    case InertiaConsistency::kViolatesTriangle:
      return "violates the triangle inequality";
    case InertiaConsistency::kRotationalInertiaNoMass:
      return "rotational inertia without mass";
  }
  return "";
}

void move_link_frame(Mechanism& mechanism, int k, const Eigen::Isometry3d& moved) {
  const Eigen::Isometry3d to_new = moved.inverse();
  Link& link = mechanism.links[static_cast<std::size_t>(k)];
  link.center_of_mass = to_new * link.center_of_mass;
  link.inertia = to_new.linear() * link.inertia * to_new.linear().transpose();
  link.declared_frame = to_new * link.declared_frame;
  for (Visual& visual : link.visuals) visual.origin = to_new * visual.origin;
  for (Frame& frame : mechanism.frames)
    if (frame.link == k) frame.pose = to_new * frame.pose;
  for (LoopClosure& loop : mechanism.loops) {
    if (loop.parent == k) loop.parent_origin = to_new * loop.parent_origin;
    if (loop.child == k) loop.child_origin = to_new * loop.child_origin;
  }
}

int Mechanism::parent_joint(int link) const {
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].child == link) return static_cast<int>(i);
  return -1;
}

int child_mode_count(const Mechanism& mechanism, int joint) {
  const int child = mechanism.joints[static_cast<std::size_t>(joint)].child;
  if (child < 0 || child >= static_cast<int>(mechanism.links.size())) return 0;
  const Link& link = mechanism.links[static_cast<std::size_t>(child)];
  return link.flexible ? link.flexible->modes() : 0;
}

int joint_coordinate_count(const Mechanism& mechanism, int joint) {
  return joint_dof_count(mechanism.joints[static_cast<std::size_t>(joint)].type) +
         child_mode_count(mechanism, joint);
}

std::vector<std::string> dof_names(const Mechanism& mechanism) {
  std::vector<std::string> names;
  for (std::size_t j = 0; j < mechanism.joints.size(); ++j) {
    const Joint& joint = mechanism.joints[j];
    const int dofs = joint_dof_count(joint.type);
    if (dofs == 1) names.push_back(joint.name);
    for (int i = 0; dofs > 1 && i < dofs; ++i)
      names.push_back(joint.name + ":" + std::to_string(i));
    const int modes = child_mode_count(mechanism, static_cast<int>(j));
    for (int i = 0; i < modes; ++i)
      names.push_back(mechanism.links[static_cast<std::size_t>(joint.child)].name + ":eta" +
                      std::to_string(i + 1));
  }
  return names;
}

std::vector<int> named_dofs(const Mechanism& mechanism, const std::vector<std::string>& names) {
  std::vector<int> offsets;
  int offset = 0;
  for (std::size_t j = 0; j < mechanism.joints.size(); ++j) {
    offsets.push_back(offset);
    offset += joint_coordinate_count(mechanism, static_cast<int>(j));
  }
  std::vector<int> dofs;
  for (const std::string& name : names) {
    int joint = mechanism.find_joint(name), first = 0, count = 0;
    if (joint >= 0) {
      count = joint_dof_count(mechanism.joints[static_cast<std::size_t>(joint)].type);
    } else if (const auto colon = name.rfind(':'); colon != std::string::npos) {
      joint = mechanism.find_joint(name.substr(0, colon));
      const std::string index = name.substr(colon + 1);
      const int dofs_of_joint =
          joint < 0 ? 0 : joint_dof_count(mechanism.joints[static_cast<std::size_t>(joint)].type);
      if (index.size() == 1 && index[0] >= '0' && index[0] - '0' < dofs_of_joint) {
        first = index[0] - '0';
        count = 1;
      } else {
        joint = -1;
      }
    }
    if (joint >= 0 && count == 0)
      throw std::invalid_argument("independent: joint '" + name +
                                  "' is fixed: it has no coordinate to choose");
    if (joint < 0)
      throw std::invalid_argument("independent: '" + name +
                                  "' is not a joint (or dof 'joint:k') of the mechanism");
    for (int d = 0; d < count; ++d)
      dofs.push_back(offsets[static_cast<std::size_t>(joint)] + first + d);
  }
  std::sort(dofs.begin(), dofs.end());
  dofs.erase(std::unique(dofs.begin(), dofs.end()), dofs.end());
  return dofs;
}

}  // namespace skograph

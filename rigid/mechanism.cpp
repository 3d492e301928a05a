#include "rigid/mechanism.hpp"

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

int Mechanism::parent_joint(int link) const {
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].child == link) return static_cast<int>(i);
  return -1;
}

}  // namespace skograph

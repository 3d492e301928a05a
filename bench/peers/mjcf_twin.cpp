// The MJCF twin of a closed-chain model (bench/peers/closed_chains.cpp): the same links, inertias,
// joints, loops and couplings written for MuJoCo in the configuration q, so that the parallel
// robots of example-parallel-robots (URDF + loop file, which MuJoCo cannot read) are timed in
// both libraries from the same numbers.
//
// MuJoCo 2.2.2 takes an equality constraint's partner point (a <connect>'s anchor on body2, a
// <weld>'s relative pose) from the model's reference configuration qpos0, so the twin is written
// in the closed configuration q: every body at its pose X_parent_child(q) = origin *
// joint_motion(q) (mechanism.hpp), each hinge and slide with ref = q (qpos0 = q), each ball at its
// identity (qpos0 = the written pose). A joint coupling q_a = r q_b + o, which MuJoCo writes
// relative to qpos0, becomes polycoef = [0, r].
//
// MuJoCo refuses moving bodies without mass, which these robots have (the crosses of spherical
// joints made of three hinges): the twin gives every body at least 1e-6 kg and 1e-9 kg m^2
// (compiler boundmass, boundinertia), which the printed mass-matrix comparison shows.
#include <tinyxml2.h>

#include <Eigen/Geometry>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "peers.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/spatial.hpp"

namespace skograph::peers {
namespace {

std::string numbers(std::initializer_list<double> values) {
  std::ostringstream text;
  text.precision(17);
  const char* separator = "";
  for (const double value : values) {
    text << separator << value;
    separator = " ";
  }
  return text.str();
}

std::string vector3(const Eigen::Vector3d& v) {
  return numbers({v.x(), v.y(), v.z()});
}

// Written through tinyxml2's printer, which escapes the names.
class Writer {
 public:
  Writer(const ClosedChainModel& model, const Eigen::VectorXd& q)
      : tree_(model.tree()), mechanism_(model.mechanism()), q_(q) {
    for (int j = 0; j < tree_.joint_count(); ++j)
      children_[mechanism_.joints[j].parent].push_back(j);
  }

  std::string write() {
    xml_.OpenElement("mujoco");
    xml_.PushAttribute("model", (mechanism_.name + "_twin").c_str());
    xml_.OpenElement("compiler");
    xml_.PushAttribute("angle", "radian");
    xml_.PushAttribute("boundmass", "1e-6");
    xml_.PushAttribute("boundinertia", "1e-9");
    xml_.CloseElement();
    xml_.OpenElement("worldbody");
    bodies_below(-1);
    xml_.CloseElement();
    xml_.OpenElement("equality");
    for (const LoopClosure& loop : mechanism_.loops) write_loop(loop);
    for (const Coupling& coupling : mechanism_.couplings) write_coupling(coupling);
    xml_.CloseElement();
    xml_.CloseElement();
    return xml_.CStr();
  }

 private:
  void attribute(const char* name, const std::string& value) {
    xml_.PushAttribute(name, value.c_str());
  }

  void bodies_below(int link) {
    const auto found = children_.find(link);
    if (found == children_.end()) return;
    for (const int j : found->second) {
      const Joint& joint = mechanism_.joints[j];
      const Link& child = mechanism_.links[joint.child];
      const int offset = tree_.joint_dof_offset(j);
      const Eigen::Isometry3d pose =
          joint.origin * joint_motion(tree_.joint_geometry(j), q_.data() + offset);
      const Eigen::Quaterniond rotation(pose.linear());
      xml_.OpenElement("body");
      attribute("name", child.name);
      attribute("pos", vector3(pose.translation()));
      attribute("quat", numbers({rotation.w(), rotation.x(), rotation.y(), rotation.z()}));
      switch (joint.type) {
        case JointType::kRevolute:
        case JointType::kContinuous:
        case JointType::kPrismatic:
          xml_.OpenElement("joint");
          attribute("name", joint.name);
          attribute("type", joint.type == JointType::kPrismatic ? "slide" : "hinge");
          attribute("axis", vector3(tree_.joint_geometry(j).axis));
          attribute("ref", numbers({q_(offset)}));
          xml_.CloseElement();
          break;
        case JointType::kSpherical:
          xml_.OpenElement("joint");
          attribute("name", joint.name);
          attribute("type", "ball");
          xml_.CloseElement();
          break;
        case JointType::kFixed:
          break;
        default:
          throw Error(std::string("no MuJoCo twin for the ") + joint_type_name(joint.type) +
                      " joint '" + joint.name + "'");
      }
      if (child.mass > 0.0) {
        const Eigen::Matrix3d& i = child.inertia;
        xml_.OpenElement("inertial");
        attribute("pos", vector3(child.center_of_mass));
        attribute("mass", numbers({child.mass}));
        attribute("fullinertia", numbers({i(0, 0), i(1, 1), i(2, 2), i(0, 1), i(0, 2), i(1, 2)}));
        xml_.CloseElement();
      }
      bodies_below(joint.child);
      xml_.CloseElement();
    }
  }

  // body1 is a link (MuJoCo's body2 may be the world, never body1); anchor in body1's frame.
  void write_loop(const LoopClosure& loop) {
    const bool parent_first = loop.parent >= 0;
    const int body1 = parent_first ? loop.parent : loop.child;
    const int body2 = parent_first ? loop.child : loop.parent;
    const Eigen::Isometry3d& frame1 = parent_first ? loop.parent_origin : loop.child_origin;
    const auto equality = [&](const char* element, const std::string& name) {
      xml_.OpenElement(element);
      attribute("name", name);
      attribute("body1", mechanism_.links[body1].name);
      if (body2 >= 0) attribute("body2", mechanism_.links[body2].name);
    };
    const auto connect = [&](const std::string& name, const Eigen::Vector3d& anchor) {
      equality("connect", name);
      attribute("anchor", vector3(anchor));
      xml_.CloseElement();
    };
    switch (loop.type) {
      case LoopType::kWeld:
        equality("weld", loop.name);
        xml_.CloseElement();
        break;
      case LoopType::kSpherical:
        connect(loop.name, frame1.translation());
        break;
      case LoopType::kRevolute: {
        // Two points on the axis held together: the hinge's five constraints (one row redundant).
        // The axis has the same coordinates in F_p and F_c (the frames turn about it).
        const Eigen::Vector3d along = frame1.linear() * loop.axis.normalized();
        connect(loop.name, frame1.translation());
        connect(loop.name + "_axis", frame1.translation() + 0.1 * along);
        break;
      }
      default:
        throw Error(std::string("no MuJoCo twin for the ") + loop_type_name(loop.type) + " loop '" +
                    loop.name + "'");
    }
  }

  void write_coupling(const Coupling& coupling) {
    if (coupling.term_count() != 1)
      throw Error("no MuJoCo twin for the differential '" + coupling.name + "'");
    for (const int j : {coupling.joint_a, coupling.joint_b})
      if (tree_.joint_dofs(j) != 1)
        throw Error("no MuJoCo twin for the coupling '" + coupling.name + "' of multi-dof joints");
    xml_.OpenElement("joint");
    attribute("name", coupling.name);
    attribute("joint1", mechanism_.joints[coupling.joint_a].name);
    attribute("joint2", mechanism_.joints[coupling.joint_b].name);
    attribute("polycoef", numbers({0.0, coupling.ratio, 0.0, 0.0, 0.0}));
    xml_.CloseElement();
  }

  const RigidBodyModel& tree_;
  const Mechanism& mechanism_;
  const Eigen::VectorXd& q_;
  std::map<int, std::vector<int>> children_;  // link (-1 = world) -> joints below it, file order
  tinyxml2::XMLPrinter xml_;
};

}  // namespace

std::string mjcf_twin(const ClosedChainModel& model, const Eigen::VectorXd& q) {
  return Writer(model, q).write();
}

}  // namespace skograph::peers

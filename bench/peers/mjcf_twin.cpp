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

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

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

std::string pose_attributes(const Eigen::Isometry3d& pose) {
  const Eigen::Vector3d p = pose.translation();
  const Eigen::Quaterniond r(pose.linear());
  return "pos=\"" + numbers({p.x(), p.y(), p.z()}) + "\" quat=\"" +
         numbers({r.w(), r.x(), r.y(), r.z()}) + "\"";
}

class Writer {
 public:
  Writer(const ClosedChainModel& model, const Eigen::VectorXd& q)
      : tree_(model.tree()), mechanism_(model.mechanism()), q_(q) {
    for (int j = 0; j < tree_.joint_count(); ++j)
      children_[mechanism_.joints[j].parent].push_back(j);
  }

  std::string write() {
    xml_ << "<mujoco model=\"" << escaped(mechanism_.name) << "_twin\">\n"
         << "  <compiler angle=\"radian\" boundmass=\"1e-6\" boundinertia=\"1e-9\"/>\n"
         << "  <worldbody>\n";
    bodies_below(-1, 2);
    xml_ << "  </worldbody>\n  <equality>\n";
    for (const LoopClosure& loop : mechanism_.loops) write_loop(loop);
    for (const Coupling& coupling : mechanism_.couplings) write_coupling(coupling);
    xml_ << "  </equality>\n</mujoco>\n";
    return xml_.str();
  }

 private:
  void bodies_below(int link, int depth) {
    const auto found = children_.find(link);
    if (found == children_.end()) return;
    for (const int j : found->second) {
      const Joint& joint = mechanism_.joints[j];
      const Link& child = mechanism_.links[joint.child];
      const int offset = tree_.joint_dof_offset(j);
      const Eigen::Isometry3d pose =
          joint.origin * joint_motion(tree_.joint_geometry(j), q_.data() + offset);
      const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
      xml_ << indent << "<body name=\"" << escaped(child.name) << "\" " << pose_attributes(pose)
           << ">\n";
      const Eigen::Vector3d axis = tree_.joint_geometry(j).axis;
      switch (joint.type) {
        case JointType::kRevolute:
        case JointType::kContinuous:
        case JointType::kPrismatic:
          xml_ << indent << "  <joint name=\"" << escaped(joint.name) << "\" type=\""
               << (joint.type == JointType::kPrismatic ? "slide" : "hinge") << "\" axis=\""
               << numbers({axis.x(), axis.y(), axis.z()}) << "\" ref=\"" << numbers({q_(offset)})
               << "\"/>\n";
          break;
        case JointType::kSpherical:
          xml_ << indent << "  <joint name=\"" << escaped(joint.name) << "\" type=\"ball\"/>\n";
          break;
        case JointType::kFixed:
          break;
        default:
          throw Error(std::string("no MuJoCo twin for the ") + joint_type_name(joint.type) +
                      " joint '" + joint.name + "'");
      }
      if (child.mass > 0.0) {
        const Eigen::Matrix3d& i = child.inertia;
        const Eigen::Vector3d& c = child.center_of_mass;
        xml_ << indent << "  <inertial pos=\"" << numbers({c.x(), c.y(), c.z()}) << "\" mass=\""
             << numbers({child.mass}) << "\" fullinertia=\""
             << numbers({i(0, 0), i(1, 1), i(2, 2), i(0, 1), i(0, 2), i(1, 2)}) << "\"/>\n";
      }
      bodies_below(joint.child, depth + 1);
      xml_ << indent << "</body>\n";
    }
  }

  // body1 is a link (MuJoCo's body2 may be the world, never body1); anchor in body1's frame.
  void write_loop(const LoopClosure& loop) {
    const bool parent_first = loop.parent >= 0;
    const int body1 = parent_first ? loop.parent : loop.child;
    const int body2 = parent_first ? loop.child : loop.parent;
    const Eigen::Isometry3d& frame1 = parent_first ? loop.parent_origin : loop.child_origin;
    const std::string bodies =
        "body1=\"" + escaped(mechanism_.links[body1].name) + "\"" +
        (body2 >= 0 ? " body2=\"" + escaped(mechanism_.links[body2].name) + "\"" : std::string());
    const auto connect = [&](const std::string& name, const Eigen::Vector3d& anchor) {
      xml_ << "    <connect name=\"" << escaped(name) << "\" " << bodies << " anchor=\""
           << numbers({anchor.x(), anchor.y(), anchor.z()}) << "\"/>\n";
    };
    switch (loop.type) {
      case LoopType::kWeld:
        xml_ << "    <weld name=\"" << escaped(loop.name) << "\" " << bodies << "/>\n";
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
    xml_ << "    <joint name=\"" << escaped(coupling.name) << "\" joint1=\""
         << escaped(mechanism_.joints[coupling.joint_a].name) << "\" joint2=\""
         << escaped(mechanism_.joints[coupling.joint_b].name) << "\" polycoef=\""
         << numbers({0.0, coupling.ratio, 0.0, 0.0, 0.0}) << "\"/>\n";
  }

  const RigidBodyModel& tree_;
  const Mechanism& mechanism_;
  const Eigen::VectorXd& q_;
  std::map<int, std::vector<int>> children_;  // link (-1 = world) -> joints below it, file order
  std::ostringstream xml_;
};

}  // namespace

std::string mjcf_twin(const ClosedChainModel& model, const Eigen::VectorXd& q) {
  return Writer(model, q).write();
}

}  // namespace skograph::peers

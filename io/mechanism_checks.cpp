#include "mechanism_checks.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <sstream>

namespace skograph::io {

void fail(const SourceLocation& where, const std::string& problem) {
  throw InputError(where.source, where.line, problem);
}

void require_finite(const SourceLocation& where, const std::string& what, double value) {
  if (!std::isfinite(value)) fail(where, what + " is not a finite number");
}

void require_finite(const SourceLocation& where, const std::string& what,
                    const Eigen::Vector3d& v) {
  if (!v.allFinite()) fail(where, what + " has a component that is not a finite number");
}

Eigen::Isometry3d frame_from_xyz_rpy(const Eigen::Vector3d& xyz, const Eigen::Vector3d& rpy) {
  Eigen::Isometry3d frame = Eigen::Isometry3d::Identity();
  frame.linear() = (Eigen::AngleAxisd(rpy.z(), Eigen::Vector3d::UnitZ()) *
                    Eigen::AngleAxisd(rpy.y(), Eigen::Vector3d::UnitY()) *
                    Eigen::AngleAxisd(rpy.x(), Eigen::Vector3d::UnitX()))
                       .toRotationMatrix();
  frame.translation() = xyz;
  return frame;
}

void InertiaAudit::check(const SourceLocation& where, Link& link) {
  const std::string owner = "link '" + link.name + "'";
  require_finite(where, owner + " mass", link.mass);
  if (link.mass < 0.0) {
    std::ostringstream problem;
    problem << owner << " has negative mass " << link.mass;
    fail(where, problem.str());
  }
  require_finite(where, owner + " center of mass", link.center_of_mass);
  if (!link.inertia.allFinite())
    fail(where, owner + " inertia has an entry that is not a finite number");
  const InertiaConsistency consistency = inertia_consistency(link.mass, link.inertia);
  if (consistency == InertiaConsistency::kConsistent) return;
  if (strict_) {
    const Eigen::Vector3d moments =
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(link.inertia).eigenvalues();
    std::ostringstream problem;
    problem << owner << " inertia " << inertia_consistency_text(consistency)
            << " (principal moments " << moments(0) << ", " << moments(1) << ", " << moments(2)
            << ", mass " << link.mass << "; --strict refuses physically inconsistent inertias)";
    fail(where, problem.str());
  }
  if (consistency == InertiaConsistency::kRotationalInertiaNoMass) {
    link.inertia.setZero();
    link.center_of_mass.setZero();
  }
  accepted_.emplace_back(link.name, consistency);
}

void InertiaAudit::report(Mechanism& mechanism) const {
  if (accepted_.empty()) return;
  std::string line = "physically inconsistent inertias accepted (--strict refuses them):";
  const char* separator = " ";
  for (const InertiaConsistency kind :
       {InertiaConsistency::kNotPositiveSemidefinite, InertiaConsistency::kViolatesTriangle,
        InertiaConsistency::kRotationalInertiaNoMass}) {
    std::string names;
    int count = 0;
    for (const auto& [name, consistency] : accepted_) {
      if (consistency != kind) continue;
      names += (count++ ? ", " : "") + name;
    }
    if (count == 0) continue;
    line += separator + std::string(inertia_consistency_text(kind)) + " (" + std::to_string(count) +
            (count == 1 ? " link" : " links") +
            (kind == InertiaConsistency::kRotationalInertiaNoMass ? ", treated as massless" : "") +
            "): " + names;
    separator = "; ";
  }
  mechanism.warnings.push_back(line);
}

Eigen::Vector3d unit_axis(const SourceLocation& where, const std::string& owner,
                          const Eigen::Vector3d& axis) {
  require_finite(where, owner + " axis", axis);
  const double length = axis.norm();
  if (!(length > 1e-12)) fail(where, owner + " has a zero-length axis");
  return axis / length;
}

void check_tree(const std::string& source, const Mechanism& mechanism,
                const std::vector<int>& joint_lines, const std::vector<int>& link_lines) {
  const int n = static_cast<int>(mechanism.links.size());
  auto line_of = [&](int j) {
    return j < static_cast<int>(joint_lines.size()) ? joint_lines[j] : 0;
  };
  std::vector<int> parent_joint(n, -1);
  for (int j = 0; j < static_cast<int>(mechanism.joints.size()); ++j) {
    const Joint& joint = mechanism.joints[j];
    if (joint.child == joint.parent)
      fail({source, line_of(j)}, "joint '" + joint.name + "' connects link '" +
                                     mechanism.links[joint.child].name + "' to itself");
    if (parent_joint[joint.child] >= 0)
      fail({source, line_of(j)},
           "link '" + mechanism.links[joint.child].name + "' has two parents (joints '" +
               mechanism.joints[parent_joint[joint.child]].name + "' and '" + joint.name + "')");
    parent_joint[joint.child] = j;
  }
  for (int k = 0; k < n; ++k)
    if (parent_joint[k] < 0)
      fail({source, k < static_cast<int>(link_lines.size()) ? link_lines[k] : 0},
           "link '" + mechanism.links[k].name +
               "' is the child of no joint (attach it to 'world' or another link)");
  // Walk up from every link until a link known to reach the world: O(n) overall. A link met twice
  // on one walk lies on a cycle of tree joints.
  std::vector<char> state(n, 0);  // 0 unknown, 1 on the current walk, 2 reaches the world
  std::vector<int> walk;
  for (int k = 0; k < n; ++k) {
    walk.clear();
    int link = k;
    while (link >= 0 && state[link] != 2) {
      if (state[link] == 1)
        fail({source, line_of(parent_joint[link])},
             "the joints above link '" + mechanism.links[link].name +
                 "' form a cycle that never reaches the world");
      state[link] = 1;
      walk.push_back(link);
      link = mechanism.joints[parent_joint[link]].parent;
    }
    for (int visited : walk) state[visited] = 2;
  }
}

bool usable_visual(Mechanism& mechanism, const std::string& owner, Visual& visual) {
  std::string problem;
  if (!visual.origin.matrix().allFinite())
    problem = "its pose has a number that is not finite";
  else if (!visual.size.allFinite() || !visual.scale.allFinite())
    problem = "its size or scale has a number that is not finite";
  else if ((visual.size.array() < 0.0).any())
    problem = std::string("its ") + visual_shape_name(visual.shape) + " has a negative size";
  if (!problem.empty()) {
    mechanism.warnings.push_back(owner + " is not drawn: " + problem);
    return false;
  }
  if (!visual.rgba.allFinite()) visual.rgba = {0.0, 0.0, 0.0, -1.0};  // no colour
  if (visual.rgba(3) >= 0.0) visual.rgba = visual.rgba.cwiseMax(0.0).cwiseMin(1.0);
  return true;
}

}  // namespace skograph::io

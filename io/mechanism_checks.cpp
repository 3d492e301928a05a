#include "io/mechanism_checks.hpp"

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

void check_link_inertia(const SourceLocation& where, const Link& link) {
  const std::string owner = "link '" + link.name + "'";
  require_finite(where, owner + " mass", link.mass);
  if (link.mass <= 0.0) {
    std::ostringstream problem;
    problem << owner << " has non-positive mass " << link.mass;
    fail(where, problem.str());
  }
  require_finite(where, owner + " center of mass", link.center_of_mass);
  if (!link.inertia.allFinite())
    fail(where, owner + " inertia has an entry that is not a finite number");
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver(link.inertia);
  const Eigen::Vector3d moments = solver.eigenvalues();  // ascending
  const double scale = moments.cwiseAbs().maxCoeff();
  if (!(moments(0) > 1e-12 * scale) || scale == 0.0) {
    std::ostringstream problem;
    problem << owner << " inertia is not positive definite (principal moments " << moments(0)
            << ", " << moments(1) << ", " << moments(2) << ")";
    fail(where, problem.str());
  }
  // The largest moment bounds the triangle inequality; a relative tolerance admits thin rods and
  // flat plates given with rounded numbers.
  if (moments(2) > (moments(0) + moments(1)) * (1.0 + 1e-9)) {
    std::ostringstream problem;
    problem << owner << " inertia violates the triangle inequality (principal moments "
            << moments(0) << ", " << moments(1) << ", " << moments(2)
            << ": the largest exceeds the "
            << "sum of the other two)";
    fail(where, problem.str());
  }
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

}  // namespace skograph::io

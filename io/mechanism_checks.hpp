// Checks and frame helpers shared by the mechanism readers (URDF, YAML). Every check throws
// skograph::InputError(source, line, problem) so that the message names the file and, where the
// reader knows it, the 1-based line.
#pragma once

#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "skograph/graph/digraph.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph::io {

// Where a problem was found: file and 1-based line (0 when unknown).
struct SourceLocation {
  std::string source;
  int line = 0;
};

[[noreturn]] void fail(const SourceLocation& where, const std::string& problem);

// Throws unless every entry is finite; `what` names the quantity in the message.
void require_finite(const SourceLocation& where, const std::string& what, double value);
void require_finite(const SourceLocation& where, const std::string& what, const Eigen::Vector3d& v);

// The frame with translation xyz and URDF fixed-axis roll-pitch-yaw rotation
// R = Rz(yaw) Ry(pitch) Rx(roll).
Eigen::Isometry3d frame_from_xyz_rpy(const Eigen::Vector3d& xyz, const Eigen::Vector3d& rpy);

// Mass properties as robots ship them: a negative mass and non-finite numbers are
// errors; a zero mass makes the link a massless frame; physically inconsistent inertias
// (rigid/mechanism.hpp: inertia_consistency) are refused at their line when `strict`, otherwise
// remembered and reported once per file by report(). A rotational inertia without mass is
// dropped (the link is a frame).
class InertiaAudit {
 public:
  explicit InertiaAudit(bool strict) : strict_(strict) {}
  void check(const SourceLocation& where, Link& link);
  // Adds one line to mechanism.warnings listing the accepted inconsistent links, if any.
  void report(Mechanism& mechanism) const;

 private:
  bool strict_;
  std::vector<std::pair<std::string, InertiaConsistency>> accepted_;
};

// The unit vector along `axis`; zero-length (or non-finite) axes are rejected.
Eigen::Vector3d unit_axis(const SourceLocation& where, const std::string& owner,
                          const Eigen::Vector3d& axis);

// Visuals are pictures only, so a bad one never stops a model: true when the visual's numbers are
// finite and its sizes not negative (its colour clamped into [0, 1]); otherwise false, and one
// warning "OWNER is not drawn: PROBLEM" (`owner`: "link 'arm' visual 2 (line 14)").
bool usable_visual(Mechanism& mechanism, const std::string& owner, Visual& visual);

// Every link is the child of exactly one joint and reaches the world through its ancestors (no
// cycle among the tree joints). joint_lines[j] / link_lines[k] are the lines of joint j / link k
// (0 or absent when unknown).
void check_tree(const std::string& source, const Mechanism& mechanism,
                const std::vector<int>& joint_lines, const std::vector<int>& link_lines = {});

}  // namespace skograph::io

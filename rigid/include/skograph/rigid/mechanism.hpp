// Mechanism: the file-format-neutral description of a rigid multibody system, as URDF and the
// native YAML format give it (io/ fills it; rigid/ turns it into SKO models). Plain data.
//
// Frames (conventions.md, "Spatial quantities"): every link has a frame; the body frame O_k of a
// link is its link frame, which for a child link is the joint frame after the joint's motion:
//   X_parent_child(q) = origin * joint_motion(q)
// with `origin` the joint frame in the parent link's frame at q = 0 (URDF <origin>). Link index -1
// is the inertial frame ("world").
//
// Coordinates of multi-dof joints: q has one entry per dof, so q, qd and qdd line up with the dof
// names (`joint:0`, `joint:1`, ...):
//   planar     q = [x, y, theta]: translation along the joint frame's x, y after rotating the plane
//              so that `axis` is its normal, then rotation theta about `axis`; qd = dq/dt
//   spherical  q = rotation vector (exponential coordinates, radians) of the child relative to the
//              joint frame; qd, qdd = angular velocity / acceleration in the child frame
//   floating   q = [rotation vector (3), position of the child origin in the joint frame (3)];
//              qd = the child's spatial velocity [omega; v] in its own frame (conventions.md),
//              qdd its derivative in that frame
#pragma once

#include <Eigen/Geometry>
#include <memory>
#include <string>
#include <vector>

#include "skograph/rigid/modal_body.hpp"
#include "skograph/rigid/visual.hpp"

namespace skograph {

enum class JointType { kFixed, kRevolute, kContinuous, kPrismatic, kPlanar, kSpherical, kFloating };

// Degrees of freedom of a joint type: 0, 1, 1, 1, 3, 3, 6.
int joint_dof_count(JointType type);
// "fixed", "revolute", "continuous", "prismatic", "planar", "spherical", "floating".
const char* joint_type_name(JointType type);

struct Link {
  std::string name;
  double mass = 0.0;
  Eigen::Vector3d center_of_mass = Eigen::Vector3d::Zero();  // in the link frame
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();         // about the center of mass, link axes
  // The link frame the file declares, in this link frame: the identity unless the tree reversed
  // the joint into the link (rigid/tree_joint_choice.hpp), which makes the link frame that
  // joint's frame. The link's name names the declared frame (Mechanism::locate_frame).
  Eigen::Isometry3d declared_frame = Eigen::Isometry3d::Identity();
  // The modal data of a flexible link (docs/flexible-bodies.md); null for a rigid link.
  std::shared_ptr<const ModalBody> flexible;
  // What the link looks like (pictures only), each visual's frame in this link frame.
  std::vector<Visual> visuals;
};

struct Joint {
  std::string name;
  JointType type = JointType::kFixed;
  int parent = -1;                                           // link index, -1 = world
  int child = -1;                                            // link index
  Eigen::Isometry3d origin = Eigen::Isometry3d::Identity();  // joint frame in the parent link frame
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();           // unit, in the joint frame
  double lower = -1e300, upper = 1e300;                      // position limits (informational)
};

// A loop closure (a cut edge of the standard digraph): frame F_p on `parent` and F_c on `child`
// coincide up to the motion the loop joint allows (the frames coincide at the joint's zero).
enum class LoopType { kRevolute, kPrismatic, kSpherical, kWeld };
const char* loop_type_name(LoopType type);

struct LoopClosure {
  std::string name;
  LoopType type = LoopType::kWeld;
  int parent = -1;                                                  // link carrying F_p, -1 = world
  int child = -1;                                                   // link carrying F_c, -1 = world
  Eigen::Isometry3d parent_origin = Eigen::Isometry3d::Identity();  // F_p in the parent link frame
  Eigen::Isometry3d child_origin = Eigen::Isometry3d::Identity();   // F_c in the child link frame
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();                  // in F_p (revolute, prismatic)
  int source_line = 0;      // 1-based line in the file that declared it, 0 when unknown
  std::string source_file;  // that file when not the model file (a loop file), else empty
};

// A joint coupling (a cut edge between joint a's child link and each other joint's):
// gear q[a] = ratio * q[b] + offset (a URDF <mimic joint="b" multiplier="ratio" offset="offset"/>
// on joint a, a MuJoCo joint equality with polycoef = [offset, ratio]); differential
// q[a] = ratio * q[b] + sum_i further_ratios[i] * q[further_joints[i]] + offset (one constraint
// over three or more hinges: constraint-embedding section 9; URDF+ couplings along chains).
struct Coupling {
  std::string name;
  std::string type = "gear";  // "gear" or "differential"
  int joint_a = -1;           // the driving joint ("motor"; the mimicking joint of a URDF <mimic>)
  int joint_b = -1;           // the driven joint ("link"; the mimicked joint)
  double ratio = 1.0;
  std::vector<int> further_joints;  // a differential's other joints
  std::vector<double> further_ratios;
  double offset = 0.0;  // per dof
  int source_line = 0;

  // The joints on the right-hand side with their ratios: term 0 is (joint_b, ratio), then the
  // further ones.
  int term_count() const { return 1 + static_cast<int>(further_joints.size()); }
  int term_joint(int i) const {
    return i == 0 ? joint_b : further_joints[static_cast<std::size_t>(i - 1)];
  }
  double term_ratio(int i) const {
    return i == 0 ? ratio : further_ratios[static_cast<std::size_t>(i - 1)];
  }
};

// A named frame fixed on a link: a link fused into its parent body (rigid/fixed_body_fusion.hpp),
// an MJCF <site>, an SDF <frame>. Frames carry no mass and move with their link.
struct Frame {
  std::string name;
  int link = -1;                                           // -1 = world
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();  // in the link frame
  // The name of a fixed joint fused away, standing for its child link's frame: found by name
  // (locate_frame), not listed among the frames.
  bool joint_alias = false;
};

// Whether a link's mass properties describe a real rigid body (readers warn or refuse).
enum class InertiaConsistency {
  kConsistent,
  kNotPositiveSemidefinite,  // a principal moment about the center of mass is negative
  kViolatesTriangle,         // the largest principal moment exceeds the sum of the other two
  kRotationalInertiaNoMass,  // zero mass with a nonzero rotational inertia
};
// kConsistent for massless links with zero inertia and for point masses (zero inertia). The
// tolerances are relative to the largest principal moment: 1e-14 for the sign (the eigensolver's
// rounding of a zero moment; a CAD export's -1e-12 is reported), 1e-9 for the triangle
// inequality (thin rods and flat plates written with rounded numbers are consistent).
InertiaConsistency inertia_consistency(double mass, const Eigen::Matrix3d& inertia);
// "not positive semi-definite", "violates the triangle inequality", "rotational inertia without
// mass"; "" for kConsistent.
const char* inertia_consistency_text(InertiaConsistency consistency);

struct Mechanism {
  std::string name;
  std::string source;         // file it was read from (for messages)
  std::vector<Link> links;    // in file order
  std::vector<Joint> joints;  // tree joints, in file order; each link has at most one parent joint
  std::vector<LoopClosure> loops;
  std::vector<Coupling> couplings;
  std::vector<Frame> frames;  // named frames beyond the links (fused links, sites)
  // Links fused into the world (rigid/fixed_body_fusion.hpp): no dynamics, but their mass and
  // its first moment (m c, world coordinates) count in the total mass and centre of mass.
  double static_mass = 0.0;
  Eigen::Vector3d static_first_moment = Eigen::Vector3d::Zero();
  // What the reader accepted but the user should know (inconsistent inertias, ...): one line
  // each, without the file name; the command line prints them as one warning line per file.
  std::vector<std::string> warnings;
  // The coordinates the user wants independent in closed chains (the actuated joints):
  // joint names (all their dofs) or dof names ("joint:k"); the YAML key `independent:` or the
  // command line's --independent. Empty: the preferred coordinates below, else the structural
  // split where the constraints split, else the rank-revealing choice (closed-chains.md).
  std::vector<std::string> independent;
  // Coordinates to prefer as independent when `independent` is empty (a loop file's name_mot, the
  // URDF+ `independent` attribute, the masters of URDF <mimic> joints), most wanted first: joint or
  // dof names. A closed chain keeps as many of them as its loops leave free and names the others
  // in one note (ClosedChainModel::notes); they never make a model fail.
  std::vector<std::string> preferred_independent;
  // What the reader noticed that is not a warning (a name_mot joint dropped, ...): one line each.
  std::vector<std::string> notes;

  int find_link(const std::string& name) const;   // -1 when absent ("world" is never a link)
  int find_joint(const std::string& name) const;  // -1 when absent
  // A link (its own frame), a named frame, or a joint (its child link's frame, as in URDF): the
  // link it is fixed on (-1 = world) and its pose in that link's frame. False when nothing has
  // the name.
  bool locate_frame(const std::string& name, int& link, Eigen::Isometry3d& pose) const;
  // The joint whose child is link k, or -1 (every link of a valid mechanism has exactly one: a
  // URDF root link that is not "world" gets a fixed joint to the world when read).
  int parent_joint(int link) const;
};

// Gives link k a new frame, which sits at `moved` in its old frame: its mass properties, declared
// frame, the named frames and loop frames on it are re-expressed (the joints are the caller's).
void move_link_frame(Mechanism& mechanism, int k, const Eigen::Isometry3d& moved);

// The modal coordinates joint j brings into q: its child link's modes when that link is flexible,
// else 0.
int child_mode_count(const Mechanism& mechanism, int joint);

// The coordinates joint j brings into q: its own dofs (joint_dof_count), then its child link's
// modal coordinates.
int joint_coordinate_count(const Mechanism& mechanism, int joint);

// Dof names in dof order (joints in mechanism order, then each joint's dofs): a 1-dof joint's dof
// is named after the joint, a multi-dof joint's `joint:0`, `joint:1`, ...; a flexible child link's
// modal coordinates follow its joint's dofs as `LINK:eta1`, `LINK:eta2`, ...
std::vector<std::string> dof_names(const Mechanism& mechanism);

// The dofs (offsets in the joints' order: joint j's coordinates follow those of joints 0..j-1) that
// the names of Mechanism::independent denote, increasing, without repeats. std::invalid_argument
// "independent: 'x' is not a joint of the mechanism" for a name that is neither a joint nor a dof
// ("joint:k") of a moving joint.
std::vector<int> named_dofs(const Mechanism& mechanism, const std::vector<std::string>& names);

}  // namespace skograph

// The loop files of the example-parallel-robots collection: a YAML file beside the robot's URDF
// that closes the loops the URDF cannot say (`skograph ... --loops robot.yaml`, the native YAML's
// `loops_file:`, ReadOptions::loops_file, Python's load_model(path, loops=...)).
//
//   closed_loop: [[frame_a, frame_b], ...]   pairs of frames that coincide: a frame is a link, or a
//                                            joint meaning its child link's frame
//   type: [6d, 3d, ...]                      per pair (any case): 6d position and orientation (a
//                                            weld loop), 3d position only (a spherical loop)
//   name_mot: [joint, ...]                   the actuated joints: the preferred independent
//                                            coordinates (Mechanism::preferred_independent)
//   joint_name: [joint, ...]                 joints to turn, before the loops are closed, into
//   joint_type: [SPHERICAL, ...]             SPHERICAL (a ball joint at the joint's frame),
//                                            UJOINT_ab (two revolutes: about the joint frame's a
//                                            axis, then about the moving frame's b axis, a and b
//                                            in X, Y, Z; named JOINT_a and JOINT_b, through a
//                                            massless link JOINT_cross), FIXED
//
// The loops are named loop1, loop2, ... in the file's order. A joint_name the URDF lacks is a
// warning (published files carry such typos); everything else wrong (an unknown key, a pair
// naming a missing frame, a type that is not 3d or 6d, lists of different lengths, a name_mot
// that is not a joint) is an InputError naming the file and the line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// A loop file read once: its bytes checked and its YAML parsed (InputError naming the file and
// line for what reading refuses), what it says checked when it is applied to its URDF's mechanism.
class LoopFile {
 public:
  static LoopFile read(const std::string& path);
  static LoopFile parse(const std::string& text, const std::string& source);
  const std::string& source() const { return source_; }
  // The name_mot list as written, known before the model is read so that the actuated joints
  // stay in the tree the model's reader chooses (ReadOptions::tree_joints); empty when the file
  // has none or it is not a list of names (apply reports that).
  const std::vector<std::string>& actuated_joints() const { return actuated_; }
  // Applies the file to `mechanism`, the mechanism of its URDF as read: joint conversions, then
  // one loop per pair, then the preferred independent coordinates.
  void apply(Mechanism& mechanism) const;

  struct Document;  // the parsed YAML (loop_file.cpp)

 private:
  std::string source_;
  std::shared_ptr<const Document> document_;
  std::vector<std::string> actuated_;
};

}  // namespace skograph

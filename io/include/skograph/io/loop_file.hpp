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

#include <string>
#include <vector>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// Applies the loop file at `path` (or its text, named `source`) to `mechanism`, the mechanism of
// its URDF as read: joint conversions, then one loop per pair, then the preferred independent
// coordinates.
void apply_loop_file(const std::string& path, Mechanism& mechanism);
void apply_loop_text(const std::string& text, const std::string& source, Mechanism& mechanism);

// The name_mot list of the loop file at `path`, read before its model so that the actuated
// joints stay in the tree the model's reader chooses (ReadOptions::tree_joints); empty when the
// file has none or cannot be read (apply_loop_file reports that).
std::vector<std::string> loop_file_actuated_joints(const std::string& path);

}  // namespace skograph

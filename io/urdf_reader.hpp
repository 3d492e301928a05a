// URDF input (urdfdom): links, inertials, joints (revolute, continuous, prismatic, fixed, floating,
// planar), origins and axes, as a skograph::Mechanism.
//
// The root: if the URDF's root link is named "world", it is the inertial frame (not a link) and the
// joints leaving it attach the bases (e.g. a floating joint for a free-flying robot). Otherwise the
// root link is welded to the world, as in the ROS tools, by an added fixed joint named
// "<root>_to_world" (underscores appended while the name is taken), listed first.
//
// A link without <inertial> is massless (frames such as tool flanges); an <inertial> must have a
// positive mass and a physical inertia (positive definite, triangle inequality). The inertia is
// rotated from the <inertial> frame into the link frame and kept about the center of mass.
//
// Errors throw skograph::InputError(file, line, problem): the line of the offending element when
// the XML pre-scan (TinyXML, urdfdom's own XML parser) knows it, else 0.
#pragma once

#include <string>

#include "rigid/mechanism.hpp"

namespace skograph {

Mechanism read_urdf_file(const std::string& path);
Mechanism parse_urdf(const std::string& text, const std::string& source);

}  // namespace skograph

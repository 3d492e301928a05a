// URDF input (urdfdom): links, inertials, joints (revolute, continuous, prismatic, fixed, floating,
// planar), origins and axes, as a skograph::Mechanism.
//
// The root: if the URDF's root link is named "world", it is the inertial frame (not a link) and the
// joints leaving it attach the bases (e.g. a floating joint for a free-flying robot). Otherwise the
// root link is welded to the world, as in the ROS tools, by an added fixed joint named
// "<root>_to_world" (underscores appended while the name is taken), listed first.
//
// A link without <inertial>, or with mass 0, is a massless frame (tool flanges, sensor frames);
// negative masses and non-finite numbers are errors; physically inconsistent inertias are accepted
// with one warning (Mechanism::warnings) unless options.strict (io/mechanism_checks.hpp:
// InertiaAudit). The inertia is rotated from the <inertial> frame into the link frame and kept
// about the center of mass. A <mimic joint="a" multiplier="k" offset="c"/> on joint b becomes the
// gear coupling q[b] = k q[a] + c, named after b (embedded exactly by rigid/closed_chain_model).
//
// Errors throw skograph::InputError(file, line, problem): the line of the offending element when
// the XML pre-scan (TinyXML, urdfdom's own XML parser) knows it, else 0.
#pragma once

#include <string>

#include "skograph/io/read_options.hpp"
#include "skograph/rigid/mechanism.hpp"

namespace skograph {

Mechanism read_urdf_file(const std::string& path, const ReadOptions& options = {});
Mechanism parse_urdf(const std::string& text, const std::string& source,
                     const ReadOptions& options = {});

}  // namespace skograph

// The gravity vectors the rigid tests share (one definition for sources compiled in one unit).
#pragma once

#include <Eigen/Core>

namespace skograph::testing_support {

inline const Eigen::Vector3d kGravityDownY(0.0, -9.81, 0.0);  // planar mechanisms in x-y
inline const Eigen::Vector3d kGravityDownZ(0.0, 0.0, -9.81);

}  // namespace skograph::testing_support

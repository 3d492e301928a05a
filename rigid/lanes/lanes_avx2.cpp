// The lane kernels on AVX2: four states per register (compiled with -mavx2;
// lane_kernels.hpp, lane_articulated.hpp,
// lane_composite.hpp, lane_derivatives.hpp, lane_forward_derivatives.hpp).
#ifndef __AVX2__
#error "lanes_avx2.cpp needs -mavx2"
#endif
#define SKOGRAPH_LANE_NS avx2
#define SKOGRAPH_LANE_ARCH xsimd::avx2
#include "lane_articulated.hpp"
#include "lane_composite.hpp"
#include "lane_derivatives.hpp"
#include "lane_forward_derivatives.hpp"
#include "lane_kernels.hpp"

namespace skograph::lanes::SKOGRAPH_LANE_NS {
extern const Kernels kernels;
const Kernels kernels = {W,
                         &joint_transforms,
                         &inverse_dynamics,
                         &mass_matrix,
                         &forward_dynamics,
                         &inverse_dynamics_derivatives,
                         &forward_dynamics_derivatives};
}  // namespace skograph::lanes::SKOGRAPH_LANE_NS

// The lane kernels on AVX-512: eight states per register (compiled with -mavx512f;
// lane_kernels.hpp, lane_articulated.hpp,
// lane_composite.hpp, lane_derivatives.hpp, lane_forward_derivatives.hpp).
#ifndef __AVX512F__
#error "lanes_avx512.cpp needs -mavx512f"
#endif
#define SKOGRAPH_LANE_NS avx512
#define SKOGRAPH_LANE_ARCH xsimd::avx512f
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

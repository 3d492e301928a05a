// The lane kernels on AVX-512: eight states per register (compiled with -mavx512f,
// lane_kernels.hpp).
#ifndef __AVX512F__
#error "lanes_avx512.cpp needs -mavx512f"
#endif
#define SKOGRAPH_LANE_NS avx512
#define SKOGRAPH_LANE_ARCH xsimd::avx512f
#include "lane_kernels.hpp"

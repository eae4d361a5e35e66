// The distribution the attention variant tests share, as a user would write it beside the
// example: BLOCK_M queries per workgroup split over waves of WAVE_M rows, one batch element
// and head per workgroup (grid z and y), key tiles of BLOCK_K2.
#pragma once

#include <wave/wave.hpp>

#include "kernels/flash_attention.hpp"

namespace attention_tests {
using namespace wave;
using namespace examples::flash_attention;

WAVE_SYMBOL(WAVE_M);

constexpr double kLog2e = 1.4426950408889634;

inline Constraints attention_constraints() {
  return Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(H, 1, 1), WorkgroupConstraint(B, 1, 2),
                     TilingConstraint(K2, BLOCK_K2), WaveConstraint(M, WAVE_M),
                     HardwareConstraint{.vector_shapes = {{B, 0}, {H, 0}}}};  // the target's waves and MMA kind
}

}  // namespace attention_tests

// Elementwise copy: the smallest kernel. Each workgroup copies a BLOCK_M x BLOCK_N tile;
// the compiler masks the edge tiles when M or N does not divide.
#pragma once

#include <wave/wave.hpp>

namespace examples::copy {
using namespace wave;

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);

inline auto make_kernel() {
  return kernel("copy",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                            WaveConstraint(M, BLOCK_M), WaveConstraint(N, BLOCK_N),
                            HardwareConstraint{}},
                [](Memory<dims<M, N>, f16> a, Memory<dims<M, N>, f16> b) {
                  auto tile = read(a);
                  write(tile, b);
                });
}

inline CompileOptions default_options() {
  return {.subs = {{M, 4096}, {N, 4096}, {BLOCK_M, 1}, {BLOCK_N, 1024}}};
}

}  // namespace examples::copy

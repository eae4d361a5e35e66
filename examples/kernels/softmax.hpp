// Softmax over the rows of x[M, N]: y = exp(x - max) / sum(exp(x - max)), computed in f32
// with base-2 exponentials (log2(e) folded into the input's scale). Each workgroup owns
// BLOCK_M whole rows (BLOCK_N must cover N); WAVE_N elements of a row per wave, so a row's
// reductions combine across BLOCK_N / WAVE_N waves.
#pragma once

#include <cmath>

#include <wave/wave.hpp>

namespace examples::softmax {
using namespace wave;

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(WAVE_N);

// `facts`: Assumptions to add; a dynamic N needs one that it fits a workgroup:
//   make_kernel({Assumption(N <= BLOCK_N)})
inline auto make_kernel(std::initializer_list<Assumption> facts = {}) {
  Constraints constraints{WorkgroupConstraint(M, BLOCK_M, 1), WorkgroupConstraint(N, BLOCK_N, 0),
                          WaveConstraint(M, 1), WaveConstraint(N, WAVE_N), HardwareConstraint{}};
  for (const Assumption& fact : facts) constraints += fact;
  return kernel("softmax", constraints,
                [](Memory<dims<M, N>, f16> x, Memory<dims<M, N>, f16> y) {
                  auto scaled = cast<f32>(read(x)) * M_LOG2E;
                  auto e = exp2(scaled - max<N>(scaled));
                  write(cast<f16>(e * reciprocal(sum<N>(e))), y);
                });
}

// [4096, 4099]: one row per workgroup, 8 waves of 768 elements (3 steps of 256).
inline CompileOptions default_options() {
  return {.subs = {{M, 4096}, {N, 4099}, {BLOCK_M, 1}, {BLOCK_N, 6144}, {WAVE_N, 768}}};
}

}  // namespace examples::softmax

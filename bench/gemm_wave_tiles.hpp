// The example's GEMM with the wave tiles as symbols too (WAVE_M, WAVE_N), so the number of
// waves is a hyperparameter: what wave-bench-gemm tunes and wave-bench-compile compiles.
// In (f16 or bf16) inputs through shared memory, f32 output.
#pragma once

#include <type_traits>

#include <wave/wave.hpp>

#include "kernels/gemm.hpp"

namespace wave::bench {

WAVE_SYMBOL(WAVE_M);
WAVE_SYMBOL(WAVE_N);

template <class In>
auto make_gemm() {
  using namespace examples::gemm;
  constexpr MMA kind = std::is_same_v<In, bf16> ? MMA::F32_16x8x16_BF16 : MMA::F32_16x8x16_F16;
  return kernel("gemm",
                {WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1), TilingConstraint(K, BLOCK_K),
                 WaveConstraint(M, WAVE_M), WaveConstraint(N, WAVE_N),
                 HardwareConstraint{.threads_per_wave = 32, .mma = kind}},
                [](Memory<dims<M, K>, In, SHARED_ADDRESS_SPACE> a, Memory<dims<N, K>, In, SHARED_ADDRESS_SPACE> b,
                   Memory<dims<M, N>, f32> c) {
                  Register<dims<M, N>, f32> acc(0.0);
                  auto result = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  write(result, c);
                });
}

}  // namespace wave::bench

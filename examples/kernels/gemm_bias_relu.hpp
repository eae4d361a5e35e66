// GEMM with a fused epilogue, C[M, N] = f16(max(A[M, K] * B[N, K]^T + bias[N], 0)): the
// GEMM example's body with three more ops before the write. The accumulator never leaves
// registers; the bias is read in the accumulator's layout. Any elementwise epilogue
// composes the same way (see docs/language.md, "What composes").
#pragma once

#include <wave/wave.hpp>

namespace examples::gemm_bias_relu {
using namespace wave;

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(BLOCK_K);

inline auto make_kernel() {
  return kernel(
      "gemm_bias_relu",
      Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1),
                  TilingConstraint(K, BLOCK_K), WaveConstraint(M, BLOCK_M / 2), WaveConstraint(N, BLOCK_N / 2),
                  HardwareConstraint{}},
      [](Memory<dims<M, K>, f16, SHARED_ADDRESS_SPACE> a, Memory<dims<N, K>, f16, SHARED_ADDRESS_SPACE> b,
         Memory<dims<N>, f32> bias, Memory<dims<M, N>, f16> c) {
        Register<dims<M, N>, f32> acc(0.0);
        auto result = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
        write(cast<f16>(maximum(result + read(bias), Register<dims<>, f32>(0.0))), c);
      });
}

inline CompileOptions default_options() {
  return {.subs = {{M, 4096}, {N, 4096}, {K, 4096}, {BLOCK_M, 128}, {BLOCK_N, 128}, {BLOCK_K, 64}}};
}

}  // namespace examples::gemm_bias_relu

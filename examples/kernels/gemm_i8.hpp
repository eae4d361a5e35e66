// Int8 GEMM: A[M, K] and B[N, K] signed 8-bit integers, their products summed exactly in
// i32 (NVIDIA's s8 mma.sync and wgmma, AMD's i8 MFMA: the target's kind). Two kernels:
// - `make_int_mm()`: C[M, N] = A * B^T in i32, what torch._int_mm computes;
// - `make_scaled<Out>()`: the W8A8 GEMM of quantized inference, C = cast<Out>(f32(A * B^T)
//   * scale_a[m] * scale_b[n]), a scale per row of A (per token) and per row of B (per
//   output channel) applied in the epilogue.
// B holds K innermost (K-major), the only way wgmma reads 8-bit operands. The wave tiles are
// symbols (WAVE_M, WAVE_N), as in the f16 and f8 GEMMs.
#pragma once

#include <type_traits>

#include <wave/wave.hpp>

#include "kernels/gemm.hpp"

namespace examples::gemm_i8 {
using namespace wave;
using gemm::BLOCK_K;
using gemm::BLOCK_M;
using gemm::BLOCK_N;
using gemm::K;
using gemm::M;
using gemm::N;
using gemm::WAVE_M;
using gemm::WAVE_N;

inline auto make_int_mm() {
  return kernel("gemm_i8", gemm::wave_tile_constraints(),
                [](Memory<dims<M, K>, i8, SHARED_ADDRESS_SPACE> a, Memory<dims<N, K>, i8, SHARED_ADDRESS_SPACE> b,
                   Memory<dims<M, N>, i32> c) {
                  Register<dims<M, N>, i32> acc(0);
                  write(iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); }), c);
                });
}

template <class Out>
auto make_scaled() {
  static_assert(!std::is_same_v<Out, i32> && !std::is_same_v<Out, i8>, "Out is a float type (make_int_mm: i32)");
  return kernel("gemm_i8_scaled", gemm::wave_tile_constraints(),
                [](Memory<dims<M, K>, i8, SHARED_ADDRESS_SPACE> a, Memory<dims<N, K>, i8, SHARED_ADDRESS_SPACE> b,
                   Memory<dims<M>, f32> scale_a, Memory<dims<N>, f32> scale_b, Memory<dims<M, N>, Out> c) {
                  Register<dims<M, N>, i32> acc(0);
                  auto sums = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  auto scaled = cast<f32>(sums) * read(scale_a) * read(scale_b);
                  if constexpr (std::is_same_v<Out, f32>) write(scaled, c);
                  else write(cast<Out>(scaled), c);
                });
}

// 128 x 256 tiles of C over eight waves (two warpgroups of 64 x 256), 128 bytes of K per
// step, a producer warpgroup issuing the TMA copies, on a persistent grid: 1414 TOP/s at
// 4096^3 on an H200, 1.65x torch._int_mm (bench/RESULTS.md, run 227; 256 bytes of K per
// step leave two stages and lose 25-30%).
inline CompileOptions default_options() {
  return {.subs = {{M, 4096}, {N, 4096}, {K, 4096}, {BLOCK_M, 128}, {BLOCK_N, 256}, {BLOCK_K, 128},
                   {WAVE_M, 64}, {WAVE_N, 64}},
          .warp_specialize = true,
          .persistent = true};
}

}  // namespace examples::gemm_i8

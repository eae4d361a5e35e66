// FP8 GEMM with per-tensor scales, what torch._scaled_mm computes:
// C[M, N] = (A[M, K] * B[N, K]^T) * scale_a * scale_b, A and B in an 8-bit float (E4M3 or
// E5M2; on AMD CDNA3 their FNUZ forms), their products summed in f32 (each K tile's by
// wgmma or MFMA, the target's kind, then added in f32), C cast to Out. Each scale is a one-element tensor
// read by every thread. B holds K innermost (K-major), the only way wgmma reads 8-bit
// operands (and how _scaled_mm takes its B: a column-major K x N matrix). The wave tiles
// are symbols (WAVE_M, WAVE_N): the number of waves, and so of warpgroups, is a tile choice.
#pragma once

#include <type_traits>

#include <wave/wave.hpp>

#include "kernels/gemm.hpp"

namespace examples::gemm_f8 {
using namespace wave;
using gemm::BLOCK_K;
using gemm::BLOCK_M;
using gemm::BLOCK_N;
using gemm::K;
using gemm::M;
using gemm::N;
using gemm::WAVE_M;
using gemm::WAVE_N;

template <class In, class Out>
auto make_kernel() {
  static_assert(std::is_same_v<In, f8e4m3> || std::is_same_v<In, f8e5m2> || std::is_same_v<In, f8e4m3fnuz> ||
                    std::is_same_v<In, f8e5m2fnuz>,
                "In is an 8-bit float: OCP's E4M3 or E5M2 (NVIDIA, AMD gfx950), or CDNA3's FNUZ forms (AMD gfx942)");
  return kernel("gemm_f8", gemm::wave_tile_constraints(),
                [](Memory<dims<M, K>, In, SHARED_ADDRESS_SPACE> a, Memory<dims<N, K>, In, SHARED_ADDRESS_SPACE> b,
                   Memory<dims<>, f32> scale_a, Memory<dims<>, f32> scale_b, Memory<dims<M, N>, Out> c) {
                  Register<dims<M, N>, f32> acc(0.0);
                  auto product = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  auto scaled = product * read(scale_a) * read(scale_b);
                  if constexpr (std::is_same_v<Out, f32>) write(scaled, c);
                  else write(cast<Out>(scaled), c);
                });
}

// 128 x 256 tiles of C over eight waves (two warpgroups of 64 x 256: each holds its f32
// accumulator, 128 registers, and the sums of one 64 x 128 part of a K tile at a time),
// 256 bytes of K per step, a producer warpgroup issuing the copies, on a persistent grid
// (the next tile's copies overlap this one's epilogue: +3.4% on an H100, 1131 / 1167
// TFLOP/s at 4096^3 / 8192^3, 0.90x / 0.94x torch._scaled_mm: bench/RESULTS.md, run 126).
inline CompileOptions default_options() {
  return {.subs = {{M, 4096}, {N, 4096}, {K, 4096}, {BLOCK_M, 128}, {BLOCK_N, 256}, {BLOCK_K, 256},
                   {WAVE_M, 64}, {WAVE_N, 64}},
          .warp_specialize = true,
          .persistent = true};
}

}  // namespace examples::gemm_f8

// Split-K GEMM, C[M, N] += A[M, K] * B[N, K]^T, for shapes with few output tiles and a long
// K (a 128 x 1280 output over K = 5120 is ten 128 x 128 tiles: a tenth of an H100's SMs).
// A WorkgroupConstraint on K, beside its TilingConstraint, splits the K loop across the
// grid's z axis: each workgroup walks SPLIT_K of K (whole BLOCK_K tiles) and adds its part
// of the sums to C with atomic_add. C must hold the values to add to (zeros for a plain
// product) before the launch; parts land in any order, so f32 sums may round differently
// from run to run.
#pragma once

#include <type_traits>

#include <wave/wave.hpp>

#include "kernels/gemm.hpp"

namespace examples::gemm_split_k {
using namespace wave;
using gemm::BLOCK_K;
using gemm::BLOCK_M;
using gemm::BLOCK_N;
using gemm::K;
using gemm::M;
using gemm::N;
using gemm::WAVE_M;
using gemm::WAVE_N;

WAVE_SYMBOL(SPLIT_K);

// In (f16 or bf16) inputs, f32 accumulators, Out (f32, f16 or bf16) added to C; `scale`
// multiplies the sums first (a linear epilogue: each part is scaled, their sum is too).
template <class In, class Out = f32>
auto make_kernel(float scale = 1.0f) {
  return kernel("gemm_split_k",
                Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1),
                            WorkgroupConstraint(K, SPLIT_K, 2), TilingConstraint(K, BLOCK_K),
                            WaveConstraint(M, WAVE_M), WaveConstraint(N, WAVE_N),
                            HardwareConstraint{}},
                [scale](Memory<dims<M, K>, In, SHARED_ADDRESS_SPACE> a,
                        Memory<dims<N, K>, In, SHARED_ADDRESS_SPACE> b, Memory<dims<M, N>, Out> c) {
                  Register<dims<M, N>, f32> acc(0.0);
                  auto sums = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  if (scale != 1.0f) sums = sums * scale;
                  if constexpr (std::is_same_v<Out, f32>) atomic_add(sums, c);
                  else atomic_add(cast<Out>(sums), c);
                });
}

}  // namespace examples::gemm_split_k

// GEMM, C[M, N] = A[M, K] * B[N, K]^T, on tensor cores. Workgroups take BLOCK_M x BLOCK_N
// tiles of C, split over 2 x 2 waves; the K loop walks BLOCK_K slices, carrying the
// accumulator. ADDRESS_SPACE says whether A and B tiles go through shared memory.
#pragma once

#include <optional>
#include <type_traits>

#include <wave/wave.hpp>

namespace examples::gemm {
using namespace wave;

WAVE_SYMBOL(M);
WAVE_SYMBOL(N);
WAVE_SYMBOL(K);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(BLOCK_K);
WAVE_SYMBOL(ADDRESS_SPACE);
WAVE_SYMBOL(BATCH);

inline auto make_kernel() {
  return kernel(
      "gemm",
      Constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1),
                  TilingConstraint(K, BLOCK_K), WaveConstraint(M, BLOCK_M / 2),
                  WaveConstraint(N, BLOCK_N / 2),
                  HardwareConstraint{},
                  Assumption(K > BLOCK_K * 4)},
      [](Memory<dims<M, K>, f16, ADDRESS_SPACE> a, Memory<dims<N, K>, f16, ADDRESS_SPACE> b,
         Memory<dims<M, N>, f32> c) {
        Register<dims<M, N>, f32> acc(0.0);
        auto result = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
        write(result, c);
      });
}

// The variants: In inputs (f16 or bf16); Out output (f32, or f16/bf16 cast from the f32
// accumulator); B as [N, K] (the seed's form) or [K, N] with `KMajorB`; a leading BATCH
// dim on every tensor, one per workgroup along grid z, with `Batched`. A and B go through
// shared memory. `facts` are Assumptions to add, e.g. that dynamic dims are whole tiles:
//   make_variant<f16, f32>({Assumption(eq(M % BLOCK_M, 0)), Assumption(eq(K % BLOCK_K, 0))})
template <class In, class Out, bool KMajorB = false, bool Batched = false>
auto make_variant(std::initializer_list<Assumption> facts = {}) {
  Constraints constraints{WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1),
                          TilingConstraint(K, BLOCK_K), WaveConstraint(M, BLOCK_M / 2),
                          WaveConstraint(N, BLOCK_N / 2),
                          HardwareConstraint{}};  // the target's MMA kind for In
  if constexpr (Batched) constraints += WorkgroupConstraint(BATCH, 1, 2);
  for (const Assumption& fact : facts) constraints += fact;
  using ADims = std::conditional_t<Batched, dims<BATCH, M, K>, dims<M, K>>;
  using BDims = std::conditional_t<KMajorB, std::conditional_t<Batched, dims<BATCH, K, N>, dims<K, N>>,
                                   std::conditional_t<Batched, dims<BATCH, N, K>, dims<N, K>>>;
  using CDims = std::conditional_t<Batched, dims<BATCH, M, N>, dims<M, N>>;
  return kernel("gemm", constraints,
                [](Memory<ADims, In, SHARED_ADDRESS_SPACE> a, Memory<BDims, In, SHARED_ADDRESS_SPACE> b,
                   Memory<CDims, Out> c) {
                  Register<CDims, f32> acc(0.0);
                  auto result = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  if constexpr (std::is_same_v<Out, f32>) write(result, c);
                  else write(cast<Out>(result), c);
                });
}

WAVE_SYMBOL(WAVE_M);
WAVE_SYMBOL(WAVE_N);

// The constraints of a GEMM whose wave tiles are symbols too (WAVE_M, WAVE_N), so that the
// number of waves, and with it of warpgroups, is a tile choice (what the benches tune). No
// `kind`: the target's for the operands' dtype (NVIDIA's mma.sync/wgmma, AMD's MFMA).
inline Constraints wave_tile_constraints(std::optional<MMA> kind = std::nullopt) {
  return {WorkgroupConstraint(M, BLOCK_M, 0), WorkgroupConstraint(N, BLOCK_N, 1), TilingConstraint(K, BLOCK_K),
          WaveConstraint(M, WAVE_M), WaveConstraint(N, WAVE_N),
          HardwareConstraint{.mma = kind}};
}

// The GEMM under wave_tile_constraints: In (f16 or bf16) inputs through shared memory,
// f32 accumulators, an Out (f32, or a 16-bit type the sums are cast to) output.
template <class In, class Out = f32>
auto make_with_wave_tiles(const char* name = "gemm") {
  return kernel(name, wave_tile_constraints(),
                [](Memory<dims<M, K>, In, SHARED_ADDRESS_SPACE> a, Memory<dims<N, K>, In, SHARED_ADDRESS_SPACE> b,
                   Memory<dims<M, N>, Out> c) {
                  Register<dims<M, N>, f32> acc(0.0);
                  auto result = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  if constexpr (std::is_same_v<Out, f32>) write(result, c);
                  else write(cast<Out>(result), c);
                });
}

inline CompileOptions default_options() {
  return {.subs = {{M, 4096}, {N, 4096}, {K, 4096}, {BLOCK_M, 128}, {BLOCK_N, 128},
                   {BLOCK_K, 64}, {ADDRESS_SPACE, SHARED_ADDRESS_SPACE}}};
}

}  // namespace examples::gemm

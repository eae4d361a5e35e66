// Tensor-parallel linear layers whose communication is in the GEMM (docs/distributed.md).
//
// gemm_reduce_scatter: the row-parallel layer (an MLP's down projection, attention's output
// projection). Each rank holds a slice of K: its activations A[M, K] and its weights
// B[N, K]; C = sum over ranks of A B^T, and rank p keeps rows [p * M_RANK, (p + 1) * M_RANK)
// of C. Each rank's epilogue adds its partial tile straight into the owner's slot of a
// symmetric buffer [RANKS, SLOT] (atomic adds at system scope, over NVLink for a peer's
// rows), so the reduce-scatter rides on the GEMM: no partial C is written and read back,
// and a rank's adds to its peers overlap the tiles it still computes.
//
// gemm_all_reduce: the same, each rank adding its partial product to every rank's slot.
#pragma once

#include <type_traits>

#include <wave/wave.hpp>

#include "kernels/gemm.hpp"

namespace examples::tensor_parallel {
using namespace wave;
using gemm::BLOCK_K;
using gemm::BLOCK_M;
using gemm::BLOCK_N;
using gemm::K;
using gemm::M;
using gemm::N;
using gemm::WAVE_M;
using gemm::WAVE_N;

WAVE_SYMBOL(RANKS);   // the rank count: the symmetric output's outermost dim
WAVE_SYMBOL(SLOT);    // elements of a rank's slot (at least M_RANK * N)
WAVE_SYMBOL(M_RANK);  // M / RANKS: the rows each rank ends with

inline constexpr auto i = iterator(0), j = iterator(1);

// Rows of C to their owner's slot: row m is row m mod M_RANK of rank m / M_RANK's share,
// stored row-major in the slot.
inline const IndexMapping<dims<M, N>> kToOwner{.inputs = {{M, i}, {N, j}},
                                               .outputs = {{RANKS, i / M_RANK}, {SLOT, i % M_RANK * N + j}}};

// A rank's partial product A B^T of its K slice: In (f16 or bf16) inputs, f32
// accumulators, the sums as Out (f32, f16 or bf16) handed to `add_to(sums, out)`, which
// adds them to the symmetric slots. Every slot must hold what the sums are added to
// (zeros, or a residual) before the launch; the sums are complete when every rank's
// kernel has finished.
template <class In, class Out, class AddTo>
auto partial_gemm(const char* name, AddTo add_to) {
  constexpr MMA kind = std::is_same_v<In, bf16> ? MMA::F32_16x8x16_BF16 : MMA::F32_16x8x16_F16;
  return kernel(name, gemm::wave_tile_constraints(kind),
                [add_to](Memory<dims<M, K>, In, SHARED_ADDRESS_SPACE> a,
                         Memory<dims<N, K>, In, SHARED_ADDRESS_SPACE> b, Memory<dims<RANKS, SLOT>, Out> out) {
                  Register<dims<M, N>, f32> acc(0.0);
                  auto partial = iterate<K>(acc, [&](auto acc) { return mma(read(a), read(b), acc); });
                  if constexpr (std::is_same_v<Out, f32>) add_to(partial, out);
                  else add_to(cast<Out>(partial), out);
                });
}

// Each rank's rows to their owner's slot.
template <class In, class Out = f32>
auto gemm_reduce_scatter() {
  return partial_gemm<In, Out>("gemm_reduce_scatter",
                               [](const auto& sums, const auto& out) { atomic_add(sums, out, kToOwner); });
}

// gemm_all_reduce: the same layer with every rank keeping all of C (the all-reduce after
// attention's output projection in Megatron-style tensor parallelism): each rank adds its
// whole partial product into every rank's slot (M x N, row-major), the value broadcast
// along RANKS so that one write names every destination.
inline constexpr auto r = iterator(2);
inline const IndexMapping<dims<RANKS, M, N>> kToEveryRank{.inputs = {{RANKS, r}, {M, i}, {N, j}},
                                                          .outputs = {{RANKS, r}, {SLOT, i * N + j}}};

template <class In, class Out = f32>
auto gemm_all_reduce() {
  return partial_gemm<In, Out>("gemm_all_reduce", [](const auto& sums, const auto& out) {
    atomic_add(broadcast<dims<RANKS, M, N>>(sums), out, kToEveryRank);
  });
}

}  // namespace examples::tensor_parallel

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
//
// allgather_gemm: the column-parallel layer (an MLP's up projection, attention's QKV
// projection) after a sequence-parallel part: each rank holds M_RANK rows of the
// activations and needs all M rows times its own N columns of the weights. Copy engines
// gather the peers' rows into each rank's buffer after its own, chunk by chunk, setting
// each chunk's flag once it has landed (queue_gather); the GEMM's workgroups take the
// rows in that order and each waits for its own rows' chunk only, so the GEMM runs on the
// rank's own rows and the first chunks while the later ones are still on their way. A
// chunk's flag counts the workgroups still to start on it: each takes 1 (wait_and_take),
// so the flags are back at 0 when the GEMM ends, with no reset on the GEMM's stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <wave/distributed.hpp>
#include <wave/runtime.hpp>
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

// The GEMM schedules these kernels take (CompileOptions): TMA copies software-pipelined
// on the computing warps (the default), a producer warpgroup issuing them (warp
// specialization), and that on a persistent grid (each workgroup walking tiles, the next
// tile's copies landing during the last one's epilogue). Names are one word each.
struct GemmSchedule {
  const char* name;
  bool warp_specialize, persistent;
};
inline constexpr GemmSchedule kGemmSchedules[] = {
    {"pipelined", false, false}, {"specialized", true, false}, {"specialized-persistent", true, true}};

inline CompileOptions scheduled(CompileOptions options, const GemmSchedule& schedule) {
  options.warp_specialize = schedule.warp_specialize;
  options.persistent = schedule.persistent;
  return options;
}

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
  return kernel(name, gemm::wave_tile_constraints(),
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

WAVE_SYMBOL(CHUNKS);      // the gathered rows' chunks, one flag each
WAVE_SYMBOL(CHUNK_ROWS);  // rows per chunk: M / CHUNKS, a multiple of BLOCK_M

// Each row's chunk, for the wait.
inline const IndexMapping<dims<M>> kRowToChunk{.inputs = {{CHUNKS, i / CHUNK_ROWS}}, .outputs = {{M, i}}};
// Gathered row i (this rank's shard first, then the next rank's, ...) is row
// (i + RANK * M_RANK) mod M of the layer's output.
inline const IndexMapping<dims<M, N>> kGatheredToRow{.inputs = {{M, i}, {N, j}},
                                                     .outputs = {{M, (i + RANK * M_RANK) % M}, {N, j}}};

// N over the grid's x, M over its y: the workgroups launched first take the first
// gathered rows, which land first.
inline Constraints gathered_rows_first() {
  return {WorkgroupConstraint(N, BLOCK_N, 0), WorkgroupConstraint(M, BLOCK_M, 1), TilingConstraint(K, BLOCK_K),
          WaveConstraint(M, WAVE_M), WaveConstraint(N, WAVE_N), HardwareConstraint{}};
}

// C[M, N] = gathered rows times this rank's weights B[N, K]^T, each workgroup starting once
// its rows' chunk has landed, and taking 1 from the chunk's flag. In: f16 or bf16; Out:
// f32 or In.
template <class In, class Out = In>
auto allgather_gemm() {
  return kernel("allgather_gemm", gathered_rows_first(),
                [](Memory<dims<M, K>, In, SHARED_ADDRESS_SPACE> gathered, Memory<dims<N, K>, In, SHARED_ADDRESS_SPACE> b,
                   Memory<dims<CHUNKS>, i32> ready, Memory<dims<M, N>, Out> c) {
                  wait_and_take(ready, 1, kRowToChunk);
                  Register<dims<M, N>, f32> acc(0.0);
                  auto result = iterate<K>(acc, [&](auto acc) { return mma(read(gathered), read(b), acc); });
                  if constexpr (std::is_same_v<Out, f32>) write(result, c, kGatheredToRow);
                  else write(cast<Out>(result), c, kGatheredToRow);
                });
}

// The workgroups of allgather_gemm whose rows lie in one chunk: each takes 1 from its flag.
inline int chunk_takers(int chunk_rows, int block_m, int n, int block_n) {
  return chunk_rows / block_m * ((n + block_n - 1) / block_n);
}

// Queues the gather for allgather_gemm. `gathered` holds one M x K buffer per rank (its
// slot), rank r's own M_RANK rows (`shard_bytes`) first, as the layer before wrote them.
// For each rank r, on `copies[r]`, once the work queued on `compute[r]` so far has ended
// (the GEMM before may still read the slot and take its flags): its own chunks' flags
// (`ready[r]`: 32-bit, CHUNKS = ranks * pieces of them) set to `takers` (chunk_takers),
// then every other rank's own rows, the next rank's first, copied into r's slot after its
// own in `pieces` chunks each, chunk c's flag set to `takers` once it has landed. Launch
// the GEMM on `compute[r]` after this call: it starts at once, each workgroup waiting for
// its chunk. Copy streams must be StreamKind::independent.
//
// Copies between GPUs go through the copy engines; the rank's own rows are not copied at
// all, since a copy within one GPU may be done by a kernel, which could not start while
// the GEMM's workgroups fill every SM waiting for it.
inline void queue_gather(const runtime::SymmetricBuffer& gathered, std::size_t shard_bytes,
                         const std::vector<void*>& ready, int pieces, int takers,
                         const std::vector<const runtime::Stream*>& compute,
                         const std::vector<const runtime::Stream*>& copies) {
  const int ranks = gathered.ranks();
  const std::size_t piece = shard_bytes / static_cast<std::size_t>(pieces);
  auto at = [](const void* p, std::size_t offset) { return static_cast<char*>(const_cast<void*>(p)) + offset; };
  for (int r = 0; r < ranks; ++r) {
    auto* flags = static_cast<std::uint32_t*>(ready[static_cast<std::size_t>(r)]);
    const runtime::Stream& compute_r = *compute[static_cast<std::size_t>(r)];
    const runtime::Stream& copies_r = *copies[static_cast<std::size_t>(r)];
    copies_r.wait_for(compute_r);
    for (int c = 0; c < pieces; ++c) runtime::set_flag_async(flags + c, static_cast<std::uint32_t>(takers), copies_r);
    for (int s = 1; s < ranks; ++s) {
      const void* shard = gathered.slot((r + s) % ranks);  // that rank's own rows, first in its slot
      for (int p = 0; p < pieces; ++p) {
        const std::size_t offset = static_cast<std::size_t>(p) * piece;
        runtime::copy_async(at(gathered.slot(r), static_cast<std::size_t>(s) * shard_bytes + offset), at(shard, offset),
                            piece, copies_r);
        runtime::set_flag_async(flags + s * pieces + p, static_cast<std::uint32_t>(takers), copies_r);
      }
    }
  }
}

}  // namespace examples::tensor_parallel

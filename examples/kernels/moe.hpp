// Mixture of experts, as an LLM server runs a MoE layer: each token goes to TOPK of E
// experts (the router's choice, given as topk_ids and topk_weights [T, TOPK]); expert e
// computes SiLU(x W1g[e]^T) * (x W1u[e]^T) W2[e]^T for its tokens, and a token's output is
// the sum of its experts' outputs, each scaled by the token's weight for it.
//
// A token's k-th choice is a pair, p = t * TOPK + k, P = T * TOPK of them. Six kernels:
//   1. moe_count: pairs in chunks of PC; each pair's rank among its chunk's pairs of the
//      same expert (a cumsum of one-hot rows), and each chunk's count per expert.
//   2. moe_place: each pair to its slot in the sorted order: experts one after another,
//      each expert's pairs in their order, each expert's run padded to whole blocks of
//      BLOCK_M slots (the slots before a pair's: earlier experts' padded runs, the same
//      expert's pairs in earlier chunks, its rank).
//   3. moe_blocks: each block of BLOCK_M slots, its expert and the slots its expert fills
//      (0 for a block past every expert's run).
//   4. moe_gate_up: per block, a grouped GEMM of the block's tokens (rows of x gathered
//      through the sorted pairs) with its expert's W1 (an index read at run time), the gate
//      and up halves side by side, SiLU(gate) * up written per slot, [S, I].
//   5. moe_down: per block, those rows times the expert's W2, each scaled by its pair's
//      weight, written to its pair's row of y [P, D].
//   6. moe_sum: each token's TOPK rows of y summed.
// Kernels 4 and 5 end the block's rows at its filled slots (set_symbol): padding slots are
// neither read nor written, and a block past every run skips its loop, so empty blocks
// cost no weight traffic. The sorted order is deterministic (a stable counting sort),
// so the outputs are the same from run to run.
//
// Bad input: an expert id outside [0, E) drops its pair (the pair lands in a slot no block
// reads and adds nothing to its token's output). Weights are read as given.
//
// Dims: T tokens, TOPK choices, P pairs, E experts, C chunks of PC pairs (CC: the chunks
// again, whole in each workgroup), S sorted slots (NB blocks of MB = BLOCK_M, and one more
// where dropped pairs go), D the hidden size, I the expert's intermediate size (W1 holds
// I2 = 2 I rows: gate then up).
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <wave/wave.hpp>

namespace examples::moe {
using namespace wave;

WAVE_SYMBOL(T);
WAVE_SYMBOL(TOPK);
WAVE_SYMBOL(P);
WAVE_SYMBOL(E);
WAVE_SYMBOL(C);
WAVE_SYMBOL(CC);
WAVE_SYMBOL(PC);
WAVE_SYMBOL(S);
WAVE_SYMBOL(NB);
WAVE_SYMBOL(MB);
WAVE_SYMBOL(D);
WAVE_SYMBOL(I);
WAVE_SYMBOL(I2);
WAVE_SYMBOL(BLOCK_M);
WAVE_SYMBOL(BLOCK_N);
WAVE_SYMBOL(BLOCK_K);
WAVE_SYMBOL(WAVE_M);
WAVE_SYMBOL(WAVE_N);
WAVE_SYMBOL(DOWN_BLOCK_N);
WAVE_SYMBOL(DOWN_WAVE_N);
WAVE_SYMBOL(BLOCK_NB);
WAVE_SYMBOL(BLOCK_D);

// Each expert's slots, from every chunk's counts [CC, E]: how many pairs it has, and the
// first slot of its run (runs padded to whole blocks, one expert after another).
inline auto expert_runs(const Register<dims<CC, E>, i32>& counts) {
  auto filled = sum<CC>(counts);
  auto padded = apply_expr(filled, [](auto n) { return (n + BLOCK_M - 1) / BLOCK_M * BLOCK_M; });
  auto first = cumsum<E>(padded) - padded;
  return std::pair{first, filled};
}

// The pairs of chunk c: PC of them from pair c * PC, the last chunk ending at P; read
// from [P] (or written to it, `to_pairs`).
inline auto chunk_pairs() {
  constexpr auto c = iterator(0), pc = iterator(1);
  return IndexMapping<dims<C, PC>>{.inputs = {{P, c * PC + pc}}, .outputs = {{C, c}, {PC, pc}}};
}

inline auto to_pairs() {
  constexpr auto c = iterator(0), pc = iterator(1);
  return IndexMapping<dims<C, PC>>{.inputs = {{C, c}, {PC, pc}}, .outputs = {{P, c * PC + pc}}};
}

inline void end_chunk_at_last_pair() {
  set_symbol<PC>(apply_expr(self_index<C, i32>(), [](auto c) { return P - c * PC; }));
}

// Element [c, pc, e] is 1 where pair (c, pc) goes to expert e.
inline auto one_hot(const Register<dims<C, PC>, i32>& ids) {
  return cast<i32>(eq(broadcast<dims<C, PC, E>>(ids), broadcast<dims<C, PC, E>>(self_index<E, i32>())));
}

inline Constraints chunk_constraints() {
  return {WorkgroupConstraint(C, 1, 1), WorkgroupConstraint(PC, PC, 0), WaveConstraint(PC, 32),
          HardwareConstraint{.vector_shapes = {{C, 0}}}};
}

inline auto make_count_kernel() {
  return kernel("moe_count", chunk_constraints(),
                [](Memory<dims<P>, i32> topk_ids, Memory<dims<P>, i32> ranks, Memory<dims<C, E>, i32> counts) {
                  end_chunk_at_last_pair();
                  auto hot = one_hot(read(topk_ids, chunk_pairs()));
                  // A pair's rank: the pairs of its expert up to it in the chunk, less one.
                  write(sum<E>(hot * cumsum<PC>(hot)) - 1, ranks, to_pairs());
                  write(sum<PC>(hot), counts);
                });
}

inline auto make_place_kernel() {
  return kernel(
      "moe_place", chunk_constraints(),
      [](Memory<dims<P>, i32> topk_ids, Memory<dims<P>, i32> ranks, Memory<dims<CC, E>, i32> counts,
         Memory<dims<S>, i32> sorted) {
        constexpr auto c = iterator(0), pc = iterator(1);
        const IndexMapping<dims<C, PC>> to_slot{.inputs = {{C, c}, {PC, pc}}, .outputs = {{S, dynamic_val(0)}}};
        end_chunk_at_last_pair();
        auto ids = read(topk_ids, chunk_pairs());
        auto hot = one_hot(ids);
        auto all = read(counts);
        auto [first, filled] = expert_runs(all);
        // The same expert's pairs in the chunks before this one.
        auto chunk = self_index<C, i32>();
        auto earlier = lt(broadcast<dims<C, CC, E>>(self_index<CC, i32>()), broadcast<dims<C, CC, E>>(chunk));
        Register<dims<C, CC, E>, i32> none(0);
        auto before = sum<CC>(select(earlier, broadcast<dims<C, CC, E>>(all), none)) +
                      broadcast<dims<C, E>>(first);  // [C, E]
        auto slot = sum<E>(hot * broadcast<dims<C, PC, E>>(before)) + read(ranks, chunk_pairs());
        // A pair of no expert goes to the last slot, which no block reads.
        auto routed = eq(sum<E>(hot), 1);
        auto spare = broadcast<dims<C, PC>>(scalar<i32>(S - 1));
        auto pair = broadcast<dims<C, PC>>(chunk * scalar<i32>(PC)) + broadcast<dims<C, PC>>(self_index<PC, i32>());
        write(pair, sorted, to_slot.with_values(select(routed, slot, spare)));
      });
}

// Block nb starts at slot nb * BLOCK_M: its expert is the one whose padded run holds that
// slot, and it holds min(BLOCK_M, the run's filled end - its start) pairs, at least 0.
inline auto make_blocks_kernel() {
  return kernel(
      "moe_blocks",
      Constraints{WorkgroupConstraint(NB, BLOCK_NB, 0), WaveConstraint(NB, 32), HardwareConstraint{}},
      [](Memory<dims<CC, E>, i32> counts, Memory<dims<NB>, i32> block_expert, Memory<dims<NB>, i32> block_rows) {
        auto [first, filled] = expert_runs(read(counts));
        auto start = self_index<NB, i32>() * scalar<i32>(BLOCK_M);
        auto padded_end = apply_expr(filled, [](auto n) { return (n + BLOCK_M - 1) / BLOCK_M * BLOCK_M; }) + first;
        // Experts whose runs end at or before the block's start come before its own.
        auto passed = cast<i32>(le(broadcast<dims<NB, E>>(padded_end), broadcast<dims<NB, E>>(start)));
        auto expert = sum<E>(passed);  // E for a block past every run
        auto own = cast<i32>(eq(broadcast<dims<NB, E>>(expert), broadcast<dims<NB, E>>(self_index<E, i32>())));
        auto filled_end = sum<E>(own * broadcast<dims<NB, E>>(first + filled));  // 0 past every run
        auto rows = maximum(minimum(filled_end - start, scalar<i32>(BLOCK_M)), scalar<i32>(0));
        write(minimum(expert, scalar<i32>(E - 1)), block_expert);
        write(rows, block_rows);
      });
}

// The GEMMs' grid: blocks along x, BLOCK_M slots (one tile of MB) along y, BLOCK_N output
// columns along z, the loop over the contraction in BLOCK_K steps; WAVE_M x WAVE_N per
// wave. Blocks vary fastest so that the workgroups running at once share a stripe of
// the expert's weights, read from memory once for all of the expert's blocks (a Mixtral
// expert's W1 is 235 MB, more than the L2 holds: with the columns fastest, each block
// streamed all of it again).
// (The two GEMMs may tile their columns apart: `block_n` and `wave_n` the column tiles.)
template <class In>
Constraints gemm_constraints(const auto& columns, const auto& contraction, const auto& block_n, const auto& wave_n) {
  return {WorkgroupConstraint(NB, 1, 0), WorkgroupConstraint(MB, BLOCK_M, 1), WorkgroupConstraint(columns, block_n, 2),
          TilingConstraint(contraction, BLOCK_K), WaveConstraint(MB, WAVE_M), WaveConstraint(columns, wave_n),
          HardwareConstraint{.vector_shapes = {{NB, 0}}}};
}

// The block's slots: slot nb * MB + mb.
inline auto block_slots() {
  constexpr auto nb = iterator(0), mb = iterator(1);
  return IndexMapping<dims<NB, MB>>{.inputs = {{S, nb * MB + mb}}, .outputs = {{NB, nb}, {MB, mb}}};
}

// The block's expert and its pairs [NB, MB]. The block's rows end at its filled slots: an
// empty block's workgroups hold no row, so they skip the GEMM's loop (no weight traffic).
inline auto block_pairs(const Memory<dims<S>, i32>& sorted, const Memory<dims<NB>, i32>& block_expert,
                        const Memory<dims<NB>, i32>& block_rows) {
  set_symbol<MB>(read(block_rows));
  return std::pair{read(block_expert), read(sorted, block_slots())};
}

template <class In>
auto make_gate_up_kernel() {
  return kernel(
      "moe_gate_up", gemm_constraints<In>(I, D, BLOCK_N, WAVE_N),
      [](Memory<dims<T, D>, In, SHARED_ADDRESS_SPACE> x, Memory<dims<E, I2, D>, In, SHARED_ADDRESS_SPACE> w1,
         Memory<dims<S>, i32> sorted, Memory<dims<NB>, i32> block_expert, Memory<dims<NB>, i32> block_rows,
         Memory<dims<S, I>, In> h) {
        constexpr auto nb = iterator(0), row = iterator(1), n = iterator(1), k = iterator(2);
        const IndexMapping<dims<NB, MB, D>> token_rows{.inputs = {{T, floordiv(dynamic_val(0), TOPK)}, {D, k}},
                                                       .outputs = {{NB, nb}, {MB, row}, {D, k}}};
        const IndexMapping<dims<NB, I, D>> gate_rows{.inputs = {{E, dynamic_val(0)}, {I2, n}, {D, k}},
                                                     .outputs = {{NB, nb}, {I, n}, {D, k}}};
        const IndexMapping<dims<NB, I, D>> up_rows{.inputs = {{E, dynamic_val(0)}, {I2, n + I}, {D, k}},
                                                   .outputs = {{NB, nb}, {I, n}, {D, k}}};
        constexpr auto o_nb = iterator(0), o_mb = iterator(1), o_n = iterator(2);
        const IndexMapping<dims<NB, MB, I>> slot_rows{.inputs = {{NB, o_nb}, {MB, o_mb}, {I, o_n}},
                                                      .outputs = {{S, o_nb * MB + o_mb}, {I, o_n}}};
        auto [expert, pairs] = block_pairs(sorted, block_expert, block_rows);
        Register<dims<NB, MB, I>, f32> zero(0.0);
        auto [gate, up] = iterate<D>(std::tuple{zero, zero}, [&](auto gate, auto up) {
          auto tokens = read(x, token_rows.with_values(pairs));
          return std::tuple{mma(tokens, read(w1, gate_rows.with_values(expert)), gate),
                            mma(tokens, read(w1, up_rows.with_values(expert)), up)};
        });
        write(cast<In>(gate * sigmoid(gate) * up), h, slot_rows);
      });
}

template <class In>
auto make_down_kernel() {
  return kernel(
      "moe_down", gemm_constraints<In>(D, I, DOWN_BLOCK_N, DOWN_WAVE_N),
      [](Memory<dims<S, I>, In, SHARED_ADDRESS_SPACE> h, Memory<dims<E, D, I>, In, SHARED_ADDRESS_SPACE> w2,
         Memory<dims<S>, i32> sorted, Memory<dims<NB>, i32> block_expert, Memory<dims<NB>, i32> block_rows,
         Memory<dims<P>, f32> topk_weights, Memory<dims<P, D>, In> y) {
        constexpr auto nb = iterator(0), row = iterator(1), n = iterator(1), k = iterator(2);
        const IndexMapping<dims<NB, MB, I>> slot_rows{.inputs = {{S, nb * MB + row}, {I, k}},
                                                      .outputs = {{NB, nb}, {MB, row}, {I, k}}};
        const IndexMapping<dims<NB, D, I>> down_rows{.inputs = {{E, dynamic_val(0)}, {D, n}, {I, k}},
                                                     .outputs = {{NB, nb}, {D, n}, {I, k}}};
        const IndexMapping<dims<NB, MB>> pair_weight{.inputs = {{P, dynamic_val(0)}},
                                                     .outputs = {{NB, nb}, {MB, row}}};
        constexpr auto o_nb = iterator(0), o_mb = iterator(1), o_d = iterator(2);
        const IndexMapping<dims<NB, MB, D>> pair_rows{.inputs = {{NB, o_nb}, {MB, o_mb}, {D, o_d}},
                                                      .outputs = {{P, dynamic_val(0)}, {D, o_d}}};
        auto [expert, pairs] = block_pairs(sorted, block_expert, block_rows);
        Register<dims<NB, MB, D>, f32> zero(0.0);
        auto out = iterate<I>(zero, [&](auto acc) {
          return mma(read(h, slot_rows), read(w2, down_rows.with_values(expert)), acc);
        });
        auto weight = read(topk_weights, pair_weight.with_values(pairs));
        write(cast<In>(out * broadcast<dims<NB, MB, D>>(weight)), y, pair_rows.with_values(pairs));
      });
}

// out[t] = the sum of y's rows of t's pairs routed to an expert.
template <class In, class Out = In>
auto make_sum_kernel() {
  return kernel(
      "moe_sum",
      Constraints{WorkgroupConstraint(T, 1, 1), WorkgroupConstraint(D, BLOCK_D, 0), WaveConstraint(D, BLOCK_D / 4),
                  HardwareConstraint{.vector_shapes = {{T, 0}}}},
      [](Memory<dims<P, D>, In> y, Memory<dims<T, TOPK>, i32> topk_ids, Memory<dims<T, D>, Out> out) {
        constexpr auto t = iterator(0), k = iterator(1), d = iterator(2);
        const IndexMapping<dims<T, TOPK, D>> token_pairs{.inputs = {{P, t * TOPK + k}, {D, d}},
                                                         .outputs = {{T, t}, {TOPK, k}, {D, d}}};
        auto ids = read(topk_ids);
        auto routed = lt(ids, scalar<i32>(E));
        auto counted = ge(ids, 0);
        Register<dims<T, TOPK, D>, f32> none(0.0);
        auto rows = cast<f32>(read(y, token_pairs));
        write(cast<Out>(sum<TOPK>(select(routed, select(counted, rows, none), none))), out);
      });
}

inline constexpr int kChunk = 256;    // pairs per workgroup in moe_count and moe_place, at most
inline constexpr int kBlockNB = 64;   // blocks per workgroup in moe_blocks
inline constexpr int kBlockD = 512;   // hidden elements per workgroup in moe_sum

// A MoE layer's sizes, and those of its intermediate buffers for `block_m` slots a block.
struct Shape {
  int tokens, experts, topk, hidden, intermediate;
  int pairs() const { return tokens * topk; }
  // Pairs per chunk: kChunk, or all of them (whole waves) where fewer.
  int chunk() const { return std::min(kChunk, std::max(32, (pairs() + 31) / 32 * 32)); }
  int chunks() const { return (pairs() + chunk() - 1) / chunk(); }
  // Each expert's run pads at most block_m - 1 slots.
  int blocks(int block_m) const { return (pairs() + block_m - 1) / block_m + std::min(experts, pairs()); }
  // The sorted slots: whole blocks, and one where dropped pairs go.
  int slots(int block_m) const { return blocks(block_m) * block_m + 1; }
};

// Tiles of the GEMMs: BLOCK_M slots per block, BLOCK_N x BLOCK_K tiles, WAVE_M x WAVE_N per
// wave; the down GEMM's columns in down_block_n x down_wave_n (0: as gate_up's). gate_up
// holds two accumulators (gate and up), so its widest column tile is half the down GEMM's.
struct Tiling {
  int block_m = 64, block_n = 128, block_k = 64, wave_m = 64, wave_n = 32;
  int down_block_n = 0, down_wave_n = 0;
  int down_columns() const { return down_block_n ? down_block_n : block_n; }
  int down_wave_columns() const { return down_wave_n ? down_wave_n : wave_n; }
};

// The sizes every kernel of the layer takes (each takes those it names).
inline std::vector<Sub> sizes(const Shape& s, const Tiling& tiling = {}) {
  return {{T, s.tokens},          {TOPK, s.topk},
          {P, s.pairs()},         {E, s.experts},
          {PC, s.chunk()},        {C, s.chunks()},
          {CC, s.chunks()},       {NB, s.blocks(tiling.block_m)},
          {MB, tiling.block_m},   {S, s.slots(tiling.block_m)},
          {D, s.hidden},          {I, s.intermediate},
          {I2, 2 * s.intermediate}, {BLOCK_M, tiling.block_m},
          {BLOCK_N, tiling.block_n}, {BLOCK_K, tiling.block_k},
          {WAVE_M, tiling.wave_m}, {WAVE_N, tiling.wave_n},
          {DOWN_BLOCK_N, tiling.down_columns()}, {DOWN_WAVE_N, tiling.down_wave_columns()},
          {BLOCK_NB, kBlockNB},  {BLOCK_D, kBlockD}};
}

// Those of `all` that `kernel` names (each kernel takes only its own symbols).
template <class Kernel>
std::vector<Sub> sizes_for(const Kernel& kernel, const std::vector<Sub>& all) {
  const std::set<std::string> named = kernel_symbols(kernel.trace());
  std::vector<Sub> own;
  for (const Sub& sub : all)
    if (named.count(sub.symbol)) own.push_back(sub);
  return own;
}

}  // namespace examples::moe

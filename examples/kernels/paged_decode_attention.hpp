// Paged decode attention, as an LLM server runs it: one new query token per sequence
// against the sequence's keys and values in a paged cache, sequences of different lengths
// in one batch, query heads grouped over fewer kv heads (GQA).
//
// The cache holds pages of PAGE tokens, [PAGES, PAGE, HKV, D] (vLLM's layout); a sequence's
// token t lives in page block_table[b, t / PAGE], slot t % PAGE. The block table is read
// in the kernel and its entries become the cache reads' page index (a mapping's dynamic
// value). Each sequence's keys are cut into NSPLIT chunks of CHUNK keys, one per
// workgroup (Wave's num_kv_splits), so a short batch still fills the GPU; a second kernel
// combines the chunks' partial outputs by their log-sum-exps.
//
// Dims: B sequences, H = HKV * G query heads, D the head dim (N for values), KC the keys
// of a chunk (CHUNK of them), BS = B * NSPLIT (a sequence's chunk s is BS = b * NSPLIT + s),
// SPLIT the chunks of one sequence in the combine step.
#pragma once

#include <cmath>

#include <wave/wave.hpp>

namespace examples::paged_decode_attention {
using namespace wave;

WAVE_SYMBOL(B);
WAVE_SYMBOL(H);
WAVE_SYMBOL(HKV);
WAVE_SYMBOL(G);
WAVE_SYMBOL(D);
WAVE_SYMBOL(N);
WAVE_SYMBOL(PAGES);
WAVE_SYMBOL(PAGE);
WAVE_SYMBOL(MAXP);
WAVE_SYMBOL(NSPLIT);
WAVE_SYMBOL(BS);
WAVE_SYMBOL(KC);
WAVE_SYMBOL(SPLIT);
WAVE_SYMBOL(BLOCK_G);
WAVE_SYMBOL(BLOCK_KC);

struct Variant {
  int head_dim = 128;     // sets the softmax scale 1/sqrt(head_dim)
  double logit_cap = 0;   // > 0: scores become cap * tanh(score / cap) (Gemma's, Grok's soft cap)
};

// Phase 1: per (sequence chunk, kv head), the chunk's attention for the kv head's G query
// heads: its output normalized by its own sum, and its log2-sum-exp (in the base-2 units
// of the exponentials), or a large negative one for a chunk past the sequence's end.
// The chunk's keys end at the sequence's end (set_symbol), so a workgroup walks only the
// key tiles its sequence holds.
inline auto chunk_body(Variant variant) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(variant.head_dim));
  const double cap = variant.logit_cap;
  return [scale, cap](Memory<dims<B, H, D>, f16> q, Memory<dims<PAGES, PAGE, HKV, D>, f16, SHARED_ADDRESS_SPACE> k_cache,
                      Memory<dims<PAGES, PAGE, HKV, N>, f16, SHARED_ADDRESS_SPACE> v_cache, Memory<dims<B, MAXP>, i32> block_table,
                      Memory<dims<B>, i32> seq_lens, Memory<dims<BS, HKV, G, N>, f32> o_part,
                      Memory<dims<BS, HKV, G>, f32> lse_part) {
    constexpr auto bs = iterator(0), hkv = iterator(1), g = iterator(2), kc = iterator(2), d = iterator(3);
    const IndexMapping<dims<BS, HKV, G, D>> q_heads{
        .inputs = {{B, floordiv(bs, NSPLIT)}, {H, hkv * G + g}, {D, d}},
        .outputs = {{BS, bs}, {HKV, hkv}, {G, g}, {D, d}}};
    const IndexMapping<dims<BS>> sequence{.inputs = {{B, floordiv(bs, NSPLIT)}}, .outputs = {{BS, bs}}};
    // A key's table entry and slot, through its position (a dynamic value: see below).
    constexpr auto t_bs = iterator(0), t_kc = iterator(1);
    const IndexMapping<dims<BS, KC>> table_entry{
        .inputs = {{B, floordiv(t_bs, NSPLIT)}, {MAXP, floordiv(dynamic_val(0), PAGE)}},
        .outputs = {{BS, t_bs}, {KC, t_kc}}};
    const IndexMapping<dims<BS, HKV, KC, D>> k_slot{
        .inputs = {{PAGES, dynamic_val(0)}, {PAGE, dynamic_val(1) % PAGE}, {HKV, hkv}, {D, d}},
        .outputs = {{BS, bs}, {HKV, hkv}, {KC, kc}, {D, d}}};
    const IndexMapping<dims<BS, HKV, KC, N>> v_slot{
        .inputs = {{PAGES, dynamic_val(0)}, {PAGE, dynamic_val(1) % PAGE}, {HKV, hkv}, {N, d}},
        .outputs = {{BS, bs}, {HKV, hkv}, {KC, kc}, {N, d}}};

    auto queries = read(q, q_heads);
    auto length = read(seq_lens, sequence);  // [BS]
    // The chunk's first key; its keys end at the sequence's end (none for a chunk past
    // it): the loop below walks only the tiles holding keys.
    auto first = apply_expr(self_index<BS, i32>(), [](auto x) { return x % NSPLIT * KC; });
    set_symbol<KC>(length - first);
    Register<dims<BS, HKV, N, G>, f32> acc0(0.0);
    Register<dims<BS, HKV, G>, f32> sum0(0.0);
    Register<dims<BS, HKV, G>, f32> max0(-1e6);
    auto [res_max, res_sum, res_acc] = iterate<KC>(
        std::tuple{max0, sum0, acc0}, [&](auto partial_max, auto partial_sum, auto acc) {
          // Each key's position in its sequence. Keys at or past its length (in the last
          // tile) are masked; they read the sequence's last key instead (its table entry
          // and page exist), so no read leaves the table or the cache.
          auto position = broadcast<dims<BS, KC>>(first) + broadcast<dims<BS, KC>>(self_index<KC, i32>());
          auto inside = lt(position, broadcast<dims<BS, KC>>(length));
          auto clamped = minimum(position, broadcast<dims<BS, KC>>(length - 1));
          auto pages = read(block_table, table_entry.with_values(clamped));

          Register<dims<BS, HKV, KC, G>, f32> zero_scores(0.0);
          auto scores = mma(read(k_cache, k_slot.with_values(pages, clamped)), queries, zero_scores);
          auto s = permute<dims<BS, HKV, G, KC>>(scores) * scale;
          if (cap > 0) s = tanh(s * (1.0 / cap)) * cap;
          Register<dims<BS, KC>, f32> zero(0.0), hidden(-1e6);
          auto x = s * M_LOG2E + select(inside, zero, hidden);

          auto m = max<KC>(x, partial_max);
          auto rescale = exp2(partial_max - m);
          auto e = exp2(x - m);
          auto l = sum<KC>(e, partial_sum * rescale);
          auto next = mma(read(v_cache, v_slot.with_values(pages, clamped)), cast<f16>(e), acc * rescale);
          return std::tuple{m, l, next};
        });
    // A chunk past the sequence's end sums nothing: its output 0, its log2-sum-exp about
    // -1e6 - 100, which weighs nothing in the combine.
    Register<dims<BS, HKV, G>, f32> tiny(1e-30);
    auto total = maximum(res_sum, tiny);
    write(res_acc * reciprocal(total), o_part);
    write(res_max + log2(total), lse_part);
  };
}

// Phase 2: per (sequence, kv head), the chunks' outputs weighted by exp2 of their
// log2-sum-exps less the largest, divided by the weights' sum.
template <class Out>
auto combine_body() {
  return [](Memory<dims<BS, HKV, G, N>, f32> o_part, Memory<dims<BS, HKV, G>, f32> lse_part,
            Memory<dims<B, H, N>, Out> out) {
    constexpr auto b = iterator(0), hkv = iterator(1), g = iterator(2), split = iterator(3), n = iterator(3);
    const IndexMapping<dims<B, HKV, G, SPLIT>> lse_of{
        .inputs = {{BS, b * NSPLIT + split}, {HKV, hkv}, {G, g}},
        .outputs = {{B, b}, {HKV, hkv}, {G, g}, {SPLIT, split}}};
    constexpr auto o_split = iterator(4);
    const IndexMapping<dims<B, HKV, G, N, SPLIT>> o_of{
        .inputs = {{BS, b * NSPLIT + o_split}, {HKV, hkv}, {G, g}, {N, n}},
        .outputs = {{B, b}, {HKV, hkv}, {G, g}, {N, n}, {SPLIT, o_split}}};
    const IndexMapping<dims<B, HKV, G, N>> heads{.inputs = {{B, b}, {HKV, hkv}, {G, g}, {N, n}},
                                                 .outputs = {{B, b}, {H, hkv * G + g}, {N, n}}};
    auto lse = read(lse_part, lse_of);
    auto top = max<SPLIT>(lse);
    auto weight = exp2(lse - top);
    auto total = sum<SPLIT>(weight);
    auto o = sum<SPLIT>(read(o_part, o_of) * broadcast<dims<B, HKV, G, N, SPLIT>>(weight));
    write(cast<Out>(o * broadcast<dims<B, HKV, G, N>>(reciprocal(total))), out, heads);
  };
}

// One workgroup per (chunk, kv head), the G query heads as the columns of the score mma
// (its n8 side, padded to BLOCK_G), each key tile split among `key_waves` waves.
inline auto make_chunk_kernel(Variant variant = {}, int key_waves = 4) {
  return kernel("paged_decode_chunks",
                Constraints{WorkgroupConstraint(G, BLOCK_G, 0), WorkgroupConstraint(HKV, 1, 1),
                            WorkgroupConstraint(BS, 1, 2), TilingConstraint(KC, BLOCK_KC),
                            WaveConstraint(G, BLOCK_G), WaveConstraint(KC, BLOCK_KC / key_waves),
                            HardwareConstraint{.vector_shapes = {{BS, 0}, {HKV, 0}}}},
                chunk_body(variant));
}

template <class Out = f16>
auto make_combine_kernel() {
  return kernel("paged_decode_combine",
                Constraints{WorkgroupConstraint(G, BLOCK_G, 0), WorkgroupConstraint(HKV, 1, 1),
                            WorkgroupConstraint(B, 1, 2), WaveConstraint(G, 2),
                            HardwareConstraint{.vector_shapes = {{B, 0}, {HKV, 0}}}},
                combine_body<Out>());
}

// A batch: `sequences` of up to `max_tokens` tokens in pages of `page` tokens, each cut
// into `splits` chunks. The cache's page count (PAGES) and the lengths are given at launch.
struct Shape {
  int sequences, heads, kv_heads, head_dim, page, max_tokens, splits;
  int max_pages() const { return (max_tokens + page - 1) / page; }
  int chunk() const { return (max_pages() * page + splits - 1) / splits; }
};

inline std::vector<Sub> chunk_sizes(const Shape& s) {
  return {{B, s.sequences},         {H, s.heads},   {HKV, s.kv_heads},       {G, s.heads / s.kv_heads},
          {D, s.head_dim},          {N, s.head_dim}, {PAGE, s.page},         {MAXP, s.max_pages()},
          {NSPLIT, s.splits},       {BS, s.sequences * s.splits},            {KC, s.chunk()},
          {BLOCK_G, 16},            {BLOCK_KC, 64}};
}

inline std::vector<Sub> combine_sizes(const Shape& s) {
  return {{B, s.sequences},   {H, s.heads},      {HKV, s.kv_heads},           {G, s.heads / s.kv_heads},
          {N, s.head_dim},    {NSPLIT, s.splits}, {BS, s.sequences * s.splits}, {SPLIT, s.splits},
          {BLOCK_G, 16}};
}

}  // namespace examples::paged_decode_attention
